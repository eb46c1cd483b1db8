"""Baraff's elimination structure: the primary forest of bodies and elements, the secondary (loop-closing)
elements, and the post-order and block offsets of the no-fill factorization (see :mod:`.baraff`)."""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np

BODY, ELEMENT = 0, 1


@dataclass
class Forest:
    """The elimination structure, fixed for a model; every array is indexed by node."""
    node_kind: np.ndarray
    node_ref: np.ndarray
    """Body index (BODY nodes) or element index (ELEMENT nodes)."""
    node_size: np.ndarray
    node_parent: np.ndarray
    """Parent node, −1 for a root."""
    order: np.ndarray
    """Post-order: every node after its children."""
    node_x: np.ndarray
    """Offset of each node's unknowns in the solution vector, shape [n_nodes + 1]."""
    node_d: np.ndarray
    """Offset of each node's D block (size²) in the flat block storage, shape [n_nodes + 1]."""
    node_h: np.ndarray
    """Offset of each node's coupling block to its parent (size × parent size), shape [n_nodes + 1]."""
    element_row_start: np.ndarray
    """First row of each element, shape [n_elements + 1] (rows of an element are consecutive)."""
    primary: np.ndarray
    """1 for primary elements, shape [n_elements], int8."""
    secondary_rows: np.ndarray
    """Rows of the secondary elements, in order."""
    body_node: np.ndarray
    """Node of each body (−1 for bodies of infinite mass), shape [n_bodies]."""
    node_leaf: np.ndarray
    """1 for nodes without children, int8."""
    child_start: np.ndarray
    """CSR: the children of node i are ``children[child_start[i]:child_start[i + 1]]``, shape [n_nodes + 1]."""
    children: np.ndarray


def _element_bodies(table, e, movable):
    rows = range(*table.element_rows(e))
    found = []
    for r in rows:
        for k in (int(table.row_a[r]), int(table.row_b[r])):
            key = k if movable[k] else -1
            if key not in found:
                found.append(key)
    return found


def _find(parent, x):
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


def _shared_ground_links(table, movable):
    """Elements linking to the ground a connected part that has more than one such link."""
    ends = [_element_bodies(table, e, movable) for e in range(table.n_elements)]
    uf = {k: k for k in np.nonzero(movable)[0]}
    for e_ends in ends:
        inner = [k for k in e_ends if k >= 0]
        for k in inner[1:]:
            uf[_find(uf, k)] = _find(uf, inner[0])
    links = {}
    for e, e_ends in enumerate(ends):
        if -1 in e_ends and len(e_ends) > 1:
            links.setdefault(_find(uf, [k for k in e_ends if k >= 0][0]), []).append(e)
    return {e for group in links.values() if len(group) > 1 for e in group}


def build_forest(table, body_inv_mass, ground_links_secondary: bool = False) -> Forest:
    """Split the elements into a primary forest and secondary (loop-closing) elements.

    With ``ground_links_secondary`` every link to the ground of a part that has several is secondary
    (Wagner's rule that one-body constraints are secondary), so that the SVD's least-squares answer
    weighs them alike: the over-determined pinned cylinder then hovers between its two pins instead of
    hanging from the first.
    """
    movable = body_inv_mass > 0.0
    n_bodies = len(body_inv_mass)
    uf = {k: k for k in [-1] + list(np.nonzero(movable)[0])}
    primary = np.zeros(table.n_elements, np.int8)
    neighbours = {}
    held_back = _shared_ground_links(table, movable) if ground_links_secondary else set()
    for e in range(table.n_elements):
        ends = _element_bodies(table, e, movable)
        if len(ends) == 1 or e in held_back:   # both ends on one body, or a shared ground link
            continue
        roots = {_find(uf, k) for k in ends}
        if len(roots) == len(ends):
            for k in ends[1:]:
                uf[_find(uf, k)] = _find(uf, ends[0])
            primary[e] = 1
            neighbours[e] = ends
    return _layout(table, body_inv_mass, movable, n_bodies, primary, neighbours)


def _layout(table, body_inv_mass, movable, n_bodies, primary, neighbours) -> Forest:
    # nodes: movable bodies, then primary elements
    kinds, refs, sizes = [], [], []
    body_node = -np.ones(n_bodies, np.int64)
    for k in np.nonzero(movable)[0]:
        body_node[k] = len(kinds)
        kinds.append(BODY), refs.append(int(k)), sizes.append(6)
    element_node = {}
    for e in np.nonzero(primary)[0]:
        element_node[int(e)] = len(kinds)
        r0, r1 = table.element_rows(int(e))
        kinds.append(ELEMENT), refs.append(int(e)), sizes.append(r1 - r0)
    n = len(kinds)
    adj = [[] for _ in range(n)]
    grounded = set()
    for e, ends in neighbours.items():
        for k in ends:
            if k < 0:
                grounded.add(element_node[e])
            else:
                adj[element_node[e]].append(int(body_node[k]))
                adj[int(body_node[k])].append(element_node[e])
    parent = -np.ones(n, np.int64)
    seen = np.zeros(n, bool)
    bfs = []
    # roots: grounded elements first, then any unvisited body
    for root in sorted(grounded) + list(range(n)):
        if seen[root]:
            continue
        seen[root] = True
        queue = deque([root])
        while queue:
            i = queue.popleft()
            bfs.append(i)
            for j in adj[i]:
                if not seen[j]:
                    seen[j] = True
                    parent[j] = i
                    queue.append(j)
    order = np.array(bfs[::-1], np.int64)
    sizes = np.array(sizes, np.int64)
    psize = np.where(parent >= 0, sizes[np.maximum(parent, 0)], 0)
    secondary_rows = [r for e in range(table.n_elements) if not primary[e] for r in range(*table.element_rows(e))]
    return Forest(node_kind=np.array(kinds, np.int64), node_ref=np.array(refs, np.int64), node_size=sizes,
                  node_parent=parent, order=order, node_x=_offsets(sizes), node_d=_offsets(sizes * sizes),
                  node_h=_offsets(sizes * psize),
                  element_row_start=np.array([table.element_rows(e)[0] for e in range(table.n_elements)]
                                             + [table.n_rows], np.int64),
                  primary=primary, secondary_rows=np.array(secondary_rows, np.int64), body_node=body_node,
                  node_leaf=_leaves(parent), **_children(parent))


def _children(parent) -> dict:
    """Children lists of every node in CSR form (child_start, children)."""
    counts = np.bincount(parent[parent >= 0], minlength=len(parent))
    child_start = _offsets(counts)
    children = np.argsort(np.where(parent >= 0, parent, len(parent)), kind="stable")[:child_start[-1]]
    return dict(child_start=child_start, children=children.astype(np.int64))


def _leaves(parent):
    leaf = np.ones(len(parent), np.int8)
    leaf[parent[parent >= 0]] = 0
    return leaf


def _offsets(sizes):
    out = np.zeros(len(sizes) + 1, np.int64)
    out[1:] = np.cumsum(sizes)
    return out
