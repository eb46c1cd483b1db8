"""GJK distance and EPA penetration depth between the two cores of the workspace.

GJK (Gilbert, Johnson, Keerthi 1988) walks simplices of the Minkowski difference M = A − B towards the
origin. The closest point of a simplex (at most 4 points) is found by trying every face of it and
keeping the smallest projection of the origin whose barycentric coordinates are all positive: the
closest point of a convex hull lies in the relative interior of one of its faces, so this is exact and
avoids the case analysis of Johnson's sub-algorithm. EPA (van den Bergen 2001) expands a polytope inside
M from the final GJK simplex until the face nearest the origin lies on M's boundary.
"""
from __future__ import annotations

import numpy as np

from impulsim.collision.core import minkowski_support
from impulsim.collision.vec import (KERNEL, add, cross, dot, madd, norm, normalize, perpendicular, row, scale,
                                    store, sub)
from impulsim.kernel import njit

GJK_MAX_ITER = 64
GJK_REL_TOL = 1e-12
"""GJK stops when the support point improves the distance bound by less than this fraction of |v|²:
the distance is then exact to about 1e-12 relative (rounding of the support points)."""
EPA_TOL = 1e-10
"""EPA stops when the new support point lies within this distance [m] of the nearest face's plane."""
W, A, B = 0, 1, 2


@njit(**KERNEL)
def _mask_indices(mask, n):
    """(k, i0, i1, i2, i3): the positions of the set bits of ``mask`` among the first n."""
    i0 = i1 = i2 = i3 = 0
    k = 0
    for i in range(n):
        if mask >> i & 1:
            if k == 0:
                i0 = i
            elif k == 1:
                i1 = i
            elif k == 2:
                i2 = i
            else:
                i3 = i
            k += 1
    return k, (i0, i1, i2, i3)


@njit(**KERNEL)
def _face_point(S, idx, k):
    """Barycentric projection of the origin onto the affine hull of simplex points ``idx[:k]``.

    Returns (ok, lam0, lam1, lam2, lam3); ok is False if the projection leaves the face or it is
    degenerate.
    """
    if k == 1:
        return True, 1.0, 0.0, 0.0, 0.0
    w0 = row(S[W], idx[0])
    if k == 2:
        e = sub(row(S[W], idx[1]), w0)
        ee = dot(e, e)
        if ee <= 1e-300:
            return False, 0.0, 0.0, 0.0, 0.0
        t = -dot(w0, e) / ee
        return (0.0 < t < 1.0), 1.0 - t, t, 0.0, 0.0
    e1 = sub(row(S[W], idx[1]), w0)
    e2 = sub(row(S[W], idx[2]), w0)
    if k == 3:
        a11, a12, a22 = dot(e1, e1), dot(e1, e2), dot(e2, e2)
        b1, b2 = -dot(e1, w0), -dot(e2, w0)
        det = a11 * a22 - a12 * a12
        if det <= 1e-14 * a11 * a22 or det <= 1e-300:
            return False, 0.0, 0.0, 0.0, 0.0
        l1 = (b1 * a22 - b2 * a12) / det
        l2 = (a11 * b2 - a12 * b1) / det
        l0 = 1.0 - l1 - l2
        return (l0 > 0.0 and l1 > 0.0 and l2 > 0.0), l0, l1, l2, 0.0
    e3 = sub(row(S[W], idx[3]), w0)
    # solve [e1 e2 e3] λ = −w0 by Cramer's rule (the origin written in the tetrahedron's frame)
    det = dot(e1, cross(e2, e3))
    vol = norm(e1) * norm(e2) * norm(e3)
    if abs(det) <= 1e-12 * vol or vol <= 1e-300:
        return False, 0.0, 0.0, 0.0, 0.0
    r = scale(w0, -1.0)
    l1 = dot(r, cross(e2, e3)) / det
    l2 = dot(e1, cross(r, e3)) / det
    l3 = dot(e1, cross(e2, r)) / det
    l0 = 1.0 - l1 - l2 - l3
    return (l0 > 0.0 and l1 > 0.0 and l2 > 0.0 and l3 > 0.0), l0, l1, l2, l3


@njit(**KERNEL)
def _closest_on_simplex(S, n):
    """Reduce simplex S (n points) to the face holding its point closest to the origin.

    Returns (new n, v): v = that closest point. Points of the face are moved to the front of S.
    """
    best = np.inf
    best_mask = np.int64(1)           # not a literal: one compiled _mask_indices (see vec.slots)
    bl = (1.0, 0.0, 0.0, 0.0)
    for mask in range(1, 1 << n):
        k, idx = _mask_indices(mask, n)
        ok, l0, l1, l2, l3 = _face_point(S, idx, k)
        if not ok:
            continue
        v = (0.0, 0.0, 0.0)
        lam = (l0, l1, l2, l3)
        for j in range(k):
            v = madd(v, row(S[W], idx[j]), lam[j])
        d2 = dot(v, v)
        if d2 < best:
            best = d2
            best_mask = mask
            bl = lam
    k, idx = _mask_indices(best_mask, n)
    for j in range(k):               # idx is increasing, so moving forward never overwrites
        for c in range(3):
            for q in range(3):
                S[c, j, q] = S[c, idx[j], q]
    v = (0.0, 0.0, 0.0)
    for j in range(k):
        v = madd(v, row(S[W], j), bl[j])
    return k, v, bl


