"""Moreau's scheme against analytic contact results: Coulomb sliding to rest on an incline, Newton's
impact law on a bouncing ball, and contact forces that balance gravity at rest."""
import numpy as np
import pytest

from impulsim.methods.moreau import MoreauMethod
from impulsim.experiments.rempfler import (G, apex_heights, bouncing_ball, incline_box, measured_apexes,
                                            stopping_distance)

# The incline needs the percussions far below the step's error: the thesis's e_a = 1e-4 N s leaves a
# 1 kg box creeping at up to 1e-4 m/s; 1e-9 N s leaves 1e-9 m/s.
E_A_TIGHT = 1e-9


def slide(h):
    """Distance [m] the box travels downhill before it sticks, and its final speed [m/s]."""
    model, state, downhill = incline_box()
    method = MoreauMethod(model, e_a=E_A_TIGHT)
    start = state.body_pos[2].copy()
    for _ in range(int(1.2 / h)):              # it stops after v0/a ≈ 0.91 s
        method.step(state, h)
    return float(np.dot(state.body_pos[2] - start, downhill)), float(np.linalg.norm(state.body_vel[2]))


@pytest.mark.parametrize("h", [2e-3, 1e-3])
def test_box_slides_to_rest_at_the_coulomb_stopping_distance(h):
    distance, speed = slide(h)
    assert speed < 1e-6                         # stuck (static friction holds it on the 15° slope)
    # Constant deceleration is integrated exactly by the midpoint scheme; the error is set in the first two
    # steps, when rounding of the initial zero gap closes one edge of the box before the other and the box
    # pitches for a step under gravity: O(g h²) (measured 0.8 g h²).
    assert abs(distance - stopping_distance()) < G * h * h


def test_stopping_distance_error_is_second_order():
    e1 = abs(slide(2e-3)[0] - stopping_distance())
    e2 = abs(slide(1e-3)[0] - stopping_distance())
    assert e1 / e2 > 3.0        # 4 for second order, less the higher-order remainder


def bounce(h, restitution=0.5, t_end=1.6):
    model, state = bouncing_ball(restitution=restitution)
    method = MoreauMethod(model)
    z = []
    for _ in range(int(t_end / h)):
        method.step(state, h)
        z.append(state.body_pos[2, 2] - 0.1)     # lowest point of the ball (radius 0.1 m)
    return measured_apexes(z)


@pytest.mark.parametrize("h", [1e-3, 5e-4])
def test_ball_bounces_to_the_newton_apex_heights(h):
    apexes = bounce(h)[:3]
    # The impact is applied in the step whose midpoint penetrates: the impact point is off by at most one
    # step of travel at the impact speed, v0 h with v0 = √(2 g h0), and the reversed speed by g h.
    v0 = np.sqrt(2 * G * 1.0)
    assert len(apexes) == 3
    assert np.abs(apexes - apex_heights(n=3)).max() < v0 * h


def test_ball_without_restitution_stays_down():
    model, state = bouncing_ball(restitution=0.0)
    method = MoreauMethod(model)
    z = []
    for _ in range(1000):
        method.step(state, 1e-3)
        z.append(state.body_pos[2, 2] - 0.1)
    landed = int(np.argmax(np.array(z) < 1e-3))
    assert landed > 0
    # after landing it never rises again; it rests where the impact step left it: the scheme has no position
    # correction (the thesis does not use the penetration depth), and the midpoint may sink up to one step
    # of travel at the impact speed, v0 h
    assert np.diff(z[landed:]).max() <= 1e-12
    assert -np.sqrt(2 * G * 1.0) * 1e-3 <= z[-1] <= 0.0
    assert np.linalg.norm(state.body_vel[2]) < 1e-9


