"""Closed-form narrow phase for pairs of rounded and simple cores, and the general convex fallbacks.

Every function here reads the cores in workspace slots 0 (A) and 1 (B) and returns
``(d, n, wa, wb, have_witness)``: the signed distance d [m] of the shapes (radii included; negative =
penetration depth), the unit normal n pointing from B towards A, and, when ``have_witness``, the closest
points of the two *cores* (world frame; the surface points are wa − r_A n and wb + r_B n).
"""
from __future__ import annotations

import math

import numpy as np

from impulsim.collision.core import CORE_BOX, CORE_ELLIPSOID, minkowski_support
from impulsim.collision.epa import epa
from impulsim.collision.gjk import gjk
from impulsim.collision.region import closest_segments
from impulsim.collision.sat import sat
from impulsim.collision.vec import (KERNEL, add, column, cross, dot, madd, mat_t_vec, mat_vec, norm, normalize,
                                    perpendicular, row, scale, sub)
from impulsim.kernel import njit


@njit(**KERNEL)
def _direction(v, fallback):
    """v / |v|, or ``fallback`` when v is (numerically) zero (coincident centres)."""
    ln = norm(v)
    if ln <= 1e-300:
        return fallback
    return scale(v, 1.0 / ln)


@njit(**KERNEL)
def _closest_on_segment(p, a, b):
    ab = sub(b, a)
    ee = dot(ab, ab)
    t = dot(sub(p, a), ab) / ee if ee > 1e-300 else 0.0
    return madd(a, ab, min(1.0, max(0.0, t)))


@njit(**KERNEL)
def _rounded(ws, wa, wb, fallback):
    """Result for two rounded cores with closest core points wa, wb.

    Where a closest point lies inside a segment, the normal is made exactly perpendicular to it: for tiny
    distances the direction of wa − wb alone is spoiled by rounding, and a capsule's support function has
    a kink exactly there.
    """
    n = _direction(sub(wa, wb), fallback)
    axes = ((0.0, 0.0, 0.0), (0.0, 0.0, 0.0))
    interior = 0
    for slot in range(2):
        if ws.cnv[slot] == 2:
            a, b = row(ws.cverts[slot], 0), row(ws.cverts[slot], 1)
            e = sub(b, a)
            ee = dot(e, e)
            t = dot(sub(wa if slot == 0 else wb, a), e) / ee if ee > 1e-300 else 0.0
            if 1e-12 < t < 1.0 - 1e-12:
                u = scale(e, 1.0 / np.sqrt(ee))
                axes = (u, axes[0])
                interior += 1
                n = _direction(sub(n, scale(u, dot(n, u))), fallback)
    if interior == 2:
        c = cross(axes[0], axes[1])
        if norm(c) > 1e-9:            # both points inside crossing segments: n ⟂ both axes
            c = normalize(c)
            n = c if dot(c, n) >= 0.0 else scale(c, -1.0)
    return dot(sub(wa, wb), n) - ws.crad[0] - ws.crad[1], n, wa, wb, True


@njit(**KERNEL)
def sphere_sphere(ws):
    """Two spheres: d = |c_A − c_B| − r_A − r_B (Bender 4.5)."""
    return _rounded(ws, row(ws.cpos, 0), row(ws.cpos, 1), (0.0, 0.0, 1.0))


@njit(**KERNEL)
def sphere_capsule(ws):
    """Sphere centre against the capsule's segment."""
    c = row(ws.cpos, 0)
    wb = _closest_on_segment(c, row(ws.cverts[1], 0), row(ws.cverts[1], 1))
    t1, _ = perpendicular(column(ws.cmat[1], 2))
    return _rounded(ws, c, wb, t1)


@njit(**KERNEL)
def capsule_capsule(ws):
    """Closest points of the two segments; parallel axes fall back to a perpendicular normal."""
    a0, a1 = row(ws.cverts[0], 0), row(ws.cverts[0], 1)
    b0, b1 = row(ws.cverts[1], 0), row(ws.cverts[1], 1)
    wa, wb = closest_segments(a0, a1, b0, b1)
    t1, _ = perpendicular(column(ws.cmat[1], 2))
    return _rounded(ws, wa, wb, t1)


@njit(**KERNEL)
def sphere_box(ws):
    """Sphere centre against the box: clamp to the box, or (centre inside) the nearest face."""
    c = row(ws.cpos, 0)
    m = ws.cmat[1]
    h = ws.cpar[1]
    p = mat_t_vec(m, sub(c, row(ws.cpos, 1)))
    q = (min(h[0], max(-h[0], p[0])), min(h[1], max(-h[1], p[1])), min(h[2], max(-h[2], p[2])))
    if q[0] != p[0] or q[1] != p[1] or q[2] != p[2]:
        wb = add(row(ws.cpos, 1), mat_vec(m, q))
        return _rounded(ws, c, wb, (0.0, 0.0, 1.0))
    # inside: leave through the face with the smallest depth
    i, depth = 0, h[0] - abs(p[0])
    for j in range(1, 3):
        if h[j] - abs(p[j]) < depth:
            i, depth = j, h[j] - abs(p[j])
    sign = 1.0 if p[i] >= 0.0 else -1.0
    n = scale(column(m, i), sign)
    wb = madd(c, n, depth)
    return -depth - ws.crad[0], n, c, wb, True


