"""The compiled loop of models with joint limits (methods/impulse/limit_run.py): the same states, memory and
step figures as single steps, bit for bit, on random limited trees in fast motion with either solver, loops,
force elements and timed loads; failed steps rolled back alike."""
import numpy as np
import pytest

import impulsim as ims
from tests.impulse.random_models import add_force_elements, random_builder
from tests.impulse.test_run_path import (_both_fail, assert_rolled_back_alike_and_going_on, assert_same_memory,
                                         assert_same_state, fast, pair, step_info_tuple)

LIMITED_KINDS = ("hinge", "slider", "cylindrical", "ball")


@pytest.fixture(autouse=True)
def always_compiled(monkeypatch):
    """Take the compiled loop for every run, however short (see run_path.loop_ready)."""
    from impulsim.methods.impulse import run_path
    monkeypatch.setattr(run_path, "COMPILE_PAYS_STEPS", 0)


def limited_model(seed, n_bodies, loops=0, elements=None):
    """A random tree (random_models) with a limit on every hinge, slider and cylindrical joint: bounds drawn
    around the start (coordinate 0) between 0.05 and 0.4 [rad or m] on either side, restitution 0, 0.5 or
    1, a cylindrical joint's angle or position."""
    b = random_builder(seed, n_bodies, LIMITED_KINDS, loops)
    if elements is not None:
        add_force_elements(b, np.random.default_rng(seed + 1_000_003), **elements)
    rng = np.random.default_rng(seed + 7)
    for joint in list(b.joints):
        kind = joint.kind.name.lower()
        if kind not in ("hinge", "slider", "cylindrical"):
            continue
        coordinate = str(rng.choice(["angle", "position"])) if kind == "cylindrical" else "auto"
        b.add_limit(f"limit_{joint.name}", joint.name, -rng.uniform(0.05, 0.4), rng.uniform(0.05, 0.4),
                    restitution=float(rng.choice([0.0, 0.5, 1.0])), coordinate=coordinate)
    return b.build()


def _full_step_info(info):
    return step_info_tuple(info) + (info.n_collisions, info.iters_collision)


CASES = [
    ("tree_iterative", 21, 8, 0, None, 0.004, 3.0, dict(solver="iterative")),
    ("tree_lgs", 22, 8, 0, None, 0.004, 3.0, dict(solver="lgs")),
    ("tree_lgs_fast", 23, 6, 0, None, 0.002, 8.0, dict(solver="lgs")),
    ("loop_lgs", 24, 9, 1, None, 0.005, 2.0, dict(solver="lgs")),
    ("elements_iterative", 25, 7, 0, dict(springs=2, motors=1, servos=3, loads=1), 0.004, 2.0,
     dict(solver="iterative")),
    ("elements_lgs_rk45", 26, 7, 0, dict(springs=1, motors=1, servos=2, loads=2), 0.004, 2.0,
     dict(solver="lgs", integrator="rk45")),
]


@pytest.mark.parametrize("seed, n, loops, elements, h, scale, options", [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_run_with_limits_equals_steps_bit_for_bit(seed, n, loops, elements, h, scale, options):
    """Chunks of several sizes between single steps: every state, the method's memory, the limits' impulses
    and each chunk's last StepInfo (collisions included) equal those of the single steps; the limits were at
    work (collisions resolved, position impulses applied)."""
    model, state = limited_model(seed, n, loops, elements)
    assert model.n_limits > 0
    a, sa, b, sb = pair(model, fast(state, scale, seed), **options)
    assert b.run_path == "limits"
    iters = np.zeros((40, 2), np.int64)
    collisions = pushed = 0
    for chunk in (1, 7, 40, 3, 25):
        steps = [a.step(sa, h) for _ in range(chunk)]
        run = b.run(sb, h, chunk, iters=iters[:chunk])
        assert_same_state(sa, sb)
        assert_same_memory(a, b)
        for name in ("lam", "lam_pos", "phase", "side"):
            assert np.array_equal(getattr(a.limits, name), getattr(b.limits, name)), name
        assert _full_step_info(run.last) == _full_step_info(steps[-1])
        assert run.n_collisions == sum(i.n_collisions for i in steps)
        assert run.iters_collision == sum(i.iters_collision for i in steps)
        assert iters[:chunk].tolist() == [[i.iters_pos, i.iters_vel] for i in steps]
        collisions += run.n_collisions
        pushed += int((b.limits.lam_pos > 0).any())
        a.step(sa, h)
        b.step(sb, h)
        assert_same_state(sa, sb)
    assert a.factorizations == b.factorizations
    assert collisions + pushed > 0, "no limit was reached: the case tests nothing of the limits"
    if elements is not None:
        for name in ("servo_integral", "servo_prev_error", "servo_effort"):
            assert np.array_equal(getattr(sa, name), getattr(sb, name)), name


def _limited_rocket():
    """A sled on a slider along x, held by a stop at x = −1 m and pushed by 1e6 N away from it (the stop's
    far end lies beyond reach), beside a hinged arm whose stops it hits: at h = 10 ms the sled leaves the
    1e5 m/s speed limit behind at step 10, with the limits working every step."""
    b = ims.ModelBuilder("limited rocket")
    b.add_body("sled", shapes=[ims.Box(size=(0.2, 0.2, 0.2))], mass=1.0, position=(0, 0, 0))
    b.add_slider("rail", "world", "sled", anchor=(0, 0, 0), axis=(1, 0, 0))
    b.add_limit("rail_stop", "rail", -1.0, 1e12)
    b.add_body("arm", shapes=[ims.Box(size=(0.05, 0.05, 1.0))], mass=1.0, position=(0, 2, -0.5),
               angular_velocity=(8.0, 0, 0))
    b.add_hinge("pivot", "world", "arm", anchor=(0, 2, 0), axis=(1, 0, 0))
    b.add_limit("arm_stops", "pivot", -0.3, 0.3, restitution=0.5)
    model, state = b.build()
    state.body_force[model.body("sled")] = (1e6, 0.0, 0.0)
    return model, state


@pytest.mark.parametrize("solver", ["lgs", "iterative"])
def test_a_failed_step_inside_a_run_with_limits_is_rolled_back_like_a_failed_step(solver):
    """The run fails at the same step as single steps, with the same message, and leaves the state and the
    method's memory of the last good step; both go on alike from there."""
    model, state = _limited_rocket()
    a, sa, b, sb = pair(model, state, solver=solver)
    assert b.run_path == "limits"
    by_step, by_run = _both_fail(a, sa, b, sb)
    assert by_run == by_step
    assert "step 10 " in by_run and "diverged" in by_run
    assert_rolled_back_alike_and_going_on(a, sa, b, sb)
