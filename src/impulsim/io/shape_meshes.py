"""Triangle meshes of a model's shapes for display and export (viewer, glTF, HTML replay).

Every mesh is expressed in its body's principal frame [m], so that placing it at the body's
``body_pos``/``body_quat`` from a :class:`State` puts it in the world frame.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from impulsim.geometry.shapes import ShapeKind

SEGMENTS = 24
"""Facets around a round shape: smooth enough on screen, a few hundred triangles per shape."""
HALFSPACE_EXTENT = 10.0
"""Side length [m] of the square drawn for a half-space (the ground has no finite size)."""


@dataclass
class BodyMesh:
    """All shapes of one body merged into one triangle mesh in the body's principal frame."""
    body: int
    name: str
    vertices: np.ndarray
    """Vertex positions [m], body principal frame, shape [n_verts, 3], float64."""
    faces: np.ndarray
    """Counter-clockwise triangles (outward normals), shape [n_faces, 3], int32."""


def body_meshes(model) -> list[BodyMesh]:
    """One merged mesh per body that has shapes (world included), in body order; point masses and the
    static bodies they hang from, which have no shapes, are drawn as small balls (display only)."""
    parts: dict[int, list] = {}
    for s in range(len(model.shape_kind)):
        verts, faces = shape_mesh(model, s)
        verts = _rotate(model.shape_quat[s], verts) + model.shape_pos[s]
        parts.setdefault(int(model.shape_body[s]), []).append((verts, faces))
    for k, radius in point_marks(model).items():
        parts.setdefault(k, [_capsule(radius, 0.0)])
    return [_merge(k, model.body_names[k], parts[k]) for k in sorted(parts)]


POINT_MARK = 0.08
"""Radius of the ball drawn for a point mass, as a fraction of the shortest link at it (0.05 m without)."""


def point_marks(model) -> dict[int, float]:
    """Body -> display radius [m] of every point mass and of every other body joined to one at its origin."""
    marks: dict[int, float] = {}
    points = np.nonzero(model.body_point)[0]
    for p in range(model.n_prims):
        a, b = int(model.prim_body_a[p]), int(model.prim_body_b[p])
        if not (model.body_point[a] or model.body_point[b]) or not model.prim_target[p] > 0:
            continue        # (rails have no length to scale with)
        size = POINT_MARK * model.prim_target[p]
        for k, anchor in ((a, model.prim_anchor_a[p]), (b, model.prim_anchor_b[p])):
            if k != 0 and not anchor.any():
                marks[k] = min(marks.get(k, size), size)
    return {**{int(k): 0.05 for k in points}, **marks}


def shape_mesh(model, s: int) -> tuple[np.ndarray, np.ndarray]:
    """Vertices and faces of shape ``s`` in the shape's own frame."""
    kind = ShapeKind(int(model.shape_kind[s]))
    p = model.shape_params[s]
    if kind == ShapeKind.SPHERE:
        return _capsule(p[0], 0.0)
    if kind == ShapeKind.BOX:
        return _box(p)
    if kind == ShapeKind.CYLINDER:
        return _cylinder(p[0], p[1])
    if kind == ShapeKind.CAPSULE:
        return _capsule(p[0], p[1])
    if kind == ShapeKind.ELLIPSOID:
        verts, faces = _capsule(1.0, 0.0)        # the unit sphere, stretched by the semi-axes
        return verts * np.asarray(p, dtype=float), faces
    if kind == ShapeKind.HALFSPACE:
        return _square(HALFSPACE_EXTENT)
    return _point_set(model, s, kind)


def _merge(body: int, name: str, parts: list) -> BodyMesh:
    verts, faces, offset = [], [], 0
    for v, f in parts:
        verts.append(v)
        faces.append(f + offset)
        offset += len(v)
    return BodyMesh(body, name, np.concatenate(verts), np.concatenate(faces).astype(np.int32))


def _rotate(q, v: np.ndarray) -> np.ndarray:
    """Rotate row vectors ``v`` by the unit quaternion q = (w, x, y, z)."""
    w, u = q[0], np.asarray(q[1:])
    t = 2.0 * np.cross(u, v)
    return v + w * t + np.cross(u, t)


