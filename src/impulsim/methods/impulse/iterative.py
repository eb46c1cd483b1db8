"""The iterative (sequential-impulse) joint solver (Bender 3.3.1).

Joint correction: sweep over all primitives; for each, predict the poses of its two bodies at t0+h as if
free, and if the error exceeds eps_d apply ONE correcting impulse at t0; repeat until a sweep applies none.
Velocity correction: the same loop on the velocity constraints at t0+h with tolerance eps_v.
Both loops stop at an iteration cap (anytime behaviour) and report the residual. A joint correction whose
errors grow past DIVERGENCE_FACTOR times those of the uncorrected step is no anytime result: it stops and the
step fails (:func:`correct_positions_checked`), as with the LGS solver.
"""
import numpy as np

from impulsim.dynamics.integrate import predict_body
from impulsim.kernel import njit
from impulsim.methods.impulse.jit import NO_REFCOUNT
from impulsim.math.vec import v3, q4, cross, dot, matvec, scale
from impulsim.dynamics.prims import is_translational, is_velocity_only
from impulsim.dynamics.prim_errors import position_error_t, velocity_error_t


@njit(cache=True)
def apply_impulse(kind, imp, A, B, ra, rb, body_inv_mass, body_Iinv, body_vel, body_omega):
    """+imp on A and −imp on B: a linear impulse at ra/rb [N s] or an angular impulse [N m s] (tuples)."""
    trans = is_translational(kind)
    if body_inv_mass[A] != 0.0:
        dw = matvec(body_Iinv[A], cross(ra, imp) if trans else imp)
        for i in range(3):
            if trans:
                body_vel[A, i] += body_inv_mass[A] * imp[i]
            body_omega[A, i] += dw[i]
    if body_inv_mass[B] != 0.0:
        dw = matvec(body_Iinv[B], cross(rb, imp) if trans else imp)
        for i in range(3):
            if trans:
                body_vel[B, i] -= body_inv_mass[B] * imp[i]
            body_omega[B, i] -= dw[i]


@njit(cache=True)
def solve_row(P, f, Minv, d):
    """World impulse Pᵀ (P K Pᵀ)⁻¹ P d for a primitive with f rows (tuple in, tuple out)."""
    e0 = P[0, 0] * d[0] + P[0, 1] * d[1] + P[0, 2] * d[2]
    e1 = P[1, 0] * d[0] + P[1, 1] * d[1] + P[1, 2] * d[2] if f > 1 else 0.0
    e2 = P[2, 0] * d[0] + P[2, 1] * d[1] + P[2, 2] * d[2] if f > 2 else 0.0
    l0 = Minv[0, 0] * e0 + Minv[0, 1] * e1 + Minv[0, 2] * e2
    l1 = Minv[1, 0] * e0 + Minv[1, 1] * e1 + Minv[1, 2] * e2
    l2 = Minv[2, 0] * e0 + Minv[2, 1] * e1 + Minv[2, 2] * e2
    return (P[0, 0] * l0 + P[1, 0] * l1 + P[2, 0] * l2,
            P[0, 1] * l0 + P[1, 1] * l1 + P[2, 1] * l2,
            P[0, 2] * l0 + P[1, 2] * l1 + P[2, 2] * l2)


@njit(cache=True)
def projected_norm(P, f, d):
    """|P d| for the first f rows of P."""
    s = 0.0
    for r in range(f):
        e = P[r, 0] * d[0] + P[r, 1] * d[1] + P[r, 2] * d[2]
        s += e * e
    return np.sqrt(s)


