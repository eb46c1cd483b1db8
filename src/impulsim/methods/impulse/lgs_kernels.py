"""Numba kernels of the LGS system M x = Δv (Bender 3.3.2): Jacobian rows, assembly, factorization, solve.

Each primitive i ("node") acts on its bodies A (side 0, sign s = +1) and B (side 1, s = −1). Row a of
its projection P (a unit vector p_a) gives one scalar constraint. On a body with lever r from the centre
of mass to the impulse point, the row's velocity and impulse maps are

    J row = s [p_a, r × p_a]            (translational: the point velocity v + ω × r along p_a)
    J row = s [0, p_a]                  (rotational: the angular velocity along p_a)
    Y col = M⁻¹ J rowᵀ = s [p_a / m, J⁻¹ (r × p_a)]  or  s [0, J⁻¹ p_a]

so block (i, j) = Σ over shared dynamic bodies J_i Y_j, which is P_i M̃_ij P_jᵀ with M̃_ij one of
K_{a,b} = (1/m) E − r_a* J⁻¹ r_b*, L = J⁻¹, W = J⁻¹ r_b*, U = −r_a* J⁻¹ (eq. 3.9–3.12) with the signs of
the seven body-sharing cases. The arrays ``node_lin``, ``node_ang`` hold s·p_a and s·(r × p_a) (or s·p_a),
``node_angw`` holds J⁻¹ times the latter; rows a ≥ f of a primitive with f rows are zero. A ball node's
``node_lin`` is ±E at every pose and is written once (:func:`ball_lin_rows`).

Blocks are 3×3 whatever the rows of their nodes (a hinge's direction constraint has two): the padding rows
and columns are zero and the loops run over all three. Loops over the true row counts were measured slower
(factorization 1.3–1.4×, solve 1.3× as long on the chain, the triple pendulum and tree 63, even with the
common counts dispatched to constant-size code): the padded loops compile to straight-line code. Only the
Jacobian rows are computed for a primitive's own rows (the padding rows stay zero from the allocation on).

The factorization is a block LDLᵀ, M = L D Lᵀ, over the precomputed pattern (``lgs_structure``). The
diagonal blocks D_k are inverted by a scalar LDLᵀ that drops a row whose pivot falls below
``dep_tol`` times its original diagonal entry: such a row depends linearly on rows eliminated before it
(a redundant constraint of a closed loop), and dropping it gives it zero impulse, as if the joint had been
replaced by one that removes only the independent freedoms.
"""
import numpy as np

from impulsim.kernel import njit
from impulsim.methods.impulse.jit import NO_REFCOUNT
from impulsim.math.vec import v3, q4
from impulsim.dynamics.prim_errors import ball_points
from impulsim.dynamics.prims import BALL, is_translational
from impulsim.methods.impulse.rows import prim_geometry


@njit(cache=True, forceinline=True)
def _ball_rows(n, side, r0, r1, r2, Iinv,
               # outputs
               node_ang, node_angw):
    """J and Y rows of ball node n on one side (projection P = E): s (r × e_a) and s J⁻¹ (r × e_a),
    with r × e_x = (0, r_z, −r_y), r × e_y = (−r_z, 0, r_x), r × e_z = (r_y, −r_x, 0); the zero terms of
    the general form are left out (same values). The linear rows s e_a never change: :func:`ball_lin_rows`
    writes them once."""
    s = 1.0 if side == 0 else -1.0
    c = ((0.0, r2, -r1), (-r2, 0.0, r0), (r1, -r0, 0.0))
    for a in range(3):
        for q in range(3):
            node_ang[n, side, a, q] = s * c[a][q]
    for q in range(3):
        i0, i1, i2 = Iinv[q, 0], Iinv[q, 1], Iinv[q, 2]      # read once, before the stores
        node_angw[n, side, 0, q] = s * (i1 * r2 - i2 * r1)
        node_angw[n, side, 1, q] = s * (i2 * r0 - i0 * r2)
        node_angw[n, side, 2, q] = s * (i0 * r1 - i1 * r0)


