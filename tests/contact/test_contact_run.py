"""The compiled contact loop (methods/impulse/contact_run.py): n steps of bodies in contact, free or on joints
corrected iteratively, through ``Method.run`` give the very results of n calls of ``step``, bit for bit (the
same kernels in the same order), with the same aggregated figures; a step that needs bigger buffers or fails a check is taken by ``step``, so
growth and failures behave as with single steps; models the loop cannot take step in Python."""
import numpy as np
import pytest

import impulsim as ims
from impulsim.contact.limits import RESTING
from impulsim.errors import SimulationError
from impulsim.experiments import bender
from impulsim.io import load_scene, scene_from_string
from impulsim.methods.impulse import contact_run
from impulsim.methods.impulse.lgs import CorrectionDiverged

MOTION = ("body_pos", "body_quat", "body_vel", "body_omega")
SERVO_MEMORY = ("servo_integral", "servo_prev_error", "servo_effort")
SUMMED = ("iters_pos", "iters_vel", "n_collisions", "iters_collision", "shock_sweeps", "patch_visits")
LAST = SUMMED + ("residual_pos", "residual_vel", "converged_pos", "converged_vel", "n_contacts", "clamped")


@pytest.fixture(autouse=True)
def always_compiled(monkeypatch):
    """These tests are of the compiled loop: take it for every run, however short (see loop_ready)."""
    monkeypatch.setattr(contact_run, "COMPILE_PAYS_STEPS", 0)


def random_pile(seed: int, n: int = 8, settings: str = "") -> str:
    """A scene of n boxes, spheres and capsules of random sizes, poses, materials and velocities (up to 3 m/s and
    10 rad/s), dropped in a 1 m wide column onto the ground, some overlapping at the start."""
    rng = np.random.default_rng(seed)
    lines = [f"settings: {{h: 0.002, eps_d: 1.0e-5, eps_v: 1.0e-5{settings}}}", "materials:"]
    for k in range(3):
        lines.append(f"  m{k}: {{static_friction: {rng.uniform(0.1, 0.6):.3f}, dynamic_friction: "
                     f"{rng.uniform(0.05, 0.4):.3f}, restitution: {rng.uniform(0.0, 0.9):.3f}, density: "
                     f"{rng.uniform(300, 2000):.0f}}}")
    lines += ["bodies:", "  - {name: ground, shapes: [half_space: {material: m0}], static: true}"]
    for i in range(n):
        kind = rng.choice(["box", "sphere", "capsule"])
        material = f"m{rng.integers(3)}"
        if kind == "box":
            shape = f"box: {{size: {np.round(rng.uniform(0.1, 0.5, 3), 3).tolist()}, material: {material}}}"
        elif kind == "sphere":
            shape = f"sphere: {{radius: {rng.uniform(0.05, 0.2):.3f}, material: {material}}}"
        else:
            shape = f"capsule: {{radius: {rng.uniform(0.04, 0.1):.3f}, length: {rng.uniform(0.2, 0.5):.3f}, " \
                    f"material: {material}}}"
        pos = [*np.round(rng.uniform(-0.5, 0.5, 2), 3).tolist(), round(0.15 + 0.3 * i + rng.uniform(0, 0.1), 3)]
        axis = np.round(rng.normal(size=3), 3).tolist()
        lines.append(f"  - {{name: b{i}, shapes: [{shape}], position: {pos}, orientation: {{axis: {axis}, angle: "
                     f"{rng.uniform(0, 3):.3f}}}, velocity: {np.round(rng.uniform(-3, 3, 3), 3).tolist()}, "
                     f"angular_velocity: {np.round(rng.uniform(-10, 10, 3), 3).tolist()}}}")
    return "\n".join(lines) + "\n"


def twins(scene, **options):
    """Two simulations of one scene: one to run, one to step."""
    return scene.simulation(method="impulse", **options), scene.simulation(method="impulse", **options)


def run_in_chunks(sim, n, chunk):
    """n steps through Method.run, ``chunk`` at a time; their RunInfos."""
    infos, done = [], 0
    while done < n:
        k = min(chunk, n - done)
        infos.append(sim.method.run(sim.state, sim.h, k))
        done += k
    return infos


