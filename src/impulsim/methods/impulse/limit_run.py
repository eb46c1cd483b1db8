"""Many impulse steps of a model with joint limits and without contacts in one compiled call.

A model with joint limits steps through the stages of ``ContactCoupling._step_with_contacts`` (Bender Fig. 5.2):
the limits classified at t0, their collisions resolved with one joint velocity pass after each sweep, then
joint passes (one LGS solve per chain, one sweep over the other joints) alternating with limit sweeps until
neither corrects anything, the free step, the rows at t0+h, and joint and limit velocity passes. Called from
Python each stage pays its arrays' unboxing and the step pays Method.step's fixed cost, about 30 µs on a
small robot. :func:`limits_run` repeats the same kernels in the same order inside one compiled loop, with the
loads, the backup before each step and the checks of :mod:`run_kernels`, so its states equal those of single
steps bit for bit. Imported robots (URDF, MJCF) bring limits on most joints; without contacts they take this
loop (``ImpulseMethod.run_path`` is then ``"limits"``).

Its kernels, and the limit kernels of contact.limits and limit_coupling that it calls, allocate nothing and are
compiled without Numba's reference counts (methods/impulse/jit.py): on a resting six-link arm the loop's step
took 50 µs with them and 21 µs without. What it calls that allocates (the iterative velocity sweeps, the rows of
primitives corrected one by one, the rows' update) is compiled with the counts whoever calls it.
"""
from impulsim.collision.vec import KERNEL
from impulsim.contact.limits import (COLLISION, RESTING, classify_limits, coordinates, limit_geometry,
                                     position_pass, velocity_pass, velocity_targets)
from impulsim.dynamics.forces import plain_loads
from impulsim.dynamics.integrate import free_step_all
from impulsim.kernel import njit
from impulsim.methods.impulse.jit import NO_REFCOUNT
from impulsim.methods.impulse import limit_coupling as lc
from impulsim.methods.impulse.iterative import correct_positions_of, correct_velocities_of, free_position_error
from impulsim.methods.impulse.lgs_correct import DIVERGENCE_FACTOR, correct_positions_lgs, correct_velocities_lgs
from impulsim.methods.impulse.lgs_kernels import same_poses
from impulsim.methods.impulse.run_kernels import (FAIL_NONE, S_COLLISIONS, S_FAIL, S_ITERS_COLLISION, S_LAST_COLLISIONS,
                                                  S_LAST_ITERS_COLLISION, S_T, _fail_diverged, begin_step, close_step,
                                                  update_rows)


@njit(cache=True, **NO_REFCOUNT)
def _py_max(a, b):
    """Python's max(a, b) of two floats: b only when it is larger (a NaN b leaves a)."""
    return b if b > a else a


@njit(cache=True, **NO_REFCOUNT)
def joint_position_pass(lgs, iter_prims, prims, bodies, rows, pred, h, scheme, eps_d, max_speed):
    """``ContactCoupling._joint_position_pass``: one LGS solve per chain and one sweep over the other joints;
    returns (largest error [m or rad], clamped count)."""
    residual = 0.0
    clamped = 0
    if lgs is not None:
        _, residual, clamped, _ = correct_positions_lgs(lgs[0], lgs[1], prims, bodies, rows, lgs[2], pred, h, scheme,
                                                        eps_d, 1, max_speed)
        pred[4][:] = 0           # the limit sweeps that follow predict afresh
        pred[5][:] = 1
    if iter_prims is not None:
        _, res, cl = correct_positions_of(iter_prims, prims, bodies, rows, pred, h, scheme, eps_d, 1, max_speed)
        residual = _py_max(residual, res)
        clamped += cl
    return residual, clamped


@njit(cache=True, **NO_REFCOUNT)
def joint_velocity_pass(lgs, iter_prims, prims, bodies, rows, eps_v):
    """``ContactCoupling._joint_velocity_pass``: one LGS solve per chain and one sweep over the other joints;
    True if a joint needed correcting."""
    moved = False
    if lgs is not None:
        solves, _ = correct_velocities_lgs(lgs[0], lgs[1], prims, bodies, rows, lgs[2], eps_v, 1)
        moved = solves > 0
    if iter_prims is not None:
        _, residual = correct_velocities_of(iter_prims, prims, bodies, rows, eps_v, 1)
        moved = moved or residual > eps_v
    return moved


@njit(**KERNEL)
def _geometry(limits, bodies):
    """LimitStage._geometry: each limit's axis, arms and effective inverse mass at the current poses."""
    args, geom = limits[0], limits[2]
    body_pos, body_quat, _, _, _, _, Iinv, _, _, body_inv_mass, _ = bodies
    limit_geometry(args[0], args[1], args[4], args[5], args[7], args[8], body_pos, body_quat, body_inv_mass, Iinv,
                   geom[0], geom[1], geom[2], geom[3])


@njit(**KERNEL)
def _forget(coupling):
    """A new phase for the limits solved together (no-op when they are corrected one by one)."""
    if coupling is not None:
        lc.forget(coupling)


