"""Contact regions: all point pairs of a convex pair closer than eps_c, with the pair's one normal.

Bender (Sec. 4.5, SOLID extension) reconstructs the touching features from the closest points and the
normal, then intersects them: face–face by clipping the two convex polygons in the plane normal to n,
parallel edge–face by clipping the edge against the face, parallel edge–edge as a 1-D interval overlap,
and a single pair of closest points otherwise. Every candidate is lifted back onto both features along n
and kept only if its distance is at most eps_c. Results go to ``ws.region`` rows
(point on A (3), point on B (3), distance) with feature ids in ``ws.regcode``.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from impulsim.collision.features import FEATURE_COS, feature
from impulsim.collision.vec import add, dot, madd, perpendicular, row, scale, store, sub

MAX_POINTS = 8
"""Largest number of contact points kept per convex pair (an octagon: a box turned 45° on a box)."""
EDGE_CODE = 1 << 20
"""Feature ids of points made by clipping (on an edge, not at a vertex) carry this bit."""


@njit(cache=True)
def _to2d(p, o, t1, t2):
    q = sub(p, o)
    return dot(q, t1), dot(q, t2)


@njit(cache=True)
def _cross2(ax, ay, bx, by):
    return ax * by - ay * bx


@njit(cache=True)
def _polygon_2d(ws, slot, n_pts, o, t1, t2, buf):
    """Feature polygon of ``slot`` in 2-D into ws.clip[buf], counter-clockwise; returns the count."""
    area = 0.0
    for i in range(n_pts):
        x, y = _to2d(row(ws.fpts[slot], i), o, t1, t2)
        ws.clip[buf, i, 0], ws.clip[buf, i, 1] = x, y
    for i in range(n_pts):
        j = (i + 1) % n_pts
        area += _cross2(ws.clip[buf, i, 0], ws.clip[buf, i, 1], ws.clip[buf, j, 0], ws.clip[buf, j, 1])
    for i in range(n_pts):
        ws.clipcode[buf, i, 0] = ws.fcode[slot, i]
        ws.clipcode[buf, i, 1] = -1
    if area < 0.0:
        for i in range(n_pts // 2):
            j = n_pts - 1 - i
            for c in range(2):
                ws.clip[buf, i, c], ws.clip[buf, j, c] = ws.clip[buf, j, c], ws.clip[buf, i, c]
                ws.clipcode[buf, i, c], ws.clipcode[buf, j, c] = ws.clipcode[buf, j, c], ws.clipcode[buf, i, c]
    return n_pts


@njit(cache=True)
def _clip_polygons(ws, n_b, clipper, n_a):
    """Sutherland–Hodgman: polygon in ws.clip[1] (B, n_b points) clipped by the CCW polygon in
    ``clipper`` (A's 2-D points, n_a). Result in ws.clip[1]; codes (id on A, id on B)."""
    src, dst = 1, 0
    n = n_b
    for e in range(n_a):
        ax, ay = clipper[e, 0], clipper[e, 1]
        ex, ey = clipper[(e + 1) % n_a, 0] - ax, clipper[(e + 1) % n_a, 1] - ay
        m = 0
        for i in range(n):
            j = (i + 1) % n
            px, py = ws.clip[src, i, 0], ws.clip[src, i, 1]
            qx, qy = ws.clip[src, j, 0], ws.clip[src, j, 1]
            fp = _cross2(ex, ey, px - ax, py - ay)
            fq = _cross2(ex, ey, qx - ax, qy - ay)
            if fp >= 0.0:
                ws.clip[dst, m, 0], ws.clip[dst, m, 1] = px, py
                ws.clipcode[dst, m, 0], ws.clipcode[dst, m, 1] = ws.clipcode[src, i, 0], ws.clipcode[src, i, 1]
                m += 1
            if (fp >= 0.0) != (fq >= 0.0) and m < ws.clip.shape[1]:
                t = fp / (fp - fq)
                ws.clip[dst, m, 0], ws.clip[dst, m, 1] = px + t * (qx - px), py + t * (qy - py)
                ws.clipcode[dst, m, 0] = EDGE_CODE | e
                ws.clipcode[dst, m, 1] = EDGE_CODE | (ws.clipcode[src, i, 1] & (EDGE_CODE - 1))
                m += 1
        n = m
        src, dst = dst, src
        if n == 0:
            break
    if src != 1:
        for i in range(n):
            for c in range(2):
                ws.clip[1, i, c] = ws.clip[src, i, c]
                ws.clipcode[1, i, c] = ws.clipcode[src, i, c]
    return n


@njit(cache=True)
def _lift_plane(x, n, p0, m):
    """The point x + s n on the plane through p0 with normal m."""
    return madd(x, n, dot(m, sub(p0, x)) / dot(m, n))


@njit(cache=True)
def _lift_segment(qx, qy, a2x, a2y, b2x, b2y, a, b):
    """Point of segment a–b (3-D) whose 2-D image is nearest (qx, qy), with its parameter clamped."""
    ex, ey = b2x - a2x, b2y - a2y
    ee = ex * ex + ey * ey
    t = ((qx - a2x) * ex + (qy - a2y) * ey) / ee if ee > 1e-300 else 0.0
    t = min(1.0, max(0.0, t))
    return madd(a, sub(b, a), t)


@njit(cache=True)
def _lift(ws, slot, dim, m, qx, qy, o, t1, t2, n):
    """3-D point on the feature of ``slot`` (dim 1 or 2) above/below the 2-D point (qx, qy)."""
    x = add(add(o, scale(t1, qx)), scale(t2, qy))
    if dim == 2:
        return _lift_plane(x, n, row(ws.fpts[slot], 0), m)
    a, b = row(ws.fpts[slot], 0), row(ws.fpts[slot], 1)
    a2 = _to2d(a, o, t1, t2)
    b2 = _to2d(b, o, t1, t2)
    return _lift_segment(qx, qy, a2[0], a2[1], b2[0], b2[1], a, b)


@njit(cache=True)
def _emit(ws, k, pa_core, pb_core, n, code_a, code_b):
    """Store region point k from core points, adding the radii; returns its distance."""
    ra, rb = ws.crad[0], ws.crad[1]
    d = dot(sub(pa_core, pb_core), n) - ra - rb
    pa = madd(pa_core, n, -ra)
    pb = madd(pb_core, n, rb)
    for c in range(3):
        ws.region[k, c] = pa[c]
        ws.region[k, 3 + c] = pb[c]
    ws.region[k, 6] = d
    ws.regcode[k, 0], ws.regcode[k, 1] = code_a, code_b
    return d


@njit(cache=True)
def _segment_in_polygon(ws, poly, n_poly, s0x, s0y, s1x, s1y):
    """Cyrus–Beck clip of a 2-D segment by a CCW polygon: (ok, t_enter, t_exit)."""
    t0, t1 = 0.0, 1.0
    for e in range(n_poly):
        ax, ay = poly[e, 0], poly[e, 1]
        ex, ey = poly[(e + 1) % n_poly, 0] - ax, poly[(e + 1) % n_poly, 1] - ay
        f0 = _cross2(ex, ey, s0x - ax, s0y - ay)
        f1 = _cross2(ex, ey, s1x - ax, s1y - ay)
        if f0 < 0.0 and f1 < 0.0:
            return False, 0.0, 0.0
        if f0 < 0.0:
            t0 = max(t0, f0 / (f0 - f1))
        elif f1 < 0.0:
            t1 = min(t1, f0 / (f0 - f1))
    return t0 <= t1, t0, t1


@njit(cache=True)
def _closest_segments(p1, q1, p2, q2):
    """Closest points of segments p1–q1 and p2–q2 (Ericson, Real-Time Collision Detection 5.1.9)."""
    d1, d2, r = sub(q1, p1), sub(q2, p2), sub(p1, p2)
    a, e, f = dot(d1, d1), dot(d2, d2), dot(d2, r)
    if a <= 1e-300 and e <= 1e-300:
        return p1, p2
    if a <= 1e-300:
        return p1, madd(p2, d2, min(1.0, max(0.0, f / e)))
    c = dot(d1, r)
    if e <= 1e-300:
        return madd(p1, d1, min(1.0, max(0.0, -c / a))), p2
    b = dot(d1, d2)
    den = a * e - b * b
    s = min(1.0, max(0.0, (b * f - c * e) / den)) if den > 1e-14 * a * e else 0.0
    t = (b * s + f) / e
    if t < 0.0:
        t, s = 0.0, min(1.0, max(0.0, -c / a))
    elif t > 1.0:
        t, s = 1.0, min(1.0, max(0.0, (b - c) / a))
    return madd(p1, d1, s), madd(p2, d2, t)


@njit(cache=True)
def closest_segments(p1, q1, p2, q2):
    """Public wrapper of the segment–segment closest points (world frame)."""
    return _closest_segments(p1, q1, p2, q2)


@njit(cache=True)
def _deepest(ws, slot, count, n, sign):
    """Feature point of ``slot`` with the largest sign·(p·n): deepest into the other shape."""
    best, ib = -np.inf, 0
    for i in range(count):
        h = sign * dot(row(ws.fpts[slot], i), n)
        if h > best:
            best, ib = h, i
    return row(ws.fpts[slot], ib)


@njit(cache=True)
def _single(ws, dim_a, dim_b, na, nb, n, have_witness, wa, wb):
    """One region point: the given core witnesses, or the closest points of the two features."""
    if have_witness:
        return _emit(ws, 0, wa, wb, n, ws.fcode[0, 0], ws.fcode[1, 0])
    pa, pb = row(ws.fpts[0], 0), row(ws.fpts[1], 0)
    if dim_a == 0 and dim_b == 2:
        pb = _lift_plane(pa, n, pb, _plane_normal(ws, 1))
    elif dim_b == 0 and dim_a == 2:
        pa = _lift_plane(pb, n, pa, _plane_normal(ws, 0))
    elif dim_a <= 1 and dim_b <= 1:
        qa = row(ws.fpts[0], 1) if dim_a == 1 else pa
        qb = row(ws.fpts[1], 1) if dim_b == 1 else pb
        pa, pb = _closest_segments(pa, qa, pb, qb)
    elif dim_a == 2:
        pb = _deepest(ws, 1, nb, n, 1.0)
        pa = _lift_plane(pb, n, pa, _plane_normal(ws, 0))
    else:
        pa = _deepest(ws, 0, na, n, -1.0)
        pb = _lift_plane(pa, n, pb, _plane_normal(ws, 1))
    return _emit(ws, 0, pa, pb, n, ws.fcode[0, 0], ws.fcode[1, 0])


@njit(cache=True)
def _plane_normal(ws, slot):
    """Unit normal of the (planar, ≥ 3 point) feature polygon of ``slot``."""
    p0, p1, p2 = row(ws.fpts[slot], 0), row(ws.fpts[slot], 1), row(ws.fpts[slot], 2)
    e1, e2 = sub(p1, p0), sub(p2, p0)
    c = (e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0])
    ln = np.sqrt(dot(c, c))
    return scale(c, 1.0 / ln)


