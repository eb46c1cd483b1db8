"""Per-constraint geometry at one time instant: impulse points, projection P and (P K Pᵀ)⁻¹.

For a translational primitive the impulse p acts at a (on A, +p) and b (on B, −p), and
    K = K_aa(A) + K_bb(B),  K_aa = (1/m) E₃ − r_a* J⁻¹ r_a*          (Bender eq. 3.9)
For a rotational primitive the angular impulse l acts +l on A, −l on B, and L = J_A⁻¹ + J_B⁻¹ (eq. 3.10).
A primitive removing f degrees of freedom has a projection P ∈ ℝ^{f×3} (rows stored in row_P[i, :f]);
the solver needs M_i = P K Pᵀ (or P L Pᵀ) and its inverse (eq. 3.15, 3.16, 3.20, 3.21).
"""
import numpy as np

from impulsim.kernel import njit
from impulsim.methods.impulse.jit import COUNTED, NO_REFCOUNT
from impulsim.math.vec import v3, q4, sub, qrot
from impulsim.dynamics.prims import is_translational
from impulsim.dynamics.prim_errors import impulse_points_t, projection_t
from impulsim.dynamics.impulse_response import add_k_body


@njit(cache=True, **NO_REFCOUNT)
def world_inverse_inertia(body_quat, body_inv_inertia, out):
    """J⁻¹ = R J_l⁻¹ Rᵀ for every body, world frame [1/(kg m²)], out shape [n, 3, 3]."""
    for k in range(body_quat.shape[0]):
        d0, d1, d2 = body_inv_inertia[k, 0], body_inv_inertia[k, 1], body_inv_inertia[k, 2]
        if d0 == 0.0 and d1 == 0.0 and d2 == 0.0:
            out[k] = 0.0
            continue
        # columns of R(q) are the body axes: J⁻¹ = Σ_c d_c R[:, c] R[:, c]ᵀ
        c0 = qrot(q4(body_quat[k]), (1.0, 0.0, 0.0))
        c1 = qrot(q4(body_quat[k]), (0.0, 1.0, 0.0))
        c2 = qrot(q4(body_quat[k]), (0.0, 0.0, 1.0))
        for i in range(3):
            for j in range(i, 3):
                s = c0[i] * d0 * c0[j] + c1[i] * d1 * c1[j] + c2[i] * d2 * c2[j]
                out[k, i, j] = s
                out[k, j, i] = s


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


@njit(cache=True, forceinline=True)
def _store3(arr, i, r, v):
    arr[i, r, 0] = v[0]
    arr[i, r, 1] = v[1]
    arr[i, r, 2] = v[2]


@njit(cache=True, forceinline=True)
def prim_geometry(i, prim_kind, prim_body_a, prim_body_b, prim_anchor_a, prim_anchor_b, prim_axis_a, prim_axis_b,
                  body_pos, body_quat,
                  # outputs
                  row_ra, row_rb, row_P, row_dim):
    """Levers ra, rb from the centres of mass to the impulse points (translational primitives) and the
    projection P (rows, count f) of primitive i at the current poses."""
    kind = prim_kind[i]
    A = prim_body_a[i]
    B = prim_body_b[i]
    pa, qa = v3(body_pos[A]), q4(body_quat[A])
    pb, qb = v3(body_pos[B]), q4(body_quat[B])
    a, b = pa, pb
    if is_translational(kind):
        a, b = impulse_points_t(kind, pa, qa, pb, qb, v3(prim_anchor_a[i]), v3(prim_anchor_b[i]), v3(prim_axis_a[i]))
        ra, rb = sub(a, pa), sub(b, pb)
        row_ra[i, 0], row_ra[i, 1], row_ra[i, 2] = ra[0], ra[1], ra[2]
        row_rb[i, 0], row_rb[i, 1], row_rb[i, 2] = rb[0], rb[1], rb[2]
    f, p0, p1, p2 = projection_t(kind, a, b, qa, qb, v3(prim_axis_a[i]), v3(prim_axis_b[i]))
    _store3(row_P, i, 0, p0)
    _store3(row_P, i, 1, p1)
    _store3(row_P, i, 2, p2)
    row_dim[i] = f


@njit(cache=True, **COUNTED)     # it allocates: counted whoever calls it (methods/impulse/jit.py)
def compute_rows_of(prims, prim_kind, prim_body_a, prim_body_b, prim_anchor_a, prim_anchor_b, prim_axis_a,
                    prim_axis_b, body_pos, body_quat, body_inv_mass, body_Iinv,
                    # outputs
                    row_ra, row_rb, row_P, row_dim, row_Minv):
    """Impulse points, projections and inverse projected matrices of the listed primitives, now."""
    K = np.zeros((3, 3))
    M = np.zeros((3, 3))
    for i in prims:
        prim_geometry(i, prim_kind, prim_body_a, prim_body_b, prim_anchor_a, prim_anchor_b, prim_axis_a,
                      prim_axis_b, body_pos, body_quat, row_ra, row_rb, row_P, row_dim)
        A = prim_body_a[i]
        B = prim_body_b[i]
        K[:, :] = 0.0
        if is_translational(prim_kind[i]):
            add_k_body(body_inv_mass[A], body_Iinv[A], v3(row_ra[i]), K)
            add_k_body(body_inv_mass[B], body_Iinv[B], v3(row_rb[i]), K)
        else:
            for r in range(3):
                for c in range(3):
                    K[r, c] = body_Iinv[A, r, c] + body_Iinv[B, r, c]
        M[:, :] = 0.0
        project_matrix(row_P[i], K, row_dim[i], M)
        invert_small(M, row_dim[i], row_Minv[i])


@njit(cache=True)
def compute_rows(prim_kind, prim_body_a, prim_body_b, prim_anchor_a, prim_anchor_b, prim_axis_a,
                 prim_axis_b, body_pos, body_quat, body_inv_mass, body_Iinv,
                 # outputs
                 row_ra, row_rb, row_P, row_dim, row_Minv):
    """Impulse points, projections and inverse projected matrices of every primitive, now."""
    compute_rows_of(np.arange(prim_kind.shape[0]), prim_kind, prim_body_a, prim_body_b, prim_anchor_a,
                    prim_anchor_b, prim_axis_a, prim_axis_b, body_pos, body_quat, body_inv_mass, body_Iinv,
                    row_ra, row_rb, row_P, row_dim, row_Minv)
