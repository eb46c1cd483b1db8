"""Physical laws of the Lagrange method: constraint forces, Baumgarte's decay, drift without it, the
integrators' orders, velocity constraints."""
import numpy as np
import pytest

import impulsim as ims
from impulsim.methods.lagrange import LagrangeMethod
from tests.lagrange.scenes import free_box, pinned_cylinder
from impulsim.experiments.bender import double_pendulum as double_rod_pendulum
from impulsim.experiments.laws import rod_pendulum
from tests.verification.test_pendulum import reduced_double_pendulum

G = 9.81


def incline(phi, mass=2.0):
    """A box whose centre is held in a plane through the origin tilted by phi about y (Wagner's inclined
    plane, Sec. 3.5, in 3-D); the normal is (−sin φ, 0, cos φ)."""
    b = ims.ModelBuilder("incline")
    b.add_body("box", shapes=[ims.Box(size=(0.2, 0.2, 0.2))], mass=mass)
    b.add_joint("point_on_plane", "slope", "world", "box", anchor=(0, 0, 0), axis=(-np.sin(phi), 0, np.cos(phi)))
    b.add_joint("rotation_lock", "no_turn", "world", "box")
    return b.build()


@pytest.mark.parametrize("phi_deg", [10.0, 30.0, 60.0])
def test_inclined_plane_normal_force_and_acceleration(phi_deg):
    """Wagner's example: λ = −m g cos²φ for his unnormalized C = x tan φ − y, i.e. a normal force of
    magnitude m g cos φ (our row is the unit normal, so λ = m g cos φ itself), and the box slides with
    g sin φ along the slope (so x(t) = −½ g sin φ cos φ t²)."""
    phi = np.radians(phi_deg)
    model, state = incline(phi)
    method = LagrangeMethod(model, solver="dense")
    forces = method.constraint_forces(state)
    slope = forces.element("slope")
    assert slope["lam"] == pytest.approx([2.0 * G * np.cos(phi)], rel=1e-12)
    normal = np.array([-np.sin(phi), 0, np.cos(phi)])
    assert np.allclose(slope["force_b"], 2.0 * G * np.cos(phi) * normal, atol=1e-12)
    for _ in range(1000):
        method.step(state, 1e-3)
    # constant acceleration: RK4 is exact up to round-off
    assert state.body_pos[1, 0] == pytest.approx(-0.5 * G * np.sin(phi) * np.cos(phi), rel=1e-9)


def test_pendulum_joint_carries_weight_plus_centripetal_force():
    """A rod on a hinge passing its lowest point with angular speed w: the hinge pulls with m (g + w² d)
    straight up (no tangential part, since the angular acceleration is zero there)."""
    model, state = rod_pendulum(0.0)
    w = 3.0
    state.body_omega[1] = (w, 0, 0)
    d = 0.5
    state.body_vel[1] = np.cross(state.body_omega[1], state.body_pos[1])
    m = model.body_mass[1]
    forces = LagrangeMethod(model).constraint_forces(state).element("pivot")
    assert np.allclose(forces["force_b"], [0, 0, m * (G + w * w * d)], rtol=1e-12, atol=1e-9)
    assert np.allclose(forces["torque_b"], 0.0, atol=1e-9)


ALPHA = 5.0
# RK4 at h = 1 ms follows the decay curve to ~1e-12 of the initial error; 1e-8 relative is generous
DECAY_TOL = 1e-8


def broken_ball(gap=0.01):
    """A box at rest (no gravity) whose ball joint to the world starts ``gap`` [m] apart."""
    b = ims.ModelBuilder("broken ball", gravity=(0, 0, 0))
    b.add_body("box", shapes=[ims.Box(size=(0.2, 0.2, 0.2))], mass=1.0)
    b.add_ball("pin", "world", "box", anchor_a=(0.1 + gap, 0, 0), anchor_b=(0.1, 0, 0))
    return b.build()


@pytest.mark.parametrize("gamma", [1.0, 2.0])
def test_baumgarte_error_follows_its_damped_equation(gamma):
    """C̈ + 2αĊ + β²C = 0 from C(0) = c0, Ċ(0) = 0: C = c0 (1 + αt) e^(−αt) for β = α (γ = 1), and
    C = c0 e^(−αt) (cos ωt + (α/ω) sin ωt), ω = α √(γ² − 1), for γ > 1 (Wagner eq. 3.20)."""
    model, state = broken_ball()
    method = LagrangeMethod(model, alpha=ALPHA, gamma=gamma)
    c0 = -0.01
    for step in range(1, 1001):
        method.step(state, 1e-3)
        if step % 250:
            continue
        t = state.t
        if gamma == 1.0:
            expect = c0 * (1 + ALPHA * t) * np.exp(-ALPHA * t)
        else:
            om = ALPHA * np.sqrt(gamma ** 2 - 1)
            expect = c0 * np.exp(-ALPHA * t) * (np.cos(om * t) + ALPHA / om * np.sin(om * t))
        # C = b − a = x − gap along x
        assert state.body_pos[1, 0] - 0.01 == pytest.approx(expect, abs=DECAY_TOL * abs(c0))


