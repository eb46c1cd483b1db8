"""Method.run and Simulation.run: n steps in one call (compiled for the impulse method without contacts) give
the very results of n calls of step, bit for bit; a failed step inside a run is rolled back like a failed
step; the aggregated StepInfo is the sum / maximum of the steps'."""
import os

import numpy as np
import pytest

import impulsim as ims
from impulsim.errors import SimulationError
from impulsim.experiments import bender as scenes
from impulsim.methods import RunInfo
from tests.impulse.random_models import random_model

MOTION = ("body_pos", "body_quat", "body_vel", "body_omega")
SERVO_MEMORY = ("servo_integral", "servo_prev_error", "servo_effort")


@pytest.fixture(autouse=True)
def always_compiled(monkeypatch):
    """These tests are of the compiled loop: take it for every run, however short (see loop_ready)."""
    from impulsim.methods.impulse import run_path
    monkeypatch.setattr(run_path, "COMPILE_PAYS_STEPS", 0)
TREE_KINDS = ("ball", "hinge", "universal", "slider", "cylindrical", "fixed")


def assert_same_state(a, b):
    for name in MOTION:
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    assert a.t == b.t and a.step_count == b.step_count


def assert_same_memory(ma, mb):
    for name in ("pred_pos", "pred_quat", "pred_vel", "pred_omega", "pred_valid", "dirty"):
        assert np.array_equal(getattr(ma, name), getattr(mb, name)), name


def step_info_tuple(info):
    return (info.iters_pos, info.iters_vel, info.residual_pos, info.residual_vel, info.clamped,
            info.converged_pos, info.converged_vel)


def fast(state, scale, seed):
    """The state with its velocities multiplied by ``scale`` plus a random spin (fast motions)."""
    rng = np.random.default_rng(seed)
    s = state.copy()
    s.body_vel *= scale
    s.body_omega = s.body_omega * scale + scale * rng.normal(size=s.body_omega.shape)
    s.body_vel[0] = s.body_omega[0] = 0.0
    return s


def pair(model, state, **options):
    options.setdefault("contacts", False)
    return (ims.make_method("impulse", model, **options), state.copy(),
            ims.make_method("impulse", model, **options), state.copy())


CASES = [
    ("chain10_lgs", lambda: scenes.chain(10), 0.01, 1.0, dict(solver="lgs")),
    ("chain10_iterative", lambda: scenes.chain(10), 0.01, 1.0, dict(solver="iterative")),
    ("tree31_lgs_fast", lambda: scenes.tree(5), 1 / 60, 5.0, dict(solver="lgs")),
    ("random_tree_lgs", lambda: random_model(11, 14, kinds=TREE_KINDS), 0.005, 1.0, dict(solver="lgs")),
    ("random_tree_lgs_fast", lambda: random_model(12, 9, kinds=TREE_KINDS), 0.002, 8.0, dict(solver="lgs")),
    ("random_tree_iterative_fast", lambda: random_model(13, 8, kinds=TREE_KINDS), 0.002, 6.0,
     dict(solver="iterative", integrator="euler")),
    ("random_loop_lgs", lambda: random_model(3, 12, loops=1), 0.01, 2.0, dict(solver="lgs")),
    ("random_chain_iterative_rk45", lambda: random_model(14, 6, kinds=("ball", "hinge")), 0.004, 3.0,
     dict(solver="iterative", integrator="rk45", eps_d=1e-8)),
]


