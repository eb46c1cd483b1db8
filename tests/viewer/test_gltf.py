"""glTF export of a recording: re-imported with pygltflib and trimesh, nodes, meshes and animation."""
from pathlib import Path

import numpy as np
import pytest

from impulsim.io import load_scene
from impulsim.io.gltf import write_glb
from impulsim.io.recording import Recorder
from impulsim.io.shape_meshes import body_meshes

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
DURATION = 0.5
# key frames are stored as float32
FLOAT32 = 1e-6


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    scene = load_scene(EXAMPLES / "slider_crank.yaml")
    sim = scene.simulation(h=1e-3)
    rec = Recorder(scene.model)
    rec.record(sim.state)
    sim.run(DURATION, observer=lambda s, info: rec.record(s.state, info))
    path = tmp_path_factory.mktemp("gltf") / "slider_crank.glb"
    write_glb(path, scene.model, rec.table(), scene.state, fps=50)
    return scene, rec.table(), path


def test_glb_reimports_with_one_node_per_body_and_the_recording_length(exported):
    pygltflib = pytest.importorskip("pygltflib")
    scene, table, path = exported
    gltf = pygltflib.GLTF2().load(str(path))
    n_meshes = len(body_meshes(scene.model))
    assert len(gltf.meshes) == n_meshes
    assert len(gltf.nodes) == n_meshes + 1          # the bodies and the z-up root
    (anim,) = gltf.animations
    moving = [k for k in range(scene.model.n_bodies) if not scene.model.body_static[k]]
    assert len(anim.channels) == 2 * len(moving)
    times = gltf.accessors[anim.samplers[0].input]
    assert times.min[0] == 0.0 and times.max[0] == pytest.approx(DURATION, abs=FLOAT32)
    assert times.count == int(DURATION * 50) + 1


def test_keyframes_match_the_recording(exported):
    pygltflib = pytest.importorskip("pygltflib")
    scene, table, path = exported
    gltf = pygltflib.GLTF2().load(str(path))
    blob = gltf.binary_blob()
    anim = gltf.animations[0]

    def values(index, width):
        acc = gltf.accessors[index]
        view = gltf.bufferViews[acc.bufferView]
        raw = np.frombuffer(blob, np.float32, acc.count * width, view.byteOffset)
        return raw.reshape(acc.count, width)

    node = gltf.nodes[anim.channels[0].target.node]
    times = values(anim.samplers[0].input, 1)[:, 0]
    trans = values(anim.samplers[0].output, 3)
    t = table.column("t").to_numpy()
    x = table.column(f"{node.name}.x").to_numpy()
    i = np.searchsorted(t, times[-1] - 1e-9)
    assert trans[-1, 0] == pytest.approx(x[i], abs=FLOAT32)
    quats = values(anim.samplers[1].output, 4)
    assert np.allclose(np.linalg.norm(quats, axis=1), 1.0, atol=1e-5)


def test_trimesh_loads_the_scene_with_all_meshes(exported):
    trimesh = pytest.importorskip("trimesh")
    scene, _, path = exported
    loaded = trimesh.load(str(path))
    assert len(loaded.geometry) == len(body_meshes(scene.model))
    assert all(g.is_watertight for g in loaded.geometry.values())


def test_a_recording_of_another_scene_is_rejected(exported, tmp_path):
    scene, table, _ = exported
    other = load_scene(EXAMPLES / "pendulum.yaml")
    with pytest.raises(ValueError, match="no columns for body 'bob'"):
        write_glb(tmp_path / "x.glb", other.model, table, other.state)
