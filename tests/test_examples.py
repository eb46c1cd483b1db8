"""Every example scene loads, runs with `impulsim run` settings, and checks itself against physics."""
import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest
from scipy.special import ellipk

import impulsim as ims
from impulsim.methods.impulse.contact_step import model_has_contacts
from impulsim.io import load_scene

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
SCENES = sorted(EXAMPLES.glob("*.yaml"))

ROUNDING = 1e-9
"""Relative slack on eps_d: the joint correction stops when the *predicted* error is below eps_d, and the
free step then reproduces the prediction up to float round-off of a few operations."""
START_STEPS = 3
"""Steps a scene may take to assemble inconsistent initial data (Bender's chain starts every link at
2 m/s in its own direction; the per-step correction-speed cap spreads that over the first two steps)."""
ENERGY_TOL = 1e-3
"""Energy change allowed in a conservative example, relative to its peak kinetic energy. The impulse
step conserves energy up to the integration error O((ωh)²) ≈ 1e-5 per unit time at these step sizes,
plus the eps_d-sized stop of the joint correction; a sign or frame error changes energy by O(1)."""
SIX_DIGITS = 1e-5
"""Relative rounding of a number written with 6 significant digits (at most 5e-6)."""
NINE_DIGITS = 1e-8
"""Relative rounding of numbers written with 9 significant digits (at most 5e-9 each)."""
STEPS = {"falling_boxes": 20, "wrecking_ball": 20, "pendulum": 300, "double_pendulum": 300, "spring_oscillator": 200, "servo_arm": 200,
         "slider_crank": 200, "ball_chain": 8, "ball_tree": 3}
"""Steps per example in the generic test (few for the large ones, to keep the suite fast)."""


def _is_conservative(scene, eps_v):
    """No actuators, loads, dampers or velocity joints, and initial velocities that satisfy the joints
    (inconsistent ones, as in Bender's chain, are projected away with a loss of kinetic energy)."""
    m = scene.model
    return (m.n_servos == 0 and m.n_motors == 0 and not scene.loads and not np.any(m.spring_damping)
            and not model_has_contacts(m) and m.n_limits == 0
            and not np.any(m.joint_kind == ims.JointKind.VELOCITY)
            and ims.diagnostics.velocity_errors(m, scene.state).max(initial=0) <= eps_v)


def test_examples_exist():
    assert {p.stem for p in SCENES} >= set(STEPS)


@pytest.mark.parametrize("path", SCENES, ids=[p.stem for p in SCENES])
def test_example_runs_within_its_joint_tolerance(path):
    scene = load_scene(path)
    sim = scene.simulation()
    eps_d = sim.method.eps_d
    steps = STEPS.get(path.stem, 50)
    assembled = False
    energies, kinetic = [], []
    for i in range(steps):
        info = sim.step()
        ok = info.clamped == 0 and info.converged_pos and info.converged_vel
        if not (ok or assembled or i >= START_STEPS):
            continue            # still assembling inconsistent initial data
        assert ok, f"step {i}: {info.iters_pos} position sweeps, {info.clamped} clamped"
        assert ims.diagnostics.constraint_errors(scene.model, sim.state).max(initial=0) <= eps_d * (1 + ROUNDING)
        if assembled:           # energy is compared only between steps that start from a valid state
            energies.append(ims.diagnostics.total_energy(scene.model, sim.state))
            kinetic.append(ims.diagnostics.kinetic_energy(scene.model, sim.state))
        assembled = True
    assert len(energies) >= steps - START_STEPS
    if _is_conservative(scene, sim.method.eps_v):
        assert abs(energies[-1] - energies[0]) <= ENERGY_TOL * max(kinetic)


def _crossing_times(times, values, level):
    """Times at which a sampled signal crosses ``level``, by linear interpolation."""
    t, x = np.asarray(times), np.asarray(values) - level
    i = np.nonzero(x[:-1] * x[1:] < 0)[0]
    return t[i] - x[i] * (t[i + 1] - t[i]) / (x[i + 1] - x[i])


def _trace(scene, steps, probe):
    sim = scene.simulation()
    times, values = [sim.state.t], [probe(sim.state)]
    for _ in range(steps):
        sim.step()
        times.append(sim.state.t)
        values.append(probe(sim.state))
    return np.array(times), np.array(values)


