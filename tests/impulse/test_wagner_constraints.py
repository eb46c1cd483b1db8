"""Wagner's path, function and velocity constraints in the impulse method, kept by impulses like joints
with a moving target: each test checks the constraint at the end of every step against the tolerance the
method promises (eps_d for points, eps_v for velocities), and the reactions against Newton's laws."""
import numpy as np
import pytest

import impulsim as ims
from impulsim.math import quat_rotate
from impulsim.methods.impulse.method import ImpulseMethod
from impulsim.methods.lagrange import (PointToFunction, PointToPath, VelocityToFunction, EqualVelocity,
                                       BezierCurve, Polynomial)

EPS_D, EPS_V = 1e-6, 1e-6
ROUND = 1e-12       # floating-point slack on top of a tolerance [m or m/s]


def box(gravity=(0, 0, -9.81), position=(0, 0, 0), mass=2.0, name="box"):
    b = ims.ModelBuilder(name, gravity=gravity)
    b.add_body("box", shapes=[ims.Box(size=(0.4, 0.3, 0.2))], mass=mass, position=position)
    return b


def point(state, k, anchor):
    return state.body_pos[k] + quat_rotate(state.body_quat[k], np.asarray(anchor, float))


def point_velocity(state, k, anchor):
    r = quat_rotate(state.body_quat[k], np.asarray(anchor, float))
    return state.body_vel[k] + np.cross(state.body_omega[k], r)


def circle(radius=0.5, w=2.0, centre=(0, 0, 1.0)):
    """A horizontal circle run at w [rad/s]: (f, ḟ, f̈)."""
    c0 = np.asarray(centre, float)

    def f(t):
        c, s = np.cos(w * t), np.sin(w * t)
        return (c0 + [radius * c, radius * s, 0.0], np.array([-radius * w * s, radius * w * c, 0.0]),
                np.array([-radius * w * w * c, -radius * w * w * s, 0.0]))
    return f


# a point follows a path at the set speed -------------------------------------------------------------------
@pytest.mark.parametrize("speed", [0.5, 3.0])
def test_point_follows_a_curved_path_at_its_speed(speed):
    """A box corner on a curved Bézier path (about 2.4 m long) under gravity: at the end of every step
    the corner is within eps_d of the curve, and it advances along it at the set speed (chord per step
    over h; chord and arc differ by ~(speed h κ)²/24, far below 1 %)."""
    anchor = (0.2, 0.15, 0.1)
    path = BezierCurve([[0.2, 0.15, 0.1], [1.0, 1.0, 0.5], [2.0, -0.5, 0.3]])
    model, state = box().build()
    m = ImpulseMethod(model, eps_d=EPS_D, eps_v=EPS_V,
                      constraints=[PointToPath("rail", "box", path, speed=speed, anchor=anchor)])
    h = 1e-3
    prev = point(state, 1, anchor)
    u = 0.0
    steps = int(0.6 / speed / h) + 10
    for k in range(steps):
        m.step(state, h)
        p = point(state, 1, anchor)
        u = path.closest_parameter(p, u)
        assert np.linalg.norm(p - path.point(u)) <= EPS_D + ROUND
        if k > 0:
            assert np.linalg.norm(p - prev) / h == pytest.approx(speed, rel=1e-2)
        prev = p
    assert u < 1.0


# a point follows a function of time -------------------------------------------------------------------------
@pytest.mark.parametrize("scheme", ["standard", "order2"])
@pytest.mark.parametrize("w", [2.0, 20.0])
def test_point_follows_a_function_of_time(scheme, w):
    """A box point on a circle of 0.5 m at 2 and 20 rad/s (10 m/s, 200 m/s² centripetal) under gravity,
    starting at the circle's start with the box moving at ḟ(0) (from rest, the 10 m/s jump would be cut
    by the correction-speed clamp over the first steps): |P − f(t)| ≤ eps_d after every step."""
    rng = np.random.default_rng(7)
    anchor = rng.uniform(-0.2, 0.2, 3)
    f = circle(w=w)
    model, state = box(position=f(0.0)[0] - anchor).build()
    state.body_vel[1] = f(0.0)[1]
    m = ImpulseMethod(model, scheme=scheme, constraints=[PointToFunction("orbit", "box", f, anchor=anchor)])
    for _ in range(1500):
        m.step(state, 1e-3)
        assert np.linalg.norm(point(state, 1, anchor) - f(state.t)[0]) <= EPS_D + ROUND


