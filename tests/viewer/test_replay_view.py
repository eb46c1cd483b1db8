"""Replay of recordings in the view: rows nearest to the scrubbed time, a ghost with its own rows."""
import numpy as np
import pytest

from impulsim.io import load_scene
from impulsim.io.recording import Recorder
from tests.viewer.browser import free_port
from tests.viewer.test_engine import EXAMPLES

pytest.importorskip("viser", reason="the viewer needs viser (pip install 'impulsim[viewer]')")

from impulsim.viewer.replay import ReplayViewer  # noqa: E402


def _record(scene, h, duration=0.3):
    sim = scene.simulation(h=h)
    rec = Recorder(scene.model)
    rec.record(sim.state)
    sim.run(duration, observer=lambda s, info: rec.record(s.state, info))
    return rec.table()


@pytest.fixture(scope="module")
def replay():
    scene = load_scene(EXAMPLES / "double_pendulum.yaml")
    main, ghost = _record(scene, 1e-3), _record(scene, 1e-2)
    v = ReplayViewer(scene.model, scene.state, main, ghost, port=free_port()).start()
    yield scene, main, ghost, v
    v.stop()


def test_scrubbing_shows_the_nearest_rows_of_both_recordings(replay):
    scene, main, ghost, v = replay
    lower = scene.model.body("lower")
    v.show_time(0.1234)
    i = int(np.argmin(np.abs(main.column("t").to_numpy() - 0.1234)))
    g = int(np.argmin(np.abs(ghost.column("t").to_numpy() - 0.1234)))
    assert (i, g) == (123, 12)
    assert np.allclose(v.main.handles[lower].position, [main.column(f"lower.{c}")[i].as_py() for c in "xyz"])
    ghost_pos = [ghost.column(f"lower.{c}")[g].as_py() for c in "xyz"]
    assert np.allclose(v.ghost.handles[lower].position, ghost_pos)
    assert "row 123" in v.status.value and "ghost row 12" in v.status.value


def test_ghost_offset_shifts_only_the_ghost(replay):
    scene, main, ghost, v = replay
    lower = scene.model.body("lower")
    v.show_time(0.2)
    before_main, before_ghost = v.main.handles[lower].position.copy(), v.ghost.handles[lower].position.copy()
    v._set_ghost_offset(1.5)
    assert np.allclose(v.ghost.handles[lower].position - before_ghost, [1.5, 0, 0])
    assert np.allclose(v.main.handles[lower].position, before_main)
    v._set_ghost_offset(0.0)