@pytest.mark.parametrize("build, h, scale, options", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_run_equals_steps_bit_for_bit(build, h, scale, options):
    # the compiled loop calls the kernels of the step in the same order on the same arrays: nothing may
    # differ, not even in the last bit, after chunks of several sizes, interleaved with single steps
    model, state = build()
    a, sa, b, sb = pair(model, fast(state, scale, 7), **options)
    assert b.run_path in ("lgs", "iterative")
    infos = []
    iters = np.zeros((40, 2), np.int64)
    for k, chunk in enumerate((1, 7, 40, 3)):
        steps = [a.step(sa, h) for _ in range(chunk)]
        infos += steps
        run = b.run(sb, h, chunk, iters=iters[:chunk])
        assert_same_state(sa, sb)
        assert_same_memory(a, b)
        assert step_info_tuple(run.last) == step_info_tuple(steps[-1])
        assert iters[:chunk].tolist() == [[i.iters_pos, i.iters_vel] for i in steps]
        infos.append(a.step(sa, h))
        b.step(sb, h)
        assert_same_state(sa, sb)
    assert a.factorizations == b.factorizations and a.dropped_rows == b.dropped_rows
    assert max(abs(sa.body_omega).max(), 0) > 0     # it moved


def test_run_with_timed_loads_and_user_forces_equals_steps():
    # the loads' window [0.013, 0.0371) s does not line up with the 4 ms steps; the user's torque is held
    model, state = _chain_with_loads()
    for options in (dict(solver="lgs"), dict(solver="iterative")):
        a, sa, c, sc = pair(model, state, **options)
        sa.body_torque[2] = sc.body_torque[2] = (0.0, 3.0, 0.0)
        for _ in range(25):
            a.step(sa, 0.004)
        c.run(sc, 0.004, 25)
        assert_same_state(sa, sc)
        assert np.array_equal(sc.body_torque[2], (0.0, 3.0, 0.0))     # the user's input is kept
        assert np.all(sc.body_force == 0.0)                            # the loads are not added to it


def _chain_with_loads():
    b = ims.ModelBuilder("chain with loads")
    for i in range(4):
        b.add_body(f"l{i}", shapes=[ims.Box(size=(0.1, 0.1, 1.0))], mass=1.0, position=(0, 0, -(i + 0.5)))
        b.add_ball(f"j{i}", "world" if i == 0 else f"l{i - 1}", f"l{i}", anchor=(0, 0, -float(i)))
    b.add_load("l3", force=(40.0, 0.0, 0.0), torque=(0.0, 0.0, 5.0), start=0.013, end=0.0371)
    return b.build()


ELEMENT_KINDS = ("hinge", "slider", "cylindrical", "ball", "universal")
ELEMENT_CASES = [
    # name, seed, bodies, chain, elements, h [s], velocity scale, options
    ("chain_all_lgs", 21, 6, True, dict(springs=3, motors=2, servos=6, loads=2), 0.004, 1.0, dict(solver="lgs")),
    ("tree_all_lgs_fast", 22, 10, False, dict(springs=4, motors=3, servos=8, loads=1), 0.002, 6.0,
     dict(solver="lgs")),
    ("tree_servos_lgs_euler", 23, 8, False, dict(servos=5), 0.003, 3.0, dict(solver="lgs", integrator="euler")),
    ("chain_springs_iterative_fast", 24, 8, True, dict(springs=5, loads=2), 0.002, 4.0, dict(solver="iterative")),
    ("tree_all_iterative_fast", 25, 9, False, dict(springs=2, motors=2, servos=7, loads=1), 0.002, 6.0,
     dict(solver="iterative")),
    ("chain_motors_iterative_rk45", 26, 5, True, dict(motors=3), 0.004, 1.0,
     dict(solver="iterative", integrator="rk45")),
]


def assert_same_servo_memory(a, b):
    for name in SERVO_MEMORY:
        assert np.array_equal(getattr(a, name), getattr(b, name), equal_nan=True), name


@pytest.mark.parametrize("seed, n, chain, elements, h, scale, options", [c[1:] for c in ELEMENT_CASES],
                         ids=[c[0] for c in ELEMENT_CASES])
def test_run_with_springs_motors_and_servos_is_compiled_and_equals_steps(seed, n, chain, elements, h, scale,
                                                                           options):
    # springs, motors, PID servos (every mode, set-points held and interpolated, a jump) and timed loads: the
    # compiled loop computes each step's loads with compute_loads's kernels in its order at the step's start
    # time, so the states and the servos' memory equal those of single steps to the last bit
    model, state = random_model(seed, n, kinds=ELEMENT_KINDS, elements=elements, chain=chain)
    if chain:
        assert model.joint_body_a.tolist() == list(range(n))      # each body hangs on the one before
    if elements.get("servos", 0) >= 4:
        assert set(model.servo_mode.tolist()) == {0, 1, 2, 3}
    a, sa, b, sb = pair(model, fast(state, scale, seed), **options)
    assert b.run_path == options["solver"]
    if options["solver"] == "lgs":
        assert not a._fused        # with force elements step is the staged scheme: the loop must equal it
    iters = np.zeros((40, 2), np.int64)
    for chunk in (1, 7, 40, 3):
        steps = [a.step(sa, h) for _ in range(chunk)]
        run = b.run(sb, h, chunk, iters=iters[:chunk])
        assert f"{b.run_path}_run" in run.timings             # the compiled loop took the steps
        assert_same_state(sa, sb)
        assert_same_servo_memory(sa, sb)
        assert_same_memory(a, b)
        assert step_info_tuple(run.last) == step_info_tuple(steps[-1])
        assert iters[:chunk].tolist() == [[i.iters_pos, i.iters_vel] for i in steps]
        a.step(sa, h)
        b.step(sb, h)
        assert_same_state(sa, sb)
        assert_same_servo_memory(sa, sb)
    assert a.factorizations == b.factorizations
    assert np.array_equal(sa.motor_effort, sb.motor_effort) and np.array_equal(sa.motor_effort, state.motor_effort)
    if model.n_servos:
        assert np.isfinite(sb.servo_prev_error).all() and np.abs(sb.servo_effort).max() > 0   # they acted
    assert np.all(sb.body_force == 0.0) and np.all(sb.body_torque == 0.0)   # the loads are not added to them


def test_simulation_run_of_the_servo_arm_takes_the_compiled_loop_with_the_same_states():
    from impulsim.io import load_scene
    scene = load_scene(os.path.join(os.path.dirname(__file__), "..", "..", "examples", "servo_arm.yaml"))
    for solver in ("iterative", "lgs"):
        fast_sim, slow_sim = scene.simulation(solver=solver), scene.simulation(solver=solver)
        slow_sim.after_step.append(lambda sim, info: None)       # a callback: step by step
        assert fast_sim.method.run_path == solver
        fast_sim.run(0.6, every=50, observer=lambda sim, info: None)     # past the first set-point change
        slow_sim.run(0.6)
        assert_same_state(fast_sim.state, slow_sim.state)
        assert_same_servo_memory(fast_sim.state, slow_sim.state)
        assert fast_sim.state.servo_effort.any()


def test_run_info_aggregates_the_steps():
    model, state = scenes.tree(5)
    # capped at 20 sweeps, some steps stop above the tolerance and some converge
    a, sa, b, sb = pair(model, state, solver="iterative", eps_d=1e-4, eps_v=1e-4, max_iter_pos=20)
    sa.body_torque[1] = sb.body_torque[1] = scenes.TREE_TORQUE
    steps = [a.step(sa, 1 / 60) for _ in range(12)]
    run = b.run(sb, 1 / 60, 12)
    assert isinstance(run, RunInfo) and run.steps == 12
    assert run.iters_pos == sum(i.iters_pos for i in steps)
    assert run.iters_vel == sum(i.iters_vel for i in steps)
    assert run.max_iters_pos == max(i.iters_pos for i in steps) == 20     # the cap was hit
    assert min(i.iters_pos for i in steps) < 20
    assert run.max_iters_vel == max(i.iters_vel for i in steps)
    assert run.residual_pos == max(i.residual_pos for i in steps)
    assert run.residual_vel == max(i.residual_vel for i in steps)
    assert run.clamped == sum(i.clamped for i in steps)
    assert run.converged_pos == all(i.converged_pos for i in steps) is False
    assert run.converged_vel == all(i.converged_vel for i in steps)
    assert run.unconverged == sum(not (i.converged_pos and i.converged_vel) for i in steps) > 0
    assert run.timings and all(v >= 0 for v in run.timings.values())


def _slider_rocket(force):
    """A body on a slider along x pushed by a constant force: it leaves MAX_SPEED behind after a few steps."""
    b = ims.ModelBuilder("rocket")
    b.add_body("sled", shapes=[ims.Box(size=(0.2, 0.2, 0.2))], mass=1.0, position=(0, 0, 0))
    b.add_slider("rail", "world", "sled", anchor=(0, 0, 0), axis=(1, 0, 0))
    model, state = b.build()
    state.body_force[1] = (force, 0.0, 0.0)
    return model, state


def _both_fail(a, sa, b, sb, n=50, h=0.01):
    """Up to n steps of method a one at a time and one run of n steps of method b, each until it fails;
    the two error messages (each must fail)."""
    with pytest.raises(SimulationError) as by_step:
        for _ in range(n):
            a.step(sa, h)
    with pytest.raises(SimulationError) as by_run:
        b.run(sb, h, n)
    return str(by_step.value), str(by_run.value)


@pytest.mark.parametrize("solver", ["lgs", "iterative"])
def test_failed_step_inside_a_run_is_rolled_back_like_a_failed_step(solver):
    # 1e6 N on 1 kg at h = 10 ms: +1e4 m/s a step, past the 1e5 m/s divergence limit at step 11 (index 10)
    model, state = _slider_rocket(1e6)
    a, sa, b, sb = pair(model, state, solver=solver)
    assert b.run_path == solver
    by_step, by_run = _both_fail(a, sa, b, sb)
    assert by_run == by_step
    assert "step 10 " in by_run and "diverged" in by_run
    assert sb.step_count == 10 and abs(sb.body_vel[1, 0] - 1e5) < 1.0        # the last good step
    assert_rolled_back_alike_and_going_on(a, sa, b, sb)


def assert_rolled_back_alike_and_going_on(a, sa, b, sb):
    """After a failed step of each (_both_fail): the same state and memory, and, with body 1's force turned
    round, five more steps alike (the rows and factorization of the failed step are not reused)."""
    assert_same_state(sa, sb)
    assert_same_memory(a, b)
    sa.body_force[1] = sb.body_force[1] = -sa.body_force[1]
    for _ in range(5):
        a.step(sa, 0.01)
    b.run(sb, 0.01, 5)
    assert_same_state(sa, sb)


def _servo_rocket():
    """A sled on a slider along x driven by a velocity servo towards 1e9 m/s (no effort limit: ~1e6 N) and
    tied to the world by a spring, beside a hinged arm held by an angle servo: at h = 10 ms the sled leaves
    MAX_SPEED behind after about ten steps, with the servos' memory changing every step."""
    b = ims.ModelBuilder("servo rocket")
    b.add_body("sled", shapes=[ims.Box(size=(0.2, 0.2, 0.2))], mass=1.0, position=(0, 0, 0))
    b.add_slider("rail", "world", "sled", anchor=(0, 0, 0), axis=(1, 0, 0))
    b.add_servo("push", "rail", "velocity", kp=1e-3, ki=1e-5, setpoints=[(0.0, 1e9)])
    b.add_spring("tether", "world", "sled", stiffness=50.0, damping=1.0, rest_length=0.5)
    b.add_body("arm", shapes=[ims.Box(size=(0.05, 0.05, 0.5))], mass=1.0, position=(0, 2.0, -0.25))
    b.add_hinge("shoulder", "world", "arm", anchor=(0, 2.0, 0), axis=(1, 0, 0))
    b.add_servo("hold", "shoulder", "angle", kp=20.0, ki=5.0, kd=1.0, limit=5.0,
                setpoints=[(0.0, 0.0), (0.02, 0.5)], interpolate=True)
    return b.build()


@pytest.mark.parametrize("solver", ["lgs", "iterative"])
def test_failed_step_inside_a_run_puts_the_servo_memory_back(solver):
    # the failing step had advanced both servos' memory in the loop: it is put back with the bodies, as a
    # failed single step leaves the state as it was
    model, state = _servo_rocket()
    a, sa, b, sb = pair(model, state, solver=solver)
    assert b.run_path == solver
    by_step, by_run = _both_fail(a, sa, b, sb)
    assert by_run == by_step and "diverged" in by_run
    assert 5 <= sb.step_count < 50
    assert_same_state(sa, sb)
    assert_same_servo_memory(sa, sb)
    assert_same_memory(a, b)
    assert np.isfinite(sb.servo_prev_error).all() and sb.servo_integral.all()
    # both go on identically from there, the sled stopped and its servo's memory cleared
    for s in (sa, sb):
        s.servo_integral[0] = s.servo_prev_error[0] = 0.0
        s.body_vel[1] = 0.0
    for _ in range(5):
        a.step(sa, 0.01)
    b.run(sb, 0.01, 5)
    assert_same_state(sa, sb)
    assert_same_servo_memory(sa, sb)


def test_non_finite_step_inside_a_run_names_the_body_and_restores():
    # a torque of 1e300 N m on a tiny inertia overflows the angular velocity: not finite after the step
    b = ims.ModelBuilder("spinner")
    b.add_body("top", mass=1.0, inertia=(1e-6, 1e-6, 1e-6), position=(0, 0, 0.1))
    b.add_ball("tip", "world", "top", anchor=(0, 0, 0))
    model, state = b.build()
    a, sa, c, sc = pair(model, state, solver="lgs")
    assert c.run_path == "lgs"
    for _ in range(3):
        a.step(sa, 1e-3)
    c.run(sc, 1e-3, 3)
    sa.body_torque[1] = sc.body_torque[1] = (1e300, 1e300, 0.0)
    with pytest.raises(SimulationError) as by_step:
        a.step(sa, 1e-3)
    with pytest.raises(SimulationError) as by_run:
        c.run(sc, 1e-3, 10)
    assert str(by_run.value) == str(by_step.value)
    assert '"top"' in str(by_run.value) and "step 3" in str(by_run.value)
    assert_same_state(sa, sc)
    assert sc.step_count == 3 and np.isfinite(sc.body_omega).all()
    assert_same_memory(a, c)


@pytest.mark.parametrize("method, options", [
    ("impulse", dict(scheme="order2", solver="lgs")),
    ("impulse", dict(solver="lgs", fused=False)),
    ("lagrange", dict()),       # Featherstone's method has its own loop (tests/featherstone/test_run.py)
])
def test_methods_without_the_compiled_loop_step_in_python_with_the_same_results(method, options):
    model, state = scenes.chain(5)
    a = ims.make_method(method, model, **options)
    b = ims.make_method(method, model, **options)
    assert b.run_path == "python"
    sa, sb = state.copy(), state.copy()
    steps = [a.step(sa, 0.005) for _ in range(20)]
    calls = []
    run = b.run(sb, 0.005, 20, every=6, callback=calls.append)
    assert_same_state(sa, sb)
    assert run.steps == 20 and [c.steps for c in calls] == [6, 6, 6]
    assert run.iters_pos == sum(i.iters_pos for i in steps)
    assert step_info_tuple(run.last) == step_info_tuple(steps[-1])


def test_python_loop_failure_keeps_the_last_good_step():
    model, state = _slider_rocket(1e6)
    b = ims.make_method("impulse", model, solver="lgs", scheme="order2", contacts=False)
    assert b.run_path == "python"
    with pytest.raises(SimulationError, match="diverged"):
        b.run(state, 0.01, 50)
    assert state.step_count in (9, 10, 11) and np.abs(state.body_vel).max() <= 1e5


def test_simulation_run_observes_every_k_steps_with_the_same_states():
    model, state = scenes.chain(10)
    fast_sim = ims.Simulation(model, state.copy(), h=0.01, solver="lgs")
    slow_sim = ims.Simulation(model, state.copy(), h=0.01, solver="lgs")
    slow_sim.after_step.append(lambda sim, info: None)       # a callback: step by step
    seen_fast, seen_slow = [], []
    assert fast_sim.run(0.25, every=4, observer=lambda s, i: seen_fast.append((s.state.copy(), i))) == 25
    slow_sim.run(0.25, every=4, observer=lambda s, i: seen_slow.append((s.state.copy(), i)))
    assert len(seen_fast) == len(seen_slow) == 6
    for (x, i), (y, j) in zip(seen_fast, seen_slow):
        assert_same_state(x, y)
        assert step_info_tuple(i) == step_info_tuple(j)
    assert_same_state(fast_sim.state, slow_sim.state)
    assert step_info_tuple(fast_sim.last_info) == step_info_tuple(slow_sim.last_info)


def test_simulation_run_switches_to_single_steps_when_an_observer_adds_a_callback():
    model, state = scenes.chain(4)
    sim = ims.Simulation(model, state.copy(), h=0.01, solver="lgs")
    ref = ims.Simulation(model, state.copy(), h=0.01, solver="lgs")
    after = []
    sim.run(0.1, every=5, observer=lambda s, i: s.after_step.append(lambda s2, i2: after.append(s2.t))
            if not s.after_step else None)
    for _ in range(10):
        ref.step()
    assert_same_state(sim.state, ref.state)
    assert len(after) == 5                      # steps 6 … 10 ran one by one with the callback


def test_the_run_command_loop_batches_between_records_with_the_same_results():
    # impulsim run's loop (io.runner) takes the steps between two records in one compiled call: the
    # recorded states, iteration counts and the final state are those of single steps
    from impulsim.io import runner
    from impulsim.io.recording import Recorder
    model, state = scenes.chain(10)
    sims = [ims.Simulation(model, state.copy(), h=0.01, solver="lgs") for _ in range(2)]
    sims[1].after_step.append(lambda sim, info: None)          # forces single steps
    results, tables = [], []
    for sim in sims:
        rec = Recorder(model)
        results.append(runner.run(sim, 0.3, rec, every=7))
        tables.append(rec.table())
    fast, slow = results
    assert fast.steps == slow.steps == 30 and fast.error is None
    assert fast.iters_pos.tolist() == slow.iters_pos.tolist()
    assert fast.iters_vel.tolist() == slow.iters_vel.tolist()
    assert tables[0].column("t").to_pylist() == tables[1].column("t").to_pylist()
    assert len(tables[0]) == 1 + 4 + 1                            # start, steps 7, 14, 21, 28, end
    assert_same_state(sims[0].state, sims[1].state)


def test_the_run_command_loop_reports_a_failed_step_and_keeps_the_good_ones():
    from impulsim.io import runner
    model, state = _slider_rocket(1e6)
    sim = ims.Simulation(model, state, h=0.01, solver="lgs", contacts=False)
    result = runner.run(sim, 0.5, None, every=4)
    assert isinstance(result.error, SimulationError) and "step 10 " in str(result.error)
    assert result.steps == 10 == sim.state.step_count and len(result.step_times) == 10


def test_short_runs_wait_for_a_compiled_loop_and_long_runs_compile_it(monkeypatch):
    from impulsim.methods.impulse import run_kernels, run_path
    monkeypatch.setattr(run_path, "COMPILE_PAYS_STEPS", 1000)
    assert run_path.loop_ready("lgs", 1000)                        # long enough to earn its compile
    # shorter: only a loop compiled already (here by the tests above, or found in Numba's cache)
    compiled = bool(run_kernels.lgs_run.overloads)
    cached = os.path.exists(run_kernels.lgs_run._cache._cache_file._index_path)
    assert run_path.loop_ready("lgs", 10) == (compiled or cached)


@pytest.mark.parametrize("solver", ["lgs", "iterative"])
def test_run_loops_take_their_settings_as_numbers_and_the_scheme_apart(monkeypatch, solver):
    # Numba types a tuple of numbers and arrays on its fast path, but a tuple holding the rotation scheme
    # object through Python, member by member, on every call: that had cost ~40 µs a run() call, as much
    # as ten steps of the chain. The scheme must reach the loops as an argument of its own.
    from impulsim.dynamics.integrate import RotationScheme
    from impulsim.methods.impulse import run_kernels, run_path
    monkeypatch.setattr(run_path, "COMPILE_PAYS_STEPS", 0)
    captured = []
    name = "lgs_run" if solver == "lgs" else "iterative_run"
    monkeypatch.setattr(run_kernels, name, lambda *args: captured.append(args))
    model, state = scenes.chain(3)
    method = ims.make_method("impulse", model, solver=solver, contacts=False)
    assert method.run_path == solver
    method.run(state, 0.01, 2)
    settings, scheme = captured[0][-2:]
    assert all(type(v) in (int, float, bool) for v in settings), settings
    assert isinstance(scheme, RotationScheme)
