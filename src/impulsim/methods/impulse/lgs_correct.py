"""Joint and velocity correction with the LGS method (Bender 3.3.2.1), chain by chain, as Numba kernels.

Joint correction of one chain: predict every body of the chain at t0+h as if free; if some primitive's
error exceeds its tolerance, solve M x = P d / h for all primitives at once with the factorization of M
at t0, apply the impulses at t0 and predict again; repeat until all errors are within tolerance or the
solve cap is reached (anytime behaviour). In the hybrid loop treatment the joints that close loops are
not in M: after each solve they get one impulse each, as in the iterative method (Bender 3.3.2.3).

When the check after the last solve passes, the prediction of every body of the chain is exactly its free
step (same function, same inputs), so :func:`advance_bodies` copies it instead of integrating again.

Velocity correction of one chain at t0+h: M x = P Δu is exact in one solve (the velocity change of an
impulse is linear); the loop repeats only if the hybrid cut joints or dropped rows leave a residual.

Helpers called once per body or primitive take tuples, not arrays: passing many arrays to a compiled
function costs more than the arithmetic of one body. For the same reason the kernels of one iteration
(prediction, errors, solve, impulses) are inlined into the correction loops, and all of them are compiled
without reference counting (see :mod:`jit`).
"""
import numpy as np

from impulsim.kernel import njit
from impulsim.methods.impulse.jit import NO_REFCOUNT
from impulsim.dynamics.integrate import free_step_body, store_body
from impulsim.math.vec import v3, q4, dot
from impulsim.dynamics.prim_errors import ball_points, position_error_t, velocity_error_t
from impulsim.methods.impulse.iterative import (SOFT_PROGRESS, sweep_positions, sweep_velocities,
                                               velocity_residual)
from impulsim.methods.impulse.lgs_kernels import solve, apply_node_impulses
from impulsim.dynamics.prims import BALL, is_velocity_only


@njit(cache=True, forceinline=True, **NO_REFCOUNT)
def predict_bodies(members, bodies, pred, h, scheme):
    """Free step over h [s] of the listed bodies (members) into the predictions of ``pred`` (pose and
    velocities at t0+h); static bodies are copied."""
    body_pos, body_quat, body_vel, body_omega, body_acc, body_tau, _, body_inertia, body_inv_inertia, \
        body_inv_mass, body_static = bodies
    pred_pos, pred_quat, pred_vel, pred_omega, _, _, _ = pred
    for k in members:
        if body_static[k]:
            store_body(k, v3(body_pos[k]), q4(body_quat[k]), v3(body_vel[k]), v3(body_omega[k]), pred_pos, pred_quat,
                   pred_vel, pred_omega)
            continue
        p, q, v, w = free_step_body(v3(body_pos[k]), q4(body_quat[k]), v3(body_vel[k]), v3(body_omega[k]),
                                    v3(body_acc[k]), v3(body_tau[k]), v3(body_inertia[k]), v3(body_inv_inertia[k]),
                                    body_inv_mass[k], h, scheme)
        store_body(k, p, q, v, w, pred_pos, pred_quat, pred_vel, pred_omega)


@njit(cache=True, **NO_REFCOUNT)
def advance_bodies(bodies, pred, h, scheme):
    """Free step of every non-static body; a body whose valid prediction exists takes it unchanged (and
    the prediction is marked used)."""
    body_pos, body_quat, body_vel, body_omega, body_acc, body_tau, _, body_inertia, body_inv_inertia, \
        body_inv_mass, body_static = bodies
    pred_pos, pred_quat, pred_vel, pred_omega, pred_valid, _, _ = pred
    for k in range(body_pos.shape[0]):
        if body_static[k]:
            continue
        if pred_valid[k]:
            pred_valid[k] = 0
            store_body(k, v3(pred_pos[k]), q4(pred_quat[k]), v3(pred_vel[k]), v3(pred_omega[k]), body_pos, body_quat,
                   body_vel, body_omega)
            continue
        p, q, v, w = free_step_body(v3(body_pos[k]), q4(body_quat[k]), v3(body_vel[k]), v3(body_omega[k]),
                                    v3(body_acc[k]), v3(body_tau[k]), v3(body_inertia[k]), v3(body_inv_inertia[k]),
                                    body_inv_mass[k], h, scheme)
        store_body(k, p, q, v, w, body_pos, body_quat, body_vel, body_omega)