@njit(cache=True)
def _keep(ws, k, pa, pb, n, ca, cb, eps_c):
    """Emit a candidate at row k; returns k + 1 if it is within eps_c, else k.

    The deepest candidate so far is also copied to the spare last row, for when none is within eps_c.
    """
    d = _emit(ws, k, pa, pb, n, ca, cb)
    last = ws.region.shape[0] - 1
    if d < ws.region[last, 6]:
        _copy_row(ws, k, last)
    return k + 1 if d <= eps_c else k


@njit(cache=True)
def _copy_row(ws, src, dst):
    for c in range(7):
        ws.region[dst, c] = ws.region[src, c]
    for c in range(2):
        ws.regcode[dst, c] = ws.regcode[src, c]


@njit(cache=True)
def _polygon_polygon(ws, na, nb, ma, mb, n, o, t1, t2, eps_c):
    _polygon_2d(ws, 0, na, o, t1, t2, 2)
    nbb = _polygon_2d(ws, 1, nb, o, t1, t2, 1)
    m = _clip_polygons(ws, nbb, ws.clip[2], na)
    k = 0
    for i in range(m):
        qx, qy = ws.clip[1, i, 0], ws.clip[1, i, 1]
        pa = _lift(ws, 0, 2, ma, qx, qy, o, t1, t2, n)
        pb = _lift(ws, 1, 2, mb, qx, qy, o, t1, t2, n)
        k = _keep(ws, k, pa, pb, n, ws.clipcode[1, i, 0], ws.clipcode[1, i, 1], eps_c)
    return k


