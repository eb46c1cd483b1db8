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


def test_chain_is_framed_with_the_space_it_can_swing_through_and_the_grid_at_its_reach():
    _, f = _framing("ball_chain")             # 20 links of 1 m x 0.1 m x 0.1 m hanging from the origin
    reach = 20 * math.sqrt(1.0 + 2 * 0.05 ** 2)   # each link: its joint point to its far corner
    assert np.allclose(f.lo, [-reach, -reach, -reach]) and np.allclose(f.hi, [reach, reach, 0.0])
    radius = 0.5 * np.linalg.norm(f.hi - f.lo)
    distance = np.linalg.norm(f.position - f.look_at)
    # the bounding sphere seen under the vertical field of view, with the margin
    assert math.isclose(radius / distance, math.sin(FOV / 2) / MARGIN, rel_tol=1e-12)
    assert np.allclose(f.look_at, [0.0, 0.0, -reach / 2])
    assert f.grid and -reach - 0.01 <= f.grid_center[2] <= -reach and f.grid_size <= 2 * reach + 1


def test_a_single_free_body_is_framed_by_its_own_size():
    from impulsim.io import scene_from_string
    scene = scene_from_string("bodies:\n  - {name: b, shapes: [box: {size: [0.4, 0.2, 0.1]}], "
                              "position: [3, 4, 5]}\n", "one box")
    f = scene_framing(scene.model, scene.state.body_pos, scene.state.body_quat)
    assert np.allclose(f.look_at, [3, 4, 5]) and np.allclose(f.hi - f.lo, [0.4, 0.2, 0.1])
    radius = max(0.5 * math.sqrt(0.4 ** 2 + 0.2 ** 2 + 0.1 ** 2), 0.2)
    assert math.isclose(np.linalg.norm(f.position - f.look_at), MARGIN * radius / math.sin(FOV / 2),
                        rel_tol=1e-12)


def test_grid_is_below_everything_the_double_pendulum_can_reach():
    _, f = _framing("double_pendulum")        # two 1 m rods from z = 0: the tip can reach z = -2 m
    assert -2.0 - 0.01 <= f.grid_center[2] <= -2.0


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