def ball_lin_rows(node_prim, prim_kind, node_lin):
    """The constant linear rows s e_a (s = +1 on body A, −1 on body B) of every ball node."""
    for n, i in enumerate(node_prim):
        if prim_kind[i] == BALL:
            node_lin[n, 0] = np.eye(3)
            node_lin[n, 1] = -np.eye(3)


@njit(cache=True, **NO_REFCOUNT)
def node_jacobians(node_prim, prim_kind, prim_body_a, prim_body_b, prim_anchor_a, prim_anchor_b, prim_axis_a,
                   prim_axis_b, body_pos, body_quat, body_Iinv,
                   # outputs
                   row_ra, row_rb, row_P, row_dim, node_lin, node_ang, node_angw):
    """Impulse points and projections of every node's primitive, and its J and Y rows (see module
    docstring, shape [n, 2, 3, 3]), at the current poses."""
    for n in range(node_prim.shape[0]):
        i = node_prim[n]
        if prim_kind[i] == BALL:
            A, B = prim_body_a[i], prim_body_b[i]
            ra, rb, _ = ball_points(v3(body_pos[A]), q4(body_quat[A]), v3(body_pos[B]), q4(body_quat[B]),
                                    v3(prim_anchor_a[i]), v3(prim_anchor_b[i]))
            for a in range(3):
                row_ra[i, a] = ra[a]
                row_rb[i, a] = rb[a]
                for b in range(3):
                    row_P[i, a, b] = 1.0 if a == b else 0.0
            row_dim[i] = 3
            _ball_rows(n, 0, ra[0], ra[1], ra[2], body_Iinv[A], node_ang, node_angw)
            _ball_rows(n, 1, rb[0], rb[1], rb[2], body_Iinv[B], node_ang, node_angw)
            continue
        prim_geometry(i, prim_kind, prim_body_a, prim_body_b, prim_anchor_a, prim_anchor_b, prim_axis_a,
                      prim_axis_b, body_pos, body_quat, row_ra, row_rb, row_P, row_dim)
        trans = is_translational(prim_kind[i])
        f = row_dim[i]
        for side in range(2):
            k = prim_body_a[i] if side == 0 else prim_body_b[i]
            s = 1.0 if side == 0 else -1.0
            W = body_Iinv[k]
            w00, w01, w02, w10, w11, w12, w20, w21, w22 = W[0, 0], W[0, 1], W[0, 2], W[1, 0], W[1, 1], W[1, 2], \
                W[2, 0], W[2, 1], W[2, 2]           # read once, before the stores
            for a in range(f):               # rows a >= f stay zero (a primitive's row count never changes)
                p0, p1, p2 = row_P[i, a, 0], row_P[i, a, 1], row_P[i, a, 2]
                if trans:
                    r0 = row_ra[i, 0] if side == 0 else row_rb[i, 0]
                    r1 = row_ra[i, 1] if side == 0 else row_rb[i, 1]
                    r2 = row_ra[i, 2] if side == 0 else row_rb[i, 2]
                    c0, c1, c2 = r1 * p2 - r2 * p1, r2 * p0 - r0 * p2, r0 * p1 - r1 * p0
                    node_lin[n, side, a, 0] = s * p0
                    node_lin[n, side, a, 1] = s * p1
                    node_lin[n, side, a, 2] = s * p2
                else:
                    c0, c1, c2 = p0, p1, p2
                    node_lin[n, side, a, 0] = 0.0
                    node_lin[n, side, a, 1] = 0.0
                    node_lin[n, side, a, 2] = 0.0
                node_ang[n, side, a, 0] = s * c0
                node_ang[n, side, a, 1] = s * c1
                node_ang[n, side, a, 2] = s * c2
                node_angw[n, side, a, 0] = s * (w00 * c0 + w01 * c1 + w02 * c2)
                node_angw[n, side, a, 1] = s * (w10 * c0 + w11 * c1 + w12 * c2)
                node_angw[n, side, a, 2] = s * (w20 * c0 + w21 * c1 + w22 * c2)