def driven_rod(solver, L=1.0, mass=2.0, w=3.0, g=9.81):
    """A rod hinged at one end about y whose free end is driven around the hinge at w [rad/s] by a
    PointToFunction (the circle its hinge allows), starting at the horizontal with the matching spin."""
    b = ims.ModelBuilder("driven rod", gravity=(0, 0, -g))
    b.add_body("rod", shapes=[ims.Box(size=(L, 0.05, 0.05))], mass=mass, position=(L / 2, 0, 0),
               angular_velocity=(0, w, 0), velocity=(0, 0, -w * L / 2))
    b.add_hinge("hinge", "world", "rod", anchor=(0, 0, 0), axis=(0, 1, 0))
    model, state = b.build()

    def f(t):
        c, s = np.cos(w * t), np.sin(w * t)
        return (np.array([L * c, 0, -L * s]), np.array([-L * w * s, 0, -L * w * c]),
                np.array([-L * w * w * c, 0, L * w * w * s]))
    m = ImpulseMethod(model, solver=solver, constraints=[PointToFunction("tip", "rod", f, anchor=(L / 2, 0, 0))])
    return m, state, f


@pytest.mark.parametrize("solver", ["iterative", "lgs"])
def test_point_follows_a_function_against_a_hinge_and_the_hinge_shares_the_load(solver):
    """The driven rod turns at constant speed, so the torque about the hinge is zero: the tip carries half
    of the weight's component across the rod, and the hinge (which cannot push about its axis) the other
    half; a free pendulum's hinge would carry a quarter. The tip stays within eps_d of f(t) at every
    step; the hinge's impulse is the rod's momentum change minus gravity and the tip's impulse.
    Tolerance 1 % of the weight: the impulses per step are exact to eps_v m (~1e-6 N s) and the load
    varies by ω h = 0.3 % across a step."""
    mass, g, w, h = 2.0, 9.81, 3.0, 1e-3
    m, state, f = driven_rod(solver, mass=mass, w=w, g=g)
    gravity = np.array([0, 0, -g])
    for k in range(2100):                   # a full turn and then some
        v0 = state.body_vel[1].copy()
        m.step(state, h)
        assert np.linalg.norm(point(state, 1, (0.5, 0, 0)) - f(state.t)[0]) <= EPS_D + ROUND
        if k < 5:
            continue                        # the start-up step sets the rod's spin to the target's
        tip = m.constraint_impulses()["tip"] / h
        hinge = mass * (state.body_vel[1] - v0) / h - mass * gravity - tip
        phi = w * state.t
        across = np.array([-np.sin(phi), 0, -np.cos(phi)])     # the direction of travel at the tip
        half = -0.5 * mass * (gravity @ across)
        assert tip @ across == pytest.approx(half, abs=0.01 * mass * g)
        assert hinge @ across == pytest.approx(half, abs=0.01 * mass * g)
        assert abs(hinge[1]) <= 1e-3 * mass * g                # nothing acts along the hinge axis


# a velocity follows a function of time ----------------------------------------------------------------------
@pytest.mark.parametrize("solver", ["iterative", "lgs"])
def test_velocity_follows_a_function_of_time(solver):
    """The velocity of a box corner follows v(t) = (0.5, 0.2 t, 3 t²) under gravity while a second box
    hangs from the first by a ball joint: |Ṗ − v(t)| ≤ eps_v after every step, and the joint holds."""
    b = box()
    b.add_body("hanging", shapes=[ims.Box(size=(0.2, 0.2, 0.2))], mass=1.0, position=(0.0, 0.0, -0.5))
    b.add_ball("ball", "box", "hanging", anchor=(0, 0, -0.3))
    model, state = b.build()
    anchor = (0.2, -0.15, 0.1)
    v = Polynomial([[0.5, 0.0, 0.0], [0.0, 0.2, 0.0], [0.0, 0.0, 3.0]])
    m = ImpulseMethod(model, solver=solver, constraints=[VelocityToFunction("drive", "box", v, anchor=anchor)])
    for _ in range(1000):
        info = m.step(state, 1e-3)
        assert np.linalg.norm(point_velocity(state, 1, anchor) - v(state.t)[0]) <= EPS_V + ROUND
        assert info.converged_vel and info.converged_pos


def test_equal_velocity_between_two_bodies():
    """Two boxes spinning at random speeds: EqualVelocity of one point on each makes the points move alike
    (|Ṗ_a − Ṗ_b| ≤ eps_v after every step) and keeps the linear momentum (the impulses are equal and
    opposite)."""
    rng = np.random.default_rng(3)
    b = box(gravity=(0, 0, 0))
    b.add_body("other", shapes=[ims.Box(size=(0.2, 0.3, 0.1))], mass=0.7, position=(1.0, 0, 0),
               velocity=rng.normal(size=3), angular_velocity=3 * rng.normal(size=3))
    model, state = b.build()
    state.body_omega[1] = 3 * rng.normal(size=3)
    a_anchor, b_anchor = (0.1, 0.1, 0.0), (0.0, 0.1, 0.05)     # in each body's own frame
    m = ImpulseMethod(model, contacts=False, constraints=[EqualVelocity("same", "box", "other", anchor_a=a_anchor,
                                                                        anchor_b=b_anchor)])
    momentum = 2.0 * state.body_vel[1] + 0.7 * state.body_vel[2]
    for _ in range(500):
        m.step(state, 1e-3)
        va = point_velocity(state, 1, a_anchor)
        vb = point_velocity(state, 2, b_anchor)
        assert np.linalg.norm(va - vb) <= EPS_V + ROUND
    assert 2.0 * state.body_vel[1] + 0.7 * state.body_vel[2] == pytest.approx(momentum, abs=1e-12)


