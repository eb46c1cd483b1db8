"""Bounding-volume hierarchy (binary AABB tree) over the triangles of a mesh.

Built top-down by median split of the triangle centroids along the widest axis, so the depth is
O(log n) for any mesh; a node's box encloses its triangles' boxes. The tree is stored flat: node ``k``
has box ``node_min[k]``, ``node_max[k]``; an inner node has children ``node_left[k]``, ``node_right[k]``;
a leaf (``node_left[k] == -1``) holds triangles ``order[node_start[k] .. node_start[k] + node_count[k] - 1]``.
All coordinates are in the mesh's own frame [m].
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from impulsim.kernel import njit

LEAF_SIZE = 4
"""Largest number of triangles in a leaf."""


class BVH(NamedTuple):
    """Flat AABB tree over triangles; see the module docstring."""
    node_min: np.ndarray
    node_max: np.ndarray
    node_left: np.ndarray
    node_right: np.ndarray
    node_start: np.ndarray
    node_count: np.ndarray
    order: np.ndarray


@njit(cache=True)
def _build(tri_min, tri_max, leaf_size,
           # outputs
           node_min, node_max, node_left, node_right, node_start, node_count, order):
    """Top-down build with an explicit stack; returns the number of nodes."""
    n = tri_min.shape[0]
    for i in range(n):
        order[i] = i
    centre = 0.5 * (tri_min + tri_max)
    stack = np.empty((64, 3), np.int64)          # (node, start, count); depth is O(log n)
    stack[0, 0], stack[0, 1], stack[0, 2] = 0, 0, n
    top, n_nodes = 1, 1
    while top > 0:
        top -= 1
        k, start, count = stack[top, 0], stack[top, 1], stack[top, 2]
        cmin = np.full(3, np.inf)
        cmax = np.full(3, -np.inf)
        for j in range(3):
            node_min[k, j], node_max[k, j] = np.inf, -np.inf
        for i in range(start, start + count):
            t = order[i]
            for j in range(3):
                node_min[k, j] = min(node_min[k, j], tri_min[t, j])
                node_max[k, j] = max(node_max[k, j], tri_max[t, j])
                cmin[j] = min(cmin[j], centre[t, j])
                cmax[j] = max(cmax[j], centre[t, j])
        node_start[k], node_count[k] = start, count
        if count <= leaf_size:
            node_left[k], node_right[k] = -1, -1
            continue
        axis = np.argmax(cmax - cmin)
        keys = np.empty(count)
        for i in range(count):
            keys[i] = centre[order[start + i], axis]
        perm = np.argsort(keys, kind="mergesort")
        sub = order[start:start + count].copy()
        for i in range(count):
            order[start + i] = sub[perm[i]]
        half = count // 2
        left, right = n_nodes, n_nodes + 1
        n_nodes += 2
        node_left[k], node_right[k] = left, right
        stack[top, 0], stack[top, 1], stack[top, 2] = left, start, half
        stack[top + 1, 0], stack[top + 1, 1], stack[top + 1, 2] = right, start + half, count - half
        top += 2
    return n_nodes


def build_bvh(vertices: np.ndarray, triangles: np.ndarray, leaf_size: int = LEAF_SIZE) -> BVH:
    """Build the tree over triangles [nt, 3] of vertices [nv, 3] (mesh frame)."""
    p = vertices[triangles]
    tri_min = np.ascontiguousarray(p.min(axis=1))
    tri_max = np.ascontiguousarray(p.max(axis=1))
    n = len(triangles)
    cap = max(2 * n, 1)
    arrays = (np.empty((cap, 3)), np.empty((cap, 3)), np.empty(cap, np.int64), np.empty(cap, np.int64),
              np.empty(cap, np.int64), np.empty(cap, np.int64), np.empty(n, np.int64))
    n_nodes = _build(tri_min, tri_max, leaf_size, *arrays)
    trimmed = [a[:n_nodes].copy() for a in arrays[:6]]
    return BVH(*trimmed, arrays[6])


@njit(cache=True)
def bvh_query_box(node_min, node_max, node_left, node_right, node_start, node_count, order,
                  qmin, qmax, stack,
                  # outputs
                  out):
    """Triangles whose leaf box overlaps the box [qmin, qmax] (mesh frame) into ``out``.

    Returns the number found; if it exceeds ``len(out)`` only the first ``len(out)`` are written and the
    caller sees a count larger than the capacity. ``stack`` is scratch of at least the tree depth + 2.
    """
    found = 0
    if node_min.shape[0] == 0:
        return 0
    stack[0] = 0
    top = 1
    while top > 0:
        top -= 1
        k = stack[top]
        if (node_min[k, 0] > qmax[0] or node_max[k, 0] < qmin[0] or node_min[k, 1] > qmax[1]
                or node_max[k, 1] < qmin[1] or node_min[k, 2] > qmax[2] or node_max[k, 2] < qmin[2]):
            continue
        if node_left[k] < 0:
            for i in range(node_start[k], node_start[k] + node_count[k]):
                if found < out.shape[0]:
                    out[found] = order[i]
                found += 1
        else:
            stack[top] = node_left[k]
            stack[top + 1] = node_right[k]
            top += 2
    return found
