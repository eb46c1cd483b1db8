"""Mass-point scene files: the shipped examples load, run with `method: masspoint` and reproduce the Python
scenes of Schmitt's experiments bit for bit; `impulsim run` and `impulsim view` take them; bad files get
one-line errors naming file, line and element."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from impulsim.cli import main
from impulsim.errors import ModelError, UnsupportedFeatureError
from impulsim.experiments import schmitt as scenes
from impulsim.experiments.schmitt_runs import REPORT
from impulsim.io import load_scene, scene_from_string
from impulsim.io.shape_meshes import body_meshes
from impulsim.io.yamlnodes import SceneError
from impulsim.methods.masspoint import MassPointMethod, analysis, record
from impulsim.simulation import Simulation

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "masspoint"
SCENE_FILES = sorted(EXAMPLES.glob("*.yaml"))
T5 = REPORT["pendulum"]["T5"]


def test_the_promised_scene_files_exist():
    assert {p.stem for p in SCENE_FILES} >= {"pendulum", "cube", "thread_pendulum", "rail_pendulum"}


@pytest.mark.parametrize("stem, python_scene, steps", [
    ("pendulum", scenes.pendulum, 200), ("cube", scenes.cube, 60),
    ("thread_pendulum", scenes.thread_pendulum, 400), ("rail_pendulum", scenes.rail_pendulum, 200)])
def test_scene_file_runs_exactly_like_the_python_scene(stem, python_scene, steps):
    # same points, links, rails and kicks in the same order: the same arithmetic, so identical bits
    scene = load_scene(EXAMPLES / f"{stem}.yaml")
    assert scene.settings.method == "masspoint"
    from_file = record(scene.simulation(), steps)
    model, state = python_scene()
    from_python = record(Simulation(model, state, method=MassPointMethod(model), h=scene.settings.h), steps)
    rows = [model.body(name) for name in scene.model.body_names]
    assert np.array_equal(from_file.pos, from_python.pos[:, rows])
    assert np.array_equal(from_file.vel, from_python.vel[:, rows])


def test_pendulum_scene_file_gives_the_reports_period():
    # the report prints T_sim(h = T5/100) = 2.006687 s; one unit of its last digit
    scene = load_scene(EXAMPLES / "pendulum.yaml")
    traj = record(scene.simulation(), int(round(scene.settings.duration / scene.settings.h)))
    period = analysis.period_from_crossings(traj.t, traj.pos[:, scene.model.body("bob"), 0])
    assert abs(period - REPORT["pendulum"]["T_sim(h=T5/100)"]) < 1e-6


def test_cube_scene_file_kick_gives_32_newton_seconds():
    # two loads of 100 N during the first step of 0.16 s: Σ m V = 32 N s along −x, exactly (no gravity)
    scene = load_scene(EXAMPLES / "cube.yaml")
    sim = scene.simulation()
    for _ in range(3):
        sim.step()
    momentum = (scene.model.body_mass[:, None] * sim.state.body_vel)[scene.model.body_point > 0].sum(axis=0)
    assert momentum == pytest.approx([-32.0, 0.0, 0.0], abs=1e-12)


def test_cli_runs_a_mass_point_scene(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["run", str(EXAMPLES / "thread_pendulum.yaml"), "-d", "1.0", "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert "masspoint_thread_pendulum: 100 steps" in text
    assert (out / "recording.parquet").exists() and (out / "final_state.npz").exists()


def test_cli_resume_of_a_mass_point_scene_is_bit_for_bit(tmp_path):
    # the cube's kick (a timed load) acts in step 1, before the split; the threads' slack state lives in
    # the positions only, so a checkpoint carries everything over
    for scene, split in (("cube.yaml", "0.32"), ("thread_pendulum.yaml", "1.0")):
        path, whole, first, second = EXAMPLES / scene, tmp_path / "w", tmp_path / "f", tmp_path / "s"
        duration = str(2 * float(split))
        assert main(["run", str(path), "-d", duration, "-o", str(whole), "-q"]) == 0
        assert main(["run", str(path), "-d", split, "-o", str(first), "-q"]) == 0
        assert main(["run", str(path), "-d", split, "-o", str(second), "-q",
                     "--resume", str(first / "final_state.npz")]) == 0
        with np.load(whole / "final_state.npz") as a, np.load(second / "final_state.npz") as b:
            for key in a.files:
                assert a[key].tobytes() == b[key].tobytes(), (scene, key)


def test_viewer_draws_points_and_their_suspension():
    scene = load_scene(EXAMPLES / "pendulum.yaml")
    names = [mesh.name for mesh in body_meshes(scene.model)]
    assert names == ["pivot", "bob"]


def test_view_command_serves_a_mass_point_scene():
    pytest.importorskip("viser", reason="the viewer needs viser (pip install 'impulsim[viewer]')")
    import socket
    import urllib.request
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "impulsim.cli", "view", str(EXAMPLES / "cube.yaml"),
                             "--port", str(port), "--no-browser"], stdout=subprocess.PIPE, text=True)
    try:
        lines = []
        while not any(f"impulsim view: http://127.0.0.1:{port}" in line for line in lines):
            lines.append(proc.stdout.readline())
            assert lines[-1] and len(lines) < 50, f"no address printed: {lines}"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as page:
            assert b"<html" in page.read().lower()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


HANG = """
settings: {method: masspoint, h: 0.01}
bodies:
  - {name: bob, point: true, mass: 1.0, position: [0, 0, -1]}
