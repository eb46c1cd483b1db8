"""Baraff's linear-time solve of the Lagrange system (Baraff 1996; Wagner 3.7, 5.3, "Baraff"/"BaraffSVD").

The augmented system
    H [v̇; λ] = [F; c′],   H = [[M, −Jᵀ], [−J, 0]]              (after Wagner eq. 3.25, 3.26)
has one node per movable body (block M_k, 6×6) and one per *primary* element (a joint or extra constraint,
block 0 of its row count); an edge joins an element to each movable body it acts on. When those edges
form a forest (see :mod:`.forest`), eliminating every node after its children (post-order) causes no
fill-in, so the block LDLᵀ factorization and the solve cost O(nodes):
    D_i = H_ii − Σ_children c H_ciᵀ D_c⁻¹ H_ci.
Body blocks D are positive definite, element blocks negative definite (σ_i = +1, −1). Each node keeps
Q_i = G_i⁻¹, the inverse of the lower Cholesky factor of σ_i D_i (so D_i⁻¹ = σ_i Q_iᵀ Q_i), and
Y_i = Q_i H_i,parent. The Schur update is then D_p −= σ_i Y_iᵀ Y_i, and the solve needs only products
with the triangular Q_i and with Y_i, never an explicit D_i⁻¹. A body without children has D_k = M_k,
whose inverse is known, so it keeps W_k = M_k⁻¹ H_k,p and its Schur update instead (:mod:`.blocks`).
The k secondary rows (loops) are solved afterwards through their k×k compliance K = J_S (Δv̇ per unit
λ_S), built from k solves with the primary factorization, so the total cost is O(p + p k) + O(k³)
(Wagner 3.7). With ``svd=True`` the k×k system and any singular block are solved by SVD / eigenvalue
decomposition (least squares, minimum norm), Wagner's "BaraffSVD".
"""
from __future__ import annotations

import numpy as np

from impulsim.kernel import njit
from impulsim.methods.lagrange.blocks import (MASS_INVERSE, MASS_INVERSE_MAX_SP, MASS_INVERSE_SLOT, PIVOT_TOL,
                                              PSEUDO, TRIANGULAR, _stack_floats, ball_body_node, ball_element_node,
                                              cholesky_inverse_to, mass_inverse_back, mass_inverse_forward,
                                              mass_inverse_node)
from impulsim.methods.lagrange.forest import BODY, ELEMENT, Forest, build_forest

KERNEL = dict(cache=True, _nrt=False, fastmath={"contract"})
"""Options of the kernels an evaluation runs: without the runtime's reference counting (they never
allocate), since every array passed into an inlined helper would otherwise cost an atomic increment and
decrement of its count, which made up about half of the factorization's time."""


@njit(cache=True, inline="always")
def _own_block(kind, ref, s, body_inv_mass, Iw, A):
    """A = σ_i H_ii: the mass matrix M_k = diag(m E, I_k) of a body, zero for an element."""
    for q in range(s * s):
        A[q] = 0.0
    if kind == BODY:
        m = 1.0 / body_inv_mass[ref]
        for a in range(3):
            A[a * 7] = m
            for b in range(3):
                A[(3 + a) * 6 + 3 + b] = Iw[ref, a, b]


@njit(cache=True, inline="always")
def _add_children(i, s, node_size, node_d, node_h, child_start, children, node_form, Q, Y, A):
    """A += Σ_children Y_cᵀ Y_c (symmetric s×s; upper triangle computed, then mirrored); a mass-inverse
    child has it stored as P_c.

    Children are always of the other kind (σ_i σ_c = −1), so σ_i D_i = σ_i H_ii − σ_i σ_c Σ Y_cᵀ Y_c.
    """
    for n in range(child_start[i], child_start[i + 1]):
        c = children[n]
        if node_form[c] == MASS_INVERSE:
            d0 = node_d[c] + MASS_INVERSE_SLOT
            for a in range(s):
                for b in range(a, s):
                    A[a * s + b] += Q[d0 + a * s + b]
            continue
        sc = node_size[c]
        h0 = node_h[c]
        for r in range(sc):
            y0 = h0 + r * s
            for a in range(s):
                ya = Y[y0 + a]
                for b in range(a, s):
                    A[a * s + b] += ya * Y[y0 + b]
    for a in range(s):
        for b in range(a + 1, s):
            A[b * s + a] = A[a * s + b]