@njit(cache=True, **NO_REFCOUNT)
def assemble(node_prim, node_trans, prim_body_a, prim_body_b, body_inv_mass, node_lin, node_ang, node_angw,
             term_target, term_row, term_row_side, term_col, term_col_side,
             # outputs
             asm_diag, asm_off):
    """Blocks of M: zero them, then add J(row node) · Y(col node) for every term (shared dynamic body):
    w p_a·p_b (both translational) + (r × p_a)·J⁻¹(r' × p_b), with the sides' signs. node_trans is 2 for a
    translational node whose projection is the identity (ball), where w p_a·p_b = ±w δ_ab."""
    asm_diag[:] = 0.0
    asm_off[:] = 0.0
    for t in range(term_target.shape[0]):
        n1, s1 = term_row[t], term_row_side[t]
        n2, s2 = term_col[t], term_col_side[t]
        i = node_prim[n2]
        w = body_inv_mass[prim_body_a[i] if s2 == 0 else prim_body_b[i]]
        lin = node_trans[n1] > 0 and node_trans[n2] > 0
        identity = node_trans[n1] == 2 and node_trans[n2] == 2
        tg = term_target[t]
        dst = asm_diag[-1 - tg] if tg < 0 else asm_off[tg]
        G, Gw = node_ang[n1, s1], node_angw[n2, s2]
        # a node's own body term is a symmetric block: its lower half, mirrored below (the factorization
        # reads only the lower half and the diagonal, so the values it uses are unchanged)
        own = n1 == n2 and s1 == s2
        if identity:
            wd = w if s1 == s2 else -w
            for a in range(3):
                dst[a, a] += wd
        # the column node's rows in locals, read before the stores (which the compiler cannot tell apart
        # from them): Gw row b, and for two general translational nodes the linear row b
        y00, y01, y02, y10, y11, y12, y20, y21, y22 = Gw[0, 0], Gw[0, 1], Gw[0, 2], Gw[1, 0], Gw[1, 1], \
            Gw[1, 2], Gw[2, 0], Gw[2, 1], Gw[2, 2]
        add_lin = lin and not identity
        La = node_lin[n1, s1]
        m00 = m01 = m02 = m10 = m11 = m12 = m20 = m21 = m22 = 0.0
        if add_lin:
            Lb = node_lin[n2, s2]
            m00, m01, m02, m10, m11, m12, m20, m21, m22 = Lb[0, 0], Lb[0, 1], Lb[0, 2], Lb[1, 0], Lb[1, 1], \
                Lb[1, 2], Lb[2, 0], Lb[2, 1], Lb[2, 2]
        for a in range(3):
            g0, g1, g2 = G[a, 0], G[a, 1], G[a, 2]
            dst[a, 0] += _term_entry(g0, g1, g2, y00, y01, y02, add_lin, w, La, a, m00, m01, m02)
            if a >= 1 or not own:
                dst[a, 1] += _term_entry(g0, g1, g2, y10, y11, y12, add_lin, w, La, a, m10, m11, m12)
            if a >= 2 or not own:
                dst[a, 2] += _term_entry(g0, g1, g2, y20, y21, y22, add_lin, w, La, a, m20, m21, m22)
    _mirror_lower(asm_diag)


@njit(cache=True, forceinline=True)
def _term_entry(g0, g1, g2, y0, y1, y2, add_lin, w, La, a, m0, m1, m2):
    """Entry (a, b) of an assembly term: (r × p_a)·J⁻¹(r' × p_b) = g·y, plus w p_a·p_b = w La[a]·m for two
    general translational nodes (g: row a of the row node's J rows, y and m: row b of the column node's)."""
    v = g0 * y0 + g1 * y1 + g2 * y2
    if add_lin:
        v += w * (La[a, 0] * m0 + La[a, 1] * m1 + La[a, 2] * m2)
    return v