@njit(**KERNEL)
def sphere_cylinder(ws):
    """Sphere centre against the solid cylinder, in the cylinder's frame (radial, axial)."""
    c = row(ws.cpos, 0)
    m = ws.cmat[1]
    r, hl = ws.cpar[1, 0], ws.cpar[1, 1]
    p = mat_t_vec(m, sub(c, row(ws.cpos, 1)))
    rho = math.sqrt(p[0] * p[0] + p[1] * p[1])
    u = (p[0] / rho, p[1] / rho) if rho > 1e-300 else (1.0, 0.0)
    if rho <= r and abs(p[2]) <= hl:
        side, cap = r - rho, hl - abs(p[2])
        if side < cap:
            q, n_loc, depth = (r * u[0], r * u[1], p[2]), (u[0], u[1], 0.0), side
        else:
            sz = 1.0 if p[2] >= 0.0 else -1.0
            q, n_loc, depth = (p[0], p[1], sz * hl), (0.0, 0.0, sz), cap
        wb = add(row(ws.cpos, 1), mat_vec(m, q))
        return -depth - ws.crad[0], mat_vec(m, n_loc), c, wb, True
    rq = min(rho, r)
    q = (rq * u[0], rq * u[1], min(hl, max(-hl, p[2])))
    wb = add(row(ws.cpos, 1), mat_vec(m, q))
    return _rounded(ws, c, wb, mat_vec(m, (u[0], u[1], 0.0)))


@njit(**KERNEL)
def polytope_pair(ws, stop):
    """Cores that are points, segments, boxes, hulls or triangles: SAT, then GJK if they are apart.

    With a separation above ``stop`` [m] (shapes certainly farther apart than needed) returns that lower
    bound of d without witnesses.
    """
    radii = ws.crad[0] + ws.crad[1]
    sep, axis, _ = sat(ws, stop + radii)
    if sep - radii > stop:
        return sep - radii, axis, axis, axis, False
    if sep <= 0.0:
        return sep - radii, axis, axis, axis, False
    dist, wa, wb, _, n = gjk(ws)
    if dist <= 0.0:
        return sep - radii, axis, axis, axis, False
    return dist - radii, n, wa, wb, True


POLISH_STEPS = 60
"""Most descent steps of :func:`polish_depth` (Barzilai–Borwein steps converge superlinearly on a smooth h)."""


@njit(**KERNEL)
def _depth_along(ws, m):
    """h(m) = (a − b)·m with a = support_A(m), b = support_B(−m): how deep the cores overlap along the
    unit m, and a, b."""
    w, a, b = minkowski_support(ws, m)
    return dot(w, m), w, a, b


@njit(**KERNEL)
def _face_normals_of_polytopes(ws, h, m, a, b):
    """Where a polytope core meets a smooth one, h has a kink at the polytope's face normals and the
    minimum often sits on one (a face touching the ellipsoid), which descent only approaches: try them
    (m = f for A's faces, m = −f for B's; box faces both ways), keep the lowest h."""
    for slot in range(2):
        if ws.ctype[slot] == CORE_ELLIPSOID:
            continue
        sign = 1.0 if slot == 0 else -1.0
        both = ws.ctype[slot] == CORE_BOX
        for i in range(ws.cnf[slot]):
            for flip in range(2 if both else 1):
                f = scale(row(ws.cfn[slot], i), sign if flip == 0 else -sign)
                if dot(f, m) < 0.9:
                    continue
                h1, _, a1, b1 = _depth_along(ws, f)
                if h1 < h:
                    h, m, a, b = h1, f, a1, b1
    return h, m, a, b


@njit(**KERNEL)
def _top_two(ws, slot, d):
    """Indices of the two vertices of the core in ``slot`` farthest along d, and their gap along d."""
    i1, i2, h1, h2 = -1, -1, -np.inf, -np.inf
    for i in range(ws.cnv[slot]):
        v = dot(row(ws.cverts[slot], i), d)
        if v > h1:
            i2, h2 = i1, h1
            i1, h1 = i, v
        elif v > h2:
            i2, h2 = i, v
    return i1, i2, h1 - h2