@njit(cache=True)
def _segment_polygon(ws, seg, poly, n_poly, m_poly, n, o, t1, t2, eps_c):
    """Segment feature of slot ``seg`` clipped by the polygon feature of slot ``poly``."""
    _polygon_2d(ws, poly, n_poly, o, t1, t2, 2)
    a, b = row(ws.fpts[seg], 0), row(ws.fpts[seg], 1)
    a2, b2 = _to2d(a, o, t1, t2), _to2d(b, o, t1, t2)
    ok, ta, tb = _segment_in_polygon(ws, ws.clip[2], n_poly, a2[0], a2[1], b2[0], b2[1])
    if not ok:
        return 0
    k = 0
    for t in (ta, tb):
        if t == tb and tb - ta <= 1e-12 and k > 0:
            break
        ps = madd(a, sub(b, a), t)
        qx, qy = a2[0] + t * (b2[0] - a2[0]), a2[1] + t * (b2[1] - a2[1])
        pp = _lift(ws, poly, 2, m_poly, qx, qy, o, t1, t2, n)
        code_s = ws.fcode[seg, 0] if t == 0.0 else (ws.fcode[seg, 1] if t == 1.0 else EDGE_CODE)
        if seg == 0:
            k = _keep(ws, k, ps, pp, n, code_s, EDGE_CODE, eps_c)
        else:
            k = _keep(ws, k, pp, ps, n, EDGE_CODE, code_s, eps_c)
    return k