# the method's contracts --------------------------------------------------------------------------------------
def test_run_steps_in_python_and_equals_single_steps():
    m, state, _ = driven_rod("lgs")
    assert m.run_path == "python"
    m2, state2, _ = driven_rod("lgs")
    m.run(state, 1e-3, 50)
    for _ in range(50):
        m2.step(state2, 1e-3)
    assert np.array_equal(state.body_pos, state2.body_pos) and np.array_equal(state.body_vel, state2.body_vel)


def test_a_failed_step_leaves_state_and_path_as_before():
    path = BezierCurve([[0, 0, 0], [1, 0, 0], [2, 1, 0]])

    def breaks(t):
        if t > 0.0105:
            raise RuntimeError("no value after 10 ms")
        return np.zeros(3), np.zeros(3), np.zeros(3)
    b = box(gravity=(0, 0, 0))
    b.add_body("other", shapes=[ims.Box(size=(0.2, 0.2, 0.2))], mass=1.0, position=(0, 0, -1))
    model, state = b.build()
    rail = PointToPath("rail", "box", path, speed=1.0)
    m = ImpulseMethod(model, contacts=False, constraints=[rail, VelocityToFunction("stop", "other", breaks)])
    for _ in range(10):
        m.step(state, 1e-3)
    before, u, t0 = state.copy(), rail.u, rail._t0
    impulses = m.constraint_impulses()
    with pytest.raises(RuntimeError, match="no value"):
        m.step(state, 1e-3)
    for name in ("body_pos", "body_quat", "body_vel", "body_omega"):
        assert np.array_equal(getattr(state, name), getattr(before, name))
    assert (rail.u, rail._t0) == (u, t0) and state.t == before.t
    assert all(np.array_equal(impulses[k], v) for k, v in m.constraint_impulses().items())


def test_bad_constraints_are_refused_with_names():
    model, _ = box().build()
    with pytest.raises(ims.ModelError, match='constraint "c".*"nobody"'):
        ImpulseMethod(model, constraints=[PointToFunction("c", "nobody", circle())])
    with pytest.raises(ims.ModelError, match='constraint "w".*static or kinematic'):
        ImpulseMethod(model, constraints=[PointToFunction("w", "world", circle())])
    with pytest.raises(ims.ModelError, match="ExtraConstraint"):
        ImpulseMethod(model, constraints=["lift"])


def test_velocity_constraints_without_velocity_correction_are_refused():
    model, _ = box().build()
    with pytest.raises(ims.UnsupportedFeatureError, match="velocity_correction=True"):
        ImpulseMethod(model, velocity_correction=False,
                      constraints=[VelocityToFunction("v", "box", lambda t: (np.ones(3), np.zeros(3), np.zeros(3)))])
    f = circle()
    model, state = box(position=f(0.0)[0]).build()
    m = ImpulseMethod(model, velocity_correction=False, constraints=[PointToFunction("p", "box", f)])
    for _ in range(10):
        assert m.step(state, 1e-3).converged_pos
        assert np.linalg.norm(state.body_pos[1] - f(state.t)[0]) <= EPS_D + ROUND


def test_a_driven_box_pushes_another_through_the_contact():
    """A box driven at 1 m/s by a PointToFunction runs into a resting box of 2 kg (no gravity, no
    restitution): the struck box leaves at the driver's speed, and the constraint's impulses over the run
    add up to the momentum it gave, m₂ v (tolerance: the contact's velocity tolerance eps_vc = 1e-3 m/s);
    the driver stays within eps_d of f(t) throughout, the impact included."""
    v, m2 = 1.0, 2.0
    b = ims.ModelBuilder("push", gravity=(0, 0, 0))
    b.add_body("driver", shapes=[ims.Box(size=(0.2, 0.2, 0.2))], mass=1.0, velocity=(v, 0, 0))
    b.add_body("struck", shapes=[ims.Box(size=(0.2, 0.2, 0.2))], mass=m2, position=(0.5, 0, 0))
    model, state = b.build()

    def f(t):
        return np.array([v * t, 0, 0]), np.array([v, 0, 0]), np.zeros(3)
    m = ImpulseMethod(model, constraints=[PointToFunction("drive", "driver", f)])
    assert m.contacts is not None
    total = np.zeros(3)
    for _ in range(600):
        m.step(state, 1e-3)
        total += m.constraint_impulses()["drive"]
        assert np.linalg.norm(state.body_pos[1] - f(state.t)[0]) <= EPS_D + ROUND
    assert state.body_vel[2] == pytest.approx([v, 0, 0], abs=1e-3)
    assert total == pytest.approx([m2 * v, 0, 0], abs=m2 * 1e-3)


