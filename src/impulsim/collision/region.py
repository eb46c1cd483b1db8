"""Contact regions: all point pairs of a convex pair closer than eps_c, with the pair's one normal.

Bender (Sec. 4.5, SOLID extension) reconstructs the touching features from the closest points and the
normal, then intersects them: face–face by clipping the two convex polygons in the plane normal to n,
parallel edge–face by clipping the edge against the face, parallel edge–edge as a 1-D interval overlap,
and a single pair of closest points otherwise. Every candidate is lifted back onto both features along n
and kept only if its distance is at most eps_c.

The kernels work on plain scratch arrays (so that they are cheap to call from any pair function):
``fpts`` [2, maxp, 3] / ``fcode`` [2, maxp] hold the two features (slot 0 = A, 1 = B; world frame),
``clip`` / ``clipcode`` [3, maxc, 2] the 2-D clipping buffers, and results go to ``region`` rows
(point on A (3), point on B (3), distance) with feature ids in ``regcode``. ``contact_region`` and
``plane_region`` are the workspace-level entries of the general narrow phase.
"""
from __future__ import annotations

import numpy as np

from impulsim.collision.features import FEATURE_COS, feature
from impulsim.collision.vec import KERNEL, add, dot, madd, perpendicular, scale, slots, sub
from impulsim.kernel import njit

MAX_POINTS = 8
"""Largest number of contact points kept per convex pair (an octagon: a box turned 45° on a box)."""
EDGE_CODE = 1 << 20
"""Feature ids of points made by clipping (on an edge, not at a vertex) carry this bit."""
PRUNE_FRACTION = 0.1
"""A clipped point within this fraction of eps_c of the line through its neighbours (or of the point
before it) is dropped: it adds nothing to the region's shape (see _prune_polygon)."""


@njit(**KERNEL)
def _fp(fpts, slot, i):
    """Feature point i of ``slot`` as a tuple (world [m])."""
    return fpts[slot, i, 0], fpts[slot, i, 1], fpts[slot, i, 2]


@njit(**KERNEL)
def _to2d(p, o, t1, t2):
    q = sub(p, o)
    return dot(q, t1), dot(q, t2)


@njit(**KERNEL)
def _cross2(ax, ay, bx, by):
    return ax * by - ay * bx