@njit(cache=True)
def _segment_segment(ws, n, o, t1, t2, eps_c, sin_tol):
    """Parallel edges: the overlap of their projections, as up to two point pairs (0 if not parallel)."""
    a0, a1 = row(ws.fpts[0], 0), row(ws.fpts[0], 1)
    b0, b1 = row(ws.fpts[1], 0), row(ws.fpts[1], 1)
    p0, p1 = _to2d(a0, o, t1, t2), _to2d(a1, o, t1, t2)
    q0, q1 = _to2d(b0, o, t1, t2), _to2d(b1, o, t1, t2)
    ex, ey = p1[0] - p0[0], p1[1] - p0[1]
    fx, fy = q1[0] - q0[0], q1[1] - q0[1]
    le, lf = np.sqrt(ex * ex + ey * ey), np.sqrt(fx * fx + fy * fy)
    if le <= 1e-300 or lf <= 1e-300 or abs(_cross2(ex, ey, fx, fy)) > sin_tol * le * lf:
        return 0
    ee = le * le
    s0 = ((q0[0] - p0[0]) * ex + (q0[1] - p0[1]) * ey) / ee
    s1 = ((q1[0] - p0[0]) * ex + (q1[1] - p0[1]) * ey) / ee
    lo, hi = max(0.0, min(s0, s1)), min(1.0, max(s0, s1))
    if lo > hi:
        return 0
    k = 0
    for s in (lo, hi):
        if s == hi and hi - lo <= 1e-12 and k > 0:
            break
        pa = madd(a0, sub(a1, a0), s)
        qx, qy = p0[0] + s * ex, p0[1] + s * ey
        pb = _lift_segment(qx, qy, q0[0], q0[1], q1[0], q1[1], b0, b1)
        k = _keep(ws, k, pa, pb, n, EDGE_CODE, EDGE_CODE, eps_c)
    return k