@njit(cache=True, forceinline=True)
def _predicted_error(i, kind, A, B, prims, bodies, pred, h, scheme):
    """Error of primitive i (of ``kind``, between bodies A and B) at the free prediction of its bodies over h
    [s]: predicts A, then B, where dirty (marking them clean), as every sweep does. Returns the error vector."""
    _, _, _, prim_anchor_a, prim_anchor_b, prim_axis_a, prim_axis_b, prim_target, prim_qrel, _ = prims
    body_pos, body_quat, body_vel, body_omega, body_acc, body_tau, _, body_inertia, body_inv_inertia, \
        body_inv_mass, body_static = bodies
    pred_pos, pred_quat, _, _, _, dirty, _ = pred
    for k in (A, B):
        if dirty[k]:
            predict_body(k, body_pos, body_quat, body_vel, body_omega, body_acc, body_tau, body_inertia,
                         body_inv_inertia, body_inv_mass, body_static, h, scheme, pred_pos, pred_quat)
            dirty[k] = 0
    return position_error_t(kind, v3(pred_pos[A]), q4(pred_quat[A]), v3(pred_pos[B]), q4(pred_quat[B]),
                            v3(prim_anchor_a[i]), v3(prim_anchor_b[i]), v3(prim_axis_a[i]), v3(prim_axis_b[i]),
                            prim_target[i], q4(prim_qrel[i]))


@njit(cache=True)
def sweep_positions(listed, first_sweep, prims, bodies, rows, pred, h, scheme, eps_d, max_speed):
    """One sweep over the listed primitives: predict the bodies of each (if dirty) at t0+h, and if its error
    exceeds its tolerance apply ONE correcting impulse at t0. Returns (largest error, any impulse applied,
    clamped count).

    Impulse clamping (Bender 3.3.3): on the first sweep a primitive whose predicted error exceeds
    max_speed·h [m/s or rad/s times s] gets its tolerance step_tol[i] relaxed to be only brought max_speed·h
    closer to valid this step, so a broken model reassembles over several steps instead of receiving one
    huge impulse. The bodies' velocities are corrected in place; the predictions, dirty flags and step
    tolerances of ``pred`` are updated (groups: see :mod:`groups`).
    """
    prim_kind, prim_body_a, prim_body_b = prims[0], prims[1], prims[2]
    _, _, body_vel, body_omega, _, _, body_Iinv, _, _, body_inv_mass, _ = bodies
    row_ra, row_rb, row_P, row_dim, row_Minv, _, _ = rows
    dirty, step_tol = pred[5], pred[6]
    residual = 0.0
    corrected = False
    clamped = 0
    for i in listed:
        kind = prim_kind[i]
        if is_velocity_only(kind):
            continue
        A = prim_body_a[i]
        B = prim_body_b[i]
        d = _predicted_error(i, kind, A, B, prims, bodies, pred, h, scheme)
        err = np.sqrt(dot(d, d))
        residual = max(residual, err)
        if first_sweep:
            step_tol[i] = max(eps_d, err - max_speed * h)
            if step_tol[i] > eps_d:
                clamped += 1
        if err <= step_tol[i]:
            continue
        # a clamped primitive aims eps_d inside its relaxed bound (so the next pass finds it within);
        # the others aim at zero error
        shrink = 1.0 - (step_tol[i] - eps_d) / err if step_tol[i] > eps_d else 1.0
        imp = solve_row(row_P[i], row_dim[i], row_Minv[i], scale(d, shrink / h))
        apply_impulse(kind, imp, A, B, v3(row_ra[i]), v3(row_rb[i]), body_inv_mass, body_Iinv, body_vel,
                      body_omega)
        dirty[A] = 1
        dirty[B] = 1
        corrected = True
    return residual, corrected, clamped


@njit(cache=True)
def free_position_error(listed, prims, bodies, pred, h, scheme):
    """Largest error [m or rad] of the listed position primitives at the free prediction of their bodies over
    h [s], before any correction. Predicts the dirty bodies into ``pred`` and marks them clean, so the first
    sweep takes these predictions as they are (the same function of the same inputs: the sweeps' results do
    not change)."""
    prim_kind, prim_body_a, prim_body_b = prims[0], prims[1], prims[2]
    largest = 0.0
    for i in listed:
        kind = prim_kind[i]
        if is_velocity_only(kind):
            continue
        d = _predicted_error(i, kind, prim_body_a[i], prim_body_b[i], prims, bodies, pred, h, scheme)
        largest = max(largest, np.sqrt(dot(d, d)))
    return largest


