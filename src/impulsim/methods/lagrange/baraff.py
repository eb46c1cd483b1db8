"""Baraff's linear-time solve of the Lagrange system (Baraff 1996; Wagner 3.7, 5.3, "Baraff"/"BaraffSVD").

The augmented system
    H [v̇; λ] = [F; c′],   H = [[M, −Jᵀ], [−J, 0]]              (after Wagner eq. 3.25, 3.26)
has one node per movable body (block M_k, 6×6) and one per *primary* element (a joint or extra constraint,
block 0 of its row count); an edge joins an element to each movable body it acts on. When those edges
form a forest, eliminating every node after its children (post-order) causes no fill-in, so the block
LDLᵀ factorization and the solve cost O(nodes):
    D_i = H_ii − Σ_children c H_ciᵀ D_c⁻¹ H_ci,  L_i = D_i⁻¹ H_i,parent.
All bodies of infinite mass (static and kinematic) count as one "ground" node when loops are searched
but are not part of H. Elements are taken in order; one that would close a cycle (a kinematic loop, a
second joint between the same two bodies, or a second link to the ground in one connected part) becomes
*secondary*. The k secondary rows are solved afterwards through their k×k compliance
K = J_S (Δv̇ per unit λ_S), built from k solves with the primary factorization, so the total cost is
O(p + p k) + O(k³) (Wagner 3.7). A component linked to the ground is rooted at that element, so that no
element node is a leaf (a leaf element would have D = 0).
With ``svd=True`` the k×k system and any singular element block are solved by SVD (least squares,
minimum norm), Wagner's "BaraffSVD".
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np
from numba import njit

BODY, ELEMENT = 0, 1
PIVOT_TOL = 1e-10
"""A pivot below this fraction of its block's largest diagonal entry marks the block as singular."""


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
                  node_leaf=_leaves(parent))


def _leaves(parent):
    leaf = np.ones(len(parent), np.int8)
    leaf[parent[parent >= 0]] = 0
    return leaf


def _offsets(sizes):
    out = np.zeros(len(sizes) + 1, np.int64)
    out[1:] = np.cumsum(sizes)
    return out


# ---------------------------------------------------------------------------------------------------
# kernels

@njit(cache=True, inline="always")
def _row_on_body(r, k, row_a, row_Ja, row_Jb):
    return row_Ja[r] if row_a[r] == k else row_Jb[r]


@njit(cache=True)
def fill_blocks(node_kind, node_ref, node_size, node_parent, node_d, node_h, element_row_start, row_a,
                row_Ja, row_Jb, body_inv_mass, Iw,
                # outputs
                D, H):
    """D_i = H_ii (M_k for bodies, 0 for elements) and the coupling blocks H_i,parent (−Jᵀ or −J)."""
    for i in range(node_kind.shape[0]):
        s = node_size[i]
        d0 = node_d[i]
        for q in range(s * s):
            D[d0 + q] = 0.0
        if node_kind[i] == BODY:
            k = node_ref[i]
            m = 1.0 / body_inv_mass[k]
            for a in range(3):
                D[d0 + a * 7] = m
                for b in range(3):
                    D[d0 + (3 + a) * 6 + 3 + b] = Iw[k, a, b]
        p = node_parent[i]
        if p < 0:
            continue
        sp = node_size[p]
        h0 = node_h[i]
        if node_kind[i] == BODY:      # H_i,p = −J_{p,k}ᵀ: 6 × rows of element p
            k = node_ref[i]
            r0 = element_row_start[node_ref[p]]
            for c in range(sp):
                J = _row_on_body(r0 + c, k, row_a, row_Ja, row_Jb)
                for a in range(6):
                    H[h0 + a * sp + c] = -J[a]
        else:                         # H_i,p = −J_{i,k}: rows of element i × 6
            k = node_ref[p]
            r0 = element_row_start[node_ref[i]]
            for a in range(s):
                J = _row_on_body(r0 + a, k, row_a, row_Ja, row_Jb)
                for c in range(6):
                    H[h0 + a * 6 + c] = -J[c]