def assert_same(a, b):
    for name in MOTION:
        assert np.array_equal(getattr(a.state, name), getattr(b.state, name)), name
    for name in SERVO_MEMORY:
        assert np.array_equal(getattr(a.state, name), getattr(b.state, name), equal_nan=True), name
    assert a.state.t == b.state.t and a.state.step_count == b.state.step_count
    sa, sb = a.method.contacts, b.method.contacts
    for name in ("count", "n_collisions", "prev_count", "top_level", "n_patches_down", "level_sweeps", "visits"):
        assert getattr(sa, name) == getattr(sb, name), name
    n = sa.prev_count
    for name in ("prev_pos", "prev_vel", "prev_keys_sorted", "prev_anchor_a", "prev_sticking"):
        assert np.array_equal(getattr(sa, name)[:n], getattr(sb, name)[:n]), name


def assert_same_figures(run_infos, step_infos):
    for name in SUMMED:
        assert sum(getattr(r, name) for r in run_infos) == sum(getattr(s, name) for s in step_infos), name
    assert max(r.n_contacts for r in run_infos) == max(s.n_contacts for s in step_infos)
    assert max(r.max_iters_pos for r in run_infos) == max(s.iters_pos for s in step_infos)
    assert max(r.residual_vel for r in run_infos) == max(s.residual_vel for s in step_infos)
    assert sum(r.unconverged for r in run_infos) == sum(not (s.converged_pos and s.converged_vel)
                                                        for s in step_infos)
    for name in LAST:
        assert getattr(run_infos[-1].last, name) == getattr(step_infos[-1], name), name


def compare(scene, n, chunk=100, watch=None, **options):
    """n steps of ``scene`` through ``run`` in chunks and by ``step``, compared bit for bit; ``watch(method)`` is
    called after each step of the stepped twin. Returns the steps' StepInfos."""
    a, b = twins(scene, **options)
    assert a.method.run_path == "contacts"
    run_infos = run_in_chunks(a, n, chunk)
    step_infos = []
    for _ in range(n):
        step_infos.append(b.method.step(b.state, b.h))
        if watch is not None:
            watch(b.method)
    assert_same(a, b)
    assert_same_figures(run_infos, step_infos)
    return step_infos


def test_falling_boxes_bit_for_bit():
    """The example pile with shock propagation, from the drop through the landings to rest (2 s)."""
    infos = compare(load_scene("examples/falling_boxes.yaml"), 1000, chunk=137)
    assert sum(i.n_collisions for i in infos) > 50 and sum(i.shock_sweeps for i in infos) > 0   # all paths taken


@pytest.mark.parametrize("seed,options", [
    (1, {}),
    (2, dict(restitution="poisson")),
    (3, dict(restitution="stronge", shock_propagation=5)),
    (4, dict(warm_start=False, recovery_speed=float("inf"))),
    (5, dict(skip_resolved=True, skip_resolved_positions=True)),
    (6, dict(capacity=2)),                # the buffers grow during the run (steps left to Python)
])
def test_random_piles_bit_for_bit(seed, options):
    """Random piles thrown fast onto the ground (collisions, stacking, rolling), every contact option."""
    compare(scene_from_string(random_pile(seed)), 400, chunk=97, **options)


PLATFORM = """\
  - {name: platform, kinematic: true, shapes: [box: {size: [3, 3, 0.1]}], position: [0, 0, 0.2],
     velocity: [0.3, 0, 0.2], angular_velocity: [0, 0, 0.4]}
"""
LOADS = """\
loads:
  - {body: b0, force: [4, 0, 30], start: 0.1, end: 0.4}
  - {body: b2, torque: [0, 2, 0], start: 0.2, end: .inf}
"""


def test_kinematic_bodies_and_timed_loads_bit_for_bit():
    """A kinematic platform rising and turning under a pile, loads switching on and off during the runs."""
    compare(scene_from_string(random_pile(9, n=5) + PLATFORM + LOADS), 400, chunk=61)


def test_buffers_grow_inside_a_run():
    """With room for two contacts, the run hands the steps with more to ``step``, which grows the buffers."""
    a, b = twins(scene_from_string(random_pile(7)), capacity=2)
    a.method.run(a.state, a.h, 300)
    for _ in range(300):
        b.method.step(b.state, b.h)
    assert_same(a, b)
    assert len(a.method.contacts.rows.e) > 2 and a.method.contacts.detector.grow_count > 0


def tunnelling_scene() -> str:
    """A pile at rest and a small ball pushed sideways by a force that makes it tunnel after some steps."""
    return random_pile(8, n=4) + "  - {name: bullet, shapes: [sphere: {radius: 0.01}], mass: 0.01, " \
                                 "position: [3, 0, 0.5]}\n"


