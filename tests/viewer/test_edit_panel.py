"""The edit panel's controls called from Python (no browser): each switch does what the physics says, a
refused edit changes nothing, the 3D view follows bodies that come and go, saving stays in its directory."""
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("viser", reason="the viewer needs viser (pip install 'impulsim[viewer]')")
pytest.importorskip("ruamel.yaml", reason="editing needs ruamel.yaml (pip install 'impulsim[editing]')")

from impulsim.io import load_scene
from impulsim.viewer.edit_panel import edit_scene, save_target
from tests.viewer.browser import free_port

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
WAIT = 30.0


@pytest.fixture
def view():
    viewer = edit_scene(str(EXAMPLES / "pendulum.yaml"), port=free_port(), open_browser=False)
    yield viewer
    viewer.stop()


def _steps(viewer, n):
    viewer.engine.send("step", n, wait=True, timeout=WAIT)
    return viewer.engine.sim.state


def _until(cond, what):
    end = time.time() + WAIT
    while time.time() < end:
        if cond():
            return
        time.sleep(0.02)
    raise AssertionError(f"{what} within {WAIT} s")


def test_switching_the_hinge_off_lets_the_bob_fall_freely_and_on_again_holds_it(view):
    panel, engine = view.edit_panel, view.engine
    _steps(view, 100)
    assert panel.set_active("joints", "pivot", False)
    assert "pivot" not in engine.sim.model.joint_names
    k = engine.sim.model.body("bob")
    v0 = engine.sim.state.body_vel[k].copy()
    n, h = 200, engine.sim.h
    v1 = _steps(view, n).body_vel[k].copy()
    # free fall: the velocity changes by g t exactly (no other force acts on the bob)
    assert v1 - v0 == pytest.approx(np.array([0.0, 0.0, -9.81 * n * h]), abs=1e-9)
    assert panel.tree_text.content.count("(off)") == 1
    assert panel.undo()
    assert "pivot" in engine.sim.model.joint_names


def test_a_kinematic_bob_moves_on_at_its_velocity_and_a_refused_lock_changes_nothing(view):
    panel, engine = view.edit_panel, view.engine
    _steps(view, 150)
    assert panel.set_kinematic("bob", True)
    k = engine.sim.model.body("bob")
    p0, v0 = engine.sim.state.body_pos[k].copy(), engine.sim.state.body_vel[k].copy()
    assert np.linalg.norm(v0) > 0.1
    s = _steps(view, 100)
    assert s.body_vel[k] == pytest.approx(v0, abs=1e-12)
    assert s.body_pos[k] == pytest.approx(p0 + 100 * engine.sim.h * v0, abs=1e-9)
    model = engine.sim.model
    assert not panel.lock("pivot", ["y", "z"])            # a hinge has no components to lock
    assert engine.sim.model is model and "only ball joints" in panel.refusals[-1]
    assert view.refusals[-1] == panel.refusals[-1]


def test_removing_the_bob_takes_its_node_and_undo_brings_it_back(view):
    panel, engine = view.edit_panel, view.engine
    assert panel.remove("bodies", "bob")
    assert engine.sim.model.body_names == ("world",) or list(engine.sim.model.body_names) == ["world"]
    _until(lambda: "bob" not in view.model.body_names and not view.handles, "the view dropped the bob")
    assert "joint: pivot" not in panel.labels
    assert panel.undo()
    _until(lambda: "bob" in view.model.body_names and len(view.handles) == 1, "the view shows the bob again")
    assert set(panel.labels) == {"body: bob", "joint: pivot"}


def test_the_saved_scene_has_the_edit_and_saving_stays_in_the_working_directory(view, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    panel = view.edit_panel
    assert panel.set_mass("bob", 2.5)
    assert panel.save("edited.yaml")
    saved = load_scene(tmp_path / "edited.yaml")
    assert saved.model.body_mass[saved.model.body("bob")] == 2.5
    assert "# Simple pendulum" in (tmp_path / "edited.yaml").read_text()     # the comments are kept
    for bad in ("../outside.yaml", "/tmp/elsewhere.yaml", "edited.txt", " "):
        assert not panel.save(bad)
        assert panel.refusals[-1].startswith(f"save {bad}")
    assert not (tmp_path.parent / "outside.yaml").exists()
    assert isinstance(save_target("sub/x.yml", tmp_path), Path)
