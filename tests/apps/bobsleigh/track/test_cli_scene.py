"""``impulsim track`` and the ``track`` shape of scene files."""
import json
import struct

import numpy as np
import pytest

import impulsim.geometry as ims

from impulsim.apps.bobsleigh.track import load_track
from impulsim.apps.bobsleigh.track.files import track_path
from impulsim.cli import main
from impulsim.io import load_scene
from impulsim.io.yamlnodes import SceneError

SCENE = """name: chute
bodies:
  - name: track
    static: true
    shapes:
      - track: {{file: {file}}}
  - name: ball
    position: [0, 10, 99]
    shapes:
      - sphere: {{radius: 0.1}}
"""


def test_track_command_writes_summary_plots_and_glb(tmp_path, capsys):
    assert main(["track", "test_chute", "-o", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "track test_chute: 150.0 m timed" in out and "curve  2 right" in out
    for name in ("test_chute_plan.png", "test_chute_height.png", "test_chute_sections.png",
                 "test_chute_profile3d.png"):
        assert (tmp_path / name).stat().st_size > 10_000
    data = (tmp_path / "test_chute.glb").read_bytes()
    magic, version, total = struct.unpack("<4sII", data[:12])
    assert magic == b"glTF" and version == 2 and total == len(data)
    n_json = struct.unpack("<I", data[12:16])[0]
    doc = json.loads(data[20:20 + n_json])
    v, t = load_track("test_chute").mesh()
    pos = doc["accessors"][doc["meshes"][0]["primitives"][0]["attributes"]["POSITION"]]
    assert pos["count"] == len(v)
    np.testing.assert_allclose(pos["min"], v.min(axis=0), atol=1e-4)


def test_track_command_reports_a_bad_file_in_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text(track_path("test_chute").read_text().replace("r_c: 20,", "r_c: -20,"))
    assert main(["track", str(bad), "-o", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"impulsim: error: {bad}:") and "r_c must be positive" in err and "\n" not in err


@pytest.mark.parametrize("ref", ["test_chute", "chute.yaml"])
def test_scene_with_a_track_shape(tmp_path, ref):
    (tmp_path / "chute.yaml").write_text(track_path("test_chute").read_text())
    scene = tmp_path / "scene.yaml"
    scene.write_text(SCENE.format(file=ref))
    model = load_scene(scene).model
    v, _ = load_track("test_chute").mesh()
    assert model.body_static[model.body("track")]
    k = int(np.nonzero(model.shape_kind == ims.ShapeKind.MESH)[0][0])
    assert model.shape_vert_start[k + 1] - model.shape_vert_start[k] == len(v)


def test_scene_reports_errors_of_the_track_file_at_its_line(tmp_path):
    text = track_path("test_chute").read_text().replace("A2_en: 300", "A2_en: 250")
    (tmp_path / "chute.yaml").write_text(text)
    scene = tmp_path / "scene.yaml"
    scene.write_text(SCENE.format(file="chute.yaml"))
    line = next(i + 1 for i, l in enumerate(text.splitlines()) if "A2_en: 250" in l)
    with pytest.raises(SceneError, match=rf"chute\.yaml:{line}: curves\[1\] \"C2\": A2_en = 250"):
        load_scene(scene)


def test_example_scene_ball_runs_down_the_chute():
    from pathlib import Path
    path = Path(__file__).resolve().parents[4] / "examples" / "bobsleigh" / "chute_ball.yaml"
    scene = load_scene(path)
    sim = scene.simulation()
    ball = scene.model.body("ball")
    sim.run(0.5)
    track = load_track("test_chute")
    s, b, h = track.project(sim.state.body_pos[ball][None])
    # 0.5 s at about 12 m/s on the straight: about 6 m down the track, on the floor near the middle
    assert 5.5 < s[0] < 6.8 and abs(b[0]) < 0.1 and 0.14 < h[0] < 0.2
