"""Contact features: the face, edge or vertex by which a core touches along a direction.

``feature(geo, ws, slot, d)`` writes the feature of the core in ``slot`` that supports direction ``d``
(outward, towards the other shape) into ``ws.fpts[slot]`` as a polygon (dim 2, counter-clockwise seen
from outside), a segment (dim 1) or a point (dim 0). A face counts when its normal is within
FEATURE_COS of ``d``; an edge when it is perpendicular to ``d`` within FEATURE_SIN. Feature ids in
``ws.fcode`` are stable vertex ids (box corner bits, hull vertex index, cylinder rim index), for warm
starting.
"""
from __future__ import annotations

import math

import numpy as np

from impulsim.collision.core import (CORE_BOX, CORE_CYLINDER, CORE_ELLIPSOID, CORE_HULL, CORE_POINT,
                                     CORE_SEGMENT, CORE_TRIANGLE, CYL_CAP_POINTS, guarded, support)
from impulsim.collision.vec import KERNEL, add, column, dot, mat_t_vec, mat_vec, row, scale, slots, store
from impulsim.kernel import njit

FEATURE_COS = 0.99
"""Faces whose normal is within acos(0.99) ≈ 8.1° of the contact normal are clipped as polygons; the
clipped points are then kept only if they are within eps_c, so a wide angle adds candidates, not error."""
FEATURE_SIN = math.sqrt(1.0 - FEATURE_COS ** 2)
WITNESS_COS = 1.0 - 1e-12
"""Tolerance for exact features, when only the closest pair of points is wanted: then a face counts only
if it is parallel to the normal up to rounding, so the points found are the true witnesses."""


@njit(**KERNEL)
def _put(ws, slot, i, p, code):
    store(ws.fpts[slot], i, p)
    ws.fcode[slot, i] = code


@njit(**KERNEL)
def _box_corner(c, ax, h, signs):
    """World corner of a box (centre c, axes ax, half sizes h) with local signs (±1, ±1, ±1), and its
    id (bit j set: + on axis j)."""
    p = c
    code = 0
    for j in range(3):
        p = add(p, scale(ax[j], signs[j] * h[j]))
        if signs[j] > 0:
            code |= 1 << j
    return p, code


@njit(**KERNEL)
def _face_signs(i, si, a, b):
    """Signs with si on axis i, a on axis (i+1)%3 and b on axis (i+2)%3."""
    if i == 0:
        return si, a, b
    if i == 1:
        return b, si, a
    return a, b, si


@njit(**KERNEL)
def _replace(t, e, value):
    """Tuple t with entry e replaced by value."""
    if e == 0:
        return value, t[1], t[2]
    if e == 1:
        return t[0], value, t[2]
    return t[0], t[1], value


@njit(**KERNEL)
def _put_flat(fpts, fcode, slot, i, p, code):
    fpts[slot, i, 0], fpts[slot, i, 1], fpts[slot, i, 2] = p[0], p[1], p[2]
    fcode[slot, i] = code


@njit(**KERNEL)
def box_feature(c, ax, h, d, cos_tol, fpts, fcode, slot):
    """Feature of a box (centre c [m], unit axes ax = 3 tuples, half sizes h [m], world) supporting unit
    direction d, into fpts[slot] / fcode[slot]: (dim, n_points, plane normal), as ``feature``."""
    dl = (dot(ax[0], d), dot(ax[1], d), dot(ax[2], d))
    sg = (1.0 if dl[0] >= 0 else -1.0, 1.0 if dl[1] >= 0 else -1.0, 1.0 if dl[2] >= 0 else -1.0)
    i = np.int64(0)                   # not a literal: one compiled _face_signs (see vec.slots)
    for j in range(1, 3):
        if abs(dl[j]) > abs(dl[i]):
            i = j
    if abs(dl[i]) >= cos_tol:
        order = ((-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0))
        for q in range(4):
            o = order[q] if sg[i] > 0 else order[3 - q]
            p, code = _box_corner(c, ax, h, _face_signs(i, sg[i], o[0], o[1]))
            _put_flat(fpts, fcode, slot, q, p, code)
        return 2, 4, scale(ax[i], sg[i])
    n_flat, e = 0, np.int64(0)
    for j in range(3):
        if abs(dl[j]) <= math.sqrt(1.0 - cos_tol * cos_tol):
            n_flat += 1
            e = j
    if n_flat == 1:
        for q in range(2):
            p, code = _box_corner(c, ax, h, _replace(sg, e, -1.0 if q == 0 else 1.0))
            _put_flat(fpts, fcode, slot, q, p, code)
        return 1, 2, d
    p, code = _box_corner(c, ax, h, sg)
    _put_flat(fpts, fcode, slot, np.int64(0), p, code)
    return 0, 1, d