def test_failed_step_in_a_run_is_rolled_back_like_a_step():
    """A step that fails the tunnelling check inside a run raises step's error, with the state and the warm
    start's memory as after the last good step, and the run's earlier steps kept."""
    a, b = twins(scene_from_string(tunnelling_scene()))
    for sim in (a, b):
        sim.state.body_force[sim.model.body("bullet")] = [20.0, 0.0, 0.0]   # 2000 m/s² sideways
    with pytest.raises(SimulationError) as stepped:
        for _ in range(1000):
            b.method.step(b.state, b.h)
    good = b.state.step_count
    assert good > 10
    with pytest.raises(SimulationError) as ran:
        a.method.run(a.state, a.h, 1000)
    assert str(ran.value) == str(stepped.value) and "too large" in str(ran.value)
    assert_same(a, b)
    # and a run goes on from there as steps do, with a smaller step
    a.state.body_force[:] = b.state.body_force[:] = 0.0
    run_in_chunks(a, 50, 50)
    for _ in range(50):
        b.method.step(b.state, b.h)
    assert_same(a, b)


def test_iterations_per_step_recorded():
    a, b = twins(load_scene("examples/falling_boxes.yaml"))
    iters = np.zeros((400, 2), np.int64)
    a.method.run(a.state, a.h, 400, iters=iters)
    expected = [(i.iters_pos, i.iters_vel) for i in (b.method.step(b.state, b.h) for _ in range(400))]
    assert iters.tolist() == [list(e) for e in expected]


def test_simulation_run_takes_the_loop():
    """Simulation.run (what ``impulsim run`` calls) steps the example through the loop, recording included."""
    sim = load_scene("examples/falling_boxes.yaml").simulation()
    ref = load_scene("examples/falling_boxes.yaml").simulation()
    sim.run(0.5, every=25)
    while ref.state.step_count < sim.state.step_count:
        ref.method.step(ref.state, ref.h)
    assert np.array_equal(sim.state.body_pos, ref.state.body_pos)
    assert "contacts_run" in sim.method.run(sim.state, sim.h, 2).timings


def jointed_pile(seed: int, n: int = 6, settings: str = "") -> str:
    """A random pile (random_pile) hit by a chain of three links on random joint types, released level from a pivot
    beside the pile so that it swings through it and onto the ground, with two of the pile's bodies joined by a
    ball joint and a third held to a sliding velocity (a velocity joint) for the whole run."""
    rng = np.random.default_rng(100 + seed)
    kinds = rng.choice(["ball", "hinge", "universal", "cylindrical"], 3)
    lines = [random_pile(seed, n, settings).rstrip("\n")]
    for k in range(3):
        x = -1.05 + 0.35 * k
        lines.append(f"  - {{name: link{k}, shapes: [box: {{size: [0.3, 0.06, 0.06]}}], density: 800, "
                     f"position: [{x:.3f}, 0.05, 0.9]}}")
    lines.append("joints:")
    for k, kind in enumerate(kinds):
        a = "world" if k == 0 else f"link{k - 1}"
        anchor = [-1.2 + 0.35 * k, 0.05, 0.9]
        axes = "axis_a: [0, 1, 0], axis_b: [0, 0, 1]" if kind == "universal" else "axis: [0, 1, 0]"
        extra = "" if kind == "ball" else ", " + axes
        lines.append(f"  - {{name: j{k}, type: {kind}, bodies: [{a}, link{k}], anchor: {anchor}{extra}}}")
    lines.append("  - {name: pair, type: ball, bodies: [b0, b1], anchor: [0, 0, 0.5]}")
    lines.append("  - {name: drive, type: velocity, bodies: [world, b2], anchor: [0, 0, 0.8], velocity: [0.3, 0, 0]}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed,options", [
    (11, {}),
    (12, dict(restitution="poisson", shock_propagation=3)),
    (13, dict(restitution="stronge")),
    (14, dict(warm_start=False, skip_resolved=True, skip_resolved_positions=True)),
])
def test_joints_and_contacts_bit_for_bit(seed, options):
    """Joints corrected iteratively alternate with the contacts inside the loop as in ``step``: a chain on random
    joint types swings through a random pile and lands, two bodies of the pile are joined, one is driven."""
    infos = compare(scene_from_string(jointed_pile(seed)), 500, chunk=89, **options)
    assert sum(i.n_collisions for i in infos) > 0 and max(i.iters_pos for i in infos) > 1