def test_without_stabilization_an_error_is_never_corrected():
    """With C̈ = 0 alone (no Baumgarte) a joint that starts broken at rest stays exactly as broken."""
    model, state = broken_ball()
    method = LagrangeMethod(model, stabilization="none")
    for _ in range(500):
        method.step(state, 1e-3)
    assert method.constraint_errors(state)[0] == pytest.approx(0.01, abs=1e-12)


def test_without_stabilization_the_double_pendulum_drifts_and_baumgarte_holds_it():
    """Integration errors accumulate in C when nothing pulls them back (Wagner 3.6): after 5 s at
    h = 10 ms the unstabilized joints are off by far more than the stabilized ones."""
    errors = {}
    for stab in ("none", "baumgarte"):
        model, state = double_rod_pendulum(np.pi / 2, np.pi / 2)
        method = LagrangeMethod(model, stabilization=stab, integrator="rk2")
        for _ in range(500):
            method.step(state, 0.01)
        errors[stab] = ims.diagnostics.constraint_errors(model, state).max()
    assert errors["none"] > 1e-4
    assert errors["baumgarte"] < errors["none"] / 100


def double_pendulum_error(integrator, h, t_end=0.5):
    model, state = double_rod_pendulum(np.pi / 2, np.pi / 2)
    method = LagrangeMethod(model, integrator=integrator, solver="baraff")
    sim = ims.Simulation(model, state, method=method, h=h)
    sim.run(t_end)
    t1 = np.pi / 2 + ims.diagnostics.joint_coordinate(model, sim.state, "shoulder")
    t2 = t1 + ims.diagnostics.joint_coordinate(model, sim.state, "elbow")
    r1, r2 = reduced_double_pendulum(model, (np.pi / 2, np.pi / 2), t_end)
    return max(abs(t1 - r1), abs(t2 - r2))


@pytest.mark.parametrize("integrator, order, h", [("euler", 1, 2e-3), ("rk2", 2, 4e-3), ("rk4", 4, 2e-2)])
def test_integrators_converge_with_their_order(integrator, order, h):
    """Halving h divides the error after 0.5 s by 2^order (within ±0.4 in the exponent: the leading
    term dominates but is not alone at these step sizes)."""
    e1, e2 = double_pendulum_error(integrator, h), double_pendulum_error(integrator, h / 2)
    assert abs(np.log2(e1 / e2) - order) < 0.4, f"observed order {np.log2(e1 / e2):.2f}"


def test_adaptive_integrator_meets_its_tolerance_with_large_steps():
    """rk45 at h = 50 ms sub-steps on its own; the angle error after 0.5 s stays near its tolerance."""
    assert double_pendulum_error("rk45", 0.05) < 1e-6


def test_velocity_constraint_decays_at_rate_alpha():
    """An EqualVelocity point at rest (velocity rows Ċ + αC = 0): a box pushed at 1 m/s loses that
    velocity as e^(−αt) while gravity-free."""
    from impulsim.methods.lagrange import EqualVelocity
    model, state = free_box(velocity=(1.0, 0, 0))
    method = LagrangeMethod(model, alpha=ALPHA, constraints=[EqualVelocity("brake", "world", "box")])
    for _ in range(400):
        method.step(state, 1e-3)
    assert state.body_vel[1, 0] == pytest.approx(np.exp(-ALPHA * 0.4), rel=1e-9)


def test_model_velocity_joint_drives_a_box_at_its_prescribed_velocity():
    b = ims.ModelBuilder("conveyor")
    b.add_body("box", shapes=[ims.Box(size=(0.2, 0.2, 0.2))], mass=1.0)
    b.add_velocity_joint("drive", "world", "box", anchor=(0, 0, 0), velocity=(0.5, 0, 0),
                         angular_velocity=(0, 0, 1.0))
    model, state = b.build()
    method = LagrangeMethod(model)
    for _ in range(3000):
        method.step(state, 1e-3)
    # the initial velocity error (0.5 m/s, 1 rad/s) decays as e^(−5·3) ≈ 3e-7 of itself
    assert np.allclose(state.body_vel[1], [0.5, 0, 0], atol=1e-6)
    assert np.allclose(state.body_omega[1], [0, 0, 1.0], atol=1e-6)


def test_hovering_cylinder_constraint_forces_cancel_along_the_axis():
    """The minimum-norm λ has no part along the self-cancelling direction (both pins pulling outwards
    equally does nothing to the motion), so the pins do not stretch the cylinder: their axial forces are
    equal (both only slow the last of the centring motion); together they carry the weight."""
    model, state = pinned_cylinder()
    method = LagrangeMethod(model, solver="dense_svd")
    for _ in range(3000):
        method.step(state, 1e-3)
    forces = method.constraint_forces(state)
    left, right = forces.element("left")["force_b"], forces.element("right")["force_b"]
    assert abs(left[0] - right[0]) < 1e-9 and abs(left[0]) < 1e-3
    assert left[2] + right[2] == pytest.approx(model.body_mass[1] * G, rel=1e-9)