@njit(cache=True, **NO_REFCOUNT)
def _mirror_lower(blocks):
    """Upper half of every symmetric 3×3 block from its lower half."""
    for k in range(blocks.shape[0]):
        blocks[k, 0, 1] = blocks[k, 1, 0]
        blocks[k, 0, 2] = blocks[k, 2, 0]
        blocks[k, 1, 2] = blocks[k, 2, 1]


@njit(cache=True, forceinline=True)
def _keep(piv, orig, dep_tol):
    """A pivot is kept if its row is real (orig > 0) and not dependent (piv > dep_tol · orig)."""
    return orig > 0.0 and piv > dep_tol * orig


@njit(cache=True, forceinline=True)
def pseudo_inverse(k, fac_diag, asm_diag, dep_tol,
                   # outputs
                   fac_diag_inv):
    """fac_diag_inv[k] = D⁺ of the symmetric 3×3 block fac_diag[k] via D = L diag(d) Lᵀ; returns rows dropped.

    Row r is dropped (d_r = 0: zero impulse, no coupling) when its pivot is at most dep_tol times its
    original diagonal entry asm_diag[k, r, r], or when that entry is zero (padding rows of primitives with
    fewer than three rows). D⁺ = L⁻ᵀ diag(1/d) L⁻¹ over the kept rows.
    """
    o0, o1, o2 = asm_diag[k, 0, 0], asm_diag[k, 1, 1], asm_diag[k, 2, 2]
    D00, D10, D20 = fac_diag[k, 0, 0], fac_diag[k, 1, 0], fac_diag[k, 2, 0]
    D11, D21, D22 = fac_diag[k, 1, 1], fac_diag[k, 2, 1], fac_diag[k, 2, 2]
    dropped = 0
    i0 = i1 = i2 = 0.0
    l10 = l20 = l21 = 0.0
    if _keep(D00, o0, dep_tol):
        i0 = 1.0 / D00
        l10 = D10 * i0
        l20 = D20 * i0
    elif o0 > 0.0:
        dropped += 1
    p1 = D11 - l10 * l10 * D00
    if _keep(p1, o1, dep_tol):
        i1 = 1.0 / p1
        l21 = (D21 - l20 * l10 * D00) * i1
    elif o1 > 0.0:
        dropped += 1
    p2 = D22 - l20 * l20 * D00 - l21 * l21 * p1      # l20 = 0 or l21 = 0 where a row was dropped
    if _keep(p2, o2, dep_tol):
        i2 = 1.0 / p2
    elif o2 > 0.0:
        dropped += 1
    # rows of L⁻¹: (1, 0, 0), (m10, 1, 0), (m20, m21, 1)
    m10 = -l10
    m21 = -l21
    m20 = l10 * l21 - l20
    P00 = i0 + m10 * m10 * i1 + m20 * m20 * i2
    P01 = m10 * i1 + m20 * m21 * i2
    P02 = m20 * i2
    P11 = i1 + m21 * m21 * i2
    P12 = m21 * i2
    fac_diag_inv[k, 0, 0] = P00
    fac_diag_inv[k, 0, 1] = fac_diag_inv[k, 1, 0] = P01
    fac_diag_inv[k, 0, 2] = fac_diag_inv[k, 2, 0] = P02
    fac_diag_inv[k, 1, 1] = P11
    fac_diag_inv[k, 1, 2] = fac_diag_inv[k, 2, 1] = P12
    fac_diag_inv[k, 2, 2] = i2
    return dropped


@njit(cache=True, **NO_REFCOUNT)
def _copy_blocks(src, b0, b1, dst):
    """dst[b0:b1] = src[b0:b1] for arrays of 3×3 blocks (element loops: no shape checks to compile)."""
    for t in range(b0, b1):
        for a in range(3):
            for b in range(3):
                dst[t, a, b] = src[t, a, b]