def limited_pile(seed: int) -> str:
    """A random pile (random_pile) hit by a chain of three links on hinges with stops (random bounds 0.2–0.8 rad
    either side of the level start, random restitution), released level from a pivot beside the pile: the links
    swing onto their stops and through the pile, bounce off both and rest against stops and bodies; a fourth
    link slides on a cylindrical joint against a stop on its position."""
    rng = np.random.default_rng(200 + seed)
    lines = [random_pile(seed, 6).rstrip("\n")]
    for k in range(3):
        lines.append(f"  - {{name: link{k}, shapes: [box: {{size: [0.3, 0.06, 0.06]}}], density: 800, "
                     f"position: [{-1.05 + 0.35 * k:.3f}, 0.05, 0.9]}}")
    lines.append("  - {name: slider, shapes: [box: {size: [0.1, 0.1, 0.3]}], density: 600, position: [0.6, 0.5, 0.6]}")
    lines.append("joints:")
    for k in range(3):
        a = "world" if k == 0 else f"link{k - 1}"
        lines.append(f"  - {{name: j{k}, type: hinge, bodies: [{a}, link{k}], anchor: [{-1.2 + 0.35 * k:.3f}, 0.05, "
                     f"0.9], axis: [0, 1, 0]}}")
    lines.append("  - {name: rail, type: cylindrical, bodies: [world, slider], anchor: [0.6, 0.5, 0.6], "
                 "axis: [0, 0, 1]}")
    lines.append("limits:")
    for k in range(3):
        lo, hi, e = rng.uniform(0.2, 0.8), rng.uniform(0.2, 0.8), rng.uniform(0.0, 0.8)
        lines.append(f"  - {{name: stop{k}, joint: j{k}, lower: {-lo:.3f}, upper: {hi:.3f}, restitution: {e:.3f}}}")
    lines.append("  - {name: rail_stop, joint: rail, coordinate: position, lower: -0.3, upper: 0.3, "
                 "restitution: 0.2}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed,options", [
    (21, {}),
    (22, dict(restitution="poisson", shock_propagation=2)),
    (23, dict(warm_start=False, skip_resolved=True, skip_resolved_positions=True)),
])
def test_joint_limits_and_contacts_bit_for_bit(seed, options):
    """Joint limits in the loop as in ``step``: their collisions coupled with the joints' and contacts'
    collision sweeps, their position and velocity passes alternating with the joints' and the contacts'; the
    stops are struck and rested on, and steps find contacts and none."""
    struck, resting = [], []
    infos = compare(scene_from_string(limited_pile(seed)), 500, chunk=97, watch=lambda m: (
        struck.append(m.limits.n_collisions), resting.append(int((m.limits.phase == RESTING).sum()))), **options)
    assert sum(struck) > 0 and sum(resting) > 0
    assert any(i.n_contacts == 0 for i in infos) and any(i.n_contacts > 0 for i in infos)


def powered_pile(seed: int) -> str:
    """jointed_pile with force elements: a paddle on a hinge above the pile swung by a PID servo through
    set-points, a flap on a hinge beside it pushed by a motor, and a damped spring between two of the pile's
    bodies."""
    paddle = ("  - {name: paddle, shapes: [box: {size: [0.05, 0.4, 0.6]}], density: 500, position: [0.3, 0, 0.45]}\n"
              "  - {name: flap, shapes: [box: {size: [0.5, 0.05, 0.05]}], density: 500, position: [-0.25, 0.6, 0.3]}\n")
    text = jointed_pile(seed).replace("joints:\n", paddle + "joints:\n")
    return text + (
        "  - {name: paddle_hinge, type: hinge, bodies: [world, paddle], anchor: [0.3, 0, 0.75], axis: [0, 1, 0]}\n"
        "  - {name: flap_hinge, type: hinge, bodies: [world, flap], anchor: [0, 0.6, 0.3], axis: [0, 1, 0]}\n"
        "springs:\n  - {name: tie, bodies: [b3, b4], stiffness: 200, damping: 2}\n"
        "motors:\n  - {name: push, joint: flap_hinge, effort: 3}\n"
        "servos:\n  - {name: swing, joint: paddle_hinge, mode: angle, kp: 40, ki: 5, kd: 2, limit: 30, "
        "setpoints: [[0, 0], [0.3, 0.8], [0.6, -0.8]]}\n")


@pytest.mark.parametrize("seed,options", [
    (16, {}),
    (17, dict(shock_propagation=2, restitution="poisson")),
    (18, dict(capacity=2)),                # steps left to Python find the servos' memory as before them
])
def test_springs_motors_and_servos_with_contacts_bit_for_bit(seed, options):
    """The force elements' loads come from the kernels ``step`` uses, at each step's start; the servos' memory
    advances as with single steps."""
    infos = compare(scene_from_string(powered_pile(seed)), 500, chunk=83, **options)
    assert sum(i.n_contacts for i in infos) > 0


