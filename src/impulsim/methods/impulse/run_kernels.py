"""Many standard impulse steps in one compiled call (``ImpulseMethod.run``), for models without contacts.

A single step called from Python pays a fixed cost around its kernels: the transactional snapshot of the
method's memory, the state copy it works on, the StepInfo, the finite and divergence checks and the
unboxing of ~80 arrays. On a triple pendulum that is ~25 µs against ~2 µs of arithmetic. Here the loop over
the steps runs inside compiled code and repeats, per step, exactly what :meth:`Method.step` does:

* the loads of ``forces.compute_loads`` on the state at the step's start time t: timed loads added to a copy of
  the user's forces, then springs, motors and PID servos (whose memory in the state advances), the same
  kernels in the same order;
* the step itself: the fused all-LGS step (``lgs_step.lgs_standard_step``) or the staged iterative step, the
  very kernels the Python path calls, in the same order with the same arguments (bit-identical results);
* the checks of ``Method.step``: every position, orientation and velocity finite, both residuals finite,
  no body beyond ``max_distance`` [m] or faster than ``max_speed`` [m/s].

Before each step the poses, velocities and the method's memory (predictions, dirty flags) are copied into
``backup`` rows (:func:`backup_or_restore`), and the servos' memory into ``servo_backup`` rows
(:func:`element_loads`); a step that fails a check stops the loop with its results in place, so the caller
can name the cause exactly as ``Method.step`` would, then put both backups back: the state is that of the
last good step.

On a small model the arithmetic of a step is a few µs, so what the loop adds around it counts: every compiled
call that takes arrays pays for their reference counts (atomic operations, ~80 ns for a call with a dozen
arrays on the machines measured), more than the backup copy or the checks themselves. The loop therefore
makes few calls per step: the backup is one pass over the bodies, the checks and the totals one call
(:func:`close_step`), the loads are computed once per run when neither a timed load nor a force element
changes them (they depend on the user's forces, which a run holds fixed), and after the first step the rows
and factorization are known to be those of the current poses (the previous step built them last and moved
nothing after), so their key is not compared. The values are those of the single steps, bit for bit.
"""
import numpy as np

from impulsim.kernel import njit
from impulsim.methods.impulse.jit import COUNTED, NO_REFCOUNT
from impulsim.dynamics.forces import add_motors_and_servos, add_springs, plain_loads, to_accelerations
from impulsim.dynamics.loads import add_timed_loads
from impulsim.methods.impulse.iterative import correct_positions_checked, correct_velocities_of
from impulsim.methods.impulse.lgs_correct import advance_bodies, DIVERGENCE_FACTOR
from impulsim.methods.impulse.lgs_kernels import build_and_factorize, same_poses
from impulsim.methods.impulse.lgs_step import lgs_corrections
from impulsim.math.linalg import copy_rows
from impulsim.methods.impulse.rows import world_inverse_inertia, compute_rows_of

FAIL_NONE, FAIL_NONFINITE_STATE, FAIL_NONFINITE_RESIDUAL, FAIL_RANGE, FAIL_DIVERGED = 0, 1, 2, 3, 4
"""Why a compiled run stopped early (see :func:`close_step`)."""

# stats layout (float64 array written by the run kernels)
(S_DONE, S_FAIL, S_T, S_SUM_P, S_MAX_P, S_SUM_V, S_MAX_V, S_RES_P, S_RES_V, S_CLAMPED, S_CONV_P, S_CONV_V,
 S_FACS, S_DROPPED, S_LAST_P, S_LAST_RP, S_LAST_CL, S_LAST_V, S_LAST_RV, S_LAST_CONV_P, S_LAST_CONV_V,
 S_UNCONVERGED, S_COLLISIONS, S_ITERS_COLLISION, S_LAST_COLLISIONS, S_LAST_ITERS_COLLISION) = range(26)
N_STATS = 26


B_POS, B_QUAT, B_VEL, B_OMEGA, B_PRED_POS, B_PRED_QUAT, B_PRED_VEL, B_PRED_OMEGA, B_WIDTH = 0, 3, 7, 10, 13, 16, 20, 23, 26
"""Columns of the backup rows (one row per body): the state's motion and the method's predictions."""


