"""Per-body stages of the midpoint scheme in generalized coordinates.

Every non-static body has a quaternion free joint to the world: q = (r_S, p) with r_S the centre of mass
[m] (world) and p the unit quaternion of the principal frame K; u = (v_S, _K ω) with v_S [m/s] in the
world frame and ω [rad/s] in the body frame K (as in the thesis, Table 2.2). Then M = diag(m E, Θ) is
constant, and q̇ = B(q) u with ṙ = v, ṗ = ½ p ⊗ (0, _K ω). The State keeps ω in the world frame; the
conversion happens at the start and end of a step.
"""

from impulsim.kernel import njit
from impulsim.math.vec import v3, q4, qmul, qnormalize, qrot, qrot_inv


@njit(cache=True)
def generalized_velocities(body_quat, body_vel, body_omega, u_out):
    """u = (v, _K ω) [n_bodies, 6] from the world-frame velocities of the State."""
    for k in range(body_quat.shape[0]):
        w = qrot_inv(q4(body_quat[k]), v3(body_omega[k]))
        for i in range(3):
            u_out[k, i] = body_vel[k, i]
            u_out[k, 3 + i] = w[i]


@njit(cache=True)
def world_velocities(body_quat, u, body_vel_out, body_omega_out):
    """v [m/s] and world ω [rad/s] from u = (v, _K ω)."""
    for k in range(body_quat.shape[0]):
        w = qrot(q4(body_quat[k]), (u[k, 3], u[k, 4], u[k, 5]))
        for i in range(3):
            body_vel_out[k, i] = u[k, i]
            body_omega_out[k, i] = w[i]


@njit(cache=True)
def half_drift(body_static, body_pos, body_quat, u, half_h, pos_out, quat_out):
    """q_out = q + (h/2) B(q) u, quaternion normalized (thesis eq. 2.35 and 2.44); static bodies stay."""
    for k in range(body_pos.shape[0]):
        if body_static[k]:
            for i in range(3):
                pos_out[k, i] = body_pos[k, i]
            for i in range(4):
                quat_out[k, i] = body_quat[k, i]
            continue
        p = q4(body_quat[k])
        # ṗ = ½ p ⊗ (0, ω_K)
        dp = qmul(p, (0.0, u[k, 3], u[k, 4], u[k, 5]))
        f = 0.5 * half_h
        q = qnormalize((p[0] + f * dp[0], p[1] + f * dp[1], p[2] + f * dp[2], p[3] + f * dp[3]))
        for i in range(3):
            pos_out[k, i] = body_pos[k, i] + half_h * u[k, i]
        for i in range(4):
            quat_out[k, i] = q[i]


@njit(cache=True)
def _gyroscopic(w, inertia):
    """−ω × Θω [N m] in the body frame."""
    L0, L1, L2 = inertia[0] * w[0], inertia[1] * w[1], inertia[2] * w[2]
    return (-(w[1] * L2 - w[2] * L1), -(w[2] * L0 - w[0] * L2), -(w[0] * L1 - w[1] * L0))