@njit(cache=True, forceinline=True)
def _prim_error(i, kind, prim_body_a, prim_body_b, prim_anchor_a, prim_anchor_b, prim_axis_a, prim_axis_b,
                prim_target, prim_qrel, pred_pos, pred_quat):
    """Error vector d of primitive i at the predicted poses [m or rad] (ball joints in line)."""
    A = prim_body_a[i]
    B = prim_body_b[i]
    if kind == BALL:
        _, _, d = ball_points(v3(pred_pos[A]), q4(pred_quat[A]), v3(pred_pos[B]), q4(pred_quat[B]),
                              v3(prim_anchor_a[i]), v3(prim_anchor_b[i]))
        return d
    return position_error_t(kind, v3(pred_pos[A]), q4(pred_quat[A]), v3(pred_pos[B]), q4(pred_quat[B]),
                            v3(prim_anchor_a[i]), v3(prim_anchor_b[i]), v3(prim_axis_a[i]), v3(prim_axis_b[i]),
                            prim_target[i], q4(prim_qrel[i]))


@njit(cache=True, forceinline=True)
def _checked_error(first, i, kind, prim_body_a, prim_body_b, prim_anchor_a, prim_anchor_b, prim_axis_a,
                   prim_axis_b, prim_target, prim_qrel, pred_pos, pred_quat, eps_d, max_speed, h, step_tol):
    """Error d of primitive i at the predicted poses, |d|², and its tolerance for this step (set on the
    first check: impulse clamping). Returns (d, |d|², tolerance, above it, clamped now)."""
    d = _prim_error(i, kind, prim_body_a, prim_body_b, prim_anchor_a, prim_anchor_b, prim_axis_a, prim_axis_b,
                    prim_target, prim_qrel, pred_pos, pred_quat)
    err2 = dot(d, d)
    if first:
        reach = eps_d + max_speed * h
        step_tol[i] = np.sqrt(err2) - max_speed * h if err2 > reach * reach else eps_d
    tol = step_tol[i]
    return d, err2, tol, err2 > tol * tol, first and tol > eps_d


@njit(cache=True, forceinline=True, **NO_REFCOUNT)
def _chain_position_errors(first, nodes_prim, cut_prims, prims, rows, pred, h, eps_d, max_speed,
                           # output
                           x):
    """Right-hand sides x[n] = P d shrink / h of the chain's nodes from the predicted poses, and the check
    of nodes and cut primitives. Returns (largest error, any primitive above its tolerance, clamped count).

    Impulse clamping (Bender 3.3.3): on the first check a primitive whose error exceeds max_speed·h only aims
    max_speed·h closer to valid in this step (its tolerance step_tol[i] is relaxed for the step).
    Errors are compared squared; the root is taken only where a clamped primitive needs its length.
    """
    prim_kind, prim_body_a, prim_body_b, prim_anchor_a, prim_anchor_b, prim_axis_a, prim_axis_b, prim_target, \
        prim_qrel, _ = prims
    _, _, row_P, row_dim, _, _, _ = rows
    pred_pos, pred_quat, _, _, _, _, step_tol = pred
    largest2 = 0.0
    violated = False
    clamped = 0
    inv_h = 1.0 / h
    for j in range(nodes_prim.shape[0]):
        i = nodes_prim[j]
        kind = prim_kind[i]
        if is_velocity_only(kind):
            x[j, 0] = x[j, 1] = x[j, 2] = 0.0
            continue
        d, err2, tol, above, now = _checked_error(first, i, kind, prim_body_a, prim_body_b, prim_anchor_a,
                                                  prim_anchor_b, prim_axis_a, prim_axis_b, prim_target, prim_qrel,
                                                  pred_pos, pred_quat, eps_d, max_speed, h, step_tol)
        clamped += now
        violated = violated or above
        largest2 = max(largest2, err2)
        # a clamped primitive aims eps_d inside its relaxed bound (as in the iterative sweeps), so the next
        # check finds it within; the others aim at zero error
        s = (1.0 - (tol - eps_d) / np.sqrt(err2)) * inv_h if tol > eps_d else inv_h
        if kind == BALL:
            # P = E: the same values without the products with the zeros of P
            x[j, 0], x[j, 1], x[j, 2] = s * d[0], s * d[1], s * d[2]
            continue
        f = row_dim[i]
        for a in range(3):
            x[j, a] = s * (row_P[i, a, 0] * d[0] + row_P[i, a, 1] * d[1] + row_P[i, a, 2] * d[2]) if a < f else 0.0
    for i in cut_prims:
        kind = prim_kind[i]
        if is_velocity_only(kind):
            continue
        _, err2, _, above, now = _checked_error(first, i, kind, prim_body_a, prim_body_b, prim_anchor_a,
                                                prim_anchor_b, prim_axis_a, prim_axis_b, prim_target, prim_qrel,
                                                pred_pos, pred_quat, eps_d, max_speed, h, step_tol)
        clamped += now
        violated = violated or above
        largest2 = max(largest2, err2)
    return np.sqrt(largest2), violated, clamped