PERIOD_TOL = 1e-4
"""Relative period error allowed: the step's phase error is O((ωh)²) ≈ 1e-5 at ωh ≤ 0.01, and the linear
interpolation of the crossings adds less than that."""


def test_pendulum_period_matches_the_elliptic_integral():
    """θ'' = −(m g l / I) sin θ with I = m (l² + 2/5 r²): T = 4 sqrt(I / (m g l)) K(sin²(θ0/2))."""
    scene = load_scene(EXAMPLES / "pendulum.yaml")
    l, r, g, theta0 = 1.0, 0.05, 9.81, math.radians(30)
    expected = 4 * math.sqrt((l * l + 0.4 * r * r) / (g * l)) * ellipk(math.sin(theta0 / 2) ** 2)
    # the hinge angle is measured from the release pose, so the vertical is at −θ0
    times, angle = _trace(scene, 2100, lambda s: ims.diagnostics.joint_coordinate(scene.model, s, "pivot"))
    down = _crossing_times(times, angle, -theta0)
    assert (down[1] - down[0]) * 2 == pytest.approx(expected, rel=PERIOD_TOL)


def test_spring_oscillator_period_is_two_pi_sqrt_m_over_k():
    """Undamped block on a slider: T = 2π sqrt(m / D) = 2π sqrt(1 kg / 100 N/m)."""
    scene = load_scene(EXAMPLES / "spring_oscillator.yaml")
    k = scene.model.body("block")
    times, y = _trace(scene, 800, lambda s: s.body_pos[k, 1])
    rest = _crossing_times(times, y, 0.5)        # the spring's rest position
    assert rest[2] - rest[0] == pytest.approx(2 * math.pi * math.sqrt(1.0 / 100.0), rel=PERIOD_TOL)


SERVO_TOL = 0.02
"""[rad] Residual tracking error of the arm's PID servos 1.4 s after a set-point jump: gravity alone would
leave an offset of about τ_g / kp ≈ 11 N m / 200 N m/rad = 0.055 rad, which the integral term (integral
time kp / ki = 0.67 s) shrinks by e^(−1.4/0.67) ≈ 0.12 to ~0.007 rad."""


def test_servo_arm_reaches_its_set_points():
    scene = load_scene(EXAMPLES / "servo_arm.yaml")
    sim = scene.simulation()
    angle = {}
    for step in range(1, 3901):
        sim.step()
        if step in (1900, 3900):
            angle[step] = [ims.diagnostics.joint_coordinate(scene.model, sim.state, j)
                           for j in ("shoulder", "elbow")]
    assert angle[1900][0] == pytest.approx(1.2, abs=SERVO_TOL)      # set-point 1.2 rad from t = 0.5 s
    assert angle[3900][0] == pytest.approx(-0.6, abs=SERVO_TOL)     # -0.6 rad from t = 2 s
    assert angle[3900][1] == pytest.approx(0.3, abs=SERVO_TOL)      # ramp ends at 0.3 rad at t = 3 s


LOOP_TOL = 1e-5
"""[m] Four joints each within eps_d = 1e-6 (in m, and in rad times lever arms of at most 0.6 m) bound the
piston's deviation from the ideal mechanism by about 4 × (1 + 0.6) × 1e-6 m."""


def test_slider_crank_piston_follows_the_closed_loop_kinematics():
    """Piston height above the crank axis: z = r sin θ + sqrt(L² − r² cos² θ), θ from +y towards +z."""
    scene = load_scene(EXAMPLES / "slider_crank.yaml")
    r, L = 0.2, 0.6
    m, piston = scene.model, scene.model.body("piston")
    sim = scene.simulation()
    for _ in range(400):
        sim.step()
        theta = ims.diagnostics.joint_coordinate(m, sim.state, "main_bearing")
        z = r * math.sin(theta) + math.sqrt(L * L - (r * math.cos(theta)) ** 2)
        assert sim.state.body_pos[piston, 2] == pytest.approx(z, abs=LOOP_TOL)
        assert np.hypot(*sim.state.body_pos[piston, :2]) <= LOOP_TOL
    assert theta != 0.0    # the crank has turned