def test_resting_contact_force_balances_gravity():
    """A ball at rest on the ground: the mean contact force over a step is m g up (thesis eq. 2.45)."""
    model, state = bouncing_ball(drop=0.0)
    method = MoreauMethod(model)
    for _ in range(50):
        method.step(state, 1e-3)
    force, torque = method.contact_load("ball")
    # the single contact's percussion is exact after one sweep (r = 1/G), to round-off
    assert np.allclose(force, [0.0, 0.0, 1.0 * G], rtol=1e-9, atol=1e-9)
    assert np.allclose(torque, 0.0, atol=1e-9)
    ground, _ = method.contact_load("ground")
    assert np.allclose(ground, -force, atol=1e-9)   # action = reaction


def test_box_at_rest_on_a_steep_enough_incline_holds_by_friction():
    """μ = 0.5 > tan 15°: the contacts carry the full weight, normal and tangential (force = −m g)."""
    model, state, _ = incline_box(speed=0.0)
    method = MoreauMethod(model, e_a=E_A_TIGHT)
    for _ in range(200):
        method.step(state, 1e-3)
    force, _ = method.contact_load("box")
    assert np.linalg.norm(state.body_vel[2]) < 1e-6
    # tolerance: the stop criterion e_a = 1e-9 N s per row, 12 rows, over h = 1e-3 s
    assert np.allclose(force, -model.gravity * 1.0, atol=12 * E_A_TIGHT / 1e-3)


@pytest.mark.parametrize("restitution", [0.0, 0.5, 1.0])
def test_two_spheres_collide_by_newtons_law_and_keep_momentum(restitution):
    """Head-on, no gravity, masses 1 and 3 kg: the relative normal velocity reverses times e (ξ_N = γ^E + e γ^B
    = 0 for a closed contact) and the total momentum is unchanged (the percussions are opposite and equal)."""
    import impulsim as ims
    b = ims.ModelBuilder("two spheres", gravity=(0, 0, 0))
    b.add_material("m", restitution=float(restitution), static_friction=0.0, dynamic_friction=0.0)
    b.add_body("a", shapes=[ims.Sphere(radius=0.1, material="m")], mass=1.0, position=(-0.3, 0, 0),
               velocity=(2.0, 0, 0))
    b.add_body("b", shapes=[ims.Sphere(radius=0.1, material="m")], mass=3.0, position=(0.3, 0, 0),
               velocity=(-1.0, 0, 0))
    model, state = b.build()
    method = MoreauMethod(model, e_r=1e-12, e_a=1e-14)
    p0 = model.body_mass[1] * state.body_vel[1] + model.body_mass[2] * state.body_vel[2]
    for _ in range(300):
        method.step(state, 1e-3)
    p1 = model.body_mass[1] * state.body_vel[1] + model.body_mass[2] * state.body_vel[2]
    assert np.allclose(p1, p0, atol=1e-12)
    # the contact normal is x (both centres stay on the x axis); approach speed 3 m/s
    assert state.body_vel[2, 0] - state.body_vel[1, 0] == pytest.approx(restitution * 3.0, abs=1e-9)