@njit(cache=True, **NO_REFCOUNT)
def backup_or_restore(body_pos, body_quat, body_vel, body_omega, pred_pos, pred_quat, pred_vel, pred_omega,
                      pred_valid, dirty, backup, backup_flags, to_backup):
    """Copy the state's motion and the method's memory into the backup rows (to_backup) or back: one pass
    over the bodies (columns B_*)."""
    for k in range(body_pos.shape[0]):
        if to_backup:
            for i in range(3):
                backup[k, B_POS + i] = body_pos[k, i]
                backup[k, B_VEL + i] = body_vel[k, i]
                backup[k, B_OMEGA + i] = body_omega[k, i]
                backup[k, B_PRED_POS + i] = pred_pos[k, i]
                backup[k, B_PRED_VEL + i] = pred_vel[k, i]
                backup[k, B_PRED_OMEGA + i] = pred_omega[k, i]
            for i in range(4):
                backup[k, B_QUAT + i] = body_quat[k, i]
                backup[k, B_PRED_QUAT + i] = pred_quat[k, i]
            backup_flags[k, 0] = pred_valid[k]
            backup_flags[k, 1] = dirty[k]
        else:
            for i in range(3):
                body_pos[k, i] = backup[k, B_POS + i]
                body_vel[k, i] = backup[k, B_VEL + i]
                body_omega[k, i] = backup[k, B_OMEGA + i]
                pred_pos[k, i] = backup[k, B_PRED_POS + i]
                pred_vel[k, i] = backup[k, B_PRED_VEL + i]
                pred_omega[k, i] = backup[k, B_PRED_OMEGA + i]
            for i in range(4):
                body_quat[k, i] = backup[k, B_QUAT + i]
                pred_quat[k, i] = backup[k, B_PRED_QUAT + i]
            pred_valid[k] = backup_flags[k, 0]
            dirty[k] = backup_flags[k, 1]


@njit(cache=True, **NO_REFCOUNT)
def _step_forces(body_force, body_torque, loads, t, h, force_w, torque_w):
    """The forces a step sees: the user's plus the timed loads over [t, t+h) (as Method.step adds them to its
    copy of the state); ``loads`` = (body, force, torque, start, end) of the model's timed loads."""
    load_body, load_force, load_torque, load_start, load_end = loads
    for k in range(body_force.shape[0]):
        for i in range(3):
            force_w[k, i] = body_force[k, i]
            torque_w[k, i] = body_torque[k, i]
    if load_body.shape[0]:
        add_timed_loads(load_body, load_force, load_torque, load_start, load_end, t, h, force_w, torque_w)


@njit(cache=True, **COUNTED)
def element_loads(t, h, loads, elements, gravity, body_force, body_torque, bodies, force_w, servo_backup):
    """The loads of a step of a model with springs, motors or servos, as ``forces.compute_loads`` computes
    them on Method.step's copy of the state: the user's forces and torques plus the timed loads over
    [t, t+h) [s] (``loads``), then the springs', the motors' and the servos' (``elements``, see
    dynamics.groups), then a = g + F/m into the ``acc`` of ``bodies`` and the torques [N m] into its ``tau``;
    ``force_w`` holds the forces [N]. The servos' memory advances in place; its values before the step are
    saved first into the rows of ``servo_backup`` (integral, previous error, effort), to put back if the step
    fails.

    Compiled with reference counts (jit.COUNTED), though the run loops are not: the force kernels it calls
    are shared with every method's loads, and kept safe for any of them to allocate (today none does)."""
    springs, motors, servos, servo_memory, joints = elements
    body_pos, body_quat, body_vel, body_omega, acc, tau, _, _, _, body_inv_mass, _ = bodies
    servo_integral, servo_prev_error, servo_effort = servo_memory
    for k in range(servo_integral.shape[0]):
        servo_backup[k, 0] = servo_integral[k]
        servo_backup[k, 1] = servo_prev_error[k]
        servo_backup[k, 2] = servo_effort[k]
    _step_forces(body_force, body_torque, loads, t, h, force_w, tau)
    spring_body_a, spring_body_b, spring_anchor_a, spring_anchor_b, spring_stiffness, spring_damping, \
        spring_rest_length = springs
    if spring_body_a.shape[0]:
        add_springs(spring_body_a, spring_body_b, spring_anchor_a, spring_anchor_b, spring_stiffness,
                    spring_damping, spring_rest_length, body_pos, body_quat, body_vel, body_omega, body_inv_mass,
                    force_w, tau)
    if motors[0].shape[0] or servos[0].shape[0]:
        add_motors_and_servos(t, h, motors, servos, servo_memory, joints, (body_pos, body_quat, body_vel, body_omega),
                              body_inv_mass, force_w, tau)
    to_accelerations(gravity, body_inv_mass, force_w, acc)