@njit(**KERNEL)
def gjk(ws):
    """Distance between the cores in slots 0 and 1 (radii ignored).

    Returns (dist, pa, pb, n_simplex, normal): dist > 0 with closest points pa on A and pb on B (world)
    and the unit normal from B towards A, or
    dist = 0 when the cores intersect (then the simplex in ``ws.simplex`` encloses or touches the origin).
    """
    S = ws.simplex
    d = sub(row(ws.cpos, 0), row(ws.cpos, 1))
    if dot(d, d) < 1e-300:
        d = (1.0, 0.0, 0.0)
    w, a, b = minkowski_support(ws, scale(d, -1.0))
    store(S[W], 0, w)
    store(S[A], 0, a)
    store(S[B], 0, b)
    n = 1
    v = w
    lam = (1.0, 0.0, 0.0, 0.0)
    for _ in range(GJK_MAX_ITER):
        vv = dot(v, v)
        if vv <= 1e-28:
            return 0.0, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), n, (0.0, 0.0, 1.0)
        w, a, b = minkowski_support(ws, scale(v, -1.0))
        if vv - dot(v, w) <= GJK_REL_TOL * vv:
            break
        duplicate = False
        for i in range(n):
            if S[W, i, 0] == w[0] and S[W, i, 1] == w[1] and S[W, i, 2] == w[2]:
                duplicate = True
        if duplicate:
            break
        store(S[W], n, w)
        store(S[A], n, a)
        store(S[B], n, b)
        n, v_new, lam = _closest_on_simplex(S, n + 1)
        if n == 4:
            return 0.0, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), n, (0.0, 0.0, 1.0)
        if dot(v_new, v_new) >= vv:      # no progress: rounding floor reached
            break
        v = v_new
    pa = (0.0, 0.0, 0.0)
    pb = (0.0, 0.0, 0.0)
    n, v, lam = _closest_on_simplex(S, n)
    for j in range(n):
        pa = madd(pa, row(S[A], j), lam[j])
        pb = madd(pb, row(S[B], j), lam[j])
    normal = _simplex_normal(S, n, sub(pa, pb))
    dist = dot(sub(pa, pb), normal)
    if dist <= 1e-14:
        return 0.0, pa, pb, n, normal
    pa, pb = _across(S, n, pa, pb, normal, dist)
    return dist, pa, pb, n, normal


@njit(**KERNEL)
def _across(S, n, pa, pb, normal, dist):
    """The witness points made to lie exactly ``dist`` apart along ``normal``: the point of the side whose
    supports in the final simplex spread wider is put at the other's plus or minus ``dist`` · normal.

    GJK's distance and normal converge much faster than its witness points where one side's closest
    feature is flat (a box face): the supports there are far-apart vertices, and the combination of them
    can still slide along the face by ~1e-7 m when the distance has converged to 1e-12 (box–cylinder 0.5 m
    apart: pa − pb was 3e-7 m off dist · normal). The other side's supports cluster at its closest point,
    which is therefore accurate; moving the flat side's point along its face keeps it on the surface.
    """
    if _spread(S[A], n) >= _spread(S[B], n):
        return madd(pb, normal, dist), pb
    return pa, madd(pa, normal, -dist)


@njit(**KERNEL)
def _spread(P, n):
    """Largest squared distance [m²] between two of the first n points of P."""
    out = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            e = sub(row(P, i), row(P, j))
            out = max(out, dot(e, e))
    return out


@njit(**KERNEL)
def _simplex_normal(S, n, v):
    """Unit normal from B towards A, taken from the simplex's geometry rather than from v alone.

    When the distance is tiny, v = pa − pb carries rounding errors of ~1e-16 m, so its direction is only
    good to ~1e-16/|v|; the simplex edge or face that v is perpendicular to is known much better.
    """
    if n == 2:
        e = normalize(sub(row(S[W], 1), row(S[W], 0)))
        v = sub(v, scale(e, dot(v, e)))
    elif n == 3:
        m = normalize(cross(sub(row(S[W], 1), row(S[W], 0)), sub(row(S[W], 2), row(S[W], 0))))
        return m if dot(m, v) >= 0.0 else scale(m, -1.0)
    return normalize(v)