@njit(**KERNEL)
def _polygon_2d(fpts, fcode, clip, clipcode, slot, n_pts, o, t1, t2, buf):
    """Feature polygon of ``slot`` in 2-D into clip[buf], counter-clockwise; returns the count."""
    area = 0.0
    for i in range(n_pts):
        x, y = _to2d(_fp(fpts, slot, i), o, t1, t2)
        clip[buf, i, 0], clip[buf, i, 1] = x, y
    for i in range(n_pts):
        j = (i + 1) % n_pts
        area += _cross2(clip[buf, i, 0], clip[buf, i, 1], clip[buf, j, 0], clip[buf, j, 1])
    for i in range(n_pts):                 # (id on A, id on B): a vertex is on its own slot's side only
        clipcode[buf, i, slot] = fcode[slot, i]
        clipcode[buf, i, 1 - slot] = -1
    if area < 0.0:
        for i in range(n_pts // 2):
            j = n_pts - 1 - i
            for c in range(2):
                clip[buf, i, c], clip[buf, j, c] = clip[buf, j, c], clip[buf, i, c]
                clipcode[buf, i, c], clipcode[buf, j, c] = clipcode[buf, j, c], clipcode[buf, i, c]
    return n_pts


@njit(**KERNEL)
def _clip_polygons(clip, clipcode, n_b, n_a):
    """Sutherland–Hodgman: polygon in clip[1] (B, n_b points) clipped by the CCW polygon in clip[2]
    (A's 2-D points, n_a). Result in clip[1]; codes (id on A, id on B)."""
    src, dst = 1, 0
    n = n_b
    for e in range(n_a):
        ax, ay = clip[2, e, 0], clip[2, e, 1]
        e1 = (e + 1) % n_a
        ex, ey = clip[2, e1, 0] - ax, clip[2, e1, 1] - ay
        m = 0
        for i in range(n):
            j = (i + 1) % n
            px, py = clip[src, i, 0], clip[src, i, 1]
            qx, qy = clip[src, j, 0], clip[src, j, 1]
            fp = _cross2(ex, ey, px - ax, py - ay)
            fq = _cross2(ex, ey, qx - ax, qy - ay)
            if fp >= 0.0:
                clip[dst, m, 0], clip[dst, m, 1] = px, py
                clipcode[dst, m, 0], clipcode[dst, m, 1] = clipcode[src, i, 0], clipcode[src, i, 1]
                m += 1
            if (fp >= 0.0) != (fq >= 0.0) and m < clip.shape[1]:
                t = fp / (fp - fq)
                clip[dst, m, 0], clip[dst, m, 1] = px + t * (qx - px), py + t * (qy - py)
                clipcode[dst, m, 0] = EDGE_CODE | e
                clipcode[dst, m, 1] = EDGE_CODE | (clipcode[src, i, 1] & (EDGE_CODE - 1))
                m += 1
        n = m
        src, dst = dst, src
        if n == 0:
            break
    if src != 1:
        for i in range(n):
            for c in range(2):
                clip[1, i, c] = clip[src, i, c]
                clipcode[1, i, c] = clipcode[src, i, c]
    return n


@njit(**KERNEL)
def _prune_polygon(clip, clipcode, m, tol):
    """Drop the points of the convex polygon clip[1, :m] that lie within tol [m] of the point before
    them or of the line through their two neighbours; returns the number left. Two equal faces lying
    one on the other have nearly collinear edges, and clipping them makes extra points at arbitrary places
    along those edges, and points twice: they carry no load the corners do not, but they come and go
    from step to step, and each newcomer starts without its warm-start impulse. Of two coinciding points
    the vertex is kept (its feature ids are stable), else the earlier one."""
    i = 0
    while m > 1 and i < m:
        h = (i + m - 1) % m
        j = (i + 1) % m
        ex, ey = clip[1, h, 0] - clip[1, i, 0], clip[1, h, 1] - clip[1, i, 1]
        if ex * ex + ey * ey <= tol * tol:
            drop = h if _is_clipped(clipcode, h) and not _is_clipped(clipcode, i) else i
        elif m > 2 and _off_line(clip, h, i, j) <= tol:
            drop = i
        else:
            i += 1
            continue
        for r in range(drop, m - 1):
            for c in range(2):
                clip[1, r, c] = clip[1, r + 1, c]
                clipcode[1, r, c] = clipcode[1, r + 1, c]
        m -= 1
        i = 0                          # a drop can make a point before it redundant
    return m


@njit(**KERNEL)
def _is_clipped(clipcode, i):
    """Whether clip[1, i] was made by clipping (an edge crossing on both sides), not a vertex of A or B."""
    return (clipcode[1, i, 0] & EDGE_CODE) != 0 and (clipcode[1, i, 1] & EDGE_CODE) != 0


@njit(**KERNEL)
def _off_line(clip, h, i, j):
    """Distance [m] of clip[1, i] from the line through clip[1, h] and clip[1, j]."""
    dx, dy = clip[1, j, 0] - clip[1, h, 0], clip[1, j, 1] - clip[1, h, 1]
    length = np.sqrt(dx * dx + dy * dy)
    if length <= 1e-300:
        return 0.0
    return abs(_cross2(dx, dy, clip[1, i, 0] - clip[1, h, 0], clip[1, i, 1] - clip[1, h, 1])) / length


@njit(**KERNEL)
def _lift_plane(x, n, p0, m):
    """The point x + s n on the plane through p0 with normal m."""
    return madd(x, n, dot(m, sub(p0, x)) / dot(m, n))


@njit(**KERNEL)
def _lift_segment(qx, qy, a2x, a2y, b2x, b2y, a, b):
    """Point of segment a–b (3-D) whose 2-D image is nearest (qx, qy), with its parameter clamped."""
    ex, ey = b2x - a2x, b2y - a2y
    ee = ex * ex + ey * ey
    t = ((qx - a2x) * ex + (qy - a2y) * ey) / ee if ee > 1e-300 else 0.0
    t = min(1.0, max(0.0, t))
    return madd(a, sub(b, a), t)


@njit(**KERNEL)
def _lift(fpts, slot, dim, m, qx, qy, o, t1, t2, n):
    """3-D point on the feature of ``slot`` (dim 1 or 2) above/below the 2-D point (qx, qy)."""
    x = add(add(o, scale(t1, qx)), scale(t2, qy))
    if dim == 2:
        return _lift_plane(x, n, _fp(fpts, slot, 0), m)
    a, b = _fp(fpts, slot, 0), _fp(fpts, slot, 1)
    a2 = _to2d(a, o, t1, t2)
    b2 = _to2d(b, o, t1, t2)
    return _lift_segment(qx, qy, a2[0], a2[1], b2[0], b2[1], a, b)


@njit(**KERNEL)
def _emit(region, regcode, k, pa_core, pb_core, n, code_a, code_b, ra, rb):
    """Store region point k from core points, adding the radii ra, rb [m]; returns its distance."""
    d = dot(sub(pa_core, pb_core), n) - ra - rb
    pa = madd(pa_core, n, -ra)
    pb = madd(pb_core, n, rb)
    for c in range(3):
        region[k, c] = pa[c]
        region[k, 3 + c] = pb[c]
    region[k, 6] = d
    regcode[k, 0], regcode[k, 1] = code_a, code_b
    return d


@njit(**KERNEL)
def _segment_in_polygon(clip, n_poly, s0x, s0y, s1x, s1y):
    """Cyrus–Beck clip of a 2-D segment by the CCW polygon in clip[2]: (ok, t_enter, t_exit)."""
    t0, t1 = 0.0, 1.0
    for e in range(n_poly):
        ax, ay = clip[2, e, 0], clip[2, e, 1]
        e1 = (e + 1) % n_poly
        ex, ey = clip[2, e1, 0] - ax, clip[2, e1, 1] - ay
        f0 = _cross2(ex, ey, s0x - ax, s0y - ay)
        f1 = _cross2(ex, ey, s1x - ax, s1y - ay)
        if f0 < 0.0 and f1 < 0.0:
            return False, 0.0, 0.0
        if f0 < 0.0:
            t0 = max(t0, f0 / (f0 - f1))
        elif f1 < 0.0:
            t1 = min(t1, f0 / (f0 - f1))
    return t0 <= t1, t0, t1


@njit(**KERNEL)
def closest_segments(p1, q1, p2, q2):
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


@njit(**KERNEL)
def _deepest(fpts, slot, count, n, sign):
    """Feature point of ``slot`` with the largest sign·(p·n): deepest into the other shape."""
    best, ib = -np.inf, 0
    for i in range(count):
        h = sign * dot(_fp(fpts, slot, i), n)
        if h > best:
            best, ib = h, i
    return _fp(fpts, slot, ib)


@njit(**KERNEL)
def _plane_normal(fpts, slot):
    """Unit normal of the (planar, ≥ 3 point) feature polygon of ``slot``."""
    p0, p1, p2 = _fp(fpts, slot, 0), _fp(fpts, slot, 1), _fp(fpts, slot, 2)
    e1, e2 = sub(p1, p0), sub(p2, p0)
    c = (e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0])
    ln = np.sqrt(dot(c, c))
    return scale(c, 1.0 / ln)