@njit(cache=True)
def _inverse_definite(D, d0, s, sign, work, out):
    """out = D⁻¹ for sign·D symmetric positive definite; False if a pivot is too small.

    sign·D = G Gᵀ (Cholesky), G⁻¹ by forward substitution, D⁻¹ = sign · G⁻ᵀ G⁻¹. Reciprocals of the
    pivots are kept so that the O(s³) loops multiply instead of divide.
    """
    big = 0.0
    for a in range(s):
        big = max(big, sign * D[d0 + a * s + a])
    G = work[:s * s]
    rinv = work[s * s:s * s + s]
    for a in range(s * s):
        G[a] = sign * D[d0 + a]
    for j in range(s):          # in-place lower Cholesky factor G of sign·D
        v = G[j * s + j]
        for k in range(j):
            v -= G[j * s + k] * G[j * s + k]
        if not v > PIVOT_TOL * big:
            return False
        v = np.sqrt(v)
        rinv[j] = 1.0 / v
        G[j * s + j] = v
        for i in range(j + 1, s):
            w = G[i * s + j]
            for k in range(j):
                w -= G[i * s + k] * G[j * s + k]
            G[i * s + j] = w * rinv[j]
    # G⁻¹ (lower) into the upper-left of out, column by column: G X = I
    for c in range(s):
        for i in range(s):
            if i < c:
                out[i * s + c] = 0.0
                continue
            w = 1.0 if i == c else 0.0
            for k in range(c, i):
                w -= G[i * s + k] * out[k * s + c]
            out[i * s + c] = w * rinv[i]
    # D⁻¹ = sign · G⁻ᵀ G⁻¹: entry (a, b) = Σ_{k ≥ max(a, b)} X[k, a] X[k, b]; fill the symmetric result
    for a in range(s):
        for b in range(a, s):
            v = 0.0
            for k in range(b, s):
                v += out[k * s + a] * out[k * s + b]
            G[a * s + b] = sign * v
    for a in range(s):
        for b in range(a, s):
            out[a * s + b] = G[a * s + b]
            out[b * s + a] = G[a * s + b]
    return True


@njit(cache=True, inline="always")
def _mass_inverse(inv_mass, Iinv, out):
    """M⁻¹ = diag(1/m E, I⁻¹) as a 6×6 block."""
    for q in range(36):
        out[q] = 0.0
    for a in range(3):
        out[a * 7] = inv_mass
        for b in range(3):
            out[(3 + a) * 6 + 3 + b] = Iinv[a, b]


@njit(cache=True, inline="always")
def _inverse3(D, d0, sign, out):
    """Closed-form inverse of a symmetric 3×3 block with sign·D positive definite; False if near singular."""
    a, b, c = D[d0], D[d0 + 1], D[d0 + 2]
    d, e, f = D[d0 + 4], D[d0 + 5], D[d0 + 8]
    c00 = d * f - e * e
    c01 = c * e - b * f
    c02 = b * e - c * d
    det = a * c00 + b * c01 + c * c02
    big = max(sign * a, max(sign * d, sign * f))
    # sign·D positive definite ⇔ leading minors of sign·D positive; det(sign·D) = sign·det
    if not (sign * a > 0.0 and a * d - b * b > PIVOT_TOL * big * big and sign * det > PIVOT_TOL * big ** 3):
        return False
    r = 1.0 / det
    out[0] = c00 * r
    out[1] = out[3] = c01 * r
    out[2] = out[6] = c02 * r
    out[4] = (a * f - c * c) * r
    out[5] = out[7] = (b * c - a * e) * r
    out[8] = (a * d - b * b) * r
    return True


@njit(cache=True)
def factor(order, node_kind, node_ref, node_size, node_parent, node_d, node_h, node_leaf, body_inv_mass,
           Iw_inv, svd,
           # outputs
           D, H, Dinv, L):
    """Block LDLᵀ in post-order. Returns −1, or the first node whose block is singular (svd=False).

    A body without children keeps D = M, whose inverse diag(1/m E, I⁻¹) is known; 3×3 element blocks are
    inverted in closed form; other blocks by Cholesky.
    """
    n = max(6, int(node_size.max())) if node_size.shape[0] else 6
    work = np.empty(n * n + n)
    for i in order:
        s = node_size[i]
        d0 = node_d[i]
        sign = 1.0 if node_kind[i] == BODY else -1.0
        if node_leaf[i] and node_kind[i] == BODY:
            _mass_inverse(body_inv_mass[node_ref[i]], Iw_inv[node_ref[i]], Dinv[d0:d0 + 36])
        elif s == 3 and _inverse3(D, d0, sign, Dinv[d0:d0 + 9]):
            pass
        elif not _inverse_definite(D, d0, s, sign, work, Dinv[d0:d0 + s * s]):
            if not svd:
                return i
            Dinv[d0:d0 + s * s] = np.linalg.pinv(D[d0:d0 + s * s].reshape(s, s), rcond=PIVOT_TOL).ravel()
        p = node_parent[i]
        if p < 0:
            continue
        sp = node_size[p]
        h0 = node_h[i]
        dp = node_d[p]
        for a in range(s):              # L_i = D_i⁻¹ H_i,p
            for c in range(sp):
                v = 0.0
                for b in range(s):
                    v += Dinv[d0 + a * s + b] * H[h0 + b * sp + c]
                L[h0 + a * sp + c] = v
        for a in range(sp):             # D_p −= H_i,pᵀ L_i
            for c in range(sp):
                v = 0.0
                for b in range(s):
                    v += H[h0 + b * sp + a] * L[h0 + b * sp + c]
                D[dp + a * sp + c] -= v
    return -1