def test_jointed_model_without_contacts_found_steps_as_without_contacts():
    """Steps that find no contact finish as the joints' own step (Python's _joints_alone): a hinged arm swinging
    far from the only other body, a box that falls 0.2 m onto the ground (no contact for its first ~100 steps,
    then contacts the arm never touches); the tolerance figures of those steps follow the joints'."""
    infos = compare(scene_from_string(JOINTED), 300, chunk=71)
    assert max(i.iters_pos for i in infos) >= 1


def chain_beside_a_resting_box(links: int = 200):
    """Bender's ball-joint chain (experiments.bender.chain: links of 1 m, each starting at 2 m/s in a seeded
    direction) beside a box resting on a slab 50 m away: the box's contact makes every step take the coupled
    correction, and at h = 10 ms with the iterative solver the chain's second step diverges
    (tests/impulse/test_coupled_divergence.py)."""
    rng = np.random.default_rng(2007)
    b = ims.ModelBuilder("chain beside a box")
    b.add_body("slab", shapes=[ims.Box(size=(2.0, 2.0, 0.2))], static=True, position=(50, 0, -0.1))
    b.add_body("box", shapes=[ims.Box(size=(0.4, 0.4, 0.4))], mass=1.0, position=(50, 0, 0.1999))
    for i in range(links):
        d = rng.normal(size=3)
        b.add_body(f"link{i}", shapes=[ims.Box(size=(0.1, 0.1, 1.0))], mass=1.0, position=(0, 0, -(i + 0.5)),
                   velocity=2.0 * d / np.linalg.norm(d))
        b.add_ball(f"ball{i}", "world" if i == 0 else f"link{i - 1}", f"link{i}",
                   anchor_a=(0, 0, 0 if i == 0 else -0.5), anchor_b=(0, 0, 0.5))
    return b.build()


@pytest.mark.parametrize("with_box", [True, False])
def test_diverging_joint_correction_in_a_run_fails_like_a_step(with_box):
    """A joint correction that diverges inside the loop, coupled with a contact (with the box) or in a step that
    finds none (without it), fails the step as ``step`` does: CorrectionDiverged's text, the state and the warm
    start's memory as after the last good step."""
    model, state = chain_beside_a_resting_box()
    if not with_box:
        model, state = bender.chain(200)
    methods = [ims.make_method("impulse", model, solver="iterative", contacts=True) for _ in range(2)]
    states = [state.copy(), state.copy()]
    assert methods[0].run_path == "contacts"
    with pytest.raises(CorrectionDiverged) as stepped:
        for _ in range(5):
            methods[1].step(states[1], 0.01)
    with pytest.raises(CorrectionDiverged) as ran:
        methods[0].run(states[0], 0.01, 5)
    assert str(ran.value) == str(stepped.value) and states[0].step_count == states[1].step_count == 1
    for name in MOTION:
        assert np.array_equal(getattr(states[0], name), getattr(states[1], name)), name
    assert methods[0].contacts.prev_count == methods[1].contacts.prev_count
    assert (methods[0].contacts.prev_count > 0) == with_box
    assert ("with contacts and limits" in str(ran.value)) == with_box     # the coupled correction's refusal


JOINTED = """
settings: {h: 0.002}
bodies:
  - {name: ground, shapes: [half_space: {}], static: true}
  - {name: box, shapes: [box: {size: [0.2, 0.2, 0.2]}], position: [0, 0, 0.3]}
  - {name: arm, shapes: [box: {size: [0.05, 0.05, 0.5]}], position: [1, 0, 1.25],
     angular_velocity: [2, 0, 0]}
joints:
  - {name: pivot, type: hinge, bodies: [world, arm], anchor: [1, 0, 1.5], axis: [1, 0, 0]}
"""


@pytest.mark.parametrize("scene,options", [
    (JOINTED, dict(solver="lgs")),                          # LGS chains
    (None, dict(sleep=True)),                               # sleeping islands
    (None, dict(fused=False)),                              # the loops turned off
])
def test_what_the_loop_cannot_take_steps_in_python(scene, options):
    s = scene_from_string(scene) if scene else load_scene("examples/falling_boxes.yaml")
    assert ims.make_method("impulse", s.model, **options).run_path == "python"
