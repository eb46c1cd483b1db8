"""Broad phase: shape poses, world AABBs, the collision filter and a hashed uniform grid.

Sweep-and-prune along one axis (Bender 2.2) tests each box against every box whose interval overlaps
on that axis: in a scene scattered through a volume that is a slab holding O(n^(2/3)) boxes, so a step
costs O(n^(5/3)). A uniform grid whose cell is at least the largest box (Teschner et al. 2003, spatial
hashing) finds the same pairs in O(n + pairs): each box is filed under the cell of its lower corner; two
boxes can overlap only if those cells are neighbours, so each box looks into its own cell and 13 of its
26 neighbours (the other 13 look back at it). Cells are hashed into a table of 2^k buckets filled by a
counting sort each step; a bucket shared by two cells is told apart by the stored cell coordinates.
Shapes much larger than the typical one ("big") would inflate the cell: they are tested against every
box, and so are half-spaces (unbounded boxes).
"""
from __future__ import annotations

import numpy as np

from impulsim.collision.core import BOX, CAPSULE, CYLINDER, ELLIPSOID, HALFSPACE, SPHERE
from impulsim.collision.vec import KERNEL, dot, row
from impulsim.kernel import njit
from impulsim.math.search import lower_bound

GRID_DIM = 1024
"""Cells per axis at most: the scene's box is cut into at most 1024³ cells; cells beyond are merged into
the last one (still correct: merged cells stay neighbours; only the pair tests of outliers slow down)."""
RADIX_BITS = 10
"""The sort of cell keys (30 bits) runs as three counting passes over 10-bit digits."""
ROWS = ((0, 1), (1, -1), (1, 0), (1, 1))
"""(dx, dy) of the neighbour rows after a cell's own row in key order; each row spans dz = −1 .. 1."""


@njit(**KERNEL)
def shape_poses(kind, body, local_pos, local_mat, body_pos, body_quat,
                # outputs
                xpos, xmat):
    """World pose of every shape frame: position [m] and rotation matrix (shape axes as columns)."""
    for s in range(kind.shape[0]):
        b = body[s]
        w, x, y, z = body_quat[b, 0], body_quat[b, 1], body_quat[b, 2], body_quat[b, 3]
        r = ((1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)),
             (2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)),
             (2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)))
        for i in range(3):
            ri = r[i]
            xpos[s, i] = (body_pos[b, i] + ri[0] * local_pos[s, 0] + ri[1] * local_pos[s, 1]
                          + ri[2] * local_pos[s, 2])
            for j in range(3):
                xmat[s, i, j] = (ri[0] * local_mat[s, 0, j] + ri[1] * local_mat[s, 1, j]
                                 + ri[2] * local_mat[s, 2, j])


@njit(**KERNEL)
def shape_boxes(kind, params, xpos, xmat, local_lo, local_hi, margin,
                # outputs
                lo, hi):
    """World AABB of every shape, enlarged by ``margin`` [m] on each side (half-spaces: unbounded).

    Hulls and meshes use their box in the shape frame (``local_lo``/``local_hi``), carried to the world
    as the box enclosing the rotated box.
    """
    for s in range(kind.shape[0]):
        k = kind[s]
        for i in range(3):
            c = xpos[s, i]
            if k == SPHERE:
                ext = params[s, 0]
            elif k == BOX:
                ext = abs(xmat[s, i, 0]) * params[s, 0] + abs(xmat[s, i, 1]) * params[s, 1] + \
                    abs(xmat[s, i, 2]) * params[s, 2]
            elif k == CAPSULE:
                ext = abs(xmat[s, i, 2]) * params[s, 1] + params[s, 0]
            elif k == CYLINDER:
                a = xmat[s, i, 2]
                ext = abs(a) * params[s, 1] + params[s, 0] * np.sqrt(max(0.0, 1.0 - a * a))
            elif k == ELLIPSOID:
                # reach along world axis i: |A Mᵀ e_i| with M's row i
                ext = np.sqrt((params[s, 0] * xmat[s, i, 0]) ** 2 + (params[s, 1] * xmat[s, i, 1]) ** 2
                              + (params[s, 2] * xmat[s, i, 2]) ** 2)
            elif k == HALFSPACE:
                lo[s, i], hi[s, i] = -np.inf, np.inf
                continue
            else:
                ext = 0.0
                for j in range(3):
                    c += xmat[s, i, j] * 0.5 * (local_lo[s, j] + local_hi[s, j])
                    ext += abs(xmat[s, i, j]) * 0.5 * (local_hi[s, j] - local_lo[s, j])
            lo[s, i] = c - ext - margin
            hi[s, i] = c + ext + margin


