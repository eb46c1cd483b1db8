"""The iterative (sequential-impulse) joint solver (Bender 3.3.1).

Joint correction: sweep over all primitives; for each, predict the poses of its two bodies at t0+h as if
free, and if the error exceeds eps_d apply ONE correcting impulse at t0; repeat until a sweep applies none.
Velocity correction: the same loop on the velocity constraints at t0+h with tolerance eps_v.
Both loops stop at an iteration cap (anytime behaviour) and report the residual.
"""
import numpy as np
from numba import njit

from impulsim.dynamics.integrate import free_step_body
from impulsim.methods.impulse.rows import is_translational, VEL_POINT, VEL_ANGULAR
from impulsim.methods.impulse.errors import position_error, velocity_error


@njit(cache=True)
def apply_impulse(kind, imp, A, B, ra, rb, body_inv_mass, body_Iinv, body_vel, body_omega):
    """+imp on A and −imp on B: a linear impulse at ra/rb [N s] or an angular impulse [N m s]."""
    if is_translational(kind):
        if body_inv_mass[A] != 0.0:
            body_vel[A] += body_inv_mass[A] * imp
            body_omega[A] += body_Iinv[A] @ np.cross(ra, imp)
        if body_inv_mass[B] != 0.0:
            body_vel[B] -= body_inv_mass[B] * imp
            body_omega[B] -= body_Iinv[B] @ np.cross(rb, imp)
    else:
        if body_inv_mass[A] != 0.0:
            body_omega[A] += body_Iinv[A] @ imp
        if body_inv_mass[B] != 0.0:
            body_omega[B] -= body_Iinv[B] @ imp


@njit(cache=True)
def solve_row(P, f, Minv, d):
    """World impulse Pᵀ (P K Pᵀ)⁻¹ P d for a primitive with f rows."""
    e = P[:f] @ d
    lam = Minv[:f, :f] @ e
    return P[:f].T @ lam


@njit(cache=True)
def predict_body(k, body_pos, body_quat, body_vel, body_omega, body_acc, body_tau, body_inertia,
                 body_inv_inertia, body_inv_mass, body_static, h, scheme, pred_pos, pred_quat):
    """Pose of body k at t0+h if it moved freely from its current velocities."""
    if body_static[k]:
        pred_pos[k] = body_pos[k]
        pred_quat[k] = body_quat[k]
        return
    p, q, _, _ = free_step_body(body_pos[k], body_quat[k], body_vel[k], body_omega[k], body_acc[k],
                                body_tau[k], body_inertia[k], body_inv_inertia[k], body_inv_mass[k], h, scheme)
    pred_pos[k] = p
    pred_quat[k] = q


@njit(cache=True)
def correct_positions(prim_kind, prim_body_a, prim_body_b, prim_anchor_a, prim_anchor_b, prim_axis_a,
                      prim_axis_b, prim_target, prim_qrel, body_pos, body_quat, body_acc, body_tau,
                      body_inertia, body_inv_inertia, body_inv_mass, body_static, body_Iinv,
                      row_ra, row_rb, row_P, row_dim, row_Minv, h, scheme, eps_d, max_iter, max_speed,
                      # outputs (velocities are corrected in place)
                      body_vel, body_omega, pred_pos, pred_quat, dirty, step_tol):
    """Iterated joint correction. Returns (sweeps, largest error of the last sweep, clamped count).

    Impulse clamping (Bender 3.3.3): a primitive whose predicted error exceeds max_speed·h [m/s or
    rad/s times s] is only brought max_speed·h closer to valid this step (its tolerance step_tol[i] is
    relaxed for the step), so a broken model reassembles over several steps instead of receiving one
    huge impulse. Such primitives are counted in the returned clamped count.
    """
    n_prims = prim_kind.shape[0]
    dirty[:] = 1
    clamped = 0
    residual = 0.0
    sweeps = 0
    for sweep in range(max_iter):
        sweeps = sweep + 1
        residual = 0.0
        corrected = False
        for i in range(n_prims):
            kind = prim_kind[i]
            if kind == VEL_POINT or kind == VEL_ANGULAR:
                continue
            A = prim_body_a[i]
            B = prim_body_b[i]
            for k in (A, B):
                if dirty[k]:
                    predict_body(k, body_pos, body_quat, body_vel, body_omega, body_acc, body_tau,
                                 body_inertia, body_inv_inertia, body_inv_mass, body_static, h, scheme,
                                 pred_pos, pred_quat)
                    dirty[k] = 0
            d = position_error(kind, pred_pos[A], pred_quat[A], pred_pos[B], pred_quat[B], prim_anchor_a[i],
                               prim_anchor_b[i], prim_axis_a[i], prim_axis_b[i], prim_target[i], prim_qrel[i])
            err = np.sqrt(np.dot(d, d))
            residual = max(residual, err)
            if sweep == 0:
                # impulse clamping: aim this step at most max_speed·h closer to the valid position
                step_tol[i] = max(eps_d, err - max_speed * h)
                if step_tol[i] > eps_d:
                    clamped += 1
            if err <= step_tol[i]:
                continue
            d = d * (1.0 - step_tol[i] / err)
            imp = solve_row(row_P[i], row_dim[i], row_Minv[i], d) / h
            apply_impulse(kind, imp, A, B, row_ra[i], row_rb[i], body_inv_mass, body_Iinv, body_vel,
                          body_omega)
            dirty[A] = 1
            dirty[B] = 1
            corrected = True
        if not corrected:
            break
    return sweeps, residual, clamped


@njit(cache=True)
def correct_velocities(prim_kind, prim_body_a, prim_body_b, prim_vel_target, body_inv_mass, body_Iinv,
                       row_ra, row_rb, row_P, row_dim, row_Minv, eps_v, max_iter,
                       # outputs (velocities are corrected in place)
                       body_vel, body_omega):
    """Iterated velocity correction at t0+h. Returns (sweeps, largest projected error of the last sweep)."""
    n_prims = prim_kind.shape[0]
    residual = 0.0
    sweeps = 0
    for sweep in range(max_iter):
        sweeps = sweep + 1
        residual = 0.0
        corrected = False
        for i in range(n_prims):
            kind = prim_kind[i]
            A = prim_body_a[i]
            B = prim_body_b[i]
            dv = velocity_error(kind, body_vel[A], body_omega[A], body_vel[B], body_omega[B], row_ra[i],
                                row_rb[i], prim_vel_target[i])
            f = row_dim[i]
            e = row_P[i][:f] @ dv
            err = np.sqrt(np.dot(e, e))
            residual = max(residual, err)
            if err <= eps_v:
                continue
            imp = row_P[i][:f].T @ (row_Minv[i][:f, :f] @ e)
            apply_impulse(kind, imp, A, B, row_ra[i], row_rb[i], body_inv_mass, body_Iinv, body_vel,
                          body_omega)
            corrected = True
        if not corrected:
            break
    return sweeps, residual