@njit(cache=True)
def correct_positions_checked(listed, prims, bodies, rows, pred, h, scheme, eps_d, max_iter, max_speed, max_growth):
    """Iterated joint correction over the listed primitives (position rows only): sweeps until one applies
    no impulse, max_iter sweeps were made, or the correction diverges. Returns (sweeps, largest error of the
    last sweep, clamped count, diverged).

    Diverged (the caller fails the step) means that a sweep that still applied impulses found an error
    larger than ``max_growth`` times the largest error of the free prediction before the correction (the
    rule of the LGS correction, lgs_correct.DIVERGENCE_FACTOR); the sweeps stop there. With ``max_growth``
    infinite nothing is checked and the free prediction is not measured first."""
    dirty = pred[5]
    dirty[:] = 1
    start = free_position_error(listed, prims, bodies, pred, h, scheme) if max_growth < np.inf else 0.0
    clamped = 0
    residual = 0.0
    sweeps = 0
    diverged = False
    for sweep in range(max_iter):
        sweeps = sweep + 1
        residual, corrected, cl = sweep_positions(listed, sweep == 0, prims, bodies, rows, pred, h, scheme, eps_d,
                                                  max_speed)
        clamped += cl
        if not corrected:
            break
        if residual > max_growth * start:
            diverged = True
            break
    return sweeps, residual, clamped, diverged


@njit(cache=True)
def correct_positions_of(listed, prims, bodies, rows, pred, h, scheme, eps_d, max_iter, max_speed):
    """Iterated joint correction over the listed primitives without the divergence check (see
    :func:`correct_positions_checked`; for callers that run a sweep at a time). Returns (sweeps, largest
    error of the last sweep, clamped count)."""
    sweeps, residual, clamped, _ = correct_positions_checked(listed, prims, bodies, rows, pred, h, scheme, eps_d,
                                                             max_iter, max_speed, np.inf)
    return sweeps, residual, clamped


@njit(cache=True)
def correct_positions(prims, bodies, rows, pred, h, scheme, eps_d, max_iter, max_speed):
    """Iterated joint correction over all primitives (see :func:`correct_positions_of`)."""
    return correct_positions_of(np.arange(prims[0].shape[0]), prims, bodies, rows, pred, h, scheme, eps_d, max_iter,
                                max_speed)


ANY_ROWS, HARD_ROWS, SOFT_ROWS = -1, 0, 1
"""Which of the listed primitives a velocity sweep takes: all, the joints (not velocity-only), or the
velocity-only rows (mouse dragging, manipulators)."""


@njit(cache=True, forceinline=True)
def _takes(select, kind) -> bool:
    """Whether a sweep over ``select`` (ANY_ROWS, HARD_ROWS, SOFT_ROWS) takes a primitive of ``kind``."""
    return select == ANY_ROWS or is_velocity_only(kind) == (select == SOFT_ROWS)


@njit(cache=True)
def sweep_velocities(listed, prims, bodies, rows, eps_v, select=ANY_ROWS):
    """One velocity sweep at t0+h over the listed primitives that ``select`` takes (all by default): one
    impulse for each whose projected relative velocity exceeds eps_v (the bodies' velocities are corrected in
    place). Returns (largest projected error, any impulse applied)."""
    prim_kind, prim_body_a, prim_body_b, _, _, _, _, _, _, prim_vel_target = prims
    _, _, body_vel, body_omega, _, _, body_Iinv, _, _, body_inv_mass, _ = bodies
    row_ra, row_rb, row_P, row_dim, row_Minv, _, _ = rows
    residual = 0.0
    corrected = False
    for i in listed:
        kind = prim_kind[i]
        if not _takes(select, kind):
            continue
        A = prim_body_a[i]
        B = prim_body_b[i]
        dv = velocity_error_t(kind, v3(body_vel[A]), v3(body_omega[A]), v3(body_vel[B]), v3(body_omega[B]),
                              v3(row_ra[i]), v3(row_rb[i]), v3(prim_vel_target[i]))
        err = projected_norm(row_P[i], row_dim[i], dv)
        residual = max(residual, err)
        if err <= eps_v:
            continue
        imp = solve_row(row_P[i], row_dim[i], row_Minv[i], dv)
        apply_impulse(kind, imp, A, B, v3(row_ra[i]), v3(row_rb[i]), body_inv_mass, body_Iinv, body_vel,
                      body_omega)
        corrected = True
    return residual, corrected


