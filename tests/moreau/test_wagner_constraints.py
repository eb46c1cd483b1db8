"""Wagner's point, path and velocity constraints in Moreau's method: rows of the same prox iteration as the
joints, then projected with them at the step's end.

Tolerances. A point constraint asks for the end velocity that brings the point from its midpoint position to
f(t + h) over the second half step, and the velocity projection then sets Ṗ = ḟ(t + h). What the linear
half step misses is the chord of the body's rotation: a lever r turning by h|ω|/2 leaves the straight line
by (h|ω|/2)²|r|/2 = h²|ω|²|r|/8, once per step (the next step starts from the true midpoint, so it does not
add up), plus h/2 times the rows' velocity tolerance eps_v. Velocity constraints are projected at the end
state, each row to ≤ eps_v/2, so |Ṗ − f(t)| ≤ √3 eps_v/2 < eps_v.
"""
import numpy as np
import pytest

import impulsim as ims
from impulsim.dynamics.diagnostics import constraint_errors
from impulsim.math import quat_rotate
from impulsim.methods.curves import BezierCurve
from impulsim.methods.extra_constraints import (EqualVelocity, PointToFunction, PointToPath, VelocityToFunction,
                                                principal_anchor)
from tests.reliability.helpers import memory_copy, same_bits, same_memory

H = 1e-3
EPS_V = 1e-6


def _box(omega=(0.0, 0.0, 0.0), size=(0.3, 0.1, 0.1), name="box", b=None, position=(0, 0, 0)):
    b = b or ims.ModelBuilder("wagner", gravity=(0, 0, -9.81))
    b.add_body(name, shapes=[ims.Box(size=size)], mass=1.0, angular_velocity=omega, position=position)
    return b


def _point(model, state, k, anchor):
    return state.body_pos[k] + quat_rotate(state.body_quat[k], principal_anchor(model, k, anchor))


def _point_velocity(model, state, k, anchor):
    r = quat_rotate(state.body_quat[k], principal_anchor(model, k, anchor))
    return state.body_vel[k] + np.cross(state.body_omega[k], r)


def _sines(rng, p0):
    """A random smooth world path through p0 at t = 0: amplitudes 5–30 cm, 1–6 rad/s."""
    A, w, ph = rng.uniform(0.05, 0.3, 3), rng.uniform(1.0, 6.0, 3), rng.uniform(0.0, 6.0, 3)
    return lambda t: (p0 + A * (np.sin(w * t + ph) - np.sin(ph)), A * w * np.cos(w * t + ph),
                      -A * w * w * np.sin(w * t + ph))


@pytest.mark.parametrize("seed", range(4))
def test_a_spinning_body_point_follows_a_function_of_time(seed):
    """An off-centre point of a body tumbling at up to ~20 rad/s under gravity follows a random f(t) for 2 s
    within the chord bound h²|ω|²|r|/8 + h eps_v of every step (see the module)."""
    rng = np.random.default_rng(seed)
    model, state = _box(omega=rng.normal(0.0, 3.0, 3)).build()
    anchor = rng.uniform(-0.15, 0.15, 3)
    f = _sines(rng, _point(model, state, 1, anchor))
    method = ims.make_method("moreau", model, eps_v=EPS_V, constraints=[PointToFunction("f", "box", f, anchor)])
    r = np.linalg.norm(principal_anchor(model, 1, anchor))
    worst, w_max = 0.0, 0.0
    for _ in range(2000):
        info = method.step(state, H)
        assert info.converged_vel
        w_max = max(w_max, np.linalg.norm(state.body_omega[1]))
        worst = max(worst, np.linalg.norm(_point(model, state, 1, anchor) - f(state.t)[0]))
        assert np.linalg.norm(_point_velocity(model, state, 1, anchor) - f(state.t)[1]) <= EPS_V
    assert w_max > 5.0                                  # the body really turns
    assert worst <= H * H * w_max ** 2 * r / 8 + H * EPS_V


def test_a_point_off_its_function_at_the_start_is_on_it_after_one_step():
    """A point starting 1 cm off f(0) and at rest while ḟ = 1 m/s: the first step ends on f(h)."""
    model, state = _box().build()
    p0 = _point(model, state, 1, None) + np.array([0.01, 0.0, 0.0])
    f = lambda t: (p0 + np.array([0.0, t, 0.0]), np.array([0.0, 1.0, 0.0]), np.zeros(3))
    method = ims.make_method("moreau", model, eps_v=EPS_V, constraints=[PointToFunction("f", "box", f)])
    for _ in range(100):
        method.step(state, H)
        assert np.linalg.norm(_point(model, state, 1, None) - f(state.t)[0]) <= H * EPS_V
        assert np.linalg.norm(state.body_vel[1] - f(state.t)[1]) <= EPS_V


