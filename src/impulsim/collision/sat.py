"""Separating-axis test between two polytope-like cores (points, segments, boxes, hulls, triangles).

For convex polytopes the Minkowski difference's faces are normal to a face of A, a face of B, or the
cross product of an edge of A and an edge of B, so the largest separation over these axes is the exact
penetration depth when the cores overlap (and a lower bound of the distance when they do not).
"""
from __future__ import annotations

import numpy as np

from impulsim.collision.core import project
from impulsim.collision.vec import KERNEL, cross, norm, row, scale, slots
from impulsim.kernel import njit

EDGE_BIAS = 1e-9
"""An edge-edge axis replaces the best face axis only if it separates more by this margin [m]; faces
give stable contact polygons, and the depth changes by at most this much."""


@njit(**KERNEL)
def _separation(ws, axis):
    """(separation, axis oriented from B to A) along a unit axis; separation < 0 is an overlap."""
    slot_a, slot_b = slots()
    lo_a, hi_a = project(ws, slot_a, axis)
    lo_b, hi_b = project(ws, slot_b, axis)
    above = lo_a - hi_b        # A on the + side
    below = lo_b - hi_a        # A on the − side
    if above >= below:
        return above, axis
    return below, scale(axis, -1.0)


@njit(**KERNEL)
def sat(ws, stop_above):
    """Largest separation over the candidate axes and its axis (unit, pointing from B towards A).

    Returns early as soon as an axis separates by more than ``stop_above`` [m]. The third value is 0 for
    a face axis of A, 1 for a face axis of B and 2 for an edge–edge axis.
    """
    best, best_axis, best_kind = -np.inf, (0.0, 0.0, 1.0), 0
    for slot in range(2):
        for f in range(ws.cnf[slot]):
            s, ax = _separation(ws, row(ws.cfn[slot], f))
            if s > best:
                best, best_axis, best_kind = s, ax, slot
                if best > stop_above:
                    return best, best_axis, best_kind
    for i in range(ws.cne[0]):
        ea = row(ws.cedge[0], i)
        for j in range(ws.cne[1]):
            c = cross(ea, row(ws.cedge[1], j))
            ln = norm(c)
            if ln < 1e-9:
                continue
            s, ax = _separation(ws, scale(c, 1.0 / ln))
            if s > best + EDGE_BIAS:
                best, best_axis, best_kind = s, ax, 2
                if best > stop_above:
                    return best, best_axis, best_kind
    return best, best_axis, best_kind