@njit(**KERNEL)
def _limit_velocity_pass(lgs, prims, bodies, rows, eps_v, limits, coupling, which, eps_vc):
    """One velocity pass of the limits of ``which`` (COLLISION, or RESTING for the resting and arriving ones):
    solved together through the LGS joints when the ``limits`` carry a coupling (limit_coupling), else one by
    one (contact.limits). ``coupling`` is the last field of ``limits``, passed apart so that Numba compiles
    only the branch its type (None or not) takes."""
    args, geom, side, phase, target, lam = limits[0], limits[2], limits[3], limits[4], limits[5], limits[6]
    if coupling is not None:
        return lc.velocity_pass(lgs, prims, bodies, rows, eps_v, args, which, geom, side, phase, target, lam,
                                coupling, eps_vc)
    motion = (bodies[0], bodies[1], bodies[2], bodies[3])
    return velocity_pass(args, which, geom, side, phase, target, lam, bodies[9], bodies[6], motion)


@njit(**KERNEL)
def _limit_position_pass(lgs, prims, bodies, rows, eps_v, limits, coupling, pred, h, eps_d):
    """One position pass of the limits, solved together or one by one as :func:`_limit_velocity_pass`; returns
    (largest violation at t0+h, largest free motion of an impulse applied)."""
    args, geom, side, phase, lam_pos, free = limits[0], limits[2], limits[3], limits[4], limits[7], limits[12]
    if coupling is not None:
        return lc.position_pass(lgs, prims, bodies, rows, eps_v, args, geom, side, phase, lam_pos, pred, free, h,
                                eps_d, coupling)
    return position_pass(args, geom, side, phase, lam_pos, bodies, pred, free, h, eps_d)


@njit(**KERNEL, forceinline=True)
def _zero(a):
    for i in range(a.shape[0]):
        a[i] = 0.0


@njit(**KERNEL, forceinline=True)
def begin_limits(limits, bodies, h):
    """LimitStage.begin: the limits' geometry at t0 and their classification for a step of h [s], their
    impulses zeroed; returns the number of colliding limits."""
    args, restitution, side, phase, target, lam, tol, eps_rc, eps_rest = (limits[0], limits[1], limits[3], limits[4],
                                                                         limits[5], limits[6], limits[9], limits[10],
                                                                         limits[11])
    _geometry(limits, bodies)
    n_coll = classify_limits(args, restitution, (bodies[0], bodies[1], bodies[2], bodies[3]), tol, eps_rc, eps_rest,
                             h, side, phase, target)
    _zero(lam)
    return n_coll


@njit(**KERNEL, forceinline=True)
def begin_limit_positions(limits, bodies):
    """LimitStage.begin_positions: no position impulse yet, and each coordinate's rate now (rate0)."""
    _zero(limits[7])
    coordinates(limits[0], True, (bodies[0], bodies[1], bodies[2], bodies[3]), limits[8])


@njit(**KERNEL, forceinline=True)
def begin_limit_velocities(limits, bodies):
    """LimitStage.begin_velocities: the geometry at t0+h and the targets of the resting and arriving limits."""
    _geometry(limits, bodies)
    velocity_targets(limits[1], limits[3], limits[4], limits[8], limits[10], limits[5])
    _zero(limits[6])