@njit(cache=True, forceinline=True, fastmath={"contract"})
def _cholesky_inverse(A, s, Q, q0):
    """Q = G⁻¹ (lower triangular, s×s row-major at Q[q0:]) with G Gᵀ = A; A is overwritten by G and
    A[s²:s² + s] by the reciprocal pivots. False if a pivot is below PIVOT_TOL × A's largest diagonal entry."""
    big = 0.0
    for a in range(s):
        big = max(big, A[a * s + a])
    return cholesky_inverse_to(A, s, Q, q0, big)


@njit(cache=True)
def _leaf_body_root(inv_mass, Iw, k, work, Q, q0):
    """Q = G⁻¹ of a body without children: its block is M = diag(m E, I), so G = diag(√m E, chol(I)) and
    only the 3×3 inertia block is factorized (the general path gives the same numbers with more work).
    False if a pivot is too small."""
    m = 1.0 / inv_mass
    big = max(m, max(Iw[k, 0, 0], max(Iw[k, 1, 1], Iw[k, 2, 2])))
    if not m > PIVOT_TOL * big:
        return False
    for a in range(3):
        for b in range(3):
            work[a * 3 + b] = Iw[k, a, b]
    if not cholesky_inverse_to(work, 3, work, 12, big):
        return False
    r = 1.0 / np.sqrt(m)
    for q in range(36):
        Q[q0 + q] = 0.0
    for a in range(3):
        Q[q0 + a * 7] = r
        for b in range(a + 1):
            Q[q0 + (3 + a) * 6 + 3 + b] = work[12 + a * 3 + b]
    return True


JACOBI_SWEEPS = 60
"""Most sweeps of :func:`_symmetric_eigen`; a block of size ≤ 6 needs about ten (quadratic convergence)."""


@njit(cache=True)
def _symmetric_eigen(A, s, U):
    """A = U Λ Uᵀ by cyclic Jacobi rotations (A s×s symmetric row-major, overwritten by Λ on its
    diagonal; U s×s row-major, orthogonal). Allocation-free, for the small singular blocks."""
    total = 0.0
    for q in range(s * s):
        U[q] = 0.0
        total += A[q] * A[q]
    for a in range(s):
        U[a * s + a] = 1.0
    for sweep in range(JACOBI_SWEEPS):
        off = 0.0
        for p in range(s):
            for q in range(p + 1, s):
                off += A[p * s + q] * A[p * s + q]
        if not off > 1e-36 * total:     # off-diagonal below ~1e-18 of the norm: round-off level
            return
        for p in range(s - 1):
            for q in range(p + 1, s):
                apq = A[p * s + q]
                if apq == 0.0:
                    continue
                theta = (A[q * s + q] - A[p * s + p]) / (2.0 * apq)
                if abs(theta) > 1e150:
                    t = 0.5 / theta
                else:
                    t = 1.0 / (abs(theta) + np.sqrt(theta * theta + 1.0))
                    t = t if theta >= 0.0 else -t
                c = 1.0 / np.sqrt(t * t + 1.0)
                sn = t * c
                for k in range(s):      # columns p, q of A, then rows p, q, then columns of U
                    akp, akq = A[k * s + p], A[k * s + q]
                    A[k * s + p], A[k * s + q] = c * akp - sn * akq, sn * akp + c * akq
                for k in range(s):
                    apk, aqk = A[p * s + k], A[q * s + k]
                    A[p * s + k], A[q * s + k] = c * apk - sn * aqk, sn * apk + c * aqk
                for k in range(s):
                    ukp, ukq = U[k * s + p], U[k * s + q]
                    U[k * s + p], U[k * s + q] = c * ukp - sn * ukq, sn * ukp + c * ukq