@njit(cache=True, **NO_REFCOUNT)
def factorize(n0, n1, asm_diag, asm_off, col_ptr, off_row, upd_ptr, upd_a, upd_b, upd_target, dep_tol,
              # outputs
              fac_diag_inv, fac_off, tmp, fac_diag):
    """Block LDLᵀ of nodes n0 .. n1-1 (one or more whole chains). Returns the number of rows dropped.

    On return fac_off holds L (blocks L_ik = A_ik D_k⁺) and fac_diag_inv the D_k⁺. The same factorization
    serves the joint and the velocity correction (Bender 3.3.2.1).
    """
    dropped = 0
    _copy_blocks(asm_diag, n0, n1, fac_diag)
    _copy_blocks(asm_off, col_ptr[n0], col_ptr[n1], fac_off)
    for k in range(n0, n1):
        dropped += pseudo_inverse(k, fac_diag, asm_diag, dep_tol, fac_diag_inv)
        c0 = col_ptr[k]
        if col_ptr[k + 1] == c0:
            continue            # no blocks below the diagonal (a root)
        # (blocks are read into locals before the stores that use them: the compiler cannot tell that a
        # store does not change them and would read them again after each)
        D = fac_diag_inv[k]
        d00, d01, d02, d10, d11, d12, d20, d21, d22 = D[0, 0], D[0, 1], D[0, 2], D[1, 0], D[1, 1], D[1, 2], \
            D[2, 0], D[2, 1], D[2, 2]
        # L_ik = A_ik D_k⁺ for the blocks below the diagonal
        for t in range(c0, col_ptr[k + 1]):
            L = tmp[t - c0]
            for a in range(3):
                b0, b1, b2 = fac_off[t, a, 0], fac_off[t, a, 1], fac_off[t, a, 2]
                L[a, 0] = b0 * d00 + b1 * d10 + b2 * d20
                L[a, 1] = b0 * d01 + b1 * d11 + b2 * d21
                L[a, 2] = b0 * d02 + b1 * d12 + b2 * d22
        # Schur update: block(i, j) −= L_ik A_jkᵀ for every pair i ≥ j below k
        for u in range(upd_ptr[k], upd_ptr[k + 1]):
            tg = upd_target[u]
            L = tmp[upd_a[u]]
            B = fac_off[upd_b[u]]
            e00, e01, e02, e10, e11, e12, e20, e21, e22 = B[0, 0], B[0, 1], B[0, 2], B[1, 0], B[1, 1], B[1, 2], \
                B[2, 0], B[2, 1], B[2, 2]
            lower = tg < 0           # a diagonal block: its lower half (all that pseudo_inverse reads)
            dst = fac_diag[-1 - tg] if lower else fac_off[tg]
            for a in range(3):
                l0, l1, l2 = L[a, 0], L[a, 1], L[a, 2]
                dst[a, 0] -= l0 * e00 + l1 * e01 + l2 * e02
                if a >= 1 or not lower:
                    dst[a, 1] -= l0 * e10 + l1 * e11 + l2 * e12
                if a >= 2 or not lower:
                    dst[a, 2] -= l0 * e20 + l1 * e21 + l2 * e22
        for t in range(c0, col_ptr[k + 1]):
            for a in range(3):
                for b in range(3):
                    fac_off[t, a, b] = tmp[t - c0, a, b]
    return dropped


@njit(cache=True, forceinline=True, **NO_REFCOUNT)
def solve(n0, n1, fac_diag_inv, fac_off, col_ptr, off_row, x):
    """x ← M⁺ x for nodes n0 .. n1-1: forward substitution with L, D⁺, back substitution with Lᵀ."""
    for k in range(n0, n1):
        x0, x1, x2 = x[k, 0], x[k, 1], x[k, 2]
        for t in range(col_ptr[k], col_ptr[k + 1]):
            r = off_row[t]
            for a in range(3):
                x[r, a] -= fac_off[t, a, 0] * x0 + fac_off[t, a, 1] * x1 + fac_off[t, a, 2] * x2
        D = fac_diag_inv[k]
        for a in range(3):
            x[k, a] = D[a, 0] * x0 + D[a, 1] * x1 + D[a, 2] * x2
    for k in range(n1 - 1, n0 - 1, -1):
        for t in range(col_ptr[k], col_ptr[k + 1]):
            r = off_row[t]
            y0, y1, y2 = x[r, 0], x[r, 1], x[r, 2]
            for b in range(3):
                x[k, b] -= fac_off[t, 0, b] * y0 + fac_off[t, 1, b] * y1 + fac_off[t, 2, b] * y2