@njit(**KERNEL)
def may_collide(ba, bb, filt):
    """The collision filter ``filt`` (collision.groups.FILTER) for two bodies: never the same body nor two
    fixed (static/kinematic) bodies; then the user collision matrix if one is given, else groups/masks and
    the excluded pairs."""
    body_fixed, group, mask, exclude_keys, matrix, n_bodies = filt
    if ba == bb or (body_fixed[ba] and body_fixed[bb]):
        return False
    if matrix.shape[0] > 0:
        return matrix[ba, bb] != 0
    if (group[ba] & mask[bb]) == 0 or (group[bb] & mask[ba]) == 0:
        return False
    if exclude_keys.shape[0] == 0:
        return True
    key = min(ba, bb) * n_bodies + max(ba, bb)
    i = lower_bound(exclude_keys, exclude_keys.shape[0], key)
    return not (i < exclude_keys.shape[0] and exclude_keys[i] == key)


@njit(**KERNEL)
def _overlap(lo, hi, a, b):
    return not (lo[a, 0] > hi[b, 0] or lo[b, 0] > hi[a, 0] or lo[a, 1] > hi[b, 1] or lo[b, 1] > hi[a, 1]
                or lo[a, 2] > hi[b, 2] or lo[b, 2] > hi[a, 2])


@njit(**KERNEL)
def grid_keys(lo, shapes, inv_cell,
              # outputs
              cell, keys):
    """Cell of each box's lower corner (cell size 1 / inv_cell [m]) relative to the scene's lowest cell,
    into ``cell[i]``, and its key (cx·ny + cy)·nz + cz into ``keys[i]``. Returns (ny, nz)."""
    n = shapes.shape[0]
    bx, by, bz = np.inf, np.inf, np.inf
    for i in range(n):
        s = shapes[i]
        bx, by, bz = min(bx, lo[s, 0]), min(by, lo[s, 1]), min(bz, lo[s, 2])
    base = (np.floor(bx * inv_cell), np.floor(by * inv_cell), np.floor(bz * inv_cell))
    ny, nz = 1, 1
    for i in range(n):
        for a in range(3):
            cell[i, a] = int(min(np.floor(lo[shapes[i], a] * inv_cell) - base[a], GRID_DIM - 1))
        ny, nz = max(ny, cell[i, 1] + 1), max(nz, cell[i, 2] + 1)
    for i in range(n):
        keys[i] = (cell[i, 0] * ny + cell[i, 1]) * nz + cell[i, 2]
    return ny, nz


@njit(**KERNEL)
def radix_sort(keys, n,
               # outputs (and scratch)
               order, tmp_keys, tmp_order, counts):
    """Sort keys[:n] (< 2^30) ascending in place, ``order[:n]`` the original positions (stable LSD radix
    sort, three 10-bit passes: O(n + 1024) each)."""
    for i in range(n):
        order[i] = i
    radix = 1 << RADIX_BITS
    for shift in range(0, 3 * RADIX_BITS, RADIX_BITS):
        counts[:] = 0
        for i in range(n):
            counts[((keys[i] >> shift) & (radix - 1)) + 1] += 1
        for d in range(radix):
            counts[d + 1] += counts[d]
        for i in range(n):
            d = (keys[i] >> shift) & (radix - 1)
            tmp_keys[counts[d]] = keys[i]
            tmp_order[counts[d]] = order[i]
            counts[d] += 1
        for i in range(n):
            keys[i], order[i] = tmp_keys[i], tmp_order[i]