@njit(cache=True)
def _pseudo_root(A, s, Q, q0):
    """Q = Λ⁺^½ Uᵀ from A = U Λ Uᵀ with eigenvalues ≤ PIVOT_TOL·λ_max dropped, so that QᵀQ is the
    pseudo-inverse of A (least squares, minimum norm). A rare path (singular blocks); A holds at least
    2 s² floats (the eigenvectors go to A[s²:]), and is overwritten."""
    U = A[s * s:2 * s * s]
    _symmetric_eigen(A, s, U)
    top = 0.0
    for j in range(s):
        top = max(top, A[j * s + j])
    for j in range(s):
        lam = A[j * s + j]
        f = 1.0 / np.sqrt(lam) if lam > PIVOT_TOL * top else 0.0
        for b in range(s):
            Q[q0 + j * s + b] = f * U[b * s + j]


@njit(cache=True, forceinline=True, fastmath={"contract"})
def _coupling_column(Q, q0, s, sp, full, J, r, c, Y, h0):
    """Column c of Y_i = Q_i H_i,p for a body under an element: H_i,p[:, c] = −J_r (row r on this body)."""
    for a in range(s):
        v = 0.0
        for b in range(s if full else a + 1):
            v += Q[q0 + a * s + b] * J[r, b]
        Y[h0 + a * sp + c] = -v


@njit(cache=True, forceinline=True, fastmath={"contract"})
def _coupling_rows(Q, q0, s, sp, full, J, r, b, Y, h0):
    """Y_i −= Q_i[:, b] J_r for an element over a body: H_i,p[b, :] = −J_r (its b-th row on that body)."""
    for a in range(0 if full else b, s):
        q = Q[q0 + a * s + b]
        for c in range(sp):
            Y[h0 + a * sp + c] -= q * J[r, c]


@njit(cache=True, forceinline=True, fastmath={"contract"})
def _coupling(s, sp, kind, ref, parent_ref, full, element_row_start, row_a, row_Ja, row_Jb, Q, q0, Y, h0):
    """Y_i = Q_i H_i,p (s × sp) straight from the Jacobian blocks: H_i,p = −J_{p,k}ᵀ for a body k under
    element p, −J_{i,k} for an element over body k. Q is lower triangular unless ``full``."""
    if kind == BODY:
        r0 = element_row_start[parent_ref]
        for c in range(sp):
            if row_a[r0 + c] == ref:
                _coupling_column(Q, q0, s, sp, full, row_Ja, r0 + c, c, Y, h0)
            else:
                _coupling_column(Q, q0, s, sp, full, row_Jb, r0 + c, c, Y, h0)
    else:
        r0 = element_row_start[ref]
        for q in range(s * sp):
            Y[h0 + q] = 0.0
        for b in range(s):
            if row_a[r0 + b] == parent_ref:
                _coupling_rows(Q, q0, s, sp, full, row_Ja, r0 + b, b, Y, h0)
            else:
                _coupling_rows(Q, q0, s, sp, full, row_Jb, r0 + b, b, Y, h0)


@njit(cache=True, forceinline=True, fastmath={"contract"})
def _cholesky_of_block(i, s, node_kind, node_ref, node_size, node_d, node_h, child_start, children, node_form,
                       body_inv_mass, Iw, Y, work, Q, d0):
    """Q_i from σ_i D_i = σ_i H_ii + Σ_children Y_cᵀ Y_c, assembled in ``work``; False if singular."""
    _own_block(node_kind[i], node_ref[i], s, body_inv_mass, Iw, work)
    _add_children(i, s, node_size, node_d, node_h, child_start, children, node_form, Q, Y, work)
    return _cholesky_inverse(work, s, Q, d0)


@njit(cache=True)
def _singular_block_root(i, s, node_kind, node_ref, node_size, node_d, node_h, child_start, children, node_form,
                         body_inv_mass, Iw, Y, work, Q, d0):
    """Q_i of a singular block by :func:`_pseudo_root` (the block is assembled again: the Cholesky
    attempt overwrote it). A rare path, compiled once rather than in every fixed-size copy."""
    _own_block(node_kind[i], node_ref[i], s, body_inv_mass, Iw, work)
    _add_children(i, s, node_size, node_d, node_h, child_start, children, node_form, Q, Y, work)
    _pseudo_root(work, s, Q, d0)