@njit(cache=True, forceinline=True, **NO_REFCOUNT)
def begin_step(t, h, loads, elements, timed, forces, bodies, pred, run_work):
    """The start of a step of a run at time t [s]: the state's motion and the method's memory copied into the
    backup rows, then the step's loads (:func:`element_loads` with force elements; the user's forces plus the
    timed loads with ``timed``; otherwise the loads the run computed once stay). ``forces``, ``run_work`` as in
    :func:`lgs_run`."""
    gravity, body_force, body_torque = forces
    backup, backup_flags, force_w, torque_w, servo_backup = run_work
    body_pos, body_quat, body_vel, body_omega, acc, tau, _, _, _, body_inv_mass, _ = bodies
    pred_pos, pred_quat, pred_vel, pred_omega, pred_valid, dirty, _ = pred
    backup_or_restore(body_pos, body_quat, body_vel, body_omega, pred_pos, pred_quat, pred_vel, pred_omega,
                      pred_valid, dirty, backup, backup_flags, True)
    if elements is not None:
        element_loads(t, h, loads, elements, gravity, body_force, body_torque, bodies, force_w, servo_backup)
    elif timed:
        _step_forces(body_force, body_torque, loads, t, h, force_w, torque_w)
        plain_loads(gravity, body_inv_mass, force_w, torque_w, acc, tau)


@njit(cache=True, **NO_REFCOUNT)
def close_step(stats, iters_out, i, body_pos, body_quat, body_vel, body_omega, sp, rp, cl, sv, rv, facs, dropped,
               eps_d, eps_v, max_distance, max_speed):
    """After step i: its figures as the run's last (S_LAST_*, iters_out[i]), the checks of ``Method.step``
    (returns the first failed one, FAIL_*, in that method's order: a non-finite pose or velocity, a
    non-finite residual, a body beyond max_distance [m] or faster than max_speed [m/s]; one pass over the
    bodies) and, for a good step, its figures added to the run's totals."""
    conv_p, conv_v = rp <= eps_d, rv <= eps_v
    stats[S_LAST_P] = sp
    stats[S_LAST_RP] = rp
    stats[S_LAST_CL] = cl
    stats[S_LAST_V] = sv
    stats[S_LAST_RV] = rv
    stats[S_LAST_CONV_P] = 1.0 if conv_p else 0.0
    stats[S_LAST_CONV_V] = 1.0 if conv_v else 0.0
    if iters_out.shape[0] > i:
        iters_out[i, 0] = sp
        iters_out[i, 1] = sv
    far = False
    for k in range(body_pos.shape[0]):
        for a in range(3):
            p, v, w = body_pos[k, a], body_vel[k, a], body_omega[k, a]
            if not (np.isfinite(p) and np.isfinite(v) and np.isfinite(w)):
                return FAIL_NONFINITE_STATE
            far = far or abs(p) > max_distance or abs(v) > max_speed
        for a in range(4):
            if not np.isfinite(body_quat[k, a]):
                return FAIL_NONFINITE_STATE
    if not (np.isfinite(rp) and np.isfinite(rv)):
        return FAIL_NONFINITE_RESIDUAL
    if far:
        return FAIL_RANGE
    stats[S_DONE] += 1.0
    stats[S_SUM_P] += sp
    stats[S_MAX_P] = max(stats[S_MAX_P], sp)
    stats[S_SUM_V] += sv
    stats[S_MAX_V] = max(stats[S_MAX_V], sv)
    stats[S_RES_P] = max(stats[S_RES_P], rp)
    stats[S_RES_V] = max(stats[S_RES_V], rv)
    stats[S_CLAMPED] += cl
    if not conv_p:
        stats[S_CONV_P] = 0.0
    if not conv_v:
        stats[S_CONV_V] = 0.0
    if not (conv_p and conv_v):
        stats[S_UNCONVERGED] += 1.0
    stats[S_FACS] += facs
    stats[S_DROPPED] = dropped
    return FAIL_NONE


