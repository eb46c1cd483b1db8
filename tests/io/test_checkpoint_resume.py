"""Exact checkpoints: a run split at a checkpoint ends bit for bit where the unbroken run ends."""
from dataclasses import fields

import numpy as np
import pytest

from impulsim.io import runner, scene_from_string
from impulsim.io.checkpoint import CheckpointError, load_checkpoint, save_checkpoint
from impulsim.model.state import State

# servo with interpolated set-points (integral and previous-error memory), a spring, and a load whose
# window spans the split, so every part of the State that carries over between steps is exercised
SCENE = """
settings: {h: 0.005}
bodies:
  - {name: arm, shapes: [box: {size: [0.05, 0.05, 0.5]}], density: 1000, position: [0, 0, -0.25]}
  - {name: bob, shapes: [sphere: {radius: 0.05}], mass: 0.5, position: [0, 0.3, -0.5], velocity: [0.2, 0, 0]}
joints:
  - {name: shoulder, type: hinge, bodies: [world, arm], anchor: [0, 0, 0], axis: [1, 0, 0]}
servos:
  - {name: drive, joint: shoulder, kp: 30, ki: 10, kd: 2, setpoints: [[0, 0], [0.5, 0.8], [1.5, -0.3]],
     interpolate: true}
springs:
  - {name: k, bodies: [arm, bob], stiffness: 40, damping: 0.5, anchor_a: [0, 0, -0.25]}
loads:
  - {body: bob, force: [0, 0, 3], torque: [0.01, 0, 0], start: 0.7, end: 1.3}
"""


def _run(state, duration):
    scene = scene_from_string(SCENE, "resume.yaml")
    sim = scene.simulation(state=state)
    runner.run(sim, duration)
    return sim.state


def test_resume_from_checkpoint_is_bit_for_bit(tmp_path):
    scene = scene_from_string(SCENE, "resume.yaml")
    whole = _run(scene.state.copy(), 2.0)
    half = _run(scene.state.copy(), 1.0)
    path = save_checkpoint(half, tmp_path / "half")
    resumed = _run(load_checkpoint(path, scene.state), 1.0)
    assert whole.step_count == resumed.step_count == 400
    for f in fields(State):
        a, b = getattr(whole, f.name), getattr(resumed, f.name)
        if isinstance(a, np.ndarray):
            assert a.tobytes() == b.tobytes(), f.name      # identical bits, NaN included
        else:
            assert a == b, f.name


def test_checkpoint_of_another_scene_is_refused(tmp_path):
    other = scene_from_string("bodies: [{name: x, mass: 1, inertia: [1, 1, 1]}]", "other.yaml")
    path = save_checkpoint(other.state, tmp_path / "other.npz")
    scene = scene_from_string(SCENE, "resume.yaml")
    with pytest.raises(CheckpointError, match=r"does not fit this scene: body_pos has shape \(2, 3\)"):
        load_checkpoint(path, scene.state)


def test_unreadable_checkpoint_is_one_line(tmp_path):
    bad = tmp_path / "bad.npz"
    bad.write_text("not a checkpoint")
    scene = scene_from_string(SCENE, "resume.yaml")
    with pytest.raises(CheckpointError, match="not an impulsim checkpoint") as info:
        load_checkpoint(bad, scene.state)
    assert "\n" not in str(info.value)
    with pytest.raises(CheckpointError, match="no such checkpoint file"):
        load_checkpoint(tmp_path / "missing.npz", scene.state)
