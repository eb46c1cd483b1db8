"""Symbolic analysis of the LGS system (Bender 3.3.2): block pattern, fill and update lists, once per model.

Unknowns are grouped per primitive ("node"), a block of up to three rows (impulse components in the
primitive's projected coordinates, padded to three). Block (i, j) of the matrix is non-zero when the two
primitives share a dynamic body (the seven cases of Bender 3.3.2.2; the static world couples nothing).
Nodes are numbered in elimination order, so the factor L is block lower triangular in that numbering.

Everything here is plain Python and NumPy run once when the method is built; the result is a set of flat
index arrays that the Numba kernels in ``lgs_kernels`` walk every step without any search:

* ``col_ptr``, ``off_row``: the off-diagonal blocks of L by column (CSC); block t sits in row ``off_row[t]``.
* ``term_*``: assembly terms, block += J(node, side) · Y(node', side') over every shared dynamic body.
* ``upd_*``: the Schur updates of each column, block(i, j) −= L(i, k) A(j, k)ᵀ for every pair i ≥ j below k.

For a tree ordered leaves first the updates create no fill (the pattern of L equals that of the lower
half of the matrix). Loop-closing primitives placed last create fill only along their loops.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from impulsim.model.kinds import Prim, TRANSLATIONAL


@dataclass(frozen=True)
class LgsStructure:
    """Index arrays of one block system over ``n_nodes`` primitives (all chains, contiguous)."""
    node_prim: np.ndarray
    """Primitive of each node, shape [n_nodes], int64."""
    node_trans: np.ndarray
    """0: rotational primitive; 1: translational (a linear impulse at a point); 2: translational with the
    identity as projection (ball), int8."""
    chain_node_start: np.ndarray
    """Nodes of chain c are chain_node_start[c] .. chain_node_start[c+1]-1, shape [n_chains + 1]."""
    col_ptr: np.ndarray
    """Off-diagonal blocks of column k are col_ptr[k] .. col_ptr[k+1]-1, shape [n_nodes + 1]."""
    off_row: np.ndarray
    """Row node of each off-diagonal block, shape [n_off]."""
    term_target: np.ndarray
    """Assembly target: off-diagonal block index, or −1 − node for a diagonal block, shape [n_terms]."""
    term_row: np.ndarray
    """Node whose rows the term fills (J side), shape [n_terms]."""
    term_row_side: np.ndarray
    """0: the row node's body A, 1: its body B."""
    term_col: np.ndarray
    """Node whose columns the term fills (Y side), shape [n_terms]."""
    term_col_side: np.ndarray
    upd_ptr: np.ndarray
    """Updates of column k are upd_ptr[k] .. upd_ptr[k+1]-1, shape [n_nodes + 1]."""
    upd_a: np.ndarray
    """Position within column k of the block L(i, k)."""
    upd_b: np.ndarray
    """Off-diagonal index of the block A(j, k)."""
    upd_target: np.ndarray
    """Block (i, j) updated: off-diagonal index, or −1 − i for the diagonal block of i."""
    max_col: int
    """Most off-diagonal blocks in one column (size of the factorization's scratch)."""

    @property
    def n_nodes(self) -> int:
        return int(self.node_prim.shape[0])

    @property
    def n_off(self) -> int:
        return int(self.off_row.shape[0])

    @property
    def fill(self) -> int:
        """Off-diagonal blocks of L beyond those of the matrix itself (0 for trees)."""
        return self.n_off - self._matrix_off

    _matrix_off: int = 0


def _incident_nodes(model, node_prim):
    """dynamic body -> list of (node, side) of the nodes acting on it."""
    inc: dict[int, list[tuple[int, int]]] = {}
    for n, i in enumerate(node_prim):
        for side, k in enumerate((model.prim_body_a[i], model.prim_body_b[i])):
            if model.body_inv_mass[k] > 0.0:
                inc.setdefault(int(k), []).append((n, side))
    return inc


def _matrix_pattern(n_nodes, inc):
    """lower[k] = set of nodes i > k with a non-zero block (i, k) in the matrix."""
    lower = [set() for _ in range(n_nodes)]
    for members in inc.values():
        nodes = sorted({n for n, _ in members})
        for a in range(len(nodes)):
            for b in range(a + 1, len(nodes)):
                lower[nodes[a]].add(nodes[b])
    return lower


def _symbolic_fill(lower):
    """Pattern of L: eliminating k couples all of its later neighbours (in place; returns column lists)."""
    cols = []
    for k in range(len(lower)):
        below = sorted(lower[k])
        cols.append(below)
        for a in range(len(below)):
            lower[below[a]].update(below[a + 1:])
    return cols


def _columns(cols):
    col_ptr = np.zeros(len(cols) + 1, np.int64)
    off_row = []
    slot = {}
    for k, below in enumerate(cols):
        for i in below:
            slot[(i, k)] = len(off_row)
            off_row.append(i)
        col_ptr[k + 1] = len(off_row)
    return col_ptr, np.array(off_row, np.int64), slot


def _updates(cols, slot):
    ptr, ua, ub, ut = [0], [], [], []
    for k, below in enumerate(cols):
        for a, i in enumerate(below):
            for j in below[:a + 1]:
                ua.append(a)
                ub.append(slot[(j, k)])
                ut.append(-1 - i if i == j else slot[(i, j)])
        ptr.append(len(ua))
    return (np.array(ptr, np.int64), np.array(ua, np.int64), np.array(ub, np.int64),
            np.array(ut, np.int64))


def _terms(inc, slot):
    tt, tr, trs, tc, tcs = [], [], [], [], []
    for members in inc.values():
        for n1, s1 in members:
            for n2, s2 in members:
                if n1 < n2 or (n1 == n2 and s1 != s2):
                    continue
                tt.append(-1 - n1 if n1 == n2 else slot[(n1, n2)])
                tr.append(n1)
                trs.append(s1)
                tc.append(n2)
                tcs.append(s2)
    return tuple(np.array(v, np.int64) for v in (tt, tr, trs, tc, tcs))


def analyse(model, chain_nodes: list[list[int]]) -> LgsStructure:
    """Symbolic factorization of the block system whose chains hold the given primitives, each list in
    elimination order."""
    node_prim = np.array([i for nodes in chain_nodes for i in nodes], np.int64)
    starts = np.zeros(len(chain_nodes) + 1, np.int64)
    starts[1:] = np.cumsum([len(nodes) for nodes in chain_nodes])
    node_trans = np.array([2 if Prim(model.prim_kind[i]) == Prim.BALL else
                           int(Prim(model.prim_kind[i]) in TRANSLATIONAL) for i in node_prim], np.int8)
    inc = _incident_nodes(model, node_prim)
    lower = _matrix_pattern(len(node_prim), inc)
    matrix_off = sum(len(s) for s in lower)
    cols = _symbolic_fill(lower)
    col_ptr, off_row, slot = _columns(cols)
    upd = _updates(cols, slot)
    terms = _terms(inc, slot)
    max_col = int(np.max(np.diff(col_ptr))) if len(node_prim) else 0
    return LgsStructure(node_prim, node_trans, starts, col_ptr, off_row, *terms, *upd,
                        max_col=max(max_col, 1), _matrix_off=matrix_off)