@njit(cache=True, forceinline=True, **NO_REFCOUNT)
def _fail_diverged(stats, solves, residual, t):
    """Record a step whose joint correction diverged (solves or sweeps, the residual [m], its time [s]); the
    run then stops as Method.step would, the state before the step in the backup."""
    stats[S_LAST_P] = solves
    stats[S_LAST_RP] = residual
    stats[S_FAIL] = FAIL_DIVERGED
    stats[S_T] = t


@njit(cache=True, **NO_REFCOUNT)
def lgs_run(run, loads, elements, run_work, chains, struct, prims, bodies, rows, fac, pred, forces, settings, scheme):
    """Up to ``n`` fused all-LGS steps from time ``t`` [s]; totals in ``stats`` (S_* layout). Stops at the
    first step that fails a check, leaving its results in place and the state before it in ``backup``.

    ``run`` = (n, t, max_distance [m], max_speed [m/s], stats, iters_out); ``loads`` the model's timed loads
    (body, force, torque, start, end); ``elements`` None for a model without springs, motors and servos, else
    the ``elements`` group of dynamics.groups (see :func:`lgs_run_elements`); ``run_work`` the loop's buffers
    (backup rows, backup flags, the step's forces and torques, servo backup rows); ``forces`` = (gravity, the
    user's body forces, body torques); ``settings`` = (h [s], eps_d, eps_v, max_iter_pos, max_iter_vel, max
    correction speed, dependent pivot tolerance); ``scheme`` the rotation scheme; the other groups are those
    of :func:`lgs_standard_step` (see :mod:`groups`), whose state is advanced in place.

    The scheme is an argument of its own, not a member of ``settings``: Numba types a tuple of numbers and
    arrays on its fast path, but a tuple holding the scheme object through Python's typing of every member,
    every call (~40 µs a call measured, against ~1 µs for the scheme alone)."""
    n, t, max_distance, max_speed, stats, iters_out = run
    gravity, body_force, body_torque = forces
    h, eps_d, eps_v, max_iter_pos, max_iter_vel, max_speed_corr, dep_tol = settings
    body_pos, body_quat, body_vel, body_omega, acc, tau, _, _, _, body_inv_mass, _ = bodies
    timed = loads[0].shape[0] > 0
    if elements is None and not timed:
        plain_loads(gravity, body_inv_mass, body_force, body_torque, acc, tau)     # the same every step
    for i in range(n):
        begin_step(t, h, loads, elements, timed, forces, bodies, pred, run_work)
        sp, rp, cl, sv, rv, facs, dropped, diverged = lgs_corrections(
            chains, struct, prims, bodies, rows, fac, pred, h, scheme, eps_d, eps_v, max_iter_pos, max_iter_vel,
            max_speed_corr, dep_tol, i > 0)
        if diverged:
            # the joint correction diverged (lgs_correct.DIVERGENCE_FACTOR): the step fails as in Method.step
            _fail_diverged(stats, sp, rp, t)
            return
        fail = close_step(stats, iters_out, i, body_pos, body_quat, body_vel, body_omega, sp, rp, cl, sv, rv, facs,
                          dropped, eps_d, eps_v, max_distance, max_speed)
        if fail != FAIL_NONE:
            stats[S_FAIL] = fail
            stats[S_T] = t
            return
        t += h
    stats[S_T] = t


@njit(cache=True, **NO_REFCOUNT)
def lgs_run_elements(run, loads, elements, run_work, chains, struct, prims, bodies, rows, fac, pred, forces, settings,
                     scheme):
    """:func:`lgs_run` of a model with springs, motors or servos (``elements`` their group, not None).

    A kernel of its own, so that its compiled version and its entry in Numba's cache are its own: compiled
    into the one loop, the force elements' loads had taken the triple pendulum's first run from 4.7 to 12.1 s
    of CPU (empty cache), which a model without them should not pay, and ``run_path.loop_ready`` asks
    whether this very loop is compiled. It is ``lgs_run``'s body compiled with ``elements`` a tuple: the
    branches on ``elements is None`` are decided when each version compiles."""
    lgs_run(run, loads, elements, run_work, chains, struct, prims, bodies, rows, fac, pred, forces, settings, scheme)


