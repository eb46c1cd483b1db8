"""Wagner's extra constraints and force elements, and the errors for bad input."""
import numpy as np
import pytest

import impulsim as ims
from impulsim.methods.lagrange import (LagrangeMethod, PointToFunction, PointToPath, VelocityToFunction,
                                       BezierCurve, Polynomial, VectorForce, SpringForce, TrajectoryForce,
                                       GravityField, DampingField, RadialField, ForceElementsHook)
from tests.lagrange.scenes import free_box

# the Baumgarte transient from a violated start decays as (1 + αt) e^(−αt): after 4 s at α = 5 it is
# ~4e-8 of the initial violation; RK4 at 1 ms adds ~1e-10
SETTLED = 1e-6


def run(method, state, seconds, h=1e-3):
    for _ in range(int(round(seconds / h))):
        method.step(state, h)


def circle(radius=0.5, w=2.0):
    def f(t):
        c, s = np.cos(w * t), np.sin(w * t)
        return (np.array([radius * c, radius * s, 1.0]), np.array([-radius * w * s, radius * w * c, 0.0]),
                np.array([-radius * w * w * c, -radius * w * w * s, 0.0]))
    return f


def test_point_to_function_follows_a_circle():
    model, state = free_box(gravity=(0, 0, -9.81))
    f = circle()
    method = LagrangeMethod(model, constraints=[PointToFunction("orbit", "box", f, anchor=(0.2, 0, 0))])
    run(method, state, 4.0)
    corner = state.body_pos[1] + ims.math.quat_rotate(state.body_quat[1], np.array([0.2, 0, 0]))
    assert np.linalg.norm(corner - f(state.t)[0]) < SETTLED


def test_velocity_to_function_follows_a_polynomial_velocity():
    model, state = free_box()
    poly = Polynomial([[0.5, 0.0, 0.0], [0.0, 0.2, 0.0]])      # v(t) = (0.5, 0.2 t, 0)
    method = LagrangeMethod(model, constraints=[VelocityToFunction("drive", "box", poly)])
    run(method, state, 4.0)
    assert np.allclose(state.body_vel[1], poly(state.t)[0], atol=SETTLED)


@pytest.mark.parametrize("at_end", ["stop", "reverse"])
def test_point_to_path_travels_at_its_speed_and_stops_or_turns(at_end):
    """A straight Bézier path 2 m long along x travelled at 0.5 m/s: after the start-up the box moves at
    0.5 m/s along it; after 4 s it has reached the end, where it stops or comes back."""
    model, state = free_box()
    path = BezierCurve([[0, 0, 0], [1, 0, 0], [2, 0, 0]])
    method = LagrangeMethod(model, constraints=[PointToPath("rail", "box", path, speed=0.5, at_end=at_end)])
    run(method, state, 2.0)
    assert state.body_vel[1, 0] == pytest.approx(0.5, abs=1e-3)
    assert np.abs(state.body_pos[1, 1:]).max() < SETTLED
    run(method, state, 4.0)
    x, vx = state.body_pos[1, 0], state.body_vel[1, 0]
    if at_end == "stop":
        assert x == pytest.approx(2.0, abs=1e-3) and abs(vx) < 1e-3
    else:
        assert x < 1.9 and vx == pytest.approx(-0.5, abs=1e-2)


def test_vector_force_accelerates_a_free_body():
    model, state = free_box(mass=2.0)
    method = LagrangeMethod(model, forces=[VectorForce("push", "box", (4.0, 0, 0))])
    run(method, state, 1.0)
    assert state.body_vel[1, 0] == pytest.approx(2.0, rel=1e-12)   # a = F/m = 2 m/s²


def test_spring_force_oscillates_with_its_period():
    """Mass 2 kg on a spring of 50 N/m to a fixed point: x(t) = x0 cos(√(k/m) t) exactly."""
    model, state = free_box(mass=2.0, position=(1.2, 0, 0))
    method = LagrangeMethod(model, forces=[SpringForce("spring", "world", "box", 50.0, rest_length=1.0)])
    run(method, state, 2.0)
    # RK4 at h = 1 ms with ω = 5 rad/s: phase error ~ (ωh)⁴ ω t ≈ 6e-12
    assert state.body_pos[1, 0] - 1.0 == pytest.approx(0.2 * np.cos(5.0 * 2.0), abs=1e-9)


