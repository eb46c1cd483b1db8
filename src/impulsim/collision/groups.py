"""The grouped arguments of the collision kernels: plain tuples of arrays in a fixed order.

The broad-phase kernels take their arrays in a few groups instead of one by one: the detector's shapes,
the collision filter, the grid or the sweep-and-prune memory, and the shapes' world poses and boxes they
write. The contact region of two features takes its two features and its clipping workspace as groups. A
kernel unpacks a group in its first lines (``kind, body, ... = shapes``); unpacking checks the number of
fields when it compiles.

Plain tuples, not named tuples: Numba types a plain tuple of arrays on its fast path (as it does separate
arrays), while a named tuple crosses from Python into compiled code through Python's typing at about 0.3 µs
per array, every call (see :mod:`impulsim.methods.impulse.groups`). The functions below build the groups
from a :class:`~impulsim.collision.detector.Detector`; they are a tuple of attribute reads, so the detector
builds them per call and never holds arrays that may be reallocated.
"""
from __future__ import annotations

SHAPES = ("kind", "body", "local_pos", "local_mat", "params", "local_lo", "local_hi")
"""Fields of ``shapes``: each shape's kind (core.SPHERE, ...), body, pose in its body's frame (position [m],
rotation matrix with the shape axes as columns), parameters [m] and, for point sets, its box in the shape
frame [m]."""

FILTER = ("body_fixed", "group", "mask", "exclude_keys", "matrix", "n_bodies")
"""Fields of ``filt``: the collision filter over bodies: fixed flags (static or kinematic), group and mask
bits, the sorted keys ``a * n_bodies + b`` of excluded pairs, the optional collision matrix (empty when the
groups decide) and the number of bodies."""

GRID = ("small", "big", "bounded", "planes", "inv_cell", "cell", "keys", "order", "tmp_keys", "tmp_order",
        "counts", "ptr", "box")
"""Fields of ``grid``: the uniform grid's layout (the small shapes filed in the grid, the big ones tested
against all, all bounded shapes, the half-spaces, 1 / cell size [1/m]) and its tables (each small shape's
cell and key, the sorted order, sort scratch, bucket counts, neighbour-row pointers, gathered boxes)."""

SWEEP = ("bounded", "planes", "state", "order", "box", "keys", "tmp_keys", "tmp_vals")
"""Fields of ``sweep``: the bounded shapes and half-spaces, and the memory of sweep-and-prune (sap.STATE_*
counters, the sorted order kept from step to step, gathered boxes, sort keys and scratch)."""

BOXES = ("xpos", "xmat", "lo", "hi")
"""Fields of ``boxes`` (written by the broad phase): each shape's world position [m] and rotation matrix
(shape axes as columns), and its world AABB [m] enlarged by the margin."""

FEATURE = ("dim", "count", "normal")
"""Fields of a ``feature`` (a plain tuple built in compiled code, from features.feature or boxes.box_feature):
its dimension (0 point, 1 segment, 2 polygon), number of points in the feature buffer and plane normal."""

CLIP = ("fpts", "fcode", "clip", "clipcode", "region", "regcode")
"""Fields of ``clip``: the contact region's workspace: the two features' points and their codes, the
clipping buffers, and the region rows with their feature codes (written)."""


def shapes_of(det) -> tuple:
    """``shapes`` of detector ``det``."""
    geo = det.geo
    return (geo.kind, geo.body, geo.local_pos, geo.local_mat, geo.params, det.local_lo, det.local_hi)


def filter_of(det) -> tuple:
    """``filt`` of detector ``det``."""
    return (det.body_fixed, det.group, det.mask, det.exclude_keys, det.matrix, det.model.n_bodies)


def grid_of(det) -> tuple:
    """``grid`` of a detector with the grid broad phase."""
    return (det.small, det.big, det.bounded, det.planes, 1.0 / det.cell_size, det.cell, det.keys, det.order,
            det.tmp_keys, det.tmp_order, det.counts, det.ptr, det.box)


def sweep_of(det) -> tuple:
    """``sweep`` of a detector with the sweep-and-prune broad phase."""
    w = det.sap
    return (det.bounded, det.planes, w.state, w.order, w.box, w.keys, w.tmp_keys, w.tmp_vals)


def boxes_of(det) -> tuple:
    """``boxes`` of detector ``det``."""
    return (det.xpos, det.xmat, det.lo, det.hi)