@njit(**KERNEL)
def _box_feature(ws, slot, d, cos_tol):
    m = ws.cmat[slot]
    ax = (column(m, 0), column(m, 1), column(m, 2))
    return box_feature(row(ws.cpos, slot), ax, row(ws.cpar, slot), d, cos_tol, ws.fpts, ws.fcode, slot)


@njit(**KERNEL)
def _cylinder_feature(ws, slot, d, cos_tol):
    m = ws.cmat[slot]
    c = row(ws.cpos, slot)
    r, hl = ws.cpar[slot, 0], ws.cpar[slot, 1]
    dl = mat_t_vec(m, d)
    if abs(dl[2]) >= cos_tol:
        z = hl if dl[2] > 0 else -hl
        for q in range(CYL_CAP_POINTS):
            k = q if dl[2] > 0 else CYL_CAP_POINTS - 1 - q
            ang = 2.0 * np.pi * k / CYL_CAP_POINTS
            _put(ws, slot, q, add(c, mat_vec(m, (r * np.cos(ang), r * np.sin(ang), z))), k)
        return 2, CYL_CAP_POINTS, scale(column(m, 2), 1.0 if dl[2] > 0 else -1.0)
    rho = math.sqrt(dl[0] * dl[0] + dl[1] * dl[1])
    u = (dl[0] / rho, dl[1] / rho)
    if abs(dl[2]) <= math.sqrt(1.0 - cos_tol * cos_tol):
        for q in range(2):
            z = -hl if q == 0 else hl
            _put(ws, slot, q, add(c, mat_vec(m, (r * u[0], r * u[1], z))), CYL_CAP_POINTS + q)
        return 1, 2, d
    _put(ws, slot, 0, support(ws, slot, d), CYL_CAP_POINTS + 2)
    return 0, 1, d


@njit(**KERNEL)
def _support_index(ws, slot, d):
    best, ib = -np.inf, 0
    for i in range(ws.cnv[slot]):
        h = dot(row(ws.cverts[slot], i), d)
        if h > best:
            best, ib = h, i
    return ib


@njit(**KERNEL)
def _hull_feature(geo, ws, slot, d, cos_tol):
    s = ws.cshape[slot]
    fb, best = 0, -np.inf
    for f in range(ws.cnf[slot]):
        h = dot(row(ws.cfn[slot], f), d)
        if h > best:
            best, fb = h, f
    if best >= cos_tol:
        g = geo.face_range[s] + fb
        k = 0
        for q in range(geo.face_start[g], geo.face_start[g + 1]):
            v = geo.face_verts[q]
            _put(ws, slot, k, row(ws.cverts[slot], v), v)
            k += 1
        return 2, k, row(ws.cfn[slot], fb)
    v = _support_index(ws, slot, d)
    e_best, flat = -1, math.sqrt(1.0 - cos_tol * cos_tol)
    for e in range(geo.edge_range[s], geo.edge_range[s + 1]):
        if geo.edges[e, 0] == v or geo.edges[e, 1] == v:
            c = abs(dot(row(ws.cedge[slot], e - geo.edge_range[s]), d))
            if c <= flat:
                flat, e_best = c, e
    if e_best >= 0:
        for q in range(2):
            w = geo.edges[e_best, q]
            _put(ws, slot, q, row(ws.cverts[slot], w), w)
        return 1, 2, d
    _put(ws, slot, 0, row(ws.cverts[slot], v), v)
    return 0, 1, d


