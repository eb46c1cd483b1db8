"""Expanding Polytope Algorithm: penetration depth of two intersecting cores (van den Bergen 2001).

Starts from GJK's final simplex (completed to a polytope that holds the origin), repeatedly splits the face
of M = A − B nearest the origin at the support point along its normal, and stops when that support
point lies on the face's plane within EPA_TOL. Used for pairs with a curved core (cylinders); polytope
pairs use the exact separating-axis test instead.
"""
from __future__ import annotations

import numpy as np

from impulsim.collision.core import minkowski_support, EPA_MAX_FACES, EPA_MAX_VERTS
from impulsim.collision.gjk import EPA_TOL
from impulsim.collision.vec import (KERNEL, cross, dot, madd, norm, normalize, perpendicular, row, scale, store,
                                    sub)
from impulsim.kernel import njit

W, A, B = 0, 1, 2


@njit(**KERNEL)
def _add_vertex(ws, nv, d):
    w, a, b = minkowski_support(ws, d)
    store(ws.epa_v[W], nv, w)
    store(ws.epa_v[A], nv, a)
    store(ws.epa_v[B], nv, b)
    return nv + 1


@njit(**KERNEL)
def _set_face(ws, f, i, j, k):
    """Face f = (i, j, k) with its unit normal and distance from the origin; returns False if degenerate."""
    V = ws.epa_v[W]
    n = cross(sub(row(V, j), row(V, i)), sub(row(V, k), row(V, i)))
    ln = norm(n)
    ws.epa_face[f, 0], ws.epa_face[f, 1], ws.epa_face[f, 2] = i, j, k
    ws.epa_alive[f] = 1
    if ln <= 1e-300:
        ws.epa_fn[f, 3] = np.inf
        return False
    for c in range(3):
        ws.epa_fn[f, c] = n[c] / ln
    ws.epa_fn[f, 3] = dot(row(V, i), n) / ln
    return True


@njit(**KERNEL)
def _initial_polytope(ws, n_simplex):
    """Copy the GJK simplex and complete it to a closed polytope; returns (n_verts, n_faces)."""
    S = ws.simplex
    nv = np.int64(0)                  # not a literal: one compiled _add_vertex (see vec.slots)
    for i in range(n_simplex):
        for c in range(3):
            store(ws.epa_v[c], i, row(S[c], i))
        nv += 1
    V = ws.epa_v[W]
    axes = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0), (-1.0, 0.0, 0.0), (0.0, -1.0, 0.0),
            (0.0, 0.0, -1.0))
    if nv == 1:
        for ax in axes:
            w, _, _ = minkowski_support(ws, ax)
            if norm(sub(w, row(V, 0))) > 1e-12:
                nv = _add_vertex(ws, nv, ax)
                break
    if nv == 2:
        u = normalize(sub(row(V, 1), row(V, 0)))
        t1, t2 = perpendicular(u)
        for d in (t1, t2, scale(t1, -1.0), scale(t2, -1.0)):
            w, _, _ = minkowski_support(ws, d)
            off = sub(w, row(V, 0))
            if norm(sub(off, scale(u, dot(off, u)))) > 1e-12:
                nv = _add_vertex(ws, nv, d)
                break
    if nv == 3:
        # a bipyramid over the triangle: the origin (on or near the triangle) is enclosed
        m = normalize(cross(sub(row(V, 1), row(V, 0)), sub(row(V, 2), row(V, 0))))
        nv = _add_vertex(ws, nv, m)
        nv = _add_vertex(ws, nv, scale(m, -1.0))
        faces = ((0, 1, 3), (1, 2, 3), (2, 0, 3), (1, 0, 4), (2, 1, 4), (0, 2, 4))
        for f in range(6):
            _set_face(ws, f, faces[f][0], faces[f][1], faces[f][2])
        return nv, 6
    if nv < 4:
        return nv, 0
    # tetrahedron: orient each face away from the opposite vertex
    faces = ((0, 1, 2, 3), (0, 3, 1, 2), (0, 2, 3, 1), (1, 3, 2, 0))
    for f in range(4):
        i, j, k, l = faces[f]
        n = cross(sub(row(V, j), row(V, i)), sub(row(V, k), row(V, i)))
        if dot(n, sub(row(V, l), row(V, i))) > 0.0:
            j, k = k, j
        _set_face(ws, f, i, j, k)
    return 4, 4


@njit(**KERNEL)
def _known(ws, nv, w):
    """True if w is (numerically) a vertex already: splitting with it cannot make progress."""
    for i in range(nv):
        if norm(sub(row(ws.epa_v[W], i), w)) <= 1e-13:
            return True
    return False


@njit(**KERNEL)
def _nearest_face(ws, nf):
    best, fb = np.inf, -1
    for f in range(nf):
        if ws.epa_alive[f] and ws.epa_fn[f, 3] < best:
            best, fb = ws.epa_fn[f, 3], f
    return fb


