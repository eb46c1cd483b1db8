"""Where to put the camera and the floor grid so that a scene fills the view (viewer, replay page).

The bounds are those of the moving bodies' meshes placed at their poses (world frame, metres), so a
chain 20 m long and 10 cm thick is framed by its own length, not by a grid around its centre.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from impulsim.io.shape_meshes import body_meshes

VIEW_DIRECTION = np.array([1.0, -1.2, 0.6]) / np.linalg.norm([1.0, -1.2, 0.6])
"""From the scene's centre towards the camera: front right, somewhat above (z up)."""
FOV = 75.0 * np.pi / 180.0
"""Vertical field of view [rad] of the browser's camera (viser's default)."""
MARGIN = 1.15
"""Distance factor over the one at which the bounding sphere just touches the view's top and bottom."""
MIN_SIZE = 0.2
"""Smallest radius [m] framed, so that a single small body is not filled edge to edge."""


@dataclass
class Framing:
    """A camera pose and a floor grid for a scene (world frame, metres)."""
    lo: np.ndarray
    """Lower corner of the bounding box of the moving bodies' meshes [m]."""
    hi: np.ndarray
    """Upper corner [m]."""
    look_at: np.ndarray
    position: np.ndarray
    """Camera position [m]."""
    grid: bool
    """Whether to draw a grid (only when the scene has no static shapes of its own, e.g. a ground)."""
    grid_size: float
    """Side of the square grid [m]."""
    grid_center: np.ndarray
    """Centre of the grid: below the bodies, at the lowest point of their meshes [m]."""


def mesh_vertices_world(meshes, pos: np.ndarray, quat: np.ndarray) -> list[np.ndarray]:
    """Each mesh's vertices placed at its body's pose (centre ``pos`` [m], orientation ``quat`` w,x,y,z)."""
    from impulsim.math.quaternion import quat_to_matrix
    out = []
    for mesh in meshes:
        rot = np.asarray(quat_to_matrix(np.asarray(quat[mesh.body], float)))
        out.append(mesh.vertices @ rot.T + pos[mesh.body])
    return out


def scene_framing(model, pos: np.ndarray, quat: np.ndarray, meshes=None) -> Framing:
    """Frame the moving bodies at the poses ``pos`` [m], ``quat`` (one row per body of ``model``)."""
    meshes = body_meshes(model) if meshes is None else meshes
    moving = [m for m in meshes if not model.body_static[m.body]]
    has_floor = any(model.body_static[m.body] for m in meshes)
    if moving:
        verts = np.concatenate(mesh_vertices_world(moving, pos, quat))
    else:   # nothing moves: frame whatever there is (or the body centres)
        shown = mesh_vertices_world(meshes, pos, quat)
        verts = np.concatenate(shown) if shown else np.asarray(pos, float)
    lo, hi = verts.min(axis=0), verts.max(axis=0)
    center = 0.5 * (lo + hi)
    radius = max(0.5 * float(np.linalg.norm(hi - lo)), MIN_SIZE)
    distance = MARGIN * radius / np.sin(0.5 * FOV)
    horizontal = float(np.max(hi[:2] - lo[:2]))
    grid_size = float(np.ceil(max(2.0 * horizontal, radius, 1.0)))
    floor = min(lo[2], floor_height(model, pos, quat, meshes))
    return Framing(lo, hi, center, center + distance * VIEW_DIRECTION, not has_floor, grid_size,
                   np.array([center[0], center[1], floor - 1e-3]))


def floor_height(model, pos: np.ndarray, quat: np.ndarray, meshes) -> float:
    """The lowest height [m] a body hanging from the world can reach: for each body joined to the world
    through a chain of joints, the world anchor's height minus the sum of the mesh diameters along the
    chain (no point of a body gets farther than its diameter from its joint); +inf when no body hangs
    from the world."""
    from impulsim.math.quaternion import quat_rotate
    diameter = np.zeros(model.n_bodies)
    for mesh in meshes:
        diameter[mesh.body] = 2.0 * float(np.linalg.norm(mesh.vertices, axis=1).max())
    links = [(int(a), int(b), j) for j, (a, b) in enumerate(zip(model.joint_body_a, model.joint_body_b))]
    lowest = np.inf
    for a, b, j in links:
        if bool(model.body_static[a]) == bool(model.body_static[b]):
            continue                          # not a joint between the world (or a ground) and a body
        root, first, anchor = (a, b, model.joint_anchor_a[j]) if model.body_static[a] else \
            (b, a, model.joint_anchor_b[j])
        z = float(pos[root][2] + np.asarray(quat_rotate(np.asarray(quat[root], float),
                                                        np.asarray(anchor, float)))[2])
        reach, frontier, seen = {first: diameter[first]}, [first], {root, first}
        while frontier:                       # breadth first over the moving bodies below this anchor
            k = frontier.pop(0)
            for a2, b2, _ in links:
                for u, v in ((a2, b2), (b2, a2)):
                    if u == k and v not in seen and not model.body_static[v]:
                        seen.add(v)
                        reach[v] = reach[k] + diameter[v]
                        frontier.append(v)
        lowest = min(lowest, z - max(reach.values()))
    return lowest


def frame_camera(server, model, pos: np.ndarray, quat: np.ndarray | None = None, clients: bool = False):
    """Point a viser server's initial camera (and with ``clients`` every connected browser's camera) at
    the scene; add the floor grid where the scene has no floor. Returns the :class:`Framing`."""
    quat = np.tile([1.0, 0.0, 0.0, 0.0], (len(pos), 1)) if quat is None else quat
    f = scene_framing(model, np.asarray(pos, float), np.asarray(quat, float))
    if f.grid:
        server.scene.add_grid("/grid", width=f.grid_size, height=f.grid_size, plane="xy",
                              position=tuple(f.grid_center))
    cam = server.initial_camera
    cam.look_at, cam.position, cam.up = tuple(f.look_at), tuple(f.position), (0.0, 0.0, 1.0)
    if clients:
        for client in server.get_clients().values():
            with client.atomic():
                client.camera.up_direction = (0.0, 0.0, 1.0)
                client.camera.look_at = tuple(f.look_at)
                client.camera.position = tuple(f.position)
    return f