@njit(cache=True)
def free_velocities(body_inv_mass, body_inertia, body_inv_inertia, quat_m, u_b, acc, torque_world, h,
                    implicit_gyro, gyro_tol, gyro_max_iter,
                    # outputs
                    u_out):
    """u_F = u_B + h M⁻¹ f: the end velocity without contact or joint percussions (thesis eq. 2.40).

    f = (m a, τ_K − ω × Θω) with a [m/s²] and the world torque τ [N m] evaluated at the midpoint. With
    ``implicit_gyro`` = 1 the gyroscopic term uses ω_M = (ω_B + ω_F)/2 (implicit midpoint, solved by
    fixed-point iteration to ``gyro_tol`` [rad/s]): it keeps ½ ωᵀΘω and |Θω| of a torque-free body
    exactly; with 0 it uses ω_B, as the thesis evaluates h at (q_M, u_B). Returns the largest number of
    fixed-point iterations a body needed. Bodies of infinite mass keep u_B.
    """
    worst = 0
    for k in range(u_b.shape[0]):
        if body_inv_mass[k] == 0.0:
            for i in range(6):
                u_out[k, i] = u_b[k, i]
            continue
        for i in range(3):
            u_out[k, i] = u_b[k, i] + h * acc[k, i]
        tau = qrot_inv(q4(quat_m[k]), v3(torque_world[k]))
        wb = (u_b[k, 3], u_b[k, 4], u_b[k, 5])
        inertia = body_inertia[k]
        inv = body_inv_inertia[k]
        we = wb
        n_iter = gyro_max_iter if implicit_gyro else 1
        for it in range(n_iter):
            wm = (0.5 * (wb[0] + we[0]), 0.5 * (wb[1] + we[1]), 0.5 * (wb[2] + we[2]))
            g = _gyroscopic(wm if implicit_gyro else wb, inertia)
            new = (wb[0] + h * inv[0] * (tau[0] + g[0]), wb[1] + h * inv[1] * (tau[1] + g[1]),
                   wb[2] + h * inv[2] * (tau[2] + g[2]))
            change = abs(new[0] - we[0]) + abs(new[1] - we[1]) + abs(new[2] - we[2])
            we = new
            if it + 1 > worst:
                worst = it + 1
            if change <= gyro_tol:
                break
        for i in range(3):
            u_out[k, 3 + i] = we[i]
    return worst


@njit(cache=True)
def free_velocities_at(body_inv_mass, body_inv_inertia, body_inertia, quat_m, u_b, acc, torque_world, h, u_end,
                       u_out):
    """u_F = u_B + h M⁻¹ f with the gyroscopic term at ω_M = (ω_B + ω_E)/2 for given end velocities u_end
    (the last solve's, joint and contact percussions included). Returns the largest change of a rate
    [rad/s] against the u_F in ``u_out`` before the call (used to stop the outer iteration)."""
    change = 0.0
    for k in range(u_b.shape[0]):
        if body_inv_mass[k] == 0.0:
            continue
        tau = qrot_inv(q4(quat_m[k]), v3(torque_world[k]))
        wm = (0.5 * (u_b[k, 3] + u_end[k, 3]), 0.5 * (u_b[k, 4] + u_end[k, 4]), 0.5 * (u_b[k, 5] + u_end[k, 5]))
        g = _gyroscopic(wm, body_inertia[k])
        for i in range(3):
            new = u_b[k, 3 + i] + h * body_inv_inertia[k, i] * (tau[i] + g[i])
            change = max(change, abs(new - u_out[k, 3 + i]))
            u_out[k, 3 + i] = new
            u_out[k, i] = u_b[k, i] + h * acc[k, i]
    return change


@njit(cache=True)
def generalized_inverse_mass(body_inv_mass, body_inv_inertia, minv_out):
    """Diagonal of M⁻¹ per body (1/m, 1/m, 1/m, 1/Θ₁, 1/Θ₂, 1/Θ₃) [n_bodies, 6]; 0 for infinite mass."""
    for k in range(body_inv_mass.shape[0]):
        for i in range(3):
            minv_out[k, i] = body_inv_mass[k]
            minv_out[k, 3 + i] = body_inv_inertia[k, i] if body_inv_mass[k] > 0.0 else 0.0


@njit(cache=True)
def rotate_by(body_quat, k, dtheta):
    """p ← normalize(p + ½ p ⊗ (0, Δθ_K)) for a small body-frame rotation Δθ [rad] (projection step)."""
    p = q4(body_quat[k])
    dp = qmul(p, (0.0, dtheta[0], dtheta[1], dtheta[2]))
    q = qnormalize((p[0] + 0.5 * dp[0], p[1] + 0.5 * dp[1], p[2] + 0.5 * dp[2], p[3] + 0.5 * dp[3]))
    for i in range(4):
        body_quat[k, i] = q[i]