def test_constraints_with_sleeping_bodies_are_refused():
    b = box()
    b.add_body("other", shapes=[ims.Box(size=(0.2, 0.2, 0.2))], mass=1.0, position=(1, 0, 0))
    model, _ = b.build()
    with pytest.raises(ims.UnsupportedFeatureError, match="sleep"):
        ImpulseMethod(model, sleep=True, constraints=[PointToFunction("c", "box", circle())])


def test_resume_from_memory_continues_bit_for_bit():
    """A run resumed in a fresh method from the saved memory (the path's curve parameter and direction
    included) takes the same steps as the uninterrupted run."""
    from impulsim.methods.memory import method_memory, restore_memory

    def make():
        path = BezierCurve([[0.2, 0.15, 0.1], [0.6, 0.0, 0.1], [0.0, 0.0, 0.1]])
        model, state = box().build()
        rail = PointToPath("rail", "box", path, speed=2.0, anchor=(0.2, 0.15, 0.1), at_end="reverse")
        return ImpulseMethod(model, constraints=[rail]), state, rail
    m, state, rail = make()
    for _ in range(400):                     # past the end of the path: the direction has turned
        m.step(state, 1e-3)
    assert rail.direction == -1.0
    saved, saved_state = method_memory(m), state.copy()
    m2, state2, rail2 = make()
    assert restore_memory(m2, saved) == []
    state2.assign(saved_state)
    for _ in range(200):
        m.step(state, 1e-3)
        m2.step(state2, 1e-3)
    assert np.array_equal(state.body_pos, state2.body_pos) and np.array_equal(state.body_vel, state2.body_vel)


@pytest.mark.parametrize("hold_at", [0.1, 0.2])
def test_a_driven_rod_against_its_joint_limit(hold_at):
    """The driven rod turns at 3 rad/s until ``hold_at`` and is held there; its hinge has a stop at
    0.5 rad. Held at 0.3 rad the tip stays within eps_d of f(t). Held at 0.6 rad, beyond the stop, the
    two conflict: the stop wins (the model's elements take the last pass) and the step reports the tip's
    error, 0.1 rad × 1 m, as an unconverged residual instead of hiding it."""
    L, w = 1.0, 3.0
    b = ims.ModelBuilder("rod with stop", gravity=(0, 0, -9.81))
    b.add_body("rod", shapes=[ims.Box(size=(L, 0.05, 0.05))], mass=2.0, position=(L / 2, 0, 0),
               angular_velocity=(0, w, 0), velocity=(0, 0, -w * L / 2))
    b.add_hinge("hinge", "world", "rod", anchor=(0, 0, 0), axis=(0, 1, 0))
    b.add_limit("stop", "hinge", lower=-0.5, upper=0.5)
    model, state = b.build()

    def f(t):
        moving = t < hold_at
        a = w * min(t, hold_at)
        return (np.array([L * np.cos(a), 0, -L * np.sin(a)]),
                np.array([-L * w * np.sin(a), 0, -L * w * np.cos(a)]) * moving, np.zeros(3))
    m = ImpulseMethod(model, constraints=[PointToFunction("tip", "rod", f, anchor=(L / 2, 0, 0))])
    assert m.limits is not None
    for _ in range(400):
        info = m.step(state, 1e-3)
        tip = point(state, 1, (L / 2, 0, 0))
        if hold_at * w < 0.5:
            assert np.linalg.norm(tip - f(state.t)[0]) <= EPS_D + ROUND and info.converged_pos
    angle = np.arctan2(-tip[2], tip[0])
    if hold_at * w > 0.5:
        assert angle == pytest.approx(0.5, abs=1e-3)            # the stop's contact tolerance eps_c
        assert not info.converged_pos
        assert info.residual_pos == pytest.approx(2 * L * np.sin(0.05), abs=2e-3)   # chord of 0.1 rad


def test_the_shared_kind_codes_are_the_lagrange_rows():
    from impulsim.methods import extra_constraints as ec
    from impulsim.methods.lagrange.kinds import Row
    assert (ec.POINT_FUNCTION, ec.VELOCITY_FUNCTION, ec.VEL_POINT) == (
        Row.POINT_FUNCTION, Row.VELOCITY_FUNCTION, Row.VEL_POINT)
