"""The pieces of J M⁻¹ Jᵀ λ = −(J M⁻¹ F + c′) shared by the dense and the sparse solvers.

Generalized coordinates of body k: v_k = (u_k, ω_k), world frame, with the mass matrix
M_k = diag(m_k E, I_k), I_k = R_k J_k R_kᵀ the world inertia tensor, and the generalized force
F_k = (f_k, τ_k − ω_k × I_k ω_k) (Newton–Euler, Wagner 3.1). Bodies with zero inverse mass (static or
kinematic) have M⁻¹ = 0: their accelerations are zero and the constraints cannot move them.
c′ = c + 2α Ċ + β² C on holonomic rows and c′ = c + α C on velocity rows (Baumgarte, Wagner eq. 3.21,
3.23); α = β = 0 leaves the constraints unstabilized.
"""
import numpy as np

from impulsim.kernel import njit
from impulsim.math.vec import v3, q4, sub, cross, matvec, qnormalize, qrot


@njit(cache=True, _nrt=False)     # allocation-free; no reference counts (see baraff.KERNEL)
def world_inertia(body_quat, body_inertia, body_inv_inertia, body_inv_mass,
                  # outputs
                  Iw, Iw_inv):
    """I = R diag(J) Rᵀ and I⁻¹ = R diag(J⁻¹) Rᵀ [kg m², 1/(kg m²)] of every movable body, world frame."""
    for k in range(body_quat.shape[0]):
        if body_inv_mass[k] == 0.0:
            Iw[k] = 0.0
            Iw_inv[k] = 0.0
            continue
        w, x, y, z = qnormalize(q4(body_quat[k]))
        # R(q) of the unit quaternion: its columns are the body axes in world coordinates
        R = ((1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y - w * z), 2.0 * (x * z + w * y)),
             (2.0 * (x * y + w * z), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z - w * x)),
             (2.0 * (x * z - w * y), 2.0 * (y * z + w * x), 1.0 - 2.0 * (x * x + y * y)))
        d, di = body_inertia[k], body_inv_inertia[k]
        I, I_inv = Iw[k], Iw_inv[k]
        for i in range(3):
            Ri = R[i]
            for j in range(i, 3):
                Rj = R[j]
                s = Ri[0] * d[0] * Rj[0] + Ri[1] * d[1] * Rj[1] + Ri[2] * d[2] * Rj[2]
                si = Ri[0] * di[0] * Rj[0] + Ri[1] * di[1] * Rj[1] + Ri[2] * di[2] * Rj[2]
                I[i, j] = s
                I[j, i] = s
                I_inv[i, j] = si
                I_inv[j, i] = si


@njit(cache=True, _nrt=False)     # allocation-free; no reference counts (see baraff.KERNEL)
def generalized_forces(body_inv_mass, body_omega, acc, tau, Iw, Iw_inv,
                       # outputs
                       force, a0):
    """F = (m a, τ − ω × I ω) [N, N m] and the free acceleration a0 = M⁻¹ F [m/s², rad/s²] per body.

    ``acc`` [m/s²] is the linear acceleration of the applied loads (gravity + f/m), ``tau`` [N m] their
    world torque.
    """
    for k in range(acc.shape[0]):
        if body_inv_mass[k] == 0.0:
            force[k] = 0.0
            a0[k] = 0.0
            continue
        m = 1.0 / body_inv_mass[k]
        w = v3(body_omega[k])
        g = sub(v3(tau[k]), cross(w, matvec(Iw[k], w)))
        a = matvec(Iw_inv[k], g)
        for i in range(3):
            force[k, i] = m * acc[k, i]
            force[k, 3 + i] = g[i]
            a0[k, i] = acc[k, i]
            a0[k, 3 + i] = a[i]


@njit(cache=True, _nrt=False)     # allocation-free; no reference counts (see baraff.KERNEL)
def stabilized_terms(row_c, row_C, row_Cd, row_velocity, alpha, beta,
                     # outputs
                     cp):
    """c′ = c + 2α Ċ + β² C (holonomic rows), c′ = c + α C (velocity rows)."""
    for r in range(row_c.shape[0]):
        if row_velocity[r]:
            cp[r] = row_c[r] + alpha * row_C[r]
        else:
            cp[r] = row_c[r] + 2.0 * alpha * row_Cd[r] + beta * beta * row_C[r]


@njit(cache=True)
def mobility(row_a, row_b, row_Ja, row_Jb, body_inv_mass, Iw_inv,
             # outputs
             Wa, Wb):
    """W = M⁻¹ Jᵀ on each row's two bodies (zero on bodies of infinite mass), shapes [n_rows, 6]."""
    for r in range(row_a.shape[0]):
        _mobility_row(row_Ja[r], body_inv_mass[row_a[r]], Iw_inv[row_a[r]], Wa[r])
        _mobility_row(row_Jb[r], body_inv_mass[row_b[r]], Iw_inv[row_b[r]], Wb[r])


@njit(cache=True, forceinline=True)
def _mobility_row(J, inv_mass, Iinv, out):
    for i in range(3):
        out[i] = inv_mass * J[i]
        out[3 + i] = Iinv[i, 0] * J[3] + Iinv[i, 1] * J[4] + Iinv[i, 2] * J[5]


@njit(cache=True)
def accelerations(a0, lam, row_a, row_b, Wa, Wb,
                  # outputs
                  acc6):
    """v̇ = M⁻¹ (F + Jᵀ λ) = a0 + Σ_r W_r λ_r per body [m/s², rad/s²], shape [n_bodies, 6]."""
    acc6[:, :] = a0
    for r in range(row_a.shape[0]):
        A = row_a[r]
        B = row_b[r]
        for i in range(6):
            acc6[A, i] += Wa[r, i] * lam[r]
            acc6[B, i] += Wb[r, i] * lam[r]


@njit(cache=True)
def row_rates(row_a, row_b, row_Ja, row_Jb, x6, out):
    """out_r = J_r x (x per body, shape [n_bodies, 6]): e.g. J v̇ or J v."""
    for r in range(row_a.shape[0]):
        A = row_a[r]
        B = row_b[r]
        s = 0.0
        for i in range(6):
            s += row_Ja[r, i] * x6[A, i] + row_Jb[r, i] * x6[B, i]
        out[r] = s


@njit(cache=True)
def constraint_loads(row_a, row_b, row_Ja, row_Jb, lam, n_bodies,
                     # outputs
                     load):
    """Jᵀ λ summed per body: force [N] and torque about the centre of mass [N m], shape [n_bodies, 6]."""
    load[:, :] = 0.0
    for r in range(row_a.shape[0]):
        for i in range(6):
            load[row_a[r], i] += row_Ja[r, i] * lam[r]
            load[row_b[r], i] += row_Jb[r, i] * lam[r]


@njit(cache=True)
def block_residuals(row_C, row_Cd, row_velocity, row_start):
    """(max over blocks of |C| [m, rad] on holonomic rows, max over blocks of |Ċ| (holonomic rows) or |C|
    (velocity rows) [m/s, rad/s]): the constraint errors a step leaves, block by block."""
    pos = 0.0
    rate = 0.0
    for i in range(row_start.shape[0] - 1):
        p = 0.0
        v = 0.0
        for r in range(row_start[i], row_start[i + 1]):
            if row_velocity[r]:
                v += row_C[r] * row_C[r]
            else:
                p += row_C[r] * row_C[r]
                v += row_Cd[r] * row_Cd[r]
        pos = max(pos, np.sqrt(p))
        rate = max(rate, np.sqrt(v))
    return pos, rate