def test_trajectory_force_brings_the_follower_onto_the_leader():
    b = ims.ModelBuilder("follow", gravity=(0, 0, 0))
    b.add_body("leader", mass=1.0, inertia=(1, 1, 1), kinematic=True, velocity=(0.3, 0, 0))
    b.add_body("follower", mass=5.0, inertia=(1, 1, 1), position=(0, 1.0, 0))
    model, state = b.build()
    method = LagrangeMethod(model, forces=[TrajectoryForce("track", "leader", "follower", alpha=20.0)])
    run(method, state, 5.0)
    # the damping acts on the follower's own velocity, so it trails by β √(2α) v / α ≈ 0.095 m
    lag = np.sqrt(2 * 20.0) * 0.3 / 20.0
    assert np.allclose(state.body_pos[2], state.body_pos[1] - [lag, 0, 0], atol=1e-3)


def test_force_fields():
    model, state = free_box(mass=3.0, position=(2.0, 0, 0), velocity=(0, 1.0, 0))
    fields = [GravityField(g=(0, 0, -2.0)), DampingField(k=0.5), RadialField("r", (0, 0, 0), k=0.0)]
    method = LagrangeMethod(model, forces=fields)
    run(method, state, 1.0)
    # v_y = e^(−k t); v_z = −(g/k)(1 − e^(−k t))
    assert state.body_vel[1, 1] == pytest.approx(np.exp(-0.5), rel=1e-10)
    assert state.body_vel[1, 2] == pytest.approx(-4.0 * (1 - np.exp(-0.5)), rel=1e-10)
    model, state = free_box(mass=3.0, position=(2.0, 0, 0))
    method = LagrangeMethod(model, forces=[RadialField("r", (0, 0, 0), k=-6.0)])
    assert method.constraint_forces(state).load.shape == (2, 6)
    method.eval.begin_step(state, 1e-3)
    method.eval.accelerations(0.0, state.body_pos, state.body_quat, state.body_vel, state.body_omega)
    assert method.eval.acc6[1, 0] == pytest.approx(-6.0 / 2.0 / 3.0)   # k/r / m


def test_hook_makes_force_elements_act_in_the_impulse_method():
    """The same spring through ForceElementsHook in the impulse method: period 2π√(m/k) to the
    first-order accuracy of loads held over a step (relative error ~ h ω = 5e-3 bound)."""
    model, state = free_box(mass=2.0, position=(1.2, 0, 0))
    sim = ims.Simulation(model, state, method="impulse", h=1e-3)
    sim.before_step.append(ForceElementsHook(model, [SpringForce("s", "world", "box", 50.0, rest_length=1.0)]))
    xs = []
    for _ in range(3000):
        sim.step()
        xs.append(sim.state.body_pos[1, 0] - 1.0)
    xs = np.array(xs)
    up = np.nonzero((xs[:-1] < 0) & (xs[1:] >= 0))[0]
    period = np.mean(np.diff(up)) * 1e-3
    assert period == pytest.approx(2 * np.pi / 5.0, rel=5e-3)


def test_bad_input_is_named():
    model, state = free_box()
    with pytest.raises(ims.ModelError, match='constraint "c".*"nobody"'):
        LagrangeMethod(model, constraints=[PointToFunction("c", "nobody", circle())])
    with pytest.raises(ims.ModelError, match='force "s".*"ghost"'):
        LagrangeMethod(model, forces=[SpringForce("s", "ghost", "box", 1.0)])
    with pytest.raises(ims.ModelError, match='constraint "w".*static or kinematic'):
        LagrangeMethod(model, constraints=[PointToFunction("w", "world", circle())])
    with pytest.raises(ims.ModelError, match='at_end'):
        PointToPath("p", "box", [[0, 0, 0], [1, 0, 0]], speed=1.0, at_end="loop")
    with pytest.raises(ValueError, match="unknown Lagrange solver 'cg'"):
        LagrangeMethod(model, solver="cg")
    with pytest.raises(ValueError, match="unknown integrator 'rk3'"):
        LagrangeMethod(model, integrator="rk3")
    with pytest.raises(ValueError, match="alpha must be positive"):
        LagrangeMethod(model, alpha=-1.0)


def test_mass_point_model_is_refused_by_name():
    from impulsim.experiments import schmitt as scenes
    mp_model, _ = scenes.pendulum()
    with pytest.raises(ims.UnsupportedFeatureError, match='lagrange.*point masses: body "bob"'):
        LagrangeMethod(mp_model)