@njit(**KERNEL)
def _admit(si, sj, shape_body, filt, count, pairs):
    """Append (si, sj) if the filter lets their bodies collide; returns the new count."""
    if not may_collide(shape_body[si], shape_body[sj], filt):
        return count
    if count < pairs.shape[0]:
        pairs[count, 0], pairs[count, 1] = min(si, sj), max(si, sj)
    return count + 1


@njit(**KERNEL)
def _apart(box, p, q):
    """True if sorted boxes p and q do not overlap (no early exit: the outcome is hard to predict, so
    one branch on all six comparisons is cheaper than six)."""
    return ((box[p, 0] > box[q, 3]) | (box[q, 0] > box[p, 3]) | (box[p, 1] > box[q, 4]) | (box[q, 1] > box[p, 4])
            | (box[p, 2] > box[q, 5]) | (box[q, 2] > box[p, 5]))


@njit(**KERNEL)
def grid_sweep(lo, hi, shapes, keys, order, cell, ny, nz, shape_body, filt, count, ptr, box,
               # outputs
               pairs):
    """Append the overlapping, admitted box pairs of ``shapes`` given their cell keys sorted ascending
    (``keys``, with ``order`` into shapes and ``cell`` as from grid_keys). Each box looks at the rest of its
    own row of 2 cells (dz = 0, 1) and at 4 rows of 3 cells ahead in key order; as the boxes are visited
    in key order, the start of each row only moves forward, so one pointer per row sweeps the list once.
    The boxes are first copied in key order into ``box`` [n, 6] (lo, hi) so the scans read memory in
    sequence. Returns the new count (rows past len(pairs) are only counted)."""
    n = shapes.shape[0]
    for p in range(n):
        s = shapes[order[p]]
        for a in range(3):
            box[p, a], box[p, 3 + a] = lo[s, a], hi[s, a]
    ptr[:] = 0
    for p in range(n):
        cz = keys[p] % nz                          # from the sorted key: no jump into cell[]
        cy = (keys[p] // nz) % ny
        end = keys[p] + (1 if cz + 1 < nz else 0)
        q = p + 1
        while q < n and keys[q] <= end:
            if not _apart(box, p, q):
                count = _admit(shapes[order[p]], shapes[order[q]], shape_body, filt, count, pairs)
            q += 1
        for r in range(4):
            dy = ROWS[r][1]
            if cy + dy < 0 or cy + dy >= ny:
                continue
            row_key = keys[p] + (ROWS[r][0] * ny + dy) * nz
            start = row_key - (1 if cz > 0 else 0)
            end = row_key + (1 if cz + 1 < nz else 0)
            while ptr[r] < n and keys[ptr[r]] < start:
                ptr[r] += 1
            q = ptr[r]
            while q < n and keys[q] <= end:
                if not _apart(box, p, q):
                    count = _admit(shapes[order[p]], shapes[order[q]], shape_body, filt, count, pairs)
                q += 1
    return count


@njit(**KERNEL)
def big_pairs(lo, hi, big, others, shape_body, filt, count,
              # outputs
              pairs):
    """Append the pairs of each big shape with every other bounded shape (grid shapes and the big ones
    after it) whose boxes overlap and that pass the filter; returns the new count."""
    for q in range(big.shape[0]):
        sb = big[q]
        for lst in range(2):
            group_list = others if lst == 0 else big[q + 1:]
            for s in group_list:
                if not _overlap(lo, hi, s, sb) or not may_collide(shape_body[s], shape_body[sb], filt):
                    continue
                if count < pairs.shape[0]:
                    pairs[count, 0], pairs[count, 1] = min(s, sb), max(s, sb)
                count += 1
    return count


@njit(**KERNEL)
def halfspace_pairs(planes, others, shape_body, xpos, xmat, lo, hi, margin, filt, count,
                    # outputs
                    pairs):
    """Append (shape, half-space) pairs whose box reaches below the plane raised by ``margin`` [m] (the
    boxes carry the other half of eps_c); returns the new count."""
    for p in planes:
        n = (xmat[p, 0, 2], xmat[p, 1, 2], xmat[p, 2, 2])
        off = dot(n, row(xpos, p))
        for s in others:
            # the box corner lowest along n
            h = 0.0
            for i in range(3):
                h += n[i] * (lo[s, i] if n[i] > 0.0 else hi[s, i])
            if h > off + margin:
                continue
            if not may_collide(shape_body[s], shape_body[p], filt):
                continue
            if count < pairs.shape[0]:
                pairs[count, 0], pairs[count, 1] = min(s, p), max(s, p)
            count += 1
    return count


@njit(**KERNEL)
def broad_phase(shapes, body_pos, body_quat, margin, filt, grid,
                # outputs
                boxes, pairs):
    """One broad-phase step: shape poses, AABBs (enlarged by ``margin`` [m]), grid pairs of the small
    shapes, pairs of the big ones, and the bounded shapes against the half-spaces. ``shapes``, ``filt``,
    ``grid`` and ``boxes`` as collision.groups; ``body_pos``, ``body_quat`` the state's body poses.
    Returns the number of pairs (may exceed len(pairs): then grow the buffer and call again)."""
    kind, body, local_pos, local_mat, params, local_lo, local_hi = shapes
    small, big, bounded, planes, inv_cell, cell, keys, order, tmp_keys, tmp_order, counts, ptr, box = grid
    xpos, xmat, lo, hi = boxes
    shape_poses(kind, body, local_pos, local_mat, body_pos, body_quat, xpos, xmat)
    shape_boxes(kind, params, xpos, xmat, local_lo, local_hi, margin, lo, hi)
    ny, nz = grid_keys(lo, small, inv_cell, cell, keys)
    radix_sort(keys, small.shape[0], order, tmp_keys, tmp_order, counts)
    count = grid_sweep(lo, hi, small, keys, order, cell, ny, nz, body, filt, 0, ptr, box, pairs)
    count = big_pairs(lo, hi, big, small, body, filt, count, pairs)
    return halfspace_pairs(planes, bounded, body, xpos, xmat, lo, hi, margin, filt, count, pairs)


BIG_FACTOR = 4.0
"""A shape whose box can be wider than this many times the median shape's is "big" (tested against all)."""


def extent_bound(kind: np.ndarray, params: np.ndarray, local_lo: np.ndarray, local_hi: np.ndarray) -> np.ndarray:
    """Largest width [m] a shape's world AABB can have in any orientation (before the margin), per shape."""
    ext = np.zeros(len(kind))
    for s, k in enumerate(kind):
        p = params[s]
        if k == SPHERE:
            ext[s] = 2 * p[0]
        elif k == BOX:
            ext[s] = 2 * np.linalg.norm(p)
        elif k == CAPSULE:
            ext[s] = 2 * (p[0] + p[1])
        elif k == CYLINDER:
            ext[s] = 2 * np.hypot(p[0], p[1])
        elif k == ELLIPSOID:
            ext[s] = 2 * np.max(p)
        elif k == HALFSPACE:
            ext[s] = np.inf
        else:
            ext[s] = np.linalg.norm(local_hi[s] - local_lo[s])
    return ext


def grid_layout(ext: np.ndarray, bounded: np.ndarray, margin: float):
    """(small shapes, big shapes, cell size [m]) for the bounded shapes' widths ``ext`` [m]."""
    if bounded.size == 0:
        return bounded, bounded, 1.0
    widths = ext[bounded]
    big = widths > BIG_FACTOR * np.median(widths)
    small_shapes = bounded[~big].astype(np.int64)
    cell = float(widths[~big].max()) + 2 * margin if small_shapes.size else 1.0
    return small_shapes, bounded[big].astype(np.int64), max(cell, 1e-9)


__all__ = ["shape_poses", "shape_boxes", "may_collide", "grid_keys", "radix_sort", "grid_sweep", "big_pairs",
           "halfspace_pairs", "broad_phase", "extent_bound", "grid_layout"]
