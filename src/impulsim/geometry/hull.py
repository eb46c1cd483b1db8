"""Convex hulls of point sets and their face/edge topology for collision detection.

The hull comes from Qhull (``scipy.spatial.ConvexHull``). Coplanar triangles are merged into maximal
polygons (Holck's "Help 2": separate coplanar facets make feature-based contact regions ambiguous), each
stored counter-clockwise seen from outside, with its outward unit normal and plane offset.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from impulsim.errors import ModelError

COPLANAR_TOL = 1e-9
"""Facets whose unit normals differ by less than this (and whose planes coincide within this times the
hull's size) are merged into one polygon; Qhull's own facet normals are accurate to ~1e-15."""


@dataclass
class HullTopology:
    """A convex polyhedron: vertices [nv, 3], triangles [nt, 3] wound outward, polygon faces and edges."""
    vertices: np.ndarray
    triangles: np.ndarray
    face_start: np.ndarray
    """Face f's vertex indices are face_verts[face_start[f] .. face_start[f+1]-1], CCW from outside."""
    face_verts: np.ndarray
    face_normal: np.ndarray
    """Outward unit normal per face, shape [nf, 3]."""
    face_offset: np.ndarray
    """n·x for points x on the face, shape [nf]."""
    edges: np.ndarray
    """Unique undirected edges as vertex index pairs, shape [ne, 2]."""


def convex_hull(points, what: str = "convex hull") -> HullTopology:
    """The convex hull of ``points`` [n >= 4, 3] (not all coplanar), as a HullTopology."""
    from scipy.spatial import ConvexHull, QhullError
    p = np.asarray(points, dtype=float)
    if p.ndim != 2 or p.shape[1] != 3 or p.shape[0] < 4 or not np.all(np.isfinite(p)):
        raise ModelError(f"{what}: needs at least 4 finite points of shape [n, 3], got shape {p.shape}")
    try:
        hull = ConvexHull(p)
    except QhullError:
        raise ModelError(f"{what}: the points are coplanar or coincident, so they span no volume") from None
    used = np.unique(hull.simplices)
    remap = np.full(p.shape[0], -1, np.int64)
    remap[used] = np.arange(used.size)
    verts = np.ascontiguousarray(p[used])
    tris = remap[hull.simplices]
    centre = verts.mean(axis=0)
    tri_n = np.cross(verts[tris[:, 1]] - verts[tris[:, 0]], verts[tris[:, 2]] - verts[tris[:, 0]])
    flip = np.einsum("ij,ij->i", tri_n, verts[tris[:, 0]] - centre) < 0
    tris[flip] = tris[flip][:, [0, 2, 1]]
    return _topology(verts, tris)


def _topology(verts: np.ndarray, tris: np.ndarray) -> HullTopology:
    scale = max(float(np.ptp(verts, axis=0).max()), 1e-300)
    tri_n = np.cross(verts[tris[:, 1]] - verts[tris[:, 0]], verts[tris[:, 2]] - verts[tris[:, 0]])
    tri_n /= np.linalg.norm(tri_n, axis=1)[:, None]
    tri_d = np.einsum("ij,ij->i", tri_n, verts[tris[:, 0]])
    group = -np.ones(len(tris), np.int64)
    normals, offsets = [], []
    for i in range(len(tris)):
        if group[i] >= 0:
            continue
        same = (np.linalg.norm(tri_n - tri_n[i], axis=1) < COPLANAR_TOL) & \
               (np.abs(tri_d - tri_d[i]) < COPLANAR_TOL * scale) & (group < 0)
        group[same] = len(normals)
        normals.append(tri_n[i])
        offsets.append(tri_d[i])
    face_start, face_verts = [0], []
    for f, n in enumerate(normals):
        loop = _boundary_loop(tris[group == f])
        face_verts.extend(loop)
        face_start.append(len(face_verts))
    edges = np.concatenate([tris[:, [0, 1]], tris[:, [1, 2]], tris[:, [2, 0]]])
    edges = np.unique(np.sort(edges, axis=1), axis=0)
    # keep only edges between different faces (drop the diagonals inside merged polygons)
    face_edges = set()
    for f in range(len(normals)):
        loop = face_verts[face_start[f]:face_start[f + 1]]
        for k in range(len(loop)):
            a, b = loop[k], loop[(k + 1) % len(loop)]
            face_edges.add((min(a, b), max(a, b)))
    edges = np.array([e for e in map(tuple, edges) if e in face_edges], np.int64).reshape(-1, 2)
    return HullTopology(verts, np.ascontiguousarray(tris), np.array(face_start, np.int64),
                        np.array(face_verts, np.int64), np.array(normals), np.array(offsets), edges)


def _boundary_loop(tris: np.ndarray) -> list[int]:
    """Boundary of a set of coplanar, consistently wound triangles forming a convex polygon, in order."""
    directed = set()
    for t in tris:
        for k in range(3):
            directed.add((int(t[k]), int(t[(k + 1) % 3])))
    nxt = {a: b for a, b in directed if (b, a) not in directed}
    start = next(iter(nxt))
    loop, v = [start], nxt[start]
    while v != start:
        loop.append(v)
        v = nxt[v]
    return loop