@njit(cache=True, **NO_REFCOUNT)
def limits_step(joints, prims, bodies, rows, pred, limits, h, scheme, settings):
    """One step of a model with joint limits and without contacts, after its loads: the stages of
    ``_step_with_contacts`` (see the module docstring). ``joints`` = (lgs or None, primitives corrected one by
    one or None, primitives with rows of their own or None, every primitive's index); ``limits`` = (the
    ``limits`` group of contact.groups, restitutions, geometry, side, phase, target, impulse, position impulse,
    coordinate rates at the start of the position phase, tolerance [m or rad], collision speed eps_rc,
    resting speed, the ``free`` group of a prediction, the arrays of the limits solved together or None);
    ``settings`` = (eps_d, eps_v, max_iter_pos, max_iter_vel, max correction speed, max_iter_collision,
    max_iter_contact, eps_vc). Returns (position passes, residual, clamped, velocity passes, residual,
    factorizations, rows dropped, collisions, collision iterations, diverged)."""
    lgs, iter_prims, row_prims, all_prims = joints
    eps_d, eps_v, max_iter_pos, max_iter_vel, max_speed, max_iter_coll, max_iter_contact, eps_vc = settings
    free, coupling = limits[12], limits[13]
    body_pos, body_quat, body_vel, body_omega = bodies[0], bodies[1], bodies[2], bodies[3]
    dirty = pred[5]
    facs = 0
    dropped = 0
    if not same_poses(body_pos, body_quat, rows[5], rows[6]):
        dropped = update_rows(lgs, row_prims, prims, bodies, rows)
        facs += 1
    # limits at t0 and their collisions
    n_coll = begin_limits(limits, bodies, h)
    iters_coll = 0
    if n_coll:
        _forget(coupling)
        for iters_coll in range(1, max_iter_coll + 1):
            err = _limit_velocity_pass(lgs, prims, bodies, rows, eps_v, limits, coupling, COLLISION, eps_vc)
            if not (joint_velocity_pass(lgs, iter_prims, prims, bodies, rows, eps_v) or err > eps_vc):
                break
    # joints and limits at t0+h
    _forget(coupling)
    begin_limit_positions(limits, bodies)
    start = 0.0
    if all_prims.shape[0]:
        dirty[:] = 1
        start = free_position_error(all_prims, prims, bodies, pred, h, scheme)
    dirty[:] = 1
    cap = max(max_iter_pos, max_iter_contact)
    res = 0.0
    clamped = 0
    it = 0
    for it in range(1, cap + 1):
        joints_err, cl = joint_position_pass(lgs, iter_prims, prims, bodies, rows, pred, h, scheme, eps_d, max_speed)
        clamped = max(clamped, cl)
        res = joints_err
        err, pushed = _limit_position_pass(lgs, prims, bodies, rows, eps_v, limits, coupling, pred, h, eps_d)
        res = _py_max(res, err)
        start = _py_max(start, pushed)
        if it == 1:
            start = _py_max(start, err)
        if it > 1 and joints_err > DIVERGENCE_FACTOR * _py_max(start, eps_d):
            return it, joints_err, clamped, 0, 0.0, facs, dropped, n_coll, iters_coll, True
        if res <= eps_d:
            break
    free_step_all(body_pos, body_quat, body_vel, body_omega, free[0], free[1], free[2], free[3], free[4], free[5], h,
                  scheme)
    dropped = update_rows(lgs, row_prims, prims, bodies, rows)
    facs += 1
    # velocities at t0+h
    begin_limit_velocities(limits, bodies)
    _forget(coupling)
    cap_v = max(max_iter_vel, max_iter_contact)
    res_v = 0.0
    it_v = 0
    for it_v in range(1, cap_v + 1):
        moved = joint_velocity_pass(lgs, iter_prims, prims, bodies, rows, eps_v)
        res_v = _py_max(0.0, _limit_velocity_pass(lgs, prims, bodies, rows, eps_v, limits, coupling, RESTING, eps_vc))
        if not moved and res_v <= eps_vc:
            break
    return it, res, clamped, it_v, res_v, facs, dropped, n_coll, iters_coll, False


@njit(cache=True, **NO_REFCOUNT)
def limits_run(run, loads, elements, run_work, joints, prims, bodies, rows, pred, limits, forces, settings, scheme):
    """Up to ``n`` steps of :func:`limits_step` from time ``t`` [s], with the loads, backups and checks of
    ``run_kernels.lgs_run`` (its ``run``, ``loads``, ``elements``, ``run_work`` and ``forces``); ``settings`` =
    (h [s], then those of :func:`limits_step`). The residual of the velocity phase is checked against eps_vc,
    as the single step's ``converged_vel`` is."""
    n, t, max_distance, max_speed, stats, iters_out = run
    gravity, body_force, body_torque = forces
    h = settings[0]
    step_settings = settings[1:]
    eps_d, eps_vc = settings[1], settings[8]
    body_pos, body_quat, body_vel, body_omega, acc, tau, _, _, _, body_inv_mass, _ = bodies
    timed = loads[0].shape[0] > 0
    if elements is None and not timed:
        plain_loads(gravity, body_inv_mass, body_force, body_torque, acc, tau)     # the same every step
    for i in range(n):
        begin_step(t, h, loads, elements, timed, forces, bodies, pred, run_work)
        sp, rp, cl, sv, rv, facs, dropped, n_coll, iters_coll, diverged = limits_step(
            joints, prims, bodies, rows, pred, limits, h, scheme, step_settings)
        if diverged:
            _fail_diverged(stats, sp, rp, t)
            return
        stats[S_LAST_COLLISIONS] = n_coll
        stats[S_LAST_ITERS_COLLISION] = iters_coll
        fail = close_step(stats, iters_out, i, body_pos, body_quat, body_vel, body_omega, sp, rp, cl, sv, rv, facs,
                          dropped, eps_d, eps_vc, max_distance, max_speed)
        if fail != FAIL_NONE:
            stats[S_FAIL] = fail
            stats[S_T] = t
            return
        stats[S_COLLISIONS] += n_coll
        stats[S_ITERS_COLLISION] += iters_coll
        t += h
    stats[S_T] = t


@njit(cache=True, **NO_REFCOUNT)
def limits_run_elements(run, loads, elements, run_work, joints, prims, bodies, rows, pred, limits, forces, settings,
                        scheme):
    """:func:`limits_run` of a model with springs, motors or servos (``elements`` their group, not None): a
    kernel of its own for the reasons of ``run_kernels.lgs_run_elements``."""
    limits_run(run, loads, elements, run_work, joints, prims, bodies, rows, pred, limits, forces, settings, scheme)
