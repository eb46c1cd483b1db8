"""Free-body motion over one step (Bender 3.1).

Translation is exact for forces held constant over the step:
    v(t0+h) = v + a h,   s(t0+h) = s + v h + a h²/2            (Bender eq. 3.2, 3.3)
Rotation integrates Euler's equations in the body (principal) frame, where J_l is constant,
    ω̇_l = J_l⁻¹ (τ_l − ω_l × J_l ω_l),   q̇ = ½ q ⊗ (0, ω_l)      (Bender eq. 3.4, 3.7, body-frame form)
with the world torque τ held constant (τ_l = R(q)ᵀ τ changes as the body turns). The quaternion is
normalized after the step. Bodies with zero inverse mass (static, kinematic) move with their velocity
unchanged: s += v h, q ← exp(ω h) ⊗ q.
"""
import enum

import numpy as np
from numba import njit

from impulsim.math.quaternion import quat_normalize, quat_mul, quat_from_rotvec, quat_rotate, \
    quat_rotate_inv


class Integrator(enum.IntEnum):
    """Scheme for the rotational equations of motion."""
    EULER = 0
    RK4 = 1
    RK45 = 2   # embedded Cash–Karp Runge–Kutta with adaptive sub-steps (Bender App. B, Table B.1)


ADAPTIVE_TOL = 1e-12
"""Local error bound per sub-step of the adaptive scheme [rad/s and quaternion units]."""


@njit(cache=True)
def _rotation_rhs(y, tau_world, inertia, inv_inertia, out):
    """d/dt of y = (q[4], ω_l[3]) for a rigid body under a constant world torque."""
    q = y[0:4]
    w = y[4:7]
    tau = quat_rotate_inv(q, tau_world)
    Lx, Ly, Lz = inertia[0] * w[0], inertia[1] * w[1], inertia[2] * w[2]
    out[4] = inv_inertia[0] * (tau[0] - (w[1] * Lz - w[2] * Ly))
    out[5] = inv_inertia[1] * (tau[1] - (w[2] * Lx - w[0] * Lz))
    out[6] = inv_inertia[2] * (tau[2] - (w[0] * Ly - w[1] * Lx))
    # q̇ = ½ q ⊗ (0, ω_l)
    out[0] = 0.5 * (-q[1] * w[0] - q[2] * w[1] - q[3] * w[2])
    out[1] = 0.5 * (q[0] * w[0] + q[2] * w[2] - q[3] * w[1])
    out[2] = 0.5 * (q[0] * w[1] - q[1] * w[2] + q[3] * w[0])
    out[3] = 0.5 * (q[0] * w[2] + q[1] * w[1] - q[2] * w[0])


@njit(cache=True)
def _rk4(y, tau, inertia, inv_inertia, h):
    k1 = np.empty(7)
    k2 = np.empty(7)
    k3 = np.empty(7)
    k4 = np.empty(7)
    _rotation_rhs(y, tau, inertia, inv_inertia, k1)
    _rotation_rhs(y + 0.5 * h * k1, tau, inertia, inv_inertia, k2)
    _rotation_rhs(y + 0.5 * h * k2, tau, inertia, inv_inertia, k3)
    _rotation_rhs(y + h * k3, tau, inertia, inv_inertia, k4)
    return y + (h / 6.0) * (k1 + 2.0 * k2 + 2.0 * k3 + k4)


# Cash–Karp coefficients (Bender Table B.1)
_CK_A = np.array([[0.0, 0.0, 0.0, 0.0, 0.0],
                  [1 / 5, 0.0, 0.0, 0.0, 0.0],
                  [3 / 40, 9 / 40, 0.0, 0.0, 0.0],
                  [3 / 10, -9 / 10, 6 / 5, 0.0, 0.0],
                  [-11 / 54, 5 / 2, -70 / 27, 35 / 27, 0.0],
                  [1631 / 55296, 175 / 512, 575 / 13824, 44275 / 110592, 253 / 4096]])