def test_box_sliding_on_a_free_plank_drags_it_to_a_common_speed():
    """A 1 kg box at 2 m/s on a 3 kg plank that glides without friction on the ground (μ box–plank 0.5):
    friction is internal, so the horizontal momentum stays 2 kg m/s and both end at 0.5 m/s; the box slides
    v_rel² / (2 μ g (1 + m_box/m_plank)) = 0.306 m over the plank."""
    import impulsim as ims
    from impulsim.geometry import HalfSpace
    b = ims.ModelBuilder("box on plank")
    b.add_material("slick", static_friction=0.0, dynamic_friction=0.0, restitution=0.0)
    b.add_material("rough", static_friction=0.5, dynamic_friction=0.5, restitution=0.0)
    b.add_body("ground", shapes=[HalfSpace(material="slick")], static=True)
    b.add_body("plank", shapes=[ims.Box(size=(3.0, 0.5, 0.1), material="slick")], mass=3.0, position=(0, 0, 0.05))
    b.add_body("box", shapes=[ims.Box(size=(0.2, 0.2, 0.1), material="rough")], mass=1.0, position=(-1.0, 0, 0.15),
               velocity=(2.0, 0, 0))
    model, state = b.build()
    method = MoreauMethod(model, e_a=E_A_TIGHT)
    start = state.body_pos[3, 0] - state.body_pos[2, 0]
    for _ in range(600):
        method.step(state, 1e-3)
    momentum = 3.0 * state.body_vel[2, 0] + 1.0 * state.body_vel[3, 0]
    assert momentum == pytest.approx(2.0, abs=1e-6)
    assert state.body_vel[2, 0] == pytest.approx(0.5, abs=1e-5)
    assert state.body_vel[3, 0] == pytest.approx(0.5, abs=1e-5)
    slid = state.body_pos[3, 0] - state.body_pos[2, 0] - start
    expected = 2.0 ** 2 / (2 * 0.5 * G * (1 + 1.0 / 3.0))
    # as on the incline: exact constant deceleration, O(g h²) from the start and the sticking step; with two
    # four-cornered contacts (box on plank, plank on ground) the start transient measured up to 1.5 g h²
    assert slid == pytest.approx(expected, abs=3 * G * 1e-6)


def test_box_on_a_kinematic_conveyor_is_dragged_up_to_the_belt_speed():
    """A kinematic belt moving at 1 m/s under a box at rest: friction accelerates the box at μ g until it
    moves with the belt, after t = v / (μ g) and a slip of v² / (2 μ g) relative to the belt."""
    import impulsim as ims
    mu, v = 0.4, 1.0
    b = ims.ModelBuilder("conveyor")
    b.add_material("belt", static_friction=0.0, dynamic_friction=0.0, restitution=0.0)
    b.add_material("box", static_friction=mu, dynamic_friction=mu, restitution=0.0)
    b.add_body("belt", shapes=[ims.Box(size=(10.0, 1.0, 0.1), material="belt")], kinematic=True,
               position=(0, 0, -0.05), velocity=(v, 0, 0))
    b.add_body("box", shapes=[ims.Box(size=(0.2, 0.2, 0.2), material="box")], mass=1.0, position=(0, 0, 0.1))
    model, state = b.build()
    method = MoreauMethod(model, e_a=E_A_TIGHT)
    h = 1e-3
    t_slip = v / (mu * G)
    for _ in range(int(round(0.5 * t_slip / h))):
        method.step(state, h)
    # half-way through the slip the box moves at half the belt speed (constant acceleration μ g)
    assert state.body_vel[2, 0] == pytest.approx(0.5 * v, abs=G * mu * h)
    for _ in range(int(round(t_slip / h))):
        method.step(state, h)
    assert state.body_vel[2, 0] == pytest.approx(v, abs=1e-6)
    assert state.body_pos[1, 0] == pytest.approx(v * state.t, rel=1e-12)      # the belt keeps its motion
    slip = state.body_pos[1, 0] - state.body_pos[2, 0]
    # constant acceleration is exact in the scheme; the start and the sticking step add O(g h²) as on the
    # incline (measured 0.5 g h²)
    assert slip == pytest.approx(v ** 2 / (2 * mu * G), abs=G * h * h)


def test_contacts_off_lets_the_ball_fall_through_the_ground():
    """contacts=False: no detection, so the ball falls freely; the midpoint rule is exact for constant g."""
    model, state = bouncing_ball()
    method = MoreauMethod(model, contacts=False)
    z0, h, n = state.body_pos[2, 2], 1e-3, 600
    for _ in range(n):
        info = method.step(state, h)
        assert info.n_contacts == 0
    assert state.body_pos[2, 2] == pytest.approx(z0 - 0.5 * G * (n * h) ** 2, abs=1e-9)
    assert state.body_pos[2, 2] < 0.0            # through the ground: the centre started at 1.1 m and fell 1.77 m