@njit(**KERNEL)
def _single(fpts, fcode, region, regcode, dim_a, dim_b, na, nb, n, have_witness, wa, wb, ra, rb):
    """One region point: the given core witnesses, or the closest points of the two features."""
    if have_witness:
        return _emit(region, regcode, np.int64(0), wa, wb, n, fcode[0, 0], fcode[1, 0], ra, rb)
    pa, pb = _fp(fpts, 0, 0), _fp(fpts, 1, 0)
    if dim_a == 0 and dim_b == 2:
        pb = _lift_plane(pa, n, pb, _plane_normal(fpts, 1))
    elif dim_b == 0 and dim_a == 2:
        pa = _lift_plane(pb, n, pa, _plane_normal(fpts, 0))
    elif dim_a <= 1 and dim_b <= 1:
        qa = _fp(fpts, 0, 1) if dim_a == 1 else pa
        qb = _fp(fpts, 1, 1) if dim_b == 1 else pb
        pa, pb = closest_segments(pa, qa, pb, qb)
    elif dim_a == 2:
        pb = _deepest(fpts, 1, nb, n, 1.0)
        pa = _lift_plane(pb, n, pa, _plane_normal(fpts, 0))
    else:
        pa = _deepest(fpts, 0, na, n, -1.0)
        pb = _lift_plane(pa, n, pb, _plane_normal(fpts, 1))
    return _emit(region, regcode, np.int64(0), pa, pb, n, fcode[0, 0], fcode[1, 0], ra, rb)