@njit(cache=True, forceinline=True, fastmath={"contract"})
def _factor_node(i, s, sp, forest, system, svd, fac):
    """Q_i and Y_i of node i (block size s, parent block size sp, 0 for a root), then its forward step
    on x; False if the block is singular. Groups as for :func:`factor`."""
    (node_kind, node_ref, node_size, node_parent, _, node_x, node_d, node_h, child_start, children,
     element_row_start) = forest
    row_a, row_Ja, row_Jb, body_inv_mass, Iw, _ = system
    Q, Y, node_form, x, work = fac
    d0 = node_d[i]
    node_form[i] = TRIANGULAR
    leaf_body = node_kind[i] == BODY and child_start[i] == child_start[i + 1]
    ok = leaf_body and _leaf_body_root(body_inv_mass[node_ref[i]], Iw, node_ref[i], work, Q, d0)
    if not ok:
        ok = _cholesky_of_block(i, s, node_kind, node_ref, node_size, node_d, node_h, child_start, children,
                                node_form, body_inv_mass, Iw, Y, work, Q, d0)
    if not ok:
        if not svd:
            return False
        _singular_block_root(i, s, node_kind, node_ref, node_size, node_d, node_h, child_start, children,
                             node_form, body_inv_mass, Iw, Y, work, Q, d0)
        node_form[i] = PSEUDO
    p = node_parent[i]
    full = node_form[i] == PSEUDO
    if p >= 0:
        _coupling(s, sp, node_kind[i], node_ref[i], node_ref[p], full, element_row_start, row_a, row_Ja, row_Jb,
                  Q, d0, Y, node_h[i])
    sign = 1.0 if node_kind[i] == BODY else -1.0
    h0, x0, xp = node_h[i], node_x[i], node_x[p] if p >= 0 else 0
    _forward_node(s, sp, sign, full, Q[d0:d0 + s * s], Y[h0:h0 + s * sp], x[x0:x0 + s], x[xp:xp + sp], work)
    return True


@njit(cache=True, forceinline=True, fastmath={"contract"})
def _children_are_ball_elements(i, node_size, child_start, children, node_form):
    """True if every child of node i is a 3-row element with a triangular factor."""
    for n in range(child_start[i], child_start[i + 1]):
        c = children[n]
        if node_size[c] != 3 or node_form[c] != TRIANGULAR:
            return False
    return True


@njit(cache=True, forceinline=True, fastmath={"contract"})
def _factor_special(i, forest, system, fac):
    """The node kernels of :mod:`.blocks` where they fit (leaf bodies, the blocks of ball-joint trees);
    False where they do not or where the block needs the general path's pivot handling. Groups as for
    :func:`factor`."""
    (node_kind, node_ref, node_size, node_parent, _, node_x, node_d, node_h, child_start, children,
     element_row_start) = forest
    row_a, row_Ja, row_Jb, body_inv_mass, Iw, Iw_inv = system
    Q, Y, node_form, x, _ = fac
    p = node_parent[i]
    if p < 0:
        return False
    s, sp = node_size[i], node_size[p]
    form = TRIANGULAR
    if node_kind[i] == BODY and child_start[i] == child_start[i + 1]:
        if sp == 3:
            ok = mass_inverse_node(i, 3, node_ref, node_parent, node_d, node_h, node_x, element_row_start, row_a,
                                   row_Ja, row_Jb, body_inv_mass, Iw, Iw_inv, Q, Y, x)
        elif sp <= MASS_INVERSE_MAX_SP:
            ok = mass_inverse_node(i, sp, node_ref, node_parent, node_d, node_h, node_x, element_row_start, row_a,
                                   row_Ja, row_Jb, body_inv_mass, Iw, Iw_inv, Q, Y, x)
        else:
            ok = False
        form = MASS_INVERSE
    elif node_kind[i] == BODY:
        ok = sp == 3 and _children_are_ball_elements(i, node_size, child_start, children, node_form) and \
            ball_body_node(i, node_ref, node_parent, node_d, node_h, node_x, child_start, children,
                           element_row_start, row_a, row_Ja, row_Jb, body_inv_mass, Iw, Q, Y, x)
    else:
        ok = s == 3 and sp == 6 and child_start[i + 1] - child_start[i] == 1 and \
            node_form[children[child_start[i]]] != PSEUDO and \
            ball_element_node(i, node_ref, node_parent, node_d, node_h, node_x, child_start, children, node_form,
                              element_row_start, row_a, row_Ja, row_Jb, Q, Y, x)
    if ok:
        node_form[i] = form
    return ok