def test_a_hand_carries_a_two_link_chain_joints_and_point_solved_together():
    """The top of a rod follows a circle of 0.3 m at 2 rad/s (a hand), a second rod hangs from its bottom on
    a ball joint: the ball stays within eps_d and the top point within the chord bound plus the joint
    projection's displacement (≤ eps_d) for 3 s of swinging."""
    b = _box(size=(0.05, 0.05, 0.5), name="upper", position=(0, 0, -0.25))
    b = _box(size=(0.05, 0.05, 0.5), name="lower", position=(0, 0, -0.75), b=b)
    b.add_ball("elbow", "upper", "lower", anchor=(0, 0, -0.5))
    model, state = b.build()
    top = (0.0, 0.0, 0.25)

    def f(t):
        c, s = np.cos(2 * t), np.sin(2 * t)
        return np.array([0.3 * (c - 1.0), 0.3 * s, 0.0]), np.array([-0.6 * s, 0.6 * c, 0.0]), \
            np.array([-1.2 * c, -1.2 * s, 0.0])
    eps_d = 1e-6
    method = ims.make_method("moreau", model, eps_v=EPS_V, eps_d=eps_d,
                             constraints=[PointToFunction("hand", "upper", f, anchor=top)])
    w_max = 0.0
    for _ in range(3000):
        info = method.step(state, H)
        assert info.converged_vel and info.converged_pos
        assert constraint_errors(model, state).max() <= eps_d
        w = np.linalg.norm(state.body_omega[1])
        w_max = max(w_max, w)
        assert np.linalg.norm(_point(model, state, 1, top) - f(state.t)[0]) <= H * H * w * w * 0.25 / 8 + H * EPS_V + eps_d
        assert np.linalg.norm(_point_velocity(model, state, 1, top) - f(state.t)[1]) <= EPS_V
    assert w_max > 1.0                                  # the chain swings


CURVE = np.array([[0.0, 0.0, 0.0], [0.5, 0.5, 0.2], [1.0, -0.3, 0.4], [1.5, 0.2, 0.0]])


def test_a_point_travels_a_bezier_curve_at_the_set_speed_and_stops_at_its_end():
    """A tumbling box's centre runs along a cubic Bézier curve at 0.5 m/s under gravity: the distance
    covered per second is 0.5 m within 1 %, it stays on the curve, and it rests at the curve's end."""
    model, state = _box(omega=(1.0, 2.0, 3.0)).build()
    c = PointToPath("path", "box", CURVE, speed=0.5)
    method = ims.make_method("moreau", model, eps_v=EPS_V, constraints=[c])
    curve = BezierCurve(CURVE)
    points = [state.body_pos[1].copy()]
    for _ in range(6000):
        method.step(state, H)
        points.append(state.body_pos[1].copy())
    points = np.array(points)
    steps = np.linalg.norm(np.diff(points, axis=0), axis=1)
    moving = steps[: int(np.argmax(steps < 1e-7))]             # until the end of the curve (0.1 mm/s)
    assert 2000 < len(moving) < 6000
    assert np.abs(moving[:-1] / H - 0.5).max() <= 0.005          # the last step ends on the end point
    off = max(np.linalg.norm(curve.point(curve.closest_parameter(p)) - p) for p in points[::25])
    assert off <= 1e-6
    assert np.linalg.norm(points[-1] - CURVE[-1]) <= 1e-6
    assert np.linalg.norm(state.body_vel[1]) <= EPS_V


def test_a_path_with_reverse_turns_back_at_its_end():
    """On a 0.3 m line at 1 m/s with at_end="reverse" the point goes back and forth: after 1 s it has
    covered 1 m at 1 m/s within 1 % and turned at both ends."""
    model, state = _box().build()
    line = [[0.0, 0.0, 0.0], [0.3, 0.0, 0.0]]
    method = ims.make_method("moreau", model, eps_v=EPS_V,
                             constraints=[PointToPath("line", "box", line, speed=1.0, at_end="reverse")])
    xs = [0.0]
    for _ in range(1000):
        method.step(state, H)
        xs.append(state.body_pos[1, 0])
    xs = np.array(xs)
    assert np.abs(np.diff(xs)).sum() == pytest.approx(1.0, rel=0.01)
    assert xs.max() == pytest.approx(0.3, abs=1e-6) and xs[400:].min() <= 1e-3
    assert np.abs(state.body_pos[1, 1:]).max() <= 1e-6        # gravity does not pull it off the line


