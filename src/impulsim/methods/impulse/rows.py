"""Per-constraint geometry at one time instant: impulse points, projection P and (P K Pᵀ)⁻¹.

For a translational primitive the impulse p acts at a (on A, +p) and b (on B, −p), and
    K = K_aa(A) + K_bb(B),  K_aa = (1/m) E₃ − r_a* J⁻¹ r_a*          (Bender eq. 3.9)
For a rotational primitive the angular impulse l acts +l on A, −l on B, and L = J_A⁻¹ + J_B⁻¹ (eq. 3.10).
A primitive removing f degrees of freedom has a projection P ∈ ℝ^{f×3} (rows stored in row_P[i, :f]);
the solver needs M_i = P K Pᵀ (or P L Pᵀ) and its inverse (eq. 3.15, 3.16, 3.20, 3.21).
"""
import numpy as np
from numba import njit

from impulsim.math.vec import v3, q4, sub, scale, cross, norm, qrot, perpendicular_basis
from impulsim.math.quaternion import quat_to_matrix
from impulsim.methods.impulse.prims import (BALL, DISTANCE, LINE, PLANE, ROTATION_LOCK, DIRECTION,
                                            DOUBLE_ROTATION, VEL_POINT, VEL_ANGULAR, is_translational)
from impulsim.methods.impulse.errors import impulse_points_t


@njit(cache=True)
def world_inverse_inertia(body_quat, body_inv_inertia, out):
    """J⁻¹ = R J_l⁻¹ Rᵀ for every body, world frame [1/(kg m²)], out shape [n, 3, 3]."""
    for k in range(body_quat.shape[0]):
        d = body_inv_inertia[k]
        if d[0] == 0.0 and d[1] == 0.0 and d[2] == 0.0:
            out[k] = 0.0
            continue
        R = quat_to_matrix(body_quat[k])
        for i in range(3):
            for j in range(i, 3):
                s = R[i, 0] * d[0] * R[j, 0] + R[i, 1] * d[1] * R[j, 1] + R[i, 2] * d[2] * R[j, 2]
                out[k, i, j] = s
                out[k, j, i] = s


@njit(cache=True)
def impulse_points(kind, pos_a, q_a, pos_b, q_b, anchor_a, anchor_b, axis_a):
    """Array-argument form of impulse_points_t: world points a (on A) and b (on B)."""
    a, b = impulse_points_t(kind, v3(pos_a), q4(q_a), v3(pos_b), q4(q_b), v3(anchor_a), v3(anchor_b),
                            v3(axis_a))
    return np.array(a), np.array(b)


@njit(cache=True)
def _set_row(P, r, v):
    P[r, 0] = v[0]
    P[r, 1] = v[1]
    P[r, 2] = v[2]


@njit(cache=True)
def projection(kind, a, b, q_a, q_b, axis_a, axis_b, P):
    """Fill the rows of P (3×3 array) for a primitive; return the number of rows f."""
    P[:, :] = 0.0
    if kind == BALL or kind == VEL_POINT or kind == ROTATION_LOCK or kind == VEL_ANGULAR:
        P[0, 0] = 1.0
        P[1, 1] = 1.0
        P[2, 2] = 1.0
        return 3
    if kind == DISTANCE:
        d = sub(v3(b), v3(a))
        n = norm(d)
        _set_row(P, 0, scale(d, 1.0 / n) if n > 1e-15 else (1.0, 0.0, 0.0))
        return 1
    xa = qrot(q4(q_a), v3(axis_a))
    if kind == PLANE:
        _set_row(P, 0, xa)
        return 1
    if kind == DOUBLE_ROTATION:
        z = cross(xa, qrot(q4(q_b), v3(axis_b)))
        n = norm(z)
        if n > 1e-15:
            _set_row(P, 0, scale(z, 1.0 / n))
        else:
            y, _ = perpendicular_basis(xa)
            _set_row(P, 0, y)
        return 1
    # LINE and DIRECTION: the plane perpendicular to A's axis
    y, z = perpendicular_basis(xa)
    _set_row(P, 0, y)
    _set_row(P, 1, z)
    return 2


