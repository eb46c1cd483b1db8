"""FeatherstoneMethod.run's compiled loop: the same results, bit for bit, as calls of step; a failure
inside it leaves the state at the last good step and raises what step raises."""
import numpy as np
import pytest

import impulsim as ims
from impulsim.errors import SimulationError
from impulsim.methods.featherstone import FeatherstoneMethod, run_loop
from tests.featherstone.random_trees import random_state, random_tree_model

MOTION = ("body_pos", "body_quat", "body_vel", "body_omega")


@pytest.fixture(autouse=True)
def compiled_loop(monkeypatch):
    monkeypatch.setattr(run_loop, "COMPILE_PAYS_STEPS", 0)      # take the loop even before it is cached


def same(a, b):
    for name in MOTION:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    assert a.t == b.t and a.step_count == b.step_count


def stepped_and_run(model, state, h, n, **options):
    one, many = FeatherstoneMethod(model, **options), FeatherstoneMethod(model, **options)
    assert many.run_path == "compiled"
    a, b = state.copy(), state.copy()
    infos = [one.step(a, h) for _ in range(n)]
    total = many.run(b, h, n)
    return a, b, infos, total


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("floating", [False, True])
def test_run_equals_steps_on_random_trees_moving_fast(seed, floating):
    model, state = random_tree_model(seed, n_bodies=7, floating=floating)
    state, _, _ = random_state(model, state, seed, speed=8.0)
    a, b, infos, total = stepped_and_run(model, state, 1e-3, 150)
    same(a, b)
    assert total.steps == 150 and total.iters_pos == 150
    assert total.residual_pos == max(i.residual_pos for i in infos)
    assert total.last.residual_pos == infos[-1].residual_pos
    assert total.unconverged == sum(not i.converged_pos for i in infos)


def test_run_equals_steps_with_loads_springs_motors_damping_and_euler():
    b = ims.ModelBuilder("loaded chain")
    for i in range(4):
        b.add_body(f"l{i}", mass=1.0 + i, inertia=(0.1, 0.2, 0.25), position=(0.5 + i, 0.0, 0.0))
    b.add_hinge("h0", "world", "l0", anchor=(0.0, 0.0, 0.0), axis=(0.0, 1.0, 0.0))
    b.add_ball("b1", "l0", "l1", anchor=(1.0, 0.0, 0.0))
    b.add_slider("s2", "l1", "l2", anchor=(2.0, 0.0, 0.0), axis=(1.0, 0.0, 0.0))
    b.add_universal("u3", "l2", "l3", anchor=(3.0, 0.0, 0.0), axis_a=(0.0, 0.0, 1.0), axis_b=(0.0, 1.0, 0.0))
    b.add_motor("m0", "h0", effort=3.0)
    b.add_spring("k", "world", "l3", stiffness=50.0, damping=0.5, anchor_a=(3.0, 0.0, 1.0))
    b.add_load("l1", force=(0.0, 20.0, 0.0), torque=(1.0, 0.0, 0.0), start=0.0123, end=0.0877)
    model, start = b.build()
    for integrator in ("rk4", "euler"):
        state = start.copy()
        state.body_force[2] = (0.0, 0.0, 5.0)
        a, c, _, _ = stepped_and_run(model, state, 2e-3, 200, integrator=integrator, damping=0.3)
        same(a, c)
        np.testing.assert_array_equal(a.body_force, state.body_force)      # the user's held force is kept


def test_run_projects_inconsistent_velocities_as_step_does():
    model, state = random_tree_model(3, n_bodies=5)
    state, _, _ = random_state(model, state, 3)
    state.body_vel[1] += (0.3, -0.2, 0.1)       # off the joints: the first step projects them
    a, b, _, total = stepped_and_run(model, state, 1e-3, 40)
    same(a, b)
    assert total.steps == 40


def test_failure_inside_the_loop_leaves_the_last_good_state_and_raises_what_step_raises():
    b = ims.ModelBuilder("pushed")
    b.add_body("base", mass=1.0, inertia=(0.1, 0.1, 0.1), position=(0.0, 0.0, 0.0))
    b.add_body("arm", mass=1.0, inertia=(0.1, 0.1, 0.1), position=(0.5, 0.0, 0.0))
    b.add_hinge("h", "base", "arm", anchor=(0.0, 0.0, 0.0), axis=(0.0, 0.0, 1.0))
    model, state = b.build()
    state.body_force[model.body("base")] = (0.0, 0.0, 1e7)   # 5 km/s more each step: past MAX_SPEED at step 20
    ref, fail_at = state.copy(), None
    one = FeatherstoneMethod(model)
    for k in range(200):
        good = ref.copy()
        try:
            one.step(ref, 1e-3)
        except SimulationError as exc:
            fail_at, message = k, str(exc)
            break
    assert fail_at is not None and fail_at > 2, message if fail_at is not None else "no failure"
    same(ref, good)                              # step leaves the state as it was
    many = FeatherstoneMethod(model)
    with pytest.raises(SimulationError) as err:
        many.run(state, 1e-3, 200)
    assert str(err.value) == message
    same(state, good)
    assert state.step_count == fail_at


def test_callback_every_and_iters():
    model, state = random_tree_model(5, n_bodies=4)
    state, _, _ = random_state(model, state, 5)
    m = FeatherstoneMethod(model)
    seen = []
    iters = np.zeros((30, 2), np.int64)
    total = m.run(state, 1e-3, 30, every=10, callback=lambda info: seen.append(info.steps), iters=iters)
    assert seen == [10, 10, 10] and total.steps == 30 and state.step_count == 30
    assert (iters[:, 0] == 1).all() and (iters[:, 1] == 0).all()


def test_models_the_loop_does_not_cover_run_in_python():
    def pendulum(servo):
        b = ims.ModelBuilder("pendulum")
        b.add_body("a", mass=1.0, inertia=(0.1, 0.1, 0.1), position=(0.5, 0.0, 0.0))
        b.add_hinge("h", "world", "a", anchor=(0.0, 0.0, 0.0), axis=(0.0, 1.0, 0.0))
        if servo:
            b.add_servo("s", "h", kp=10.0)
        return b.build()[0]
    assert FeatherstoneMethod(pendulum(False)).run_path == "compiled"
    assert FeatherstoneMethod(pendulum(True)).run_path == "python"
    assert FeatherstoneMethod(pendulum(False), limits={"h": (-0.5, 0.5)}).run_path == "python"