@pytest.mark.parametrize("seed", range(3))
def test_a_point_velocity_follows_a_function_of_time(seed):
    """The velocity of an off-centre point of a tumbling box follows a random f(t) within eps_v at the
    end of every step (from rest: the first step takes it there)."""
    rng = np.random.default_rng(100 + seed)
    model, state = _box(omega=rng.normal(0.0, 3.0, 3)).build()
    anchor = rng.uniform(-0.15, 0.15, 3)
    f = _sines(rng, np.zeros(3))
    method = ims.make_method("moreau", model, eps_v=EPS_V,
                             constraints=[VelocityToFunction("v", "box", f, anchor)])
    for _ in range(2000):
        info = method.step(state, H)
        assert info.converged_vel
        assert np.linalg.norm(_point_velocity(model, state, 1, anchor) - f(state.t)[0]) <= EPS_V


def test_two_points_keep_equal_velocities():
    """Points of two falling boxes that start with different spins, kept at equal velocity: equal within
    eps_v after every step."""
    b = _box(omega=(0.0, 4.0, 1.0), name="a")
    b = _box(omega=(3.0, -1.0, 0.0), name="b", b=b, position=(1.0, 0.0, 0.0))
    model, state = b.build()
    anchors = (0.1, 0.05, 0.0), (-0.15, 0.0, 0.05)
    method = ims.make_method("moreau", model, eps_v=EPS_V,
                             constraints=[EqualVelocity("same", "a", "b", *anchors)])
    for _ in range(2000):
        method.step(state, H)
        va = _point_velocity(model, state, 1, anchors[0])
        vb = _point_velocity(model, state, 2, anchors[1])
        assert np.linalg.norm(va - vb) <= EPS_V


def test_a_failed_step_leaves_the_state_and_the_path_parameter_as_before():
    """A step whose function raises (after the path constraint moved its curve parameter) leaves the state,
    the curve parameter and all the method's memory bit for bit as before."""
    model, state = _box().build()
    path = PointToPath("path", "box", CURVE, speed=0.5)

    def f(t):
        if t > 0.0505:
            raise ValueError("no target beyond 50 ms")
        return np.array([0.0, 0.0, 0.0]), np.zeros(3), np.zeros(3)
    method = ims.make_method("moreau", model, constraints=[path, VelocityToFunction("v", "box", f)])
    for _ in range(50):
        method.step(state, H)
    before_state, before_memory, before_u = state.copy(), memory_copy(method), (path.u, path._u0, path._t0)
    with pytest.raises(ValueError, match="no target"):
        method.step(state, H)
    assert same_bits(state, before_state)
    assert (path.u, path._u0, path._t0) == before_u
    assert same_memory(before_memory, memory_copy(method)) == []


def _unprojected_error(h, t_end=1.0):
    model, state = _box(omega=(2.0, -3.0, 1.0)).build()
    anchor = (0.1, 0.0, 0.0)
    f = _sines(np.random.default_rng(7), _point(model, state, 1, anchor))
    method = ims.make_method("moreau", model, eps_v=EPS_V, project=False,
                             constraints=[PointToFunction("f", "box", f, anchor)])
    errors = []
    for _ in range(int(round(t_end / h))):
        method.step(state, h)
        errors.append(np.linalg.norm(_point(model, state, 1, anchor) - f(state.t)[0]))
    return max(errors[int(round(0.1 / h)):])            # after the start (at rest while ḟ ≠ 0)


def test_without_projection_the_point_error_is_second_order_and_does_not_grow():
    """With project=False the position term takes half the midpoint error per step (β = 1/2), so the error
    left is that of the rotation's chords, O(h²) per step and not summed: halving h quarters the largest
    error (ratio ≥ 3.5), and it stays below 1e-5 m at h = 1 ms (about three chords h²|ω|²|r|/8 with
    |ω| ≈ 15 rad/s, r = 0.1 m)."""
    coarse, fine = _unprojected_error(H), _unprojected_error(H / 2)
    assert coarse <= 1e-5
    assert coarse / fine >= 3.5


def test_bad_constraints_are_refused_with_their_name():
    model, _ = _box().build()
    with pytest.raises(Exception, match='constraint "f": body "nobody" does not exist'):
        ims.make_method("moreau", model, constraints=[PointToFunction("f", "nobody", lambda t: (np.zeros(3),) * 3)])
    with pytest.raises(Exception, match="used twice"):
        ims.make_method("moreau", model, constraints=[VelocityToFunction("v", "box", lambda t: (np.zeros(3),) * 3)] * 2)
