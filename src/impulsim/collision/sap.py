"""Broad phase by sweep-and-prune (Baraff 1992, Cohen et al. 1995: I-COLLIDE; Bender 2.2; Holck's broad phase).

The boxes are kept sorted by their lower bound along one axis, the one along which the box centres are
spread the widest (Ericson, Real-Time Collision Detection 7.5.2). The sorted order persists from step to
step: bodies move little in one step, so the order of the last step is nearly sorted and an insertion
sort restores it in O(n + swaps) (temporal coherence). A sweep then tests each box against the boxes that
start before it ends on that axis, with the two other axes compared on the way.

Why one axis and not the three lists of I-COLLIDE: the three-list variant updates a persistent pair set
on every endpoint swap (a hash table of pairs with insertions and deletions, read in random order), and
its output order depends on the history of the swaps. Here the pairs come out in the sorted order of the
current poses along the current axis, nothing but the box order and the axis persist, and the sweep
reads memory in sequence. Both cost
more per body as a scene of fixed density grows: the boxes overlapping a box's interval on one axis
(sweep) and the endpoints a moving box passes on one axis (swaps) are O(n^(2/3)) in a 3-D scatter.

When the order is far from sorted (first step, an axis switch, bodies teleported), insertion sort would
cost up to O(n²): it stops after about n·log2(n) moves and a merge sort finishes the job.
"""
from __future__ import annotations

import numpy as np

from impulsim.collision.broadphase import _admit, halfspace_pairs, shape_boxes, shape_poses
from impulsim.collision.vec import KERNEL
from impulsim.kernel import njit

AXIS_SWITCH = 1.5
"""The sweep axis changes only when another axis' variance of box centres exceeds the current one's by
this factor: a switch costs a full sort, so two axes of similar spread (a heap on the floor) must not
make it flip back and forth."""

STATE_AXIS, STATE_MOVES, STATE_FULL_SORTS = 0, 1, 2
"""Slots of the persistent ``state`` array: sweep axis (−1 before the first step), moves of the last
insertion sort (−1 if a full sort ran instead), number of full sorts so far."""


@njit(**KERNEL)
def _centre_variance(lo, hi, shapes, a):
    """n times the variance [m²] of the box centres of ``shapes`` along axis ``a`` (two passes: the
    coordinates may be far from the origin, where one-pass sums of squares cancel)."""
    n = shapes.shape[0]
    mean = 0.0
    for i in range(n):
        mean += 0.5 * (lo[shapes[i], a] + hi[shapes[i], a])
    mean /= n
    var = 0.0
    for i in range(n):
        d = 0.5 * (lo[shapes[i], a] + hi[shapes[i], a]) - mean
        var += d * d
    return var


@njit(**KERNEL)
def spread_axis(lo, hi, shapes, current):
    """Axis (0, 1, 2) along which the centres of the boxes of ``shapes`` vary the most; the ``current``
    axis (−1: none yet) is kept unless another's variance is AXIS_SWITCH times larger."""
    if shapes.shape[0] == 0:
        return max(current, 0)
    best, best_var, current_var = 0, -1.0, 0.0
    for a in range(3):
        var = _centre_variance(lo, hi, shapes, a)
        if var > best_var:
            best, best_var = a, var
        if a == current:
            current_var = var
    if current >= 0 and best_var <= AXIS_SWITCH * current_var:
        return current
    return best


@njit(**KERNEL)
def gather_boxes(lo, hi, order, axis,
                 # outputs
                 box):
    """Boxes of the shapes ``order`` as rows (lo, hi) along ``axis``, then the next axis, then the last."""
    for p in range(order.shape[0]):
        s = order[p]
        for k in range(3):
            a = (axis + k) % 3
            box[p, 2 * k], box[p, 2 * k + 1] = lo[s, a], hi[s, a]


@njit(**KERNEL)
def insertion_sort(box, order, budget):
    """Sort the rows of ``box`` (and ``order`` with them) by column 0, stably, moving at most ``budget``
    rows. Returns the number of moves, or −1 if it stopped at the budget (rows and order still agree)."""
    moves = 0
    for i in range(1, order.shape[0]):
        key = box[i, 0]
        if box[i - 1, 0] <= key:
            continue
        row = (box[i, 0], box[i, 1], box[i, 2], box[i, 3], box[i, 4], box[i, 5])
        s = order[i]
        j = i - 1
        while j >= 0 and box[j, 0] > key:
            for c in range(6):
                box[j + 1, c] = box[j, c]
            order[j + 1] = order[j]
            j -= 1
        for c in range(6):
            box[j + 1, c] = row[c]
        order[j + 1] = s
        moves += i - 1 - j
        if moves > budget:
            return -1
    return moves


@njit(**KERNEL)
def _merge_pass(src_keys, src_vals, width,
                # outputs
                dst_keys, dst_vals):
    """Merge the sorted runs of ``width`` in src into runs of 2·width in dst (left first on ties: stable)."""
    n = src_keys.shape[0]
    for start in range(0, n, 2 * width):
        mid, end = min(start + width, n), min(start + 2 * width, n)
        i, j = start, mid
        for k in range(start, end):
            if i < mid and (j >= end or src_keys[i] <= src_keys[j]):
                dst_keys[k], dst_vals[k] = src_keys[i], src_vals[i]
                i += 1
            else:
                dst_keys[k], dst_vals[k] = src_keys[j], src_vals[j]
                j += 1