@njit(cache=True)
def solve(order, node_size, node_parent, node_x, node_d, node_h, Dinv, L, work,
          # outputs (right-hand side in, solution out)
          x):
    """Solve H x = rhs with the factorization (forward elimination in post-order, then back-substitution)."""
    for i in order:
        p = node_parent[i]
        if p < 0:
            continue
        s, sp = node_size[i], node_size[p]
        x0, xp, h0 = node_x[i], node_x[p], node_h[i]
        for c in range(sp):             # x_p −= L_iᵀ x_i
            v = 0.0
            for a in range(s):
                v += L[h0 + a * sp + c] * x[x0 + a]
            x[xp + c] -= v
    for n in range(order.shape[0] - 1, -1, -1):
        i = order[n]
        s = node_size[i]
        x0, d0 = node_x[i], node_d[i]
        for a in range(s):
            v = 0.0
            for b in range(s):
                v += Dinv[d0 + a * s + b] * x[x0 + b]
            work[a] = v
        p = node_parent[i]
        if p >= 0:
            sp, xp, h0 = node_size[p], node_x[p], node_h[i]
            for a in range(s):
                v = 0.0
                for c in range(sp):
                    v += L[h0 + a * sp + c] * x[xp + c]
                work[a] -= v
        for a in range(s):
            x[x0 + a] = work[a]


@njit(cache=True)
def load_rhs(node_kind, node_ref, node_x, element_row_start, force, cp,
             # outputs
             x):
    """Right-hand side [F_k per body; c′ per primary element]: the bottom rows −J v̇ = c′ say J v̇ + c′ = 0."""
    for i in range(node_kind.shape[0]):
        x0 = node_x[i]
        if node_kind[i] == BODY:
            for a in range(6):
                x[x0 + a] = force[node_ref[i], a]
        else:
            r0 = element_row_start[node_ref[i]]
            for a in range(node_x[i + 1] - x0):
                x[x0 + a] = cp[r0 + a]


@njit(cache=True)
def unload_solution(node_kind, node_ref, node_x, element_row_start, x,
                    # outputs
                    acc6, lam):
    """Split the solution into body accelerations v̇ and primary multipliers λ (other entries kept)."""
    for i in range(node_kind.shape[0]):
        x0 = node_x[i]
        if node_kind[i] == BODY:
            for a in range(6):
                acc6[node_ref[i], a] = x[x0 + a]
        else:
            r0 = element_row_start[node_ref[i]]
            for a in range(node_x[i + 1] - x0):
                lam[r0 + a] = x[x0 + a]


@njit(cache=True)
def secondary_responses(secondary_rows, row_a, row_b, row_Ja, row_Jb, body_node, node_kind, node_ref,
                        node_size, node_parent, node_x, node_d, node_h, element_row_start, order, Dinv, L,
                        n_bodies, n_rows, x, work,
                        # outputs
                        resp_acc, resp_lam, K):
    """Per unit multiplier of each secondary row s: the accelerations (resp_acc[s]) and primary
    multipliers (resp_lam[s]) it causes through the primary system, and K[t, s] = J_t Δv̇_s."""
    k = secondary_rows.shape[0]
    for s in range(k):
        r = secondary_rows[s]
        x[:] = 0.0
        for side in range(2):
            body = row_a[r] if side == 0 else row_b[r]
            J = row_Ja[r] if side == 0 else row_Jb[r]
            i = body_node[body]
            if i < 0:
                continue
            for a in range(6):
                x[node_x[i] + a] += J[a]
        solve(order, node_size, node_parent, node_x, node_d, node_h, Dinv, L, work, x)
        unload_solution(node_kind, node_ref, node_x, element_row_start, x, resp_acc[s], resp_lam[s])
    for t in range(k):
        rt = secondary_rows[t]
        for s in range(k):
            v = 0.0
            for a in range(6):
                v += row_Ja[rt, a] * resp_acc[s, row_a[rt], a] + row_Jb[rt, a] * resp_acc[s, row_b[rt], a]
            K[t, s] = v