@njit(**KERNEL)
def _keep(region, regcode, k, pa, pb, n, ca, cb, eps_c, ra, rb):
    """Emit a candidate at row k; returns k + 1 if it is within eps_c, else k.

    The deepest candidate so far is also copied to the spare last row, for when none is within eps_c.
    """
    d = _emit(region, regcode, k, pa, pb, n, ca, cb, ra, rb)
    last = region.shape[0] - 1
    if d < region[last, 6]:
        _copy_row(region, regcode, k, last)
    return k + 1 if d <= eps_c else k


@njit(**KERNEL)
def _copy_row(region, regcode, src, dst):
    for c in range(7):
        region[dst, c] = region[src, c]
    for c in range(2):
        regcode[dst, c] = regcode[src, c]


@njit(**KERNEL)
def _polygon_polygon(fpts, fcode, clip, clipcode, region, regcode, na, nb, ma, mb, n, o, t1, t2, eps_c,
                     ra, rb):
    _polygon_2d(fpts, fcode, clip, clipcode, 0, na, o, t1, t2, 2)
    nbb = _polygon_2d(fpts, fcode, clip, clipcode, 1, nb, o, t1, t2, 1)
    m = _clip_polygons(clip, clipcode, nbb, na)
    if eps_c > 0.0:
        m = _prune_polygon(clip, clipcode, m, PRUNE_FRACTION * eps_c)
    k = np.int64(0)                    # not a literal (see vec.slots)
    for i in range(m):
        qx, qy = clip[1, i, 0], clip[1, i, 1]
        pa = _lift(fpts, 0, 2, ma, qx, qy, o, t1, t2, n)
        pb = _lift(fpts, 1, 2, mb, qx, qy, o, t1, t2, n)
        k = _keep(region, regcode, k, pa, pb, n, clipcode[1, i, 0], clipcode[1, i, 1], eps_c, ra, rb)
    return k