@njit(cache=True)
def add_k_body(inv_mass, Iinv, r, K):
    """K += (1/m) E − r* J⁻¹ r*  (Bender eq. 3.9 with a = b at offset r from the centre of mass)."""
    if inv_mass == 0.0:
        return
    # −r* J⁻¹ r*: column j is −r × (J⁻¹ (r × e_j))
    for j in range(3):
        e = (1.0 if j == 0 else 0.0, 1.0 if j == 1 else 0.0, 1.0 if j == 2 else 0.0)
        c = cross(r, e)
        w = (Iinv[0, 0] * c[0] + Iinv[0, 1] * c[1] + Iinv[0, 2] * c[2],
             Iinv[1, 0] * c[0] + Iinv[1, 1] * c[1] + Iinv[1, 2] * c[2],
             Iinv[2, 0] * c[0] + Iinv[2, 1] * c[1] + Iinv[2, 2] * c[2])
        col = cross(w, r)
        K[0, j] += col[0]
        K[1, j] += col[1]
        K[2, j] += col[2]
        K[j, j] += inv_mass


@njit(cache=True)
def invert_small(M, f, out):
    """Inverse of the leading f×f block of a symmetric positive (semi)definite M; zeros if singular."""
    out[:, :] = 0.0
    if f == 1:
        if M[0, 0] > 0.0:
            out[0, 0] = 1.0 / M[0, 0]
    elif f == 2:
        det = M[0, 0] * M[1, 1] - M[0, 1] * M[1, 0]
        if det > 0.0:
            out[0, 0] = M[1, 1] / det
            out[1, 1] = M[0, 0] / det
            out[0, 1] = -M[0, 1] / det
            out[1, 0] = -M[1, 0] / det
    else:
        a, b, c = M[0, 0], M[0, 1], M[0, 2]
        d, e, g = M[1, 1], M[1, 2], M[2, 2]
        c00 = d * g - e * e
        c01 = c * e - b * g
        c02 = b * e - c * d
        det = a * c00 + b * c01 + c * c02
        if det > 0.0:
            out[0, 0] = c00 / det
            out[0, 1] = out[1, 0] = c01 / det
            out[0, 2] = out[2, 0] = c02 / det
            out[1, 1] = (a * g - c * c) / det
            out[1, 2] = out[2, 1] = (b * c - a * e) / det
            out[2, 2] = (a * d - b * b) / det


@njit(cache=True)
def project_matrix(P, K, f, M):
    """M[:f, :f] = P K Pᵀ for the first f rows of P."""
    for r in range(f):
        for c in range(f):
            s = 0.0
            for i in range(3):
                for j in range(3):
                    s += P[r, i] * K[i, j] * P[c, j]
            M[r, c] = s


@njit(cache=True)
def compute_rows(prim_kind, prim_body_a, prim_body_b, prim_anchor_a, prim_anchor_b, prim_axis_a,
                 prim_axis_b, body_pos, body_quat, body_inv_mass, body_Iinv,
                 # outputs
                 row_ra, row_rb, row_P, row_dim, row_Minv):
    """Impulse points, projections and inverse projected matrices of every primitive, now."""
    K = np.zeros((3, 3))
    M = np.zeros((3, 3))
    for i in range(prim_kind.shape[0]):
        kind = prim_kind[i]
        A = prim_body_a[i]
        B = prim_body_b[i]
        K[:, :] = 0.0
        if is_translational(kind):
            a, b = impulse_points_t(kind, v3(body_pos[A]), q4(body_quat[A]), v3(body_pos[B]), q4(body_quat[B]),
                                    v3(prim_anchor_a[i]), v3(prim_anchor_b[i]), v3(prim_axis_a[i]))
            ra = sub(a, v3(body_pos[A]))
            rb = sub(b, v3(body_pos[B]))
            _set_row(row_ra, i, ra)
            _set_row(row_rb, i, rb)
            add_k_body(body_inv_mass[A], body_Iinv[A], ra, K)
            add_k_body(body_inv_mass[B], body_Iinv[B], rb, K)
        else:
            a = v3(body_pos[A])
            b = v3(body_pos[B])
            for r in range(3):
                for c in range(3):
                    K[r, c] = body_Iinv[A, r, c] + body_Iinv[B, r, c]
        f = projection(kind, a, b, body_quat[A], body_quat[B], prim_axis_a[i],
                       prim_axis_b[i], row_P[i])
        row_dim[i] = f
        M[:, :] = 0.0
        project_matrix(row_P[i], K, f, M)
        invert_small(M, f, row_Minv[i])