@njit(**KERNEL)
def merge_sort(keys, vals, tmp_keys, tmp_vals):
    """Sort ``keys`` ascending in place, stably, ``vals`` with them (bottom-up merge sort, O(n log n),
    scratch ``tmp_*`` of the same length)."""
    n = keys.shape[0]
    width = 1
    in_tmp = False
    while width < n:
        if in_tmp:
            _merge_pass(tmp_keys, tmp_vals, width, keys, vals)
        else:
            _merge_pass(keys, vals, width, tmp_keys, tmp_vals)
        in_tmp = not in_tmp
        width *= 2
    if in_tmp:
        for k in range(n):
            keys[k], vals[k] = tmp_keys[k], tmp_vals[k]


@njit(**KERNEL)
def sort_boxes(lo, hi, axis, state,
               # outputs (order is also an input: the last step's order)
               order, box, keys, tmp_keys, tmp_vals):
    """Bring ``order`` (shape indices) into ascending order of the boxes' lower bound along ``axis`` and
    fill ``box`` in that order: insertion sort from the last step's order, a merge sort if that order was
    for another axis or the insertion sort passes n·log2(n) moves."""
    n = order.shape[0]
    gather_boxes(lo, hi, order, axis, box)
    moves = -1
    if state[STATE_AXIS] == axis:
        budget = n * (1 + int(np.log2(max(n, 1))))
        moves = insertion_sort(box, order, budget)
    state[STATE_MOVES] = moves
    if moves >= 0:
        return
    for p in range(n):
        keys[p] = box[p, 0]
    merge_sort(keys, order, tmp_keys, tmp_vals)
    gather_boxes(lo, hi, order, axis, box)
    state[STATE_AXIS] = axis
    state[STATE_FULL_SORTS] += 1


@njit(**KERNEL)
def _apart_across(box, p, q):
    """True if rows p and q of ``box`` do not overlap on the two axes after the sweep axis (columns 2–5);
    one branch over all four comparisons, as in the grid sweep."""
    return (box[p, 2] > box[q, 3]) | (box[q, 2] > box[p, 3]) | (box[p, 4] > box[q, 5]) | (box[q, 4] > box[p, 5])


@njit(**KERNEL)
def sweep(box, order, shape_body, filt, count,
          # outputs
          pairs):
    """Append the overlapping, admitted pairs of the sorted boxes: each box against the boxes after it
    that start before it ends along the sweep axis. Returns the new count (rows past len(pairs) are only
    counted)."""
    n = order.shape[0]
    for p in range(n):
        end = box[p, 1]
        q = p + 1
        while q < n and box[q, 0] <= end:
            if not _apart_across(box, p, q):
                count = _admit(order[p], order[q], shape_body, filt, count, pairs)
            q += 1
    return count


@njit(**KERNEL)
def sap_broad_phase(shapes, body_pos, body_quat, margin, filt, sweep_state, count,
                    # outputs
                    boxes, pairs):
    """One sweep-and-prune step: shape poses, AABBs (enlarged by ``margin`` [m]), the sort of the bounded
    shapes kept in the sweep's order from the last step (its ``state`` as STATE_*), the sweep, and the
    bounded shapes against the half-spaces. ``shapes``, ``filt``, ``sweep_state`` and ``boxes`` as
    collision.groups (SHAPES, FILTER, SWEEP, BOXES); ``body_pos``, ``body_quat`` the state's body poses.
    ``count`` is the number of rows of ``pairs`` already used (0). Returns the number of pairs (may exceed
    len(pairs): grow the buffer and call again)."""
    kind, body, local_pos, local_mat, params, local_lo, local_hi = shapes
    bounded, planes, state, order, box, keys, tmp_keys, tmp_vals = sweep_state
    xpos, xmat, lo, hi = boxes
    shape_poses(kind, body, local_pos, local_mat, body_pos, body_quat, xpos, xmat)
    shape_boxes(kind, params, xpos, xmat, local_lo, local_hi, margin, lo, hi)
    axis = spread_axis(lo, hi, bounded, state[STATE_AXIS])
    sort_boxes(lo, hi, axis, state, order, box, keys, tmp_keys, tmp_vals)
    count = sweep(box, order, body, filt, count, pairs)
    return halfspace_pairs(planes, bounded, body, xpos, xmat, lo, hi, margin, filt, count, pairs)


class SweepState:
    """Memory of sweep-and-prune for a fixed set of bounded shapes: the sorted order that persists from
    step to step, its axis and counters (``state``), and scratch rows."""

    def __init__(self, bounded: np.ndarray):
        n = len(bounded)
        self.order = np.array(bounded, np.int64)
        self.state = np.array([-1, -1, 0], np.int64)
        self.box = np.zeros((n, 6))
        self.keys, self.tmp_keys = np.zeros(n), np.zeros(n)
        self.tmp_vals = np.zeros(n, np.int64)

    @property
    def axis(self) -> int:
        """Current sweep axis (0 = x, 1 = y, 2 = z; −1 before the first step)."""
        return int(self.state[STATE_AXIS])

    @property
    def last_moves(self) -> int:
        """Rows moved by the last insertion sort (−1 if a full sort ran instead)."""
        return int(self.state[STATE_MOVES])

    @property
    def full_sorts(self) -> int:
        """Full sorts so far (first step, axis switches, orders too far from sorted)."""
        return int(self.state[STATE_FULL_SORTS])


__all__ = ["AXIS_SWITCH", "STATE_AXIS", "STATE_MOVES", "STATE_FULL_SORTS", "spread_axis", "gather_boxes",
           "insertion_sort", "merge_sort", "sort_boxes", "sweep", "sap_broad_phase", "SweepState"]