_CK_B5 = np.array([37 / 378, 0.0, 250 / 621, 125 / 594, 0.0, 512 / 1771])
_CK_B4 = np.array([2825 / 27648, 0.0, 18575 / 48384, 13525 / 55296, 277 / 14336, 1 / 4])


@njit(cache=True)
def _cash_karp(y, tau, inertia, inv_inertia, h):
    """One embedded step: 5th-order result and the norm of the 4th/5th-order difference."""
    k = np.zeros((6, 7))
    tmp = np.empty(7)
    for s in range(6):
        tmp[:] = y
        for j in range(s):
            tmp += h * _CK_A[s, j] * k[j]
        _rotation_rhs(tmp, tau, inertia, inv_inertia, k[s])
    y5 = y.copy()
    err = np.zeros(7)
    for s in range(6):
        y5 += h * _CK_B5[s] * k[s]
        err += h * (_CK_B5[s] - _CK_B4[s]) * k[s]
    return y5, np.sqrt(np.sum(err * err))


@njit(cache=True)
def _adaptive(y, tau, inertia, inv_inertia, h):
    """Cover [0, h] with Cash–Karp sub-steps, h_new = 0.9 h (ε/err)^(1/5) (Bender App. B)."""
    t = 0.0
    dt = h
    for _ in range(10000):
        if t >= h:
            break
        dt = min(dt, h - t)
        y_new, err = _cash_karp(y, tau, inertia, inv_inertia, dt)
        if err <= ADAPTIVE_TOL or dt < 1e-9 * h:
            y = y_new
            t += dt
            grow = 5.0 if err == 0.0 else min(5.0, 0.9 * (ADAPTIVE_TOL / err) ** 0.2)
            dt *= grow
        else:
            dt *= max(0.1, 0.9 * (ADAPTIVE_TOL / err) ** 0.25)
    return y


@njit(cache=True)
def integrate_rotation(q, omega, tau, inertia, inv_inertia, h, scheme):
    """Orientation and world angular velocity after h [s] under constant world torque tau [N m]."""
    y = np.empty(7)
    y[0:4] = q
    y[4:7] = quat_rotate_inv(q, omega)
    if scheme == 0:
        d = np.empty(7)
        _rotation_rhs(y, tau, inertia, inv_inertia, d)
        y = y + h * d
    elif scheme == 1:
        y = _rk4(y, tau, inertia, inv_inertia, h)
    else:
        y = _adaptive(y, tau, inertia, inv_inertia, h)
    q1 = quat_normalize(y[0:4])
    return q1, quat_rotate(q1, y[4:7])


@njit(cache=True)
def free_step_body(pos, quat, vel, omega, acc, tau, inertia, inv_inertia, inv_mass, h, scheme):
    """(pos, quat, vel, omega) of one body after a free step of h [s].

    acc [m/s²] is the body's linear acceleration (gravity + force / m), held constant over the step.
    """
    if inv_mass == 0.0:
        return pos + vel * h, quat_normalize(quat_mul(quat_from_rotvec(omega * h), quat)), \
            vel.copy(), omega.copy()
    pos1 = pos + vel * h + 0.5 * h * h * acc
    vel1 = vel + acc * h
    quat1, omega1 = integrate_rotation(quat, omega, tau, inertia, inv_inertia, h, scheme)
    return pos1, quat1, vel1, omega1


@njit(cache=True)
def free_step_all(body_pos, body_quat, body_vel, body_omega, body_acc, body_tau, body_inertia,
                  body_inv_inertia, body_inv_mass, body_static, h, scheme):
    """Advance every non-static body by a free step, in place."""
    for k in range(body_pos.shape[0]):
        if body_static[k]:
            continue
        p, q, v, w = free_step_body(body_pos[k], body_quat[k], body_vel[k], body_omega[k], body_acc[k],
                                    body_tau[k], body_inertia[k], body_inv_inertia[k], body_inv_mass[k],
                                    h, scheme)
        body_pos[k] = p
        body_quat[k] = q
        body_vel[k] = v
        body_omega[k] = w
