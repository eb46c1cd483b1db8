"""Where to put the camera and the floor grid so that a scene fills the view (viewer, replay page).

The bounds are those of the moving bodies' meshes placed at their poses (world frame, metres), widened
to the space below each world anchor that the bodies hanging from it can swing through, so that a
pendulum stays in view and the grid lies under everything the bodies can reach.
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
    for anchor, reach in hanging_reach(model, pos, quat, meshes):
        # a body hanging from the world swings within its reach below the anchor: keep that in view
        lo = np.minimum(lo, anchor - reach)
        hi = np.maximum(hi, [anchor[0] + reach, anchor[1] + reach, anchor[2]])
    center = 0.5 * (lo + hi)
    radius = max(0.5 * float(np.linalg.norm(hi - lo)), MIN_SIZE)
    distance = MARGIN * radius / np.sin(0.5 * FOV)
    horizontal = float(np.max(hi[:2] - lo[:2]))
    grid_size = float(np.ceil(max(horizontal, 1.0)))
    floor = lo[2]
    return Framing(lo, hi, center, center + distance * VIEW_DIRECTION, not has_floor, grid_size,
                   np.array([center[0], center[1], floor - 1e-3]))


def hanging_reach(model, pos: np.ndarray, quat: np.ndarray, meshes) -> list[tuple[np.ndarray, float]]:
    """(anchor [m], reach [m]) for every joint between the world (or a static body) and a moving body.

    Walking the joints away from the anchor, each body adds the largest distance from the joint point it
    hangs by to any point of its mesh or to any of its other joint points (body frame), so no point of
    the bodies below the anchor can get farther from it than the reach, however the joints turn."""
    from impulsim.math.quaternion import quat_rotate
    verts = {mesh.body: mesh.vertices for mesh in meshes}
    links = [(int(a), int(b)) for a, b in zip(model.joint_body_a, model.joint_body_b)]
    points = {k: [np.zeros((0, 3))] for k in range(model.n_bodies)}
    for j, (a, b) in enumerate(links):       # every joint point of every body, in its body frame
        points[a].append(np.asarray(model.joint_anchor_a[j], float)[None])
        points[b].append(np.asarray(model.joint_anchor_b[j], float)[None])
    cloud = {k: np.concatenate([verts.get(k, np.zeros((0, 3)))] + points[k]) for k in points}

    def extent(k: int, at: np.ndarray) -> float:
        return float(np.linalg.norm(cloud[k] - at, axis=1).max(initial=0.0))

    out = []
    for j, (a, b) in enumerate(links):
        if bool(model.body_static[a]) == bool(model.body_static[b]):
            continue                          # not a joint between the world (or a ground) and a body
        root, first = (a, b) if model.body_static[a] else (b, a)
        local_root, local_first = (model.joint_anchor_a[j], model.joint_anchor_b[j]) if root == a else \
            (model.joint_anchor_b[j], model.joint_anchor_a[j])
        anchor = pos[root] + np.asarray(quat_rotate(np.asarray(quat[root], float),
                                                    np.asarray(local_root, float)))
        reach = {first: extent(first, np.asarray(local_first, float))}
        frontier, seen = [first], {root, first}
        while frontier:                       # breadth first over the moving bodies below this anchor
            k = frontier.pop(0)
            for jj, (u0, v0) in enumerate(links):
                for u, v, at in ((u0, v0, model.joint_anchor_b[jj]), (v0, u0, model.joint_anchor_a[jj])):
                    if u == k and v not in seen and not model.body_static[v]:
                        seen.add(v)
                        reach[v] = reach[k] + extent(v, np.asarray(at, float))
                        frontier.append(v)
        out.append((np.asarray(anchor, float), float(max(reach.values()))))
    return out


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