@njit(cache=True, forceinline=True, **NO_REFCOUNT)
def apply_node_impulses(n0, n1, node_prim, node_trans, prim_body_a, prim_body_b, body_inv_mass, node_lin, node_angw,
                        x,
                        # outputs
                        body_vel, body_omega):
    """Velocity changes Y x of the solved impulses: Δv = s P_a x_a / m, Δω = J⁻¹ (r × P) s x (per side)."""
    for n in range(n0, n1):
        i = node_prim[n]
        x0, x1, x2 = x[n, 0], x[n, 1], x[n, 2]
        ball = node_trans[n] == 2
        for side in range(2):
            k = prim_body_a[i] if side == 0 else prim_body_b[i]
            w = body_inv_mass[k]
            if w == 0.0:
                continue
            s = 1.0 if side == 0 else -1.0
            for q in range(3):
                if ball:
                    # P = E: the row sum is s x_q (the same value without the products with zeros)
                    body_vel[k, q] += w * (s * x[n, q])
                else:
                    body_vel[k, q] += w * (node_lin[n, side, 0, q] * x0 + node_lin[n, side, 1, q] * x1
                                           + node_lin[n, side, 2, q] * x2)
                body_omega[k, q] += (node_angw[n, side, 0, q] * x0 + node_angw[n, side, 1, q] * x1
                                     + node_angw[n, side, 2, q] * x2)


@njit(cache=True, **NO_REFCOUNT)
def build_and_factorize(struct, prims, bodies, dep_tol,
                        # outputs
                        rows, fac):
    """Geometry and Jacobian rows (into ``rows``), assembly and factorization (into ``fac``) of all nodes at
    the current poses, with the world inverse inertias of ``bodies`` (one call per step; groups: see
    :mod:`groups`). Returns the number of dependent rows dropped."""
    node_prim, node_trans, term_target, term_row, term_row_side, term_col, term_col_side, col_ptr, off_row, \
        upd_ptr, upd_a, upd_b, upd_target = struct
    prim_kind, prim_body_a, prim_body_b, prim_anchor_a, prim_anchor_b, prim_axis_a, prim_axis_b, _, _, _ = prims
    body_pos, body_quat, _, _, _, _, body_Iinv, _, _, body_inv_mass, _ = bodies
    row_ra, row_rb, row_P, row_dim, _, _, _ = rows
    node_lin, node_ang, node_angw, asm_diag, asm_off, fac_diag_inv, fac_off, tmp, fac_diag, _, _, _ = fac
    node_jacobians(node_prim, prim_kind, prim_body_a, prim_body_b, prim_anchor_a, prim_anchor_b, prim_axis_a,
                   prim_axis_b, body_pos, body_quat, body_Iinv, row_ra, row_rb, row_P, row_dim, node_lin, node_ang,
                   node_angw)
    assemble(node_prim, node_trans, prim_body_a, prim_body_b, body_inv_mass, node_lin, node_ang, node_angw,
             term_target, term_row, term_row_side, term_col, term_col_side, asm_diag, asm_off)
    return factorize(0, node_prim.shape[0], asm_diag, asm_off, col_ptr, off_row, upd_ptr, upd_a, upd_b, upd_target,
                     dep_tol, fac_diag_inv, fac_off, tmp, fac_diag)


@njit(cache=True, **NO_REFCOUNT)
def same_poses(body_pos, body_quat, cache_pos, cache_quat):
    """True if every body's position and orientation equal the cached ones exactly."""
    for k in range(body_pos.shape[0]):
        for i in range(3):
            if body_pos[k, i] != cache_pos[k, i]:
                return False
        for i in range(4):
            if body_quat[k, i] != cache_quat[k, i]:
                return False
    return True