@njit(**KERNEL)
def _along_edge(ws, h, m, a, b):
    """Where the minimum of h sits on a polytope edge (m perpendicular to it, two vertices tie), descent
    zigzags across the kink. If the polytope's two top vertices along m nearly tie, minimize h on the great
    circle perpendicular to their edge instead (a smooth 1-D problem there: both vertices give the same
    derivative along it), by secant steps on dh/dθ. Kept only if h drops."""
    for slot in range(2):
        if ws.ctype[slot] == CORE_ELLIPSOID or ws.cnv[slot] < 2:
            continue
        d = m if slot == 0 else scale(m, -1.0)
        i1, i2, gap = _top_two(ws, slot, d)
        e = sub(row(ws.cverts[slot], i2), row(ws.cverts[slot], i1))
        le = norm(e)
        if i2 < 0 or le <= 0.0 or gap > 1e-3 * le:
            continue
        e = scale(e, 1.0 / le)
        m0 = normalize(madd(m, e, -dot(m, e)))
        t = cross(e, m0)
        th0, th1 = 0.0, 1e-6
        h0, w0, a0, b0 = _depth_along(ws, m0)
        f0 = dot(w0, t)
        best_h, best_m, best_a, best_b = h0, m0, a0, b0
        for _ in range(40):
            mt = madd(scale(m0, np.cos(th1)), t, np.sin(th1))
            tt = madd(scale(m0, -np.sin(th1)), t, np.cos(th1))
            h1, w1, a1, b1 = _depth_along(ws, mt)
            f1 = dot(w1, tt)
            if h1 < best_h:
                best_h, best_m, best_a, best_b = h1, mt, a1, b1
            if f1 == f0 or abs(f1) <= 1e-15 * norm(w1):
                break
            th0, th1, f0 = th1, th1 - f1 * (th1 - th0) / (f1 - f0), f1
        if best_h < h:
            h, m, a, b = best_h, best_m, best_a, best_b
    return h, m, a, b


@njit(**KERNEL)
def polish_depth(ws, m):
    """Refine the normal m of GJK or EPA when a core is smooth (an ellipsoid): (h, m, a, b).

    Both work on polytopes inscribed in A − B, so on a surface curved in two directions they stop with the
    normal off by up to ~1e-4 and witnesses that are convex combinations of support points, i.e. inside
    the surface. The minimum of h over unit m is the penetration depth (cores overlapping) or minus the
    distance (apart); this descends on it along the tangential part of h's gradient w − (w·m) m
    (w = a − b) with Barzilai–Borwein steps, accepting a step only if h drops (or, where h is flat to
    rounding, if the gradient shrinks), then tries the kinks a polytope side puts into h. The smooth
    core's witness is its exact support point.
    """
    h, w, a, b = _depth_along(ws, m)
    g = madd(w, m, -dot(w, m))
    step = 1.0 / max(norm(w), 1e-12)
    for _ in range(POLISH_STEPS):
        gn = norm(g)
        if gn <= 1e-14 * max(norm(w), 1e-12):
            break
        moved = False
        for _ in range(30):                       # backtrack until h drops
            m1 = normalize(madd(m, g, -step))
            h1, w1, a1, b1 = _depth_along(ws, m1)
            g1 = madd(w1, m1, -dot(w1, m1))
            # near the minimum h changes by ~|g|² / curvature, below rounding: then a smaller gradient counts
            flat = h1 - h <= 4e-16 * (abs(h) + norm(w))
            if h1 < h or (flat and norm(g1) < gn):
                moved = True
                break
            step *= 0.5
        if not moved:
            break
        s_, y_ = sub(m1, m), sub(g1, g)
        sy = dot(s_, y_)
        step = dot(s_, s_) / sy if sy > 0.0 else 2.0 * step
        m, h, w, a, b, g = m1, h1, w1, a1, b1, g1
    h, m, a, b = _along_edge(ws, h, m, a, b)
    h, m, a, b = _face_normals_of_polytopes(ws, h, m, a, b)
    # the smooth core's support point is unique; a polytope's need not be (m on a face or edge normal),
    # so its witness is the smooth one's moved by h along m
    if ws.ctype[0] != CORE_ELLIPSOID:
        a = madd(b, m, h)
    elif ws.ctype[1] != CORE_ELLIPSOID:
        b = madd(a, m, -h)
    return h, m, a, b


@njit(**KERNEL)
def convex_pair(ws):
    """Any two convex cores (used when one is curved): GJK, and EPA when the cores intersect (its result
    polished where a core is an ellipsoid)."""
    radii = ws.crad[0] + ws.crad[1]
    smooth = ws.ctype[0] == CORE_ELLIPSOID or ws.ctype[1] == CORE_ELLIPSOID
    dist, wa, wb, n_simplex, n = gjk(ws)
    if dist > 0.0:
        if smooth:
            # apart, the distance is −min h as well (GJK's witnesses lie on a polytope inside the surface)
            h, m, wa, wb = polish_depth(ws, scale(n, -1.0))
            return -h - radii, scale(m, -1.0), wa, wb, True
        return dist - radii, n, wa, wb, True
    depth, m, wa, wb = epa(ws, n_simplex)
    if smooth:
        depth, m, wa, wb = polish_depth(ws, m)
    return -depth - radii, scale(m, -1.0), wa, wb, True


@njit(**KERNEL)
def bounding_gap(ws, reach_a, reach_b):
    """Distance between bounding spheres of the cores (radius ``reach`` about each centre) [m]."""
    return norm(sub(row(ws.cpos, 0), row(ws.cpos, 1))) - reach_a - reach_b - ws.crad[0] - ws.crad[1]