def _box(size) -> tuple[np.ndarray, np.ndarray]:
    a, b, c = 0.5 * np.asarray(size, float)
    corners = np.array([[x, y, z] for x in (-a, a) for y in (-b, b) for z in (-c, c)])
    # corner index = 4*ix + 2*iy + iz; each face as two counter-clockwise triangles seen from outside
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    faces = [[q[0], q[1], q[2]] for q in quads] + [[q[0], q[2], q[3]] for q in quads]
    return corners, np.array(faces, np.int32)


def _square(side: float) -> tuple[np.ndarray, np.ndarray]:
    h = 0.5 * side
    verts = np.array([[-h, -h, 0.0], [h, -h, 0.0], [h, h, 0.0], [-h, h, 0.0]])
    return verts, np.array([[0, 1, 2], [0, 2, 3]], np.int32)


def _rings_to_faces(n_rings: int, n: int) -> list:
    """Quads between consecutive rings of n vertices each, as triangles facing outward."""
    faces = []
    for r in range(n_rings - 1):
        for i in range(n):
            a, b = r * n + i, r * n + (i + 1) % n
            c, d = a + n, b + n
            faces += [[a, b, d], [a, d, c]]
    return faces


def _capsule(radius: float, length: float) -> tuple[np.ndarray, np.ndarray]:
    """A capsule along z (a sphere when ``length`` is 0): latitude rings from bottom pole to top."""
    n, half = SEGMENTS, 0.5 * length
    lats = np.linspace(-0.5 * np.pi, 0.5 * np.pi, 2 * (n // 4) + 1)[1:-1]   # includes the equator
    lower = [_circle(radius * np.cos(a), radius * np.sin(a) - half) for a in lats if a <= 0]
    upper = [_circle(radius * np.cos(a), radius * np.sin(a) + half) for a in lats if a >= 0]
    rings = lower + (upper if length > 0 else upper[1:])   # a sphere shares its equator ring
    return _close_with_poles(np.concatenate(rings), len(rings), n, -radius - half, radius + half)


def _circle(radius: float, z: float) -> np.ndarray:
    phis = np.linspace(0.0, 2.0 * np.pi, SEGMENTS, endpoint=False)
    return np.stack([radius * np.cos(phis), radius * np.sin(phis), np.full(SEGMENTS, z)], axis=1)


def _close_with_poles(ring_verts: np.ndarray, n_rings: int, n: int, z_bottom: float, z_top: float):
    """Add a bottom and a top vertex and fan them to the first and last ring."""
    faces = _rings_to_faces(n_rings, n)
    bottom, top = len(ring_verts), len(ring_verts) + 1
    last = (n_rings - 1) * n
    for i in range(n):
        j = (i + 1) % n
        faces += [[bottom, j, i], [top, last + i, last + j]]
    verts = np.concatenate([ring_verts, [[0.0, 0.0, z_bottom], [0.0, 0.0, z_top]]])
    return verts, np.array(faces, np.int32)


def _cylinder(radius: float, length: float) -> tuple[np.ndarray, np.ndarray]:
    half = 0.5 * length
    rings = np.concatenate([_circle(radius, -half), _circle(radius, half)])
    return _close_with_poles(rings, 2, SEGMENTS, -half, half)   # the pole fans are the flat caps


def _point_set(model, s: int, kind: ShapeKind) -> tuple[np.ndarray, np.ndarray]:
    """Hulls and meshes: their stored triangles, or the convex hull of their points.

    Point-set vertices are stored in the body's principal frame; they are mapped back into the shape
    frame here so that every shape goes through the same shape-to-body transform.
    """
    v0, v1 = model.shape_vert_start[s], model.shape_vert_start[s + 1]
    t0, t1 = model.shape_tri_start[s], model.shape_tri_start[s + 1]
    verts = np.asarray(model.shape_verts[v0:v1], float)
    q = model.shape_quat[s]
    local = _rotate(np.array([q[0], -q[1], -q[2], -q[3]]), verts - model.shape_pos[s])
    if t1 > t0:
        return local, np.asarray(model.shape_tris[t0:t1], np.int32)
    if kind != ShapeKind.CONVEX or len(local) < 4:
        raise ValueError(f"shape {s} ({kind.name.lower()}) has no triangles to display")
    from scipy.spatial import ConvexHull
    hull = ConvexHull(local)
    return local, _outward(local, hull.simplices.astype(np.int32))


def _outward(verts: np.ndarray, faces: np.ndarray) -> np.ndarray:
    """Flip hull triangles whose normal points towards the centroid."""
    c = verts.mean(axis=0)
    a, b, d = verts[faces[:, 0]], verts[faces[:, 1]], verts[faces[:, 2]]
    inward = np.einsum("ij,ij->i", np.cross(b - a, d - a), a - c) < 0
    faces = faces.copy()
    faces[inward] = faces[inward][:, ::-1]
    return faces


def visual_meshes(model, visuals) -> list[BodyMesh]:
    """Display-only geometry of an import (``ImportReport.visuals``: (body name, shape) pairs with each
    shape placed in its body's user frame) as one merged mesh per body, in the body's principal frame like
    :func:`body_meshes`; pairs naming a body the model does not have are skipped."""
    parts: dict[int, list] = {}
    for body, shape in visuals:
        if body not in model.body_names:
            continue
        k = model.body_names.index(body)
        try:
            verts, faces = _spec_mesh(shape)
        except Exception as exc:        # an unreadable visual file costs its picture, not the view
            warnings.warn(f"{getattr(shape, 'file', shape)}: not drawn ({' '.join(str(exc).split())})")
            continue
        conj = np.array([1.0, -1.0, -1.0, -1.0]) * model.body_frame_quat[k]
        pos = _rotate(conj, np.asarray(shape.position, float) - model.body_frame_offset[k])
        q = _quat_mul(conj, np.asarray(shape.orientation, float))
        parts.setdefault(k, []).append((_rotate(q, verts) + pos, faces))
    return [_merge(k, f"{model.body_names[k]}_visual", parts[k]) for k in sorted(parts)]


def _spec_mesh(shape) -> tuple[np.ndarray, np.ndarray]:
    """Vertices (shape frame) and faces of a shape description (``Box``, ``Sphere``, a mesh, a visual mesh
    file, …)."""
    if hasattr(shape, "file") and not hasattr(shape, "mesh_data"):
        from impulsim.io.meshfiles import read_mesh
        verts, tris = read_mesh(shape.file, shape.scale)
        return np.asarray(verts, float), np.asarray(tris, np.int32)
    data = shape.mesh_data()
    v, t = (np.zeros((0, 3)), None) if data is None else (np.asarray(data[0], float), data[1])
    tris = np.zeros((0, 3), np.int64) if t is None else np.asarray(t, np.int64)
    table = _OneShape(shape_kind=np.array([int(shape.kind)]), shape_params=np.array([shape.params()], float),
                      shape_pos=np.zeros((1, 3)), shape_quat=np.array([[1.0, 0.0, 0.0, 0.0]]),
                      shape_vert_start=np.array([0, len(v)]), shape_verts=v,
                      shape_tri_start=np.array([0, len(tris)]), shape_tris=tris)
    return shape_mesh(table, 0)


@dataclass
class _OneShape:
    """A one-row shape table in the shape's own frame, so that :func:`shape_mesh` meshes a description."""
    shape_kind: np.ndarray
    shape_params: np.ndarray
    shape_pos: np.ndarray
    shape_quat: np.ndarray
    shape_vert_start: np.ndarray
    shape_verts: np.ndarray
    shape_tri_start: np.ndarray
    shape_tris: np.ndarray


def _quat_mul(p, q) -> np.ndarray:
    """Hamilton product p ⊗ q of (w, x, y, z) quaternions."""
    pw, pv, qw, qv = p[0], np.asarray(p[1:]), q[0], np.asarray(q[1:])
    return np.concatenate([[pw * qw - pv @ qv], pw * qv + qw * pv + np.cross(pv, qv)])
