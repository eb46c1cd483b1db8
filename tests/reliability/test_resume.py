"""`impulsim run --resume` continues a contact scene bit for bit under every method that handles contacts,
and refuses checkpoints of another model or with non-finite values."""
import numpy as np
import pytest

from impulsim.cli import main
from impulsim.io.checkpoint import CheckpointError, load_checkpoint, save_checkpoint
from impulsim.io.recording import read_recording
from impulsim.io import load_scene, scene_from_string
from tests.reliability.helpers import CONTACT_METHODS, CONTACT_SCENE

# 0.6 s then 0.6 s: the split falls while the pile is landing (collisions, resting contacts, warm start
# and static-friction anchors all carry over the split)
HALF = "0.6"


def _run(out, *extra):
    code = main(["run", str(CONTACT_SCENE), "-q", "-o", str(out), *extra])
    assert code == 0
    return read_recording(out / "recording.parquet")


@pytest.mark.parametrize("method", CONTACT_METHODS)
def test_resume_of_a_contact_scene_is_bit_for_bit(tmp_path, method):
    whole = _run(tmp_path / "whole", "-d", "1.2", "--method", method)
    _run(tmp_path / "first", "-d", HALF, "--method", method)
    second = _run(tmp_path / "second", "-d", HALF, "--method", method, "--resume",
                  str(tmp_path / "first" / "final_state.npz"))
    # the resumed run's rows are the second half of the whole run's, bit for bit
    n = second.num_rows
    for name in second.column_names:
        if name.endswith((".x", ".y", ".z", ".qw", ".qx", ".qy", ".qz", ".vx", ".vy", ".vz", ".wx", ".wy", ".wz")):
            a = whole.column(name).to_numpy()[-n:]
            b = second.column(name).to_numpy()
            assert a.tobytes() == b.tobytes(), name


def test_checkpoint_of_another_model_with_the_same_bodies_is_refused(tmp_path):
    scene = load_scene(CONTACT_SCENE)
    sim = scene.simulation()
    path = save_checkpoint(sim.state, tmp_path / "ck.npz", sim.method, scene.model)
    other = load_scene(CONTACT_SCENE)
    text = CONTACT_SCENE.read_text().replace("radius: 0.12", "radius: 0.13")
    changed = scene_from_string(text, "changed.yaml")
    assert changed.state.body_pos.shape == scene.state.body_pos.shape
    load_checkpoint(path, other.state, other.model)            # the same model: accepted
    with pytest.raises(CheckpointError, match="written for another model"):
        load_checkpoint(path, changed.state, changed.model)


@pytest.mark.parametrize("field, value", [("body_pos", np.nan), ("body_vel", np.inf), ("t", np.nan)])
def test_checkpoint_with_non_finite_values_is_refused(tmp_path, field, value):
    scene = load_scene(CONTACT_SCENE)
    state = scene.state.copy()
    if field == "t":
        state.t = value
    else:
        getattr(state, field)[2, 1] = value
    path = save_checkpoint(state, tmp_path / "bad.npz", model=scene.model)
    with pytest.raises(CheckpointError, match="not finite"):
        load_checkpoint(path, scene.state, scene.model)
    assert main(["run", str(CONTACT_SCENE), "-q", "-d", "0.01", "-o", str(tmp_path / "o"),
                 "--resume", str(path)]) == 2