@njit(**KERNEL)
def _sees(ws, f, w):
    """True if vertex w lies strictly in front of face f's plane."""
    V = ws.epa_v[W]
    n = (ws.epa_fn[f, 0], ws.epa_fn[f, 1], ws.epa_fn[f, 2])
    return dot(n, sub(w, row(V, ws.epa_face[f, 0]))) > 1e-14


@njit(**KERNEL)
def _neighbour(ws, nf, a, b):
    """The face (alive or being removed) that holds the directed edge b -> a, or -1."""
    for g in range(nf):
        if ws.epa_alive[g] == 0:
            continue
        for e in range(3):
            if ws.epa_face[g, e] == b and ws.epa_face[g, (e + 1) % 3] == a:
                return g
    return -1


@njit(**KERNEL)
def _expand(ws, nv, nf, w, f0):
    """Remove the faces that see vertex nv-1 (= w) and close the hole; returns the new face count or -1.

    The removed faces are grown from the face f0 that w was found for, across edges to neighbours that
    also see w: a connected cap whose boundary is one loop, so the polytope stays a closed convex
    surface even where rounding makes far-away faces see w too (removing those broke it: "folding").
    States in epa_alive: 1 face, 2 to be removed, 3 removed and its edges looked at, 0 gone.
    """
    ws.epa_alive[f0] = 2
    ne = 0
    busy = True
    while busy:
        busy = False
        for f in range(nf):
            if ws.epa_alive[f] != 2:
                continue
            busy = True
            ws.epa_alive[f] = 3
            for e in range(3):
                a, b = ws.epa_face[f, e], ws.epa_face[f, (e + 1) % 3]
                g = _neighbour(ws, nf, a, b)
                if g >= 0 and ws.epa_alive[g] >= 2:
                    continue
                if g >= 0 and _sees(ws, g, w):
                    ws.epa_alive[g] = 2
                    continue
                ws.epa_edge[ne, 0], ws.epa_edge[ne, 1] = a, b        # horizon edge
                ne += 1
    for f in range(nf):
        if ws.epa_alive[f] == 3:
            ws.epa_alive[f] = 0
    if ne == 0:
        return -1
    slot = 0
    for e in range(ne):
        while slot < nf and ws.epa_alive[slot]:      # reuse the slots of removed faces
            slot += 1
        if slot >= EPA_MAX_FACES:
            return -1
        _set_face(ws, slot, ws.epa_edge[e, 0], ws.epa_edge[e, 1], nv - 1)
        if slot == nf:
            nf += 1
    return nf


@njit(**KERNEL)
def epa(ws, n_simplex):
    """Penetration of the intersecting cores in slots 0 and 1 (radii ignored).

    Returns (depth ≥ 0, m, pa, pb): translating A by −depth·m separates the cores; pa ∈ ∂A, pb ∈ ∂B with
    pa − pb = depth·m (world frame).
    """
    nv, nf = _initial_polytope(ws, n_simplex)
    if nf == 0:
        z = (0.0, 0.0, 0.0)
        return 0.0, (0.0, 0.0, 1.0), z, z
    f = _nearest_face(ws, nf)
    for _ in range(EPA_MAX_VERTS):
        f = _nearest_face(ws, nf)
        m = (ws.epa_fn[f, 0], ws.epa_fn[f, 1], ws.epa_fn[f, 2])
        dist = ws.epa_fn[f, 3]
        w, _, _ = minkowski_support(ws, m)
        if dot(w, m) - dist <= EPA_TOL or nv >= EPA_MAX_VERTS or _known(ws, nv, w):
            break
        nv = _add_vertex(ws, nv, m)
        nf_new = _expand(ws, nv, nf, w, f)
        if nf_new < 0:
            break
        nf = nf_new
    f = _nearest_face(ws, nf)
    return _witness(ws, f)


@njit(**KERNEL)
def _witness(ws, f):
    """Depth, normal and witness points from face f: barycentric coordinates of depth·m on it."""
    V = ws.epa_v[W]
    i, j, k = ws.epa_face[f, 0], ws.epa_face[f, 1], ws.epa_face[f, 2]
    m = (ws.epa_fn[f, 0], ws.epa_fn[f, 1], ws.epa_fn[f, 2])
    depth = max(ws.epa_fn[f, 3], 0.0)
    p = scale(m, ws.epa_fn[f, 3])
    a, b, c = row(V, i), row(V, j), row(V, k)
    n = cross(sub(b, a), sub(c, a))
    nn = dot(n, n)
    la = dot(cross(sub(b, p), sub(c, p)), n) / nn
    lb = dot(cross(sub(c, p), sub(a, p)), n) / nn
    lc = 1.0 - la - lb
    pa = madd(madd(scale(row(ws.epa_v[A], i), la), row(ws.epa_v[A], j), lb), row(ws.epa_v[A], k), lc)
    pb = madd(madd(scale(row(ws.epa_v[B], i), la), row(ws.epa_v[B], j), lb), row(ws.epa_v[B], k), lc)
    return depth, m, pa, pb
