"""Per-constraint geometry at one time instant: impulse points, projection P and (P K Pᵀ)⁻¹.

For a translational primitive the impulse p acts at a (on A, +p) and b (on B, −p), and
    K = K_aa(A) + K_bb(B),  K_aa = (1/m) E₃ − r_a* J⁻¹ r_a*          (Bender eq. 3.9)
For a rotational primitive the angular impulse l acts +l on A, −l on B, and L = J_A⁻¹ + J_B⁻¹ (eq. 3.10).
A primitive removing f degrees of freedom has a projection P ∈ ℝ^{f×3} (rows stored in row_P[i, :f]);
the solver needs M_i = P K Pᵀ (or P L Pᵀ) and its inverse (eq. 3.15, 3.16, 3.20, 3.21).
"""
import numpy as np
from numba import njit

from impulsim.math.quaternion import quat_rotate, quat_to_matrix
from impulsim.math.linalg import basis_perpendicular

BALL, DISTANCE, LINE, PLANE, ROTATION_LOCK, DIRECTION, DOUBLE_ROTATION, VEL_POINT, VEL_ANGULAR = range(9)


@njit(cache=True)
def is_translational(kind):
    return kind == BALL or kind == DISTANCE or kind == LINE or kind == PLANE or kind == VEL_POINT


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
    """World points a (on A) and b (on B) where a translational primitive's impulse acts.

    For line and plane joints a is the foot point of b on A's line or plane (Bender 3.2.3).
    """
    a = pos_a + quat_rotate(q_a, anchor_a)
    b = pos_b + quat_rotate(q_b, anchor_b)
    if kind == LINE:
        x = quat_rotate(q_a, axis_a)
        a = a + np.dot(b - a, x) * x
    elif kind == PLANE:
        n = quat_rotate(q_a, axis_a)
        a = b - np.dot(b - a, n) * n
    return a, b


@njit(cache=True)
def projection(kind, a, b, q_a, q_b, axis_a, axis_b, P):
    """Fill the rows of P for a primitive; return the number of rows f."""
    P[:, :] = 0.0
    if kind == BALL or kind == VEL_POINT or kind == ROTATION_LOCK or kind == VEL_ANGULAR:
        P[0, 0] = 1.0
        P[1, 1] = 1.0
        P[2, 2] = 1.0
        return 3
    if kind == DISTANCE:
        d = b - a
        n = np.sqrt(np.dot(d, d))
        if n > 1e-15:
            P[0] = d / n
        else:
            P[0, 0] = 1.0
        return 1
    if kind == PLANE:
        P[0] = quat_rotate(q_a, axis_a)
        return 1
    if kind == DOUBLE_ROTATION:
        z = np.cross(quat_rotate(q_a, axis_a), quat_rotate(q_b, axis_b))
        n = np.sqrt(np.dot(z, z))
        if n > 1e-15:
            P[0] = z / n
        else:
            y, _ = basis_perpendicular(quat_rotate(q_a, axis_a))
            P[0] = y
        return 1
    # LINE and DIRECTION: the plane perpendicular to A's axis
    y, z = basis_perpendicular(quat_rotate(q_a, axis_a))
    P[0] = y
    P[1] = z
    return 2


@njit(cache=True)
def _k_body(inv_mass, Iinv, r, K):
    """K += (1/m) E − r* J⁻¹ r*  (Bender eq. 3.9, a = b)."""
    if inv_mass == 0.0:
        return
    # r* J⁻¹ r* applied column by column: −r × (J⁻¹ (r × e_j))
    for j in range(3):
        e = np.zeros(3)
        e[j] = 1.0
        c = np.cross(r, e)
        w = Iinv @ c
        col = np.cross(w, r)      # = −r × w
        for i in range(3):
            K[i, j] += col[i]
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
            a, b = impulse_points(kind, body_pos[A], body_quat[A], body_pos[B], body_quat[B],
                                  prim_anchor_a[i], prim_anchor_b[i], prim_axis_a[i])
            row_ra[i] = a - body_pos[A]
            row_rb[i] = b - body_pos[B]
            _k_body(body_inv_mass[A], body_Iinv[A], row_ra[i], K)
            _k_body(body_inv_mass[B], body_Iinv[B], row_rb[i], K)
        else:
            a = body_pos[A]
            b = body_pos[B]
            K[:, :] = body_Iinv[A] + body_Iinv[B]
        f = projection(kind, a, b, body_quat[A], body_quat[B], prim_axis_a[i], prim_axis_b[i], row_P[i])
        row_dim[i] = f
        P = row_P[i]
        M[:, :] = P @ K @ P.T
        invert_small(M, f, row_Minv[i])