@njit(cache=True, **NO_REFCOUNT)     # allocates nothing itself (compute_rows_of keeps its own counts)
def update_rows(lgs, row_prims, prims, bodies, rows):
    """``ImpulseMethod._update_rows``: world inverse inertias, the rows of the primitives corrected one by one
    and the LGS factorization at the current poses, then the poses as the rows' key. ``lgs`` is None or
    (chains, structure, workspace, dependent pivot); ``row_prims`` None or the primitives' indices. Returns the
    rows the factorization dropped as dependent (0 without LGS)."""
    prim_kind, prim_body_a, prim_body_b, prim_anchor_a, prim_anchor_b, prim_axis_a, prim_axis_b, _, _, _ = prims
    body_pos, body_quat, _, _, _, _, Iinv, _, body_inv_inertia, body_inv_mass, _ = bodies
    row_ra, row_rb, row_P, row_dim, row_Minv, rows_pos, rows_quat = rows
    rows_pos[0, 0] = np.nan
    world_inverse_inertia(body_quat, body_inv_inertia, Iinv)
    if row_prims is not None:
        compute_rows_of(row_prims, prim_kind, prim_body_a, prim_body_b, prim_anchor_a, prim_anchor_b, prim_axis_a,
                        prim_axis_b, body_pos, body_quat, body_inv_mass, Iinv, row_ra, row_rb, row_P, row_dim,
                        row_Minv)
    dropped = 0
    if lgs is not None:
        dropped = build_and_factorize(lgs[1], prims, bodies, lgs[3], rows, lgs[2])
    copy_rows(body_pos, rows_pos)
    copy_rows(body_quat, rows_quat)
    return dropped


@njit(cache=True, **NO_REFCOUNT)
def iterative_run(run, loads, elements, run_work, iter_prims, row_prims, prims, bodies, rows, pred, forces, settings,
                  scheme):
    """Up to ``n`` standard steps of a model whose joints are all corrected iteratively (the staged path of
    schemes.standard with the iterative solver, kernel by kernel); as :func:`lgs_run` otherwise, with
    ``settings`` = (h [s], eps_d, eps_v, max_iter_pos, max_iter_vel, max correction speed, whether velocities
    are corrected) and ``scheme`` the rotation scheme."""
    n, t, max_distance, max_speed, stats, iters_out = run
    gravity, body_force, body_torque = forces
    h, eps_d, eps_v, max_iter_pos, max_iter_vel, max_speed_corr, velocity_correction = settings
    body_pos, body_quat, body_vel, body_omega, acc, tau, _, _, _, body_inv_mass, _ = bodies
    timed = loads[0].shape[0] > 0
    if elements is None and not timed:
        plain_loads(gravity, body_inv_mass, body_force, body_torque, acc, tau)     # the same every step
    for i in range(n):
        begin_step(t, h, loads, elements, timed, forces, bodies, pred, run_work)
        if not same_poses(body_pos, body_quat, rows[5], rows[6]):
            update_rows(None, row_prims, prims, bodies, rows)
        sweeps, res, cl, diverged = correct_positions_checked(iter_prims, prims, bodies, rows, pred, h, scheme,
                                                              eps_d, max_iter_pos, max_speed_corr, DIVERGENCE_FACTOR)
        if diverged:
            # as in lgs_run: the step fails as in Method.step, with the state before it in ``backup``
            _fail_diverged(stats, sweeps, res, t)
            return
        sp = max(0, sweeps)
        rp = res if res > 0.0 else 0.0          # Python's max(0.0, res), as the staged step takes it
        advance_bodies(bodies, pred, h, scheme)
        sv = 0
        rv = 0.0
        if velocity_correction:
            update_rows(None, row_prims, prims, bodies, rows)
            vs, vres = correct_velocities_of(iter_prims, prims, bodies, rows, eps_v, max_iter_vel)
            sv = max(0, vs)
            rv = vres if vres > 0.0 else 0.0
        fail = close_step(stats, iters_out, i, body_pos, body_quat, body_vel, body_omega, sp, rp, cl, sv, rv, 0, 0,
                          eps_d, eps_v, max_distance, max_speed)
        if fail != FAIL_NONE:
            stats[S_FAIL] = fail
            stats[S_T] = t
            return
        t += h
    stats[S_T] = t


@njit(cache=True, **NO_REFCOUNT)
def iterative_run_elements(run, loads, elements, run_work, iter_prims, row_prims, prims, bodies, rows, pred, forces,
                           settings, scheme):
    """:func:`iterative_run` of a model with springs, motors or servos (``elements`` their group, not None):
    a kernel of its own for the reasons of :func:`lgs_run_elements`."""
    iterative_run(run, loads, elements, run_work, iter_prims, row_prims, prims, bodies, rows, pred, forces, settings,
                  scheme)