@njit(**KERNEL)
def _triangle_feature(ws, slot, d, cos_tol):
    n = row(ws.cfn[slot], 0)
    dn = dot(n, d)
    if abs(dn) >= cos_tol:
        for q in range(3):
            k = q if dn > 0 else 2 - q
            _put(ws, slot, q, row(ws.cverts[slot], k), k)
        return 2, 3, scale(n, 1.0 if dn > 0 else -1.0)
    e_best, top = -1, -np.inf
    for e in range(3):
        if abs(dot(row(ws.cedge[slot], e), d)) <= math.sqrt(1.0 - cos_tol * cos_tol):
            h = min(dot(row(ws.cverts[slot], e), d), dot(row(ws.cverts[slot], (e + 1) % 3), d))
            if h > top:
                top, e_best = h, e
    if e_best >= 0:
        for q in range(2):
            k = (e_best + q) % 3
            _put(ws, slot, q, row(ws.cverts[slot], k), k)
        return 1, 2, d
    v = _support_index(ws, slot, d)
    _put(ws, slot, 0, row(ws.cverts[slot], v), v)
    return 0, 1, d


@njit(**KERNEL)
def _no_feature(ws, slot, d, cos_tol):
    """The types of a feature's result (for a core whose code is not compiled, see core.guarded)."""
    return 0, 1, d


@njit(**KERNEL)
def _no_hull_feature(geo, ws, slot, d, cos_tol):
    return 0, 1, d


# compiled only for workspaces with all_kinds (a model with cylinders, ellipsoids, hulls or meshes)
_cylinder_feature_of = guarded(_cylinder_feature, _no_feature)
_hull_feature_of = guarded(_hull_feature, _no_hull_feature)
_triangle_feature_of = guarded(_triangle_feature, _no_feature)


@njit(**KERNEL)
def feature(geo, ws, slot, d, cos_tol):
    """Feature of the core in ``slot`` supporting unit direction ``d``: (dim, n_points, plane normal).

    Faces within ``cos_tol`` of ``d`` count (FEATURE_COS for contact regions, WITNESS_COS for exact
    closest points); edges perpendicular to ``d`` within the matching sine.
    """
    t = ws.ctype[slot]
    if t == CORE_BOX:
        return _box_feature(ws, slot, d, cos_tol)
    if t == CORE_CYLINDER:
        return _cylinder_feature_of(ws, ws, slot, d, cos_tol)
    if t == CORE_HULL:
        return _hull_feature_of(ws, geo, ws, slot, d, cos_tol)
    if t == CORE_TRIANGLE:
        return _triangle_feature_of(ws, ws, slot, d, cos_tol)
    zero, one = slots()               # point indices and ids as int64: one compiled _put
    if t == CORE_ELLIPSOID:
        # strictly convex: a single point supports every direction (id 0: the touching point moves)
        _put(ws, slot, zero, support(ws, slot, d), zero)
        return 0, 1, d
    if t == CORE_SEGMENT:
        a, b = row(ws.cverts[slot], 0), row(ws.cverts[slot], 1)
        axis = column(ws.cmat[slot], 2)
        if abs(dot(axis, d)) <= math.sqrt(1.0 - cos_tol * cos_tol):
            _put(ws, slot, zero, a, zero)
            _put(ws, slot, one, b, one)
            return 1, 2, d
        top = one if dot(axis, d) > 0 else zero
        _put(ws, slot, zero, b if top else a, top)
        return 0, 1, d
    _put(ws, slot, zero, row(ws.cpos, slot), zero)
    return 0, 1, d