@njit(cache=True, **NO_REFCOUNT)
def _mark(bodies, value, flags):
    """flags[k] = value for the listed bodies."""
    for k in bodies:
        flags[k] = value


DIVERGENCE_FACTOR = 10.0
"""A chain's joint correction is abandoned as diverging when its largest error after a solve exceeds this
many times the error of its free prediction (before any correction). A converging correction gains a factor
~10 a solve; one that has grown tenfold past its start is moving away from any solution, and every further
solve with the same matrix grows the impulses: on Bender's 300-link chain at h = 10 ms the error fell from
5.1e-4 m to 4.3e-5 m in 7 solves, was back at 2e-4 m after 15, at 5.9e-2 m after 20 and at 53 m (bodies at
7e4 rad/s) after 30."""


@njit(cache=True, **NO_REFCOUNT)
def correct_positions_lgs(chains, struct, prims, bodies, rows, fac, pred, h, scheme, eps_d, max_iter, max_speed):
    """Joint correction of every LGS chain. Returns (most solves in a chain, largest error, clamped count,
    diverged chains); the bodies' velocities are corrected in place, the predictions of ``pred`` updated and
    the solves of chain c go to fac's iters_pos[c] (groups: see :mod:`groups`). A chain whose error grows
    past DIVERGENCE_FACTOR times its start stops there and counts as diverged (the caller fails the step).
    """
    chain_node_start, chain_body_start, chain_bodies, chain_cut_start, cut_prims, _, _ = chains
    node_prim, node_trans, _, _, _, _, _, col_ptr, off_row, _, _, _, _ = struct
    _, prim_body_a, prim_body_b, _, _, _, _, _, _, _ = prims
    _, _, body_vel, body_omega, _, _, _, _, _, body_inv_mass, _ = bodies
    node_lin, _, node_angw, _, _, fac_diag_inv, fac_off, _, _, x, chain_iters, _ = fac
    _, _, _, _, pred_valid, dirty, _ = pred
    residual_all = 0.0
    clamped_all = 0
    most = 0
    diverged = 0
    for c in range(chain_node_start.shape[0] - 1):
        n0, n1 = chain_node_start[c], chain_node_start[c + 1]
        members = chain_bodies[chain_body_start[c]:chain_body_start[c + 1]]
        cuts = cut_prims[chain_cut_start[c]:chain_cut_start[c + 1]]
        _mark(members, 0, pred_valid)
        solves = 0
        residual = 0.0
        start = 0.0
        for it in range(max_iter + 1):
            predict_bodies(members, bodies, pred, h, scheme)
            residual, violated, clamped = _chain_position_errors(it == 0, node_prim[n0:n1], cuts, prims, rows,
                                                                 pred, h, eps_d, max_speed, x[n0:n1])
            clamped_all += clamped
            if not violated:
                _mark(members, 1, pred_valid)
                break
            if it == 0:
                start = residual
            elif residual > DIVERGENCE_FACTOR * start:
                diverged += 1
                break
            if solves == max_iter:
                break
            solve(n0, n1, fac_diag_inv, fac_off, col_ptr, off_row, x)
            apply_node_impulses(n0, n1, node_prim, node_trans, prim_body_a, prim_body_b, body_inv_mass, node_lin,
                                node_angw, x, body_vel, body_omega)
            solves += 1
            if cuts.shape[0] > 0:
                # hybrid: one impulse per loop-closing primitive, as in the iterative method
                _mark(members, 1, dirty)
                sweep_positions(cuts, False, prims, bodies, rows, pred, h, scheme, eps_d, max_speed)
        chain_iters[c] = solves
        most = max(most, solves)
        residual_all = max(residual_all, residual)
    return most, residual_all, clamped_all, diverged