SOFT_PROGRESS = 0.9
"""Velocity-only rows and joints alternate while each round leaves at most this fraction of the velocity
rows' error. Rows the joints can follow converge linearly (a drive about a hinge's axis on a 1 m rod:
0.75 per round); a drag the joints cannot follow stalls at the distance between the two sets of
velocities, and the alternation stops there with the joints' pass last."""


@njit(cache=True, **NO_REFCOUNT)     # allocates nothing: uncounted whoever calls it (methods/impulse/jit.py)
def correct_velocities_of(listed, prims, bodies, rows, eps_v, max_iter):
    """Iterated velocity correction at t0+h over the listed primitives.

    Velocity-only rows (mouse dragging, manipulators, Bender 3.2.6) are satisfied first, then the joints,
    and the two passes alternate while the joints' impulses disturb the velocity rows and each round
    reduces that disturbance by a tenth at least (SOFT_PROGRESS): a velocity row the joints can follow (a
    drive about a hinge's axis) ends within eps_v, while a drag the joints cannot follow moves the body only as far as they allow
    and leaves the velocity row unsatisfied instead of making the passes alternate forever. The joints'
    pass is always the last. Returns (joint sweeps, largest projected joint error of the last sweep).

    The two sets are sweeps over ``listed`` that each take their own rows (SOFT_ROWS, HARD_ROWS), in the order
    listed: no index arrays are made, so the correction allocates nothing and needs no reference counts."""
    n_soft = 0
    for i in listed:
        if is_velocity_only(prims[0][i]):
            n_soft += 1
    n_hard = listed.shape[0] - n_soft
    hard = ANY_ROWS if n_soft == 0 else HARD_ROWS          # without velocity-only rows, every row is a joint's
    residual = 0.0
    sweeps = 0
    last_soft = np.inf
    for _ in range(max_iter):
        if n_soft > 0:
            for sweep in range(max_iter):
                _, corrected = sweep_velocities(listed, prims, bodies, rows, eps_v, SOFT_ROWS)
                if not corrected:
                    break
        for sweep in range(max_iter):
            sweeps += 1
            residual, corrected = sweep_velocities(listed, prims, bodies, rows, eps_v, hard)
            if not corrected:
                break
        if n_soft == 0 or n_hard == 0:
            break
        soft_error = velocity_residual(listed, prims, bodies, rows, SOFT_ROWS)
        if soft_error <= eps_v or soft_error > SOFT_PROGRESS * last_soft:
            break
        last_soft = soft_error
    return sweeps, residual


@njit(cache=True)
def velocity_residual(listed, prims, bodies, rows, select=ANY_ROWS):
    """Largest projected velocity error [m/s or rad/s] of the listed primitives that ``select`` takes (all by
    default; nothing is changed)."""
    prim_kind, prim_body_a, prim_body_b, _, _, _, _, _, _, prim_vel_target = prims
    _, _, body_vel, body_omega, _, _, _, _, _, _, _ = bodies
    row_ra, row_rb, row_P, row_dim, row_Minv, _, _ = rows
    residual = 0.0
    for i in listed:
        if not _takes(select, prim_kind[i]):
            continue
        A = prim_body_a[i]
        B = prim_body_b[i]
        dv = velocity_error_t(prim_kind[i], v3(body_vel[A]), v3(body_omega[A]), v3(body_vel[B]),
                              v3(body_omega[B]), v3(row_ra[i]), v3(row_rb[i]), v3(prim_vel_target[i]))
        residual = max(residual, projected_norm(row_P[i], row_dim[i], dv))
    return residual


@njit(cache=True)
def correct_velocities(prims, bodies, rows, eps_v, max_iter):
    """Iterated velocity correction over all primitives (see :func:`correct_velocities_of`)."""
    return correct_velocities_of(np.arange(prims[0].shape[0]), prims, bodies, rows, eps_v, max_iter)