def _load_generator(name):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name, text", [("generate_ball_chain", "chain_yaml"), ("generate_ball_tree", "tree_yaml")])
def test_generated_scenes_are_up_to_date(name, text):
    scene_file = EXAMPLES / (name.removeprefix("generate_") + ".yaml")
    assert getattr(_load_generator(name), text)() == scene_file.read_text()


def test_ball_chain_is_benders():
    """20 links of 1 kg, 1 m × 0.1 m × 0.1 m, each centre at 2 m/s (to the 9 digits written), h = 10 ms."""
    scene = load_scene(EXAMPLES / "ball_chain.yaml")
    m, s = scene.model, scene.state
    assert m.n_bodies - 1 == 20 and m.n_joints == 20
    assert np.all(m.body_mass[1:] == 1.0)
    # box moments m (b² + c²) / 12 about the centre, from 1 m × 0.1 m × 0.1 m
    np.testing.assert_allclose(m.body_inertia[1:], [[(1 + 0.01) / 12, (1 + 0.01) / 12, 0.02 / 12]] * 20,
                               rtol=ROUNDING)
    np.testing.assert_allclose(np.linalg.norm(s.body_vel[1:], axis=1), 2.0, rtol=NINE_DIGITS)
    assert len({tuple(v) for v in np.round(s.body_vel[1:], 3)}) == 20      # all directions differ
    assert scene.settings.h == 0.01 and scene.settings.options == {"eps_d": 1e-6, "eps_v": 1e-6}


def test_ball_tree_is_benders():
    """127 bodies on 7 levels, 4 cm × 4 cm × 1.5^(6 − depth) · 0.1 m at 600 kg/m³, 127 ball joints."""
    scene = load_scene(EXAMPLES / "ball_tree.yaml")
    m = scene.model
    assert m.n_bodies - 1 == 127 and m.n_joints == 127
    assert np.all(m.joint_kind == ims.JointKind.BALL)
    for k, name in enumerate(m.body_names[1:], start=1):
        depth = int(name[1:].split("_")[0])
        length = 1.5 ** (6 - depth) * 0.1
        assert m.body_mass[k] == pytest.approx(600 * 0.04 * 0.04 * length, rel=SIX_DIGITS)
    assert scene.settings.h == 1 / 30
    assert len(scene.loads) == 1 and np.linalg.norm(scene.loads[0].torque) == 10.0


def test_builder_script_builds_the_same_double_pendulum():
    from dataclasses import fields
    model, state = _load_generator("double_pendulum").build()
    scene = load_scene(EXAMPLES / "double_pendulum.yaml")
    for f in fields(model):
        a, b = getattr(model, f.name), getattr(scene.model, f.name)
        if isinstance(a, np.ndarray):
            assert np.array_equal(a, b), f.name
    assert np.array_equal(state.body_pos, scene.state.body_pos)
    assert np.array_equal(state.body_quat, scene.state.body_quat)


def test_falling_boxes_come_to_rest_on_a_face():
    """After 3 s every body lies on the ground with its centre at one of its half extents above it (a box
    on one of its faces, a ball on its radius, the capsule on its side), within eps_c = 1 mm, and its lowest
    point does not move: boxes rest, balls may roll, but nothing slides or bounces (static friction holds
    within eps_vc = 1e-3 m/s per contact)."""
    scene = load_scene(EXAMPLES / "falling_boxes.yaml")
    sim = scene.simulation()
    sim.run(3.0)
    m, s = scene.model, sim.state
    rests = {"box1": (0.2, 0.15, 0.1), "box2": (0.15,), "box3": (0.25, 0.1), "ball1": (0.12,),
             "ball2": (0.08,), "rod": (0.05,)}
    for name, heights in rests.items():
        k = m.body(name)
        height = min(heights, key=lambda z: abs(s.body_pos[k, 2] - z))
        assert abs(s.body_pos[k, 2] - height) < 1e-3, name
        bottom = s.body_vel[k] + np.cross(s.body_omega[k], [0.0, 0.0, -height])
        assert np.linalg.norm(bottom) < 1e-2, name