@njit(**KERNEL)
def factor(forest, system, svd, node_kernels,
           # outputs (fac's x: right-hand side in, forward-eliminated z out; finish with back_substitute)
           fac):
    """Block factorization in post-order, each block assembled from its own H_ii and its children's Y,
    with the forward elimination of the right-hand side x done on the way (the data are still in cache).
    Returns −1, or the first node whose block is singular (svd=False). ``forest`` (Baraff's forest),
    ``system`` (the rows' Jacobian blocks and the bodies' masses and world inertias) and ``fac`` (Q, Y,
    node_form, x, work) are the groups of :mod:`.groups`.

    ``work`` holds at least 2 s² floats for the largest node size s (s² + s for the Cholesky factor and
    its reciprocal pivots, 2 s² for a singular block's eigenvectors). ``node_form`` records each node's
    factor: TRIANGULAR (Q = G⁻¹), PSEUDO (with ``svd``, a singular block's pseudo-inverse root of
    :func:`_pseudo_root`: Q is then a full matrix) or MASS_INVERSE (a leaf body, see :mod:`.blocks`).
    Leaf bodies and the ball-joint tree's blocks (bodies 6 under elements 3, elements 3 under bodies 6)
    go through the fixed-size kernels of :mod:`.blocks` (unless ``node_kernels`` is False); everything
    else, and any block those find singular, through the general path.
    """
    node_size, node_parent, order = forest[2], forest[3], forest[4]
    for i in order:
        if node_kernels and _factor_special(i, forest, system, fac):
            continue
        p = node_parent[i]
        if not _factor_node(i, node_size[i], node_size[p] if p >= 0 else 0, forest, system, svd, fac):
            return i
    return -1


@njit(cache=True, inline="always")
def _forward_node(s, sp, sign, full, Qi, Yi, xi, xp, work):
    """z_i = Q_i x_i in place; x_p −= σ_i Y_iᵀ z_i (sp = 0 for a root). Qi, Yi: the node's blocks;
    xi, xp: its and its parent's parts of x."""
    for a in range(s):
        v = 0.0
        for b in range(s if full else a + 1):
            v += Qi[a * s + b] * xi[b]
        work[a] = v
    for a in range(s):
        xi[a] = work[a]
    for c in range(sp):
        v = 0.0
        for a in range(s):
            v += Yi[a * sp + c] * work[a]
        xp[c] -= sign * v


@njit(cache=True, inline="always")
def _back_node(s, sp, sign, full, Qi, Yi, xi, xp, work):
    """x_i = σ_i Q_iᵀ (z_i − Y_i x_p) (sp = 0 for a root); arguments as for :func:`_forward_node`."""
    for a in range(s):
        v = xi[a]
        for c in range(sp):
            v -= Yi[a * sp + c] * xp[c]
        work[a] = v
    for b in range(s):
        v = 0.0
        for a in range(0 if full else b, s):
            v += Qi[a * s + b] * work[a]
        xi[b] = sign * v


