"""Where the viewer puts the camera, the grid and the contact markers: from the bodies' own sizes."""
import math
from pathlib import Path

import numpy as np

from impulsim.io import load_scene
from impulsim.io.framing import FOV, MARGIN, scene_framing
from impulsim.io.shape_meshes import body_meshes
from impulsim.viewer.app import CONTACT_MARKER, body_sizes, contact_marker_length

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _framing(name):
    scene = load_scene(EXAMPLES / f"{name}.yaml")
    return scene, scene_framing(scene.model, scene.state.body_pos, scene.state.body_quat)


def test_chain_fills_the_view_and_the_grid_lies_at_its_foot():
    _, f = _framing("ball_chain")             # 20 links of 1 m x 0.1 m x 0.1 m hanging from the origin
    assert np.allclose(f.lo, [-0.05, -0.05, -20.0]) and np.allclose(f.hi, [0.05, 0.05, 0.0])
    radius = 0.5 * np.linalg.norm(f.hi - f.lo)
    distance = np.linalg.norm(f.position - f.look_at)
    # the bounding sphere seen under the vertical field of view, with the margin
    assert math.isclose(radius / distance, math.sin(FOV / 2) / MARGIN, rel_tol=1e-12)
    assert np.allclose(f.look_at, [0.0, 0.0, -10.0])
    assert f.grid and f.grid_center[2] <= -20.0 and f.grid_size < 2.5 * radius


def test_grid_is_below_everything_the_double_pendulum_can_reach():
    _, f = _framing("double_pendulum")        # two 1 m rods from z = 0: the tip can reach z = -2 m
    assert -2.0 - 0.02 <= f.grid_center[2] <= -2.0


def test_scene_with_a_ground_gets_no_grid():
    _, f = _framing("falling_boxes")
    assert not f.grid


def test_contact_markers_are_sized_by_the_touching_bodies_not_the_scene():
    scene = load_scene(EXAMPLES / "falling_boxes.yaml")
    m = scene.model
    sizes = body_sizes(m, body_meshes(m))
    moving = [k for k in range(m.n_bodies) if not m.body_static[k]]
    ground = next(k for k in range(m.n_bodies) if m.body_static[k] and np.isfinite(sizes[k]) or k == 0)
    pairs = np.array([[k, ground] for k in moving])
    length = contact_marker_length(sizes, pairs)
    smaller = np.minimum(sizes[pairs[:, 0]], sizes[pairs[:, 1]])
    assert math.isclose(length, CONTACT_MARKER * float(np.median(smaller)), rel_tol=1e-12)
    assert length <= CONTACT_MARKER * max(sizes[k] for k in moving)