@njit(cache=True, forceinline=True, **NO_REFCOUNT)
def _chain_velocity_errors(nodes_prim, cut_prims, prims, bodies, rows,
                           # output
                           x):
    """Right-hand sides x[n] = P Δu of the chain's nodes (Δu = u_B − u_A − target); returns the largest
    |P Δu| over nodes and cut primitives."""
    prim_kind, prim_body_a, prim_body_b, _, _, _, _, _, _, prim_vel_target = prims
    _, _, body_vel, body_omega, _, _, _, _, _, _, _ = bodies
    row_ra, row_rb, row_P, row_dim, _, _, _ = rows
    residual = 0.0
    n_nodes = nodes_prim.shape[0]
    for j in range(n_nodes + cut_prims.shape[0]):
        cut = j >= n_nodes
        i = cut_prims[j - n_nodes] if cut else nodes_prim[j]
        A = prim_body_a[i]
        B = prim_body_b[i]
        dv = velocity_error_t(prim_kind[i], v3(body_vel[A]), v3(body_omega[A]), v3(body_vel[B]), v3(body_omega[B]),
                              v3(row_ra[i]), v3(row_rb[i]), v3(prim_vel_target[i]))
        ball = prim_kind[i] == BALL
        f = row_dim[i]
        e2 = 0.0
        for a in range(3):
            if ball:
                e = dv[a]            # P = E: the same value without the products with zeros
            else:
                e = row_P[i, a, 0] * dv[0] + row_P[i, a, 1] * dv[1] + row_P[i, a, 2] * dv[2] if a < f else 0.0
            e2 += e * e
            if not cut:
                x[j, a] = e
        residual = max(residual, np.sqrt(e2))
    return residual


@njit(cache=True, **NO_REFCOUNT)
def correct_velocities_lgs(chains, struct, prims, bodies, rows, fac, eps_v, max_iter):
    """Velocity correction of every LGS chain at t0+h: first the chain's velocity-only rows by sweeps, then
    the joints by solves, alternating as long as each round reduces the joints' disturbance of the velocity
    rows by a tenth at least (see iterative.correct_velocities_of: a velocity row the joints can follow
    ends within eps_v, a drag they cannot follow yields to them). Returns (most solves in a chain, largest residual of
    the joints). The bodies' velocities are corrected in place; the solves of chain c go to fac's
    iters_vel[c]."""
    chain_node_start, _, _, chain_cut_start, cut_prims, chain_soft_start, soft_prims = chains
    node_prim, node_trans, _, _, _, _, _, col_ptr, off_row, _, _, _, _ = struct
    _, prim_body_a, prim_body_b, _, _, _, _, _, _, _ = prims
    _, _, body_vel, body_omega, _, _, _, _, _, body_inv_mass, _ = bodies
    node_lin, _, node_angw, _, _, fac_diag_inv, fac_off, _, _, x, _, chain_iters = fac
    residual_all = 0.0
    most = 0
    for c in range(chain_node_start.shape[0] - 1):
        n0, n1 = chain_node_start[c], chain_node_start[c + 1]
        cuts = cut_prims[chain_cut_start[c]:chain_cut_start[c + 1]]
        softs = soft_prims[chain_soft_start[c]:chain_soft_start[c + 1]]
        solves = 0
        residual = 0.0
        last_soft = np.inf
        for _ in range(max_iter):
            for _ in range(max_iter if softs.shape[0] > 0 else 0):
                _, moved = sweep_velocities(softs, prims, bodies, rows, eps_v)
                if not moved:
                    break
            round_solves = 0
            for _ in range(max_iter + 1):
                residual = _chain_velocity_errors(node_prim[n0:n1], cuts, prims, bodies, rows, x[n0:n1])
                if residual <= eps_v or round_solves == max_iter:
                    break
                solve(n0, n1, fac_diag_inv, fac_off, col_ptr, off_row, x)
                apply_node_impulses(n0, n1, node_prim, node_trans, prim_body_a, prim_body_b, body_inv_mass,
                                    node_lin, node_angw, x, body_vel, body_omega)
                round_solves += 1
                if cuts.shape[0] > 0:
                    sweep_velocities(cuts, prims, bodies, rows, eps_v)
            solves += round_solves
            if softs.shape[0] == 0:
                break
            soft_error = velocity_residual(softs, prims, bodies, rows)
            if soft_error <= eps_v or soft_error > SOFT_PROGRESS * last_soft:
                break
            last_soft = soft_error
        chain_iters[c] = solves
        most = max(most, solves)
        residual_all = max(residual_all, residual)
    return most, residual_all