@njit(**KERNEL)
def solve(order, node_kind, node_size, node_parent, node_x, node_d, node_h, node_form, Q, Y, work,
          # outputs (right-hand side in, solution out)
          x):
    """Solve H x = rhs with the factorization of :func:`factor` (D_i⁻¹ = σ_i Q_iᵀ Q_i):
    forward in post-order z_i = Q_i x_i, x_p −= σ_i Y_iᵀ z_i; back, parents first, x_i = σ_i Q_iᵀ (z_i − Y_i x_p).
    """
    for i in order:         # a rare path (loops): the general copy only
        p = node_parent[i]
        sp = node_size[p] if p >= 0 else 0
        if node_form[i] == MASS_INVERSE:
            q0, h0, x0, xp = node_d[i], node_h[i], node_x[i], node_x[p]
            mass_inverse_forward(sp, Q[q0:q0 + MASS_INVERSE_SLOT], Y[h0:h0 + 6 * sp], x[x0:x0 + 6], x[xp:xp + sp])
            continue
        s = node_size[i]
        q0, h0, x0, xp = node_d[i], node_h[i], node_x[i], node_x[p] if p >= 0 else 0
        _forward_node(s, sp, 1.0 if node_kind[i] == BODY else -1.0, node_form[i] == PSEUDO, Q[q0:q0 + s * s],
                      Y[h0:h0 + s * sp], x[x0:x0 + s], x[xp:xp + sp], work)
    back_substitute(order, node_kind, node_size, node_parent, node_x, node_d, node_h, node_form, Q, Y, work, x)


@njit(**KERNEL)
def back_substitute(order, node_kind, node_size, node_parent, node_x, node_d, node_h, node_form, Q, Y, work,
                    # outputs (forward-eliminated z in, solution out)
                    x):
    """The back pass of :func:`solve`, parents first: x_i = σ_i Q_iᵀ (z_i − Y_i x_p) (mass-inverse nodes:
    x_i −= W_i x_p), with fixed-size copies for the ball-joint tree's blocks."""
    for n in range(order.shape[0] - 1, -1, -1):
        i = order[n]
        s = node_size[i]
        p = node_parent[i]
        sp = node_size[p] if p >= 0 else 0
        xp = node_x[p] if p >= 0 else 0
        sign = 1.0 if node_kind[i] == BODY else -1.0
        form = node_form[i]
        full = form == PSEUDO
        x0, q0, h0 = node_x[i], node_d[i], node_h[i]
        if form == MASS_INVERSE:
            if sp == 3:
                mass_inverse_back(3, Y[h0:h0 + 18], x[x0:x0 + 6], x[xp:xp + 3])
            else:
                mass_inverse_back(sp, Y[h0:h0 + 6 * sp], x[x0:x0 + 6], x[xp:xp + sp])
        elif s == 6 and sp == 3 and not full:
            _back_node(6, 3, sign, False, Q[q0:q0 + 36], Y[h0:h0 + 18], x[x0:x0 + 6], x[xp:xp + 3],
                       _stack_floats(6))
        elif s == 3 and sp == 6 and not full:
            _back_node(3, 6, sign, False, Q[q0:q0 + 9], Y[h0:h0 + 18], x[x0:x0 + 3], x[xp:xp + 6],
                       _stack_floats(3))
        else:
            _back_node(s, sp, sign, full, Q[q0:q0 + s * s], Y[h0:h0 + s * sp], x[x0:x0 + s], x[xp:xp + sp], work)


@njit(**KERNEL)
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


@njit(**KERNEL)
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


@njit(**KERNEL)
def secondary_responses(secondary_rows, body_node, row_a, row_b, row_Ja, row_Jb, forest, fac,
                        # outputs
                        resp_acc, resp_lam, K):
    """Per unit multiplier of each secondary row s: the accelerations (resp_acc[s]) and primary
    multipliers (resp_lam[s]) it causes through the primary system, and K[t, s] = J_t Δv̇_s.
    ``body_node``: each body's node (−1: none); ``forest`` and ``fac`` (the factorization of
    :func:`factor`, its x and work used as scratch) are the groups of :mod:`.groups`."""
    (node_kind, node_ref, node_size, node_parent, order, node_x, node_d, node_h, _, _,
     element_row_start) = forest
    Q, Y, node_form, x, work = fac
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
        solve(order, node_kind, node_size, node_parent, node_x, node_d, node_h, node_form, Q, Y, work, x)
        unload_solution(node_kind, node_ref, node_x, element_row_start, x, resp_acc[s], resp_lam[s])
    for t in range(k):
        rt = secondary_rows[t]
        for s in range(k):
            v = 0.0
            for a in range(6):
                v += row_Ja[rt, a] * resp_acc[s, row_a[rt], a] + row_Jb[rt, a] * resp_acc[s, row_b[rt], a]
            K[t, s] = v