@njit(**KERNEL)
def _segment_polygon(fpts, fcode, clip, clipcode, region, regcode, seg, poly, n_poly, m_poly, n, o, t1, t2,
                     eps_c, ra, rb):
    """Segment feature of slot ``seg`` clipped by the polygon feature of slot ``poly``."""
    _polygon_2d(fpts, fcode, clip, clipcode, poly, n_poly, o, t1, t2, 2)
    a, b = _fp(fpts, seg, 0), _fp(fpts, seg, 1)
    a2, b2 = _to2d(a, o, t1, t2), _to2d(b, o, t1, t2)
    ok, ta, tb = _segment_in_polygon(clip, n_poly, a2[0], a2[1], b2[0], b2[1])
    if not ok:
        return 0
    k = np.int64(0)
    for t in (ta, tb):
        if t == tb and tb - ta <= 1e-12 and k > 0:
            break
        ps = madd(a, sub(b, a), t)
        qx, qy = a2[0] + t * (b2[0] - a2[0]), a2[1] + t * (b2[1] - a2[1])
        pp = _lift(fpts, poly, 2, m_poly, qx, qy, o, t1, t2, n)
        code_s = fcode[seg, 0] if t == 0.0 else (fcode[seg, 1] if t == 1.0 else EDGE_CODE)
        edge = np.int64(EDGE_CODE)            # a variable, not a literal (see vec.slots)
        if seg == 0:
            k = _keep(region, regcode, k, ps, pp, n, code_s, edge, eps_c, ra, rb)
        else:
            k = _keep(region, regcode, k, pp, ps, n, edge, code_s, eps_c, ra, rb)
    return k


@njit(**KERNEL)
def _segment_segment(fpts, region, regcode, n, o, t1, t2, eps_c, sin_tol, ra, rb):
    """Parallel edges: the overlap of their projections, as up to two point pairs (0 if not parallel)."""
    a0, a1 = _fp(fpts, 0, 0), _fp(fpts, 0, 1)
    b0, b1 = _fp(fpts, 1, 0), _fp(fpts, 1, 1)
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
    k = np.int64(0)
    for s in (lo, hi):
        if s == hi and hi - lo <= 1e-12 and k > 0:
            break
        pa = madd(a0, sub(a1, a0), s)
        qx, qy = p0[0] + s * ex, p0[1] + s * ey
        pb = _lift_segment(qx, qy, q0[0], q0[1], q1[0], q1[1], b0, b1)
        edge = np.int64(EDGE_CODE)
        k = _keep(region, regcode, k, pa, pb, n, edge, edge, eps_c, ra, rb)
    return k


@njit(**KERNEL)
def reduce_region(region, regcode, k):
    """Keep MAX_POINTS of k region points: the deepest, then each time the one farthest from those kept."""
    best = 0
    for i in range(1, k):
        if region[i, 6] < region[best, 6]:
            best = i
    _swap(region, regcode, 0, best)
    for m in range(1, MAX_POINTS):
        far, arg = -1.0, m
        for i in range(m, k):
            dmin = np.inf
            for j in range(m):
                dx = region[i, 0] - region[j, 0]
                dy = region[i, 1] - region[j, 1]
                dz = region[i, 2] - region[j, 2]
                dmin = min(dmin, dx * dx + dy * dy + dz * dz)
            if dmin > far:
                far, arg = dmin, i
        _swap(region, regcode, m, arg)
    return MAX_POINTS


@njit(**KERNEL)
def _swap(region, regcode, i, j):
    for c in range(7):
        region[i, c], region[j, c] = region[j, c], region[i, c]
    for c in range(2):
        regcode[i, c], regcode[j, c] = regcode[j, c], regcode[i, c]