@pytest.mark.parametrize("options", [{}, {"shock_propagation": 10}], ids=["sweeps", "shock"])
def test_wrecking_ball_knocks_off_the_top_of_the_tower_and_keeps_its_chain(options):
    """The ball swings through the tower's upper half: after 2.4 s the top four blocks have fallen (each below
    the fifth block's starting height) while the lower four still stand where they were, every joint of the chain
    holds eps_d, and the total energy never rose above its start (restitution below 1 and friction only take
    energy; the allowance is the work of lifting every body by eps_d, what a joint or contact correction to that
    tolerance can add). The run takes the compiled contact loop. With shock propagation the resting tower takes
    the shock pass every step, after which the joints are closed on their own."""
    scene = load_scene(EXAMPLES / "wrecking_ball.yaml")
    sim = scene.simulation(**options)
    m = scene.model
    assert sim.method.run_path == "contacts"
    eps_d = sim.method.eps_d
    start_energy = ims.diagnostics.total_energy(m, sim.state)
    allowance = np.linalg.norm(m.gravity) * (1.0 / m.body_inv_mass[m.body_inv_mass > 0]).sum() * eps_d
    start = sim.state.body_pos.copy()
    for _ in range(12):
        sim.run(0.2)
        assert ims.diagnostics.constraint_errors(m, sim.state).max() <= eps_d * (1 + ROUNDING)
        assert ims.diagnostics.total_energy(m, sim.state) <= start_energy + allowance
    for i in range(8):
        k = m.body(f"block{i}")
        if i < 4:
            assert np.abs(sim.state.body_pos[k] - start[k]).max() < 0.02, f"block{i} moved"
        else:
            assert sim.state.body_pos[k, 2] < start[m.body("block4"), 2], f"block{i} did not fall"


def test_ragdoll_tumbles_down_the_steps_within_its_stops_and_joints():
    """The figure tips off the platform and comes to lie on the steps or the ground below them: its pelvis ends
    below the platform's top (0.8 m) and in front of its edge (y > 0.3 m). Every 0.25 s each hinge stays
    within its stops and each joint within its tolerance, both to twice eps_d: the joints and limits are
    corrected to eps_d at the end of each step's position passes, alternating with the contacts, whose last
    pass may open them by as much again. The run takes the compiled contact loop with its limits."""
    scene = load_scene(EXAMPLES / "ragdoll.yaml")
    sim = scene.simulation()
    m = scene.model
    assert sim.method.run_path == "contacts" and m.n_limits == 5
    eps_d = sim.method.eps_d
    for _ in range(12):
        sim.run(0.25)
        assert ims.diagnostics.constraint_errors(m, sim.state).max() <= 2 * eps_d
        for i, name in enumerate(m.limit_names):
            q = ims.diagnostics.joint_coordinate(m, sim.state, m.joint_names[m.limit_joint[i]])
            assert m.limit_lower[i] - 2 * eps_d <= q <= m.limit_upper[i] + 2 * eps_d, name
    pelvis = sim.state.body_pos[m.body("pelvis")]
    assert pelvis[2] < 0.8 and pelvis[1] > 0.3
    assert np.abs(sim.state.body_vel).max() < 2.0       # settling, not thrown about


MASSPOINT_SCENES = sorted((EXAMPLES / "masspoint").glob("*.yaml"))


@pytest.mark.parametrize("path", MASSPOINT_SCENES, ids=[f"masspoint-{p.stem}" for p in MASSPOINT_SCENES])
def test_masspoint_example_keeps_every_link_within_eps(path):
    """Mass-point scene files (``method: masspoint``, docs/masspoint.md): after every step each distance is
    met and no thread is longer than its length, to the fin tolerance eps [m]; points on rails stay on them
    (the rail is a projector, so only rounding remains). Energy is checked in tests/masspoint."""
    scene = load_scene(path)
    assert scene.settings.method == "masspoint"
    sim = scene.simulation()
    rails = np.isin(scene.model.prim_kind, (ims.model.Prim.LINE, ims.model.Prim.PLANE))
    for _ in range(100):
        info = sim.step()
        assert info.converged_pos and info.residual_pos < sim.method.eps
        errors = ims.diagnostics.constraint_errors(scene.model, sim.state)
        assert errors[~rails].max(initial=0) < sim.method.eps
        assert errors[rails].max(initial=0) < ROUNDING
