"""Broad phase: shape poses, world AABBs, the collision filter and sweep-and-prune.

Sweep-and-prune keeps the shapes sorted by their boxes' lower bound on one axis from step to step and
restores the order with insertion sort, which costs O(n + swaps): with temporal coherence the swaps are
few, so a step is expected linear in the number of shapes (Bender 2.2; Cohen et al., I-Collide). The
sweep then tests each box only against the boxes that start before it ends on that axis. Half-spaces
have unbounded boxes and are tested against every box directly.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from impulsim.collision.core import BOX, CAPSULE, CONVEX, CYLINDER, HALFSPACE, MESH, SPHERE
from impulsim.collision.vec import dot, row


@njit(cache=True)
def shape_poses(geo, body_pos, body_quat,
                # outputs
                xpos, xmat):
    """World pose of every shape frame: position [m] and rotation matrix (shape axes as columns)."""
    for s in range(geo.kind.shape[0]):
        b = geo.body[s]
        w, x, y, z = body_quat[b, 0], body_quat[b, 1], body_quat[b, 2], body_quat[b, 3]
        r = ((1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)),
             (2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)),
             (2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)))
        lp = geo.local_pos[s]
        lm = geo.local_mat[s]
        for i in range(3):
            ri = r[i]
            xpos[s, i] = body_pos[b, i] + ri[0] * lp[0] + ri[1] * lp[1] + ri[2] * lp[2]
            for j in range(3):
                xmat[s, i, j] = ri[0] * lm[0, j] + ri[1] * lm[1, j] + ri[2] * lm[2, j]

@njit(cache=True)
def shape_boxes(geo, xpos, xmat, local_lo, local_hi, margin,
                # outputs
                lo, hi):
    """World AABB of every shape, enlarged by ``margin`` [m] on each side (half-spaces: unbounded).

    Hulls and meshes use their box in the shape frame (``local_lo``/``local_hi``), carried to the world
    as the box enclosing the rotated box.
    """
    for s in range(geo.kind.shape[0]):
        k = geo.kind[s]
        m = xmat[s]
        p = geo.params[s]
        for i in range(3):
            c = xpos[s, i]
            if k == SPHERE:
                ext = p[0]
            elif k == BOX:
                ext = abs(m[i, 0]) * p[0] + abs(m[i, 1]) * p[1] + abs(m[i, 2]) * p[2]
            elif k == CAPSULE:
                ext = abs(m[i, 2]) * p[1] + p[0]
            elif k == CYLINDER:
                a = m[i, 2]
                ext = abs(a) * p[1] + p[0] * np.sqrt(max(0.0, 1.0 - a * a))
            elif k == HALFSPACE:
                lo[s, i], hi[s, i] = -np.inf, np.inf
                continue
            else:
                ext = 0.0
                for j in range(3):
                    cj = 0.5 * (local_lo[s, j] + local_hi[s, j])
                    c += m[i, j] * cj
                    ext += abs(m[i, j]) * 0.5 * (local_hi[s, j] - local_lo[s, j])
            lo[s, i] = c - ext - margin
            hi[s, i] = c + ext + margin


@njit(cache=True)
def may_collide(ba, bb, body_fixed, group, mask, exclude_keys, matrix, n_bodies):
    """The collision filter for two bodies: never the same body nor two fixed (static/kinematic) bodies;
    then the user collision matrix if one is given, else groups/masks and the excluded pairs."""
    if ba == bb or (body_fixed[ba] and body_fixed[bb]):
        return False
    if matrix.shape[0] > 0:
        return matrix[ba, bb] != 0
    if (group[ba] & mask[bb]) == 0 or (group[bb] & mask[ba]) == 0:
        return False
    key = min(ba, bb) * n_bodies + max(ba, bb)
    i = np.searchsorted(exclude_keys, key)
    return not (i < exclude_keys.shape[0] and exclude_keys[i] == key)


@njit(cache=True)
def insertion_sort(keys, axis, order):
    """Sort ``order`` (indices into keys) by keys[., axis] in place; returns the number of moves."""
    moves = 0
    for i in range(1, order.shape[0]):
        s = order[i]
        v = keys[s, axis]
        j = i - 1
        while j >= 0 and keys[order[j], axis] > v:
            order[j + 1] = order[j]
            j -= 1
            moves += 1
        order[j + 1] = s
    return moves


@njit(cache=True)
def sweep(lo, hi, order, axis, shape_body, body_fixed, group, mask, exclude_keys, matrix, n_bodies,
          # outputs
          pairs):
    """Overlapping box pairs (shape indices, smaller first) that pass the filter, into ``pairs``.

    ``order`` must be sorted by lo[., axis]. Returns the number of pairs found; if that exceeds
    ``len(pairs)`` only the first ``len(pairs)`` are written (the caller grows the buffer and retries).
    """
    count = 0
    n = order.shape[0]
    a1, a2 = (axis + 1) % 3, (axis + 2) % 3
    for i in range(n):
        si = order[i]
        top = hi[si, axis]
        for j in range(i + 1, n):
            sj = order[j]
            if lo[sj, axis] > top:
                break
            if (lo[sj, a1] > hi[si, a1] or hi[sj, a1] < lo[si, a1] or lo[sj, a2] > hi[si, a2]
                    or hi[sj, a2] < lo[si, a2]):
                continue
            if not may_collide(shape_body[si], shape_body[sj], body_fixed, group, mask, exclude_keys,
                               matrix, n_bodies):
                continue
            if count < pairs.shape[0]:
                pairs[count, 0], pairs[count, 1] = min(si, sj), max(si, sj)
            count += 1
    return count


@njit(cache=True)
def halfspace_pairs(geo, planes, others, xpos, xmat, lo, hi, body_fixed, group, mask, exclude_keys,
                    matrix, n_bodies, count,
                    # outputs
                    pairs):
    """Append (shape, half-space) pairs whose box reaches below the plane; returns the new count."""
    for p in planes:
        n = (xmat[p, 0, 2], xmat[p, 1, 2], xmat[p, 2, 2])
        off = dot(n, row(xpos, p))
        for s in others:
            # the box corner lowest along n
            h = 0.0
            for i in range(3):
                h += n[i] * (lo[s, i] if n[i] > 0.0 else hi[s, i])
            if h > off:
                continue
            if not may_collide(geo.body[s], geo.body[p], body_fixed, group, mask, exclude_keys, matrix,
                               n_bodies):
                continue
            if count < pairs.shape[0]:
                pairs[count, 0], pairs[count, 1] = min(s, p), max(s, p)
            count += 1
    return count


def pick_axis(lo: np.ndarray, hi: np.ndarray, shapes: np.ndarray) -> int:
    """Sweep axis: the one along which the box centres are most spread (fewest overlaps)."""
    if shapes.size == 0:
        return 0
    centre = 0.5 * (lo[shapes] + hi[shapes])
    centre = centre[np.all(np.isfinite(centre), axis=1)]
    return int(np.argmax(centre.var(axis=0))) if len(centre) else 0


__all__ = ["shape_poses", "shape_boxes", "may_collide", "insertion_sort", "sweep", "halfspace_pairs",
           "pick_axis", "CONVEX", "MESH"]