joints:
  - {name: cord, type: thread, bodies: [world, bob], anchor: [0, 0, 0.5], length: 2.0}
"""


def test_world_anchor_is_a_suspension_point_and_a_slack_thread_lets_the_bob_fall():
    # the thread hangs from (0, 0, 0.5), 1.5 m above the bob: free fall until it is 2 m long, then held
    scene = scene_from_string(HANG, "hang.yaml")
    sim = scene.simulation()
    sim.run(0.3)          # falls 0.44 m < 0.5 m of slack
    assert sim.state.body_pos[1, 2] == pytest.approx(-1.0 - 0.5 * 9.81 * 0.3 ** 2, abs=1e-12)
    sim.run(1.0)
    assert abs(np.linalg.norm(sim.state.body_pos[1] - [0, 0, 0.5]) - 2.0) < sim.method.eps
    assert np.abs(sim.state.body_vel[1]).max() < sim.method.eps_v


@pytest.mark.parametrize("text, fragment", [
    ("bodies: [{name: bob, point: true, mass: 1, inertia: [1, 1, 1]}]",
     'bad.yaml:1: bodies[0] "bob": a point mass takes no inertia'),
    ("bodies: [{name: bob, point: true}]", 'bad.yaml:1: bodies[0] "bob": a point mass needs a positive mass'),
    ("bodies: [{name: bob, point: true, mass: 1}]\njoints: [{name: j, type: thread, bodies: [world, bob]}]",
     'bad.yaml:2: joints[0] "j": a thread\'s length must be positive'),
    ("bodies: [{name: bob, point: true, mass: 1, position: [1, 0, 0]}]\n"
     "joints: [{name: j, type: distance, bodies: [world, bob], anchor_b: [0, 1, 0]}]",
     'bad.yaml:2: joints[0] "j": anchor_b must be [0, 0, 0] on point mass "bob"'),
    ("bodies: [{name: bob, point: true, mass: 1}]\nloads: [{body: bob, torque: [1, 0, 0]}]",
     'bad.yaml:2: loads[0]: point mass "bob" takes no torque'),
])
def test_bad_mass_point_elements_get_one_line_errors(text, fragment):
    with pytest.raises(SceneError) as info:
        scene_from_string(text, "bad.yaml")
    assert fragment in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize("joint, fragment", [
    ("{name: pin, type: hinge, bodies: [world, bob], axis: [1, 0, 0]}", 'hinge joints: joint "pin"'),
    ("{name: rod, type: distance, bodies: [world, bob], length: 1.5}", None),
])
def test_masspoint_settings_with_an_element_it_cannot_honour(joint, fragment):
    text = ("settings: {method: masspoint}\nbodies: [{name: bob, point: true, mass: 1, position: [0, 0, -1]}]\n"
            f"joints: [{joint}]")
    scene = scene_from_string(text, "x.yaml")
    if fragment is None:    # a start that violates its link: refused at the first step, naming the joint
        with pytest.raises(ModelError, match=r'x.yaml:3: joints\[0\] "rod": initial distance 1 m differs'):
            scene.simulation().step()
    else:
        with pytest.raises(UnsupportedFeatureError, match=fragment):
            scene.simulation()