@njit(cache=True)
def _reduce(ws, k):
    """Keep MAX_POINTS of k region points: the deepest, then each time the one farthest from those kept."""
    best = 0
    for i in range(1, k):
        if ws.region[i, 6] < ws.region[best, 6]:
            best = i
    _swap(ws, 0, best)
    for m in range(1, MAX_POINTS):
        far, arg = -1.0, m
        for i in range(m, k):
            dmin = np.inf
            for j in range(m):
                dx = ws.region[i, 0] - ws.region[j, 0]
                dy = ws.region[i, 1] - ws.region[j, 1]
                dz = ws.region[i, 2] - ws.region[j, 2]
                dmin = min(dmin, dx * dx + dy * dy + dz * dz)
            if dmin > far:
                far, arg = dmin, i
        _swap(ws, m, arg)
    return MAX_POINTS


@njit(cache=True)
def _swap(ws, i, j):
    for c in range(7):
        ws.region[i, c], ws.region[j, c] = ws.region[j, c], ws.region[i, c]
    for c in range(2):
        ws.regcode[i, c], ws.regcode[j, c] = ws.regcode[j, c], ws.regcode[i, c]


@njit(cache=True)
def contact_region(geo, ws, n, have_witness, wa, wb, eps_c, cos_tol):
    """Region of the cores in slots 0 (A) and 1 (B) touching along n (unit, from B towards A).

    ``wa``, ``wb`` are closest core points when ``have_witness``; ``cos_tol`` is the feature tolerance
    (FEATURE_COS, or WITNESS_COS with eps_c = −inf to get the closest pair only). Returns the number of
    rows written to ``ws.region`` (at least 1: the deepest candidate is kept if none is within eps_c).
    """
    ws.region[ws.region.shape[0] - 1, 6] = np.inf
    dim_a, na, ma = feature(geo, ws, 0, scale(n, -1.0), cos_tol)
    dim_b, nb, mb = feature(geo, ws, 1, n, cos_tol)
    k = 0
    if dim_a > 0 and dim_b > 0:
        t1, t2 = perpendicular(n)
        o = row(ws.fpts[0], 0)
        if dim_a == 2 and dim_b == 2:
            k = _polygon_polygon(ws, na, nb, ma, mb, n, o, t1, t2, eps_c)
        elif dim_a == 2:
            k = _segment_polygon(ws, 1, 0, na, ma, n, o, t1, t2, eps_c)
        elif dim_b == 2:
            k = _segment_polygon(ws, 0, 1, nb, mb, n, o, t1, t2, eps_c)
        else:
            k = _segment_segment(ws, n, o, t1, t2, eps_c, np.sqrt(1.0 - cos_tol * cos_tol))
    if k == 0:
        if have_witness or ws.region[ws.region.shape[0] - 1, 6] == np.inf:
            _single(ws, dim_a, dim_b, na, nb, n, have_witness, wa, wb)
        else:
            _copy_row(ws, ws.region.shape[0] - 1, 0)
        return 1
    if k > MAX_POINTS:
        k = _reduce(ws, k)
    return k


@njit(cache=True)
def plane_region(geo, ws, p0, n, eps_c):
    """Region of the core in slot 0 against the plane through p0 with unit normal n (towards A).

    Every point of A's feature along −n within eps_c of the plane, paired with its projection on it;
    the deepest point is kept in any case. Returns the number of rows in ``ws.region``.
    """
    ws.crad[1] = 0.0
    _, count, _ = feature(geo, ws, 0, scale(n, -1.0), FEATURE_COS)
    k, deepest, dmin = 0, 0, np.inf
    for i in range(count):
        p = row(ws.fpts[0], i)
        h = dot(sub(p, p0), n)
        d = _emit(ws, k, p, madd(p, n, -h), n, ws.fcode[0, i], -1)
        if d < dmin:
            dmin, deepest = d, i
        if d <= eps_c:
            k += 1
    if k == 0:
        p = row(ws.fpts[0], deepest)
        _emit(ws, 0, p, madd(p, n, -dot(sub(p, p0), n)), n, ws.fcode[0, deepest], -1)
        k = 1
    if k > MAX_POINTS:
        k = _reduce(ws, k)
    return k