@njit(**KERNEL)
def region_of_features(feat_a, feat_b, n, have_witness, wa, wb, eps_c, cos_tol, ra, rb, clip_ws):
    """Region of two features already in the workspace's ``fpts`` (A's along −n, B's along n; ``feat_a``,
    ``feat_b`` as collision.groups.FEATURE, from ``feature``) touching along unit n (from B towards A).
    Radii ra, rb [m] are added to the core points. ``clip_ws`` as collision.groups.CLIP; its ``region`` and
    ``regcode`` are written. Returns the number of rows written to ``region`` (at least 1: the deepest
    candidate is kept if none is within eps_c; the witnesses wa, wb when ``have_witness``).
    """
    dim_a, na, ma = feat_a
    dim_b, nb, mb = feat_b
    fpts, fcode, clip, clipcode, region, regcode = clip_ws
    region[region.shape[0] - 1, 6] = np.inf
    k = np.int64(0)
    if dim_a > 0 and dim_b > 0:
        t1, t2 = perpendicular(n)
        o = _fp(fpts, 0, 0)
        if dim_a == 2 and dim_b == 2:
            k = _polygon_polygon(fpts, fcode, clip, clipcode, region, regcode, na, nb, ma, mb, n, o, t1, t2,
                                 eps_c, ra, rb)
        elif dim_a == 2:
            k = _segment_polygon(fpts, fcode, clip, clipcode, region, regcode, 1, 0, na, ma, n, o, t1, t2,
                                 eps_c, ra, rb)
        elif dim_b == 2:
            k = _segment_polygon(fpts, fcode, clip, clipcode, region, regcode, 0, 1, nb, mb, n, o, t1, t2,
                                 eps_c, ra, rb)
        else:
            k = _segment_segment(fpts, region, regcode, n, o, t1, t2, eps_c,
                                 np.sqrt(1.0 - cos_tol * cos_tol), ra, rb)
    if k == 0:
        if have_witness or region[region.shape[0] - 1, 6] == np.inf:
            _single(fpts, fcode, region, regcode, dim_a, dim_b, na, nb, n, have_witness, wa, wb, ra, rb)
        else:
            _copy_row(region, regcode, region.shape[0] - 1, 0)
        return 1
    if k > MAX_POINTS:
        k = reduce_region(region, regcode, k)
    return k


@njit(**KERNEL)
def contact_region(geo, ws, n, have_witness, wa, wb, eps_c, cos_tol):
    """Region of the cores in slots 0 (A) and 1 (B) touching along n (unit, from B towards A).

    ``wa``, ``wb`` are closest core points when ``have_witness``; ``cos_tol`` is the feature tolerance
    (FEATURE_COS, or WITNESS_COS with eps_c = −inf to get the closest pair only). Returns the number of
    rows written to ``ws.region`` (see region_of_features).
    """
    slot_a, slot_b = slots()
    feat_a = feature(geo, ws, slot_a, scale(n, -1.0), cos_tol)
    feat_b = feature(geo, ws, slot_b, n, cos_tol)
    return region_of_features(feat_a, feat_b, n, have_witness, wa, wb, eps_c, cos_tol, ws.crad[0], ws.crad[1],
                              (ws.fpts, ws.fcode, ws.clip, ws.clipcode, ws.region, ws.regcode))


@njit(**KERNEL)
def plane_points(count, p0, n, eps_c, ra, fpts, fcode,
                 # outputs
                 region, regcode):
    """Region of A's feature (``count`` points in fpts[0]) against the plane through p0 with unit normal n
    (towards A); ra is A's radius [m]. Every point within eps_c of the plane, paired with its projection
    on it; the deepest point is kept in any case. Returns the number of rows in ``region``."""
    k, deepest, dmin = np.int64(0), np.int64(0), np.inf
    for i in range(count):
        p = _fp(fpts, 0, i)
        h = dot(sub(p, p0), n)
        d = _emit(region, regcode, k, p, madd(p, n, -h), n, fcode[0, i], np.int64(-1), ra, 0.0)
        if d < dmin:
            dmin, deepest = d, i
        if d <= eps_c:
            k += 1
    if k == 0:
        p = _fp(fpts, 0, deepest)
        _emit(region, regcode, np.int64(0), p, madd(p, n, -dot(sub(p, p0), n)), n, fcode[0, deepest],
              np.int64(-1), ra, 0.0)
        k = 1
    if k > MAX_POINTS:
        k = reduce_region(region, regcode, k)
    return k


@njit(**KERNEL)
def plane_region(geo, ws, p0, n, eps_c):
    """Region of the core in slot 0 against the plane through p0 with unit normal n (towards A);
    see plane_points. Returns the number of rows in ``ws.region``."""
    ws.crad[1] = 0.0
    _, count, _ = feature(geo, ws, slots()[0], scale(n, -1.0), FEATURE_COS)
    return plane_points(count, p0, n, eps_c, ws.crad[0], ws.fpts, ws.fcode, ws.region, ws.regcode)
