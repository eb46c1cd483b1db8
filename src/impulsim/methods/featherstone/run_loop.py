"""``FeatherstoneMethod.run`` in compiled code: n steps of read → loads → integrate → write back in one call.

A step in Python costs several times the compiled work on small trees (copying the state, the snapshot
that keeps a failed step harmless, a dozen kernel calls with their arguments unboxed); this loop runs the
same kernels in the same order on the same arrays, so its results equal ``n`` calls of ``step`` bit for bit.

Covered: models without contacts, joint limits and PID servos (gravity, user forces, timed loads, springs,
motors, damping; RK4 or Euler). A step that fails a check (singular articulated inertia, non-finite or
diverged state, non-finite joint error), or whose state velocities do not meet the joints (the first step
after the user set them: ``read`` then projects them, in Python), ends the loop with the state as before
that step; the wrapper then takes that step with ``step``, which raises the same error as ``n`` calls of
``step`` would, or projects the velocities and goes on.
"""
from __future__ import annotations

import time

import numpy as np

from impulsim.dynamics.checks import all_finite
from impulsim.dynamics.loads import add_timed_loads
from impulsim.kernel import njit
from impulsim.math.linalg import copy_rows
from impulsim.methods.base import MAX_DISTANCE, MAX_SPEED, RunInfo, StepInfo, loop_compiled
from impulsim.methods.featherstone import kinematics as kin
from impulsim.methods.featherstone.articulated import VELOCITY_MISMATCH
from impulsim.methods.featherstone.checks import largest_joint_error
from impulsim.methods.featherstone.fused import euler_step, pose_and_velocities, rk4_step
from impulsim.methods.featherstone.groups import loads_of, model_of, prims_of, stages_of, state_of

# stats slots
S_DONE, S_T, S_RES_MAX, S_RES_LAST, S_UNCONVERGED, S_STOP = range(6)
N_STATS = 6
STOP_NONE, STOP_FAILED, STOP_MISMATCH = 0, 1, 2

COMPILE_PAYS_STEPS = 100_000
"""Steps from which a run compiles its loop even when Numba's cache does not hold it yet (compiling costs
seconds of CPU once; the loop saves roughly 0.1 ms per step on small trees). Shorter runs take the loop
once it is compiled (in this process or by an earlier one) and call ``step`` before."""


@njit(cache=True, _nrt=False)
def _largest_abs(x):
    worst = 0.0
    for i in range(x.shape[0]):
        for r in range(x.shape[1]):
            worst = max(worst, abs(x[i, r]))
    return worst


@njit(cache=True, _nrt=False)
def run_steps(tree, mdl, ws, loads, prims, motors, settings, h, n, t, state, q, qd, stages, run_ws):
    """Up to ``n`` steps of FeatherstoneMethod._step (as Method.step calls it) of size ``h`` from time ``t``
    [s], advancing the ``state``'s motion and the joint coordinates q, q̇ in place.

    The groups are those of :mod:`.groups`: ``loads`` = the model's timed loads, ``prims`` = its joint
    primitives (for the joint error), ``settings`` = (damping, euler, measure, eps_d). Stops early
    (stats[S_STOP]) on a failed check or a velocity mismatch, with pos, quat, vel, omega as before the step
    that stopped it. ``run_ws`` = (R3, backup [n_bodies, 13], stats): scratch and the statistics."""
    kind, body, parent, parent_body, q_start, v_start, frame_p, origin_p, frame_c, origin_c = tree
    load_body, load_force, load_torque, load_start, load_end = loads
    motor_dof, motor_sign = motors
    damping, euler, measure, eps_d = settings
    pos, quat, vel, omega, user_f, user_t, motor_effort = state
    kq, kv, qs, vs = stages
    R3, backup, stats = run_ws
    ws_pos, ws_quat, ws_vel, ws_omega = ws[0], ws[1], ws[2], ws[3]
    tmp4, user_force, user_torque, tau_const = ws[23], ws[28], ws[29], ws[30]
    nb = pos.shape[0]
    done = 0
    while done < n:
        for b in range(nb):
            for r in range(3):
                backup[b, r] = pos[b, r]
                backup[b, 7 + r] = vel[b, r]
                backup[b, 10 + r] = omega[b, r]
            for r in range(4):
                backup[b, 3 + r] = quat[b, r]
        # loads of the step: the held user loads plus the timed loads' means over [t, t + h)
        copy_rows(user_f, user_force)
        copy_rows(user_t, user_torque)
        add_timed_loads(load_body, load_force, load_torque, load_start, load_end, t, h, user_force, user_torque)
        # coordinates
        copy_rows(pos, ws_pos)
        copy_rows(quat, ws_quat)
        kin.read_coordinates(kind, body, parent_body, q_start, v_start, frame_p, origin_p, frame_c, origin_c, pos,
                             quat, vel, omega, q, qd, tmp4, R3)
        pose_and_velocities(tree, mdl, ws, q, qd, True)
        if kin.velocity_mismatch(body, ws_vel, ws_omega, vel, omega) > VELOCITY_MISMATCH:
            stats[S_STOP] = STOP_MISMATCH
            break
        for k in range(tau_const.shape[0]):
            tau_const[k] = 0.0
        for m in range(motor_dof.shape[0]):
            tau_const[motor_dof[m]] += motor_sign[m] * motor_effort[m]
        # integrate (the workspace holds the pose and velocities of (q, q̇) just read: RK4's first stage
        # and Euler's evaluation skip recomputing them)
        if euler:
            bad = euler_step(tree, mdl, ws, damping, h, q, qd, kq, kv, qs, vs, True)
        else:
            bad = rk4_step(tree, mdl, ws, damping, h, q, qd, kq, kv, qs, vs, True)
        if bad >= 0:
            stats[S_STOP] = STOP_FAILED
            break
        # write back (the next step reads the state again and computes the inertias there)
        pose_and_velocities(tree, mdl, ws, q, qd, False)
        kin.copy_bodies(body, ws_pos, ws_quat, ws_vel, ws_omega, pos, quat, vel, omega)
        residual = 0.0
        if measure and prims[0].shape[0] > 0:
            residual = largest_joint_error(prims[0], prims[1], prims[2], prims[3], prims[4], prims[5], prims[6],
                                           prims[7], prims[8], pos, quat)
        # Method.step's checks
        if not (all_finite(pos, quat, vel, omega) and np.isfinite(residual) and _largest_abs(pos) <= MAX_DISTANCE
                and _largest_abs(vel) <= MAX_SPEED):
            stats[S_STOP] = STOP_FAILED
            break
        t += h
        done += 1
        stats[S_RES_MAX] = max(stats[S_RES_MAX], residual)
        stats[S_RES_LAST] = residual
        if not residual <= eps_d:
            stats[S_UNCONVERGED] += 1
    if stats[S_STOP] != STOP_NONE:
        for b in range(nb):
            for r in range(3):
                pos[b, r] = backup[b, r]
                vel[b, r] = backup[b, 7 + r]
                omega[b, r] = backup[b, 10 + r]
            for r in range(4):
                quat[b, r] = backup[b, 3 + r]
    stats[S_DONE] = done
    stats[S_T] = t


def compiled(method) -> bool:
    """Whether ``method``'s steps can run in :func:`run_steps`: no contacts, no joint limits, no servos."""
    m = method.model
    if method.detector is not None or method.limit_rows or m.n_servos:
        return False
    thickness = method._thickness()
    return thickness is None or not np.isfinite(thickness).any()


def loop_ready(n: int) -> bool:
    """Whether ``n`` steps should take the compiled loop now (see COMPILE_PAYS_STEPS)."""
    return n >= COMPILE_PAYS_STEPS or loop_compiled(run_steps)


def run_compiled(method, state, h: float, n: int, iters) -> RunInfo:
    """``n`` steps of ``method`` in the compiled loop, aggregated as Method.run aggregates ``step``."""
    method._check_input(state)
    if method.dyn is None:
        method._prepare(state)
    total = RunInfo()
    done = 0
    seconds = 0.0
    while done < n:
        t0 = time.perf_counter()
        k, stop, stats = _call(method, state, h, n - done)
        seconds += time.perf_counter() - t0
        if k:
            _add(total, method, stats, k)
            if iters is not None:
                iters[done:done + k, 0] = 1
                iters[done:done + k, 1] = 0
            done += k
        if stop:
            # the step that stopped the loop, in Python: raises as step would, or projects the velocities
            info = method.step(state, h)
            total.add(info)
            if iters is not None:
                iters[done, 0], iters[done, 1] = info.iters_pos, info.iters_vel
            done += 1
    total.timings["featherstone_run"] = total.timings.get("featherstone_run", 0.0) + seconds
    return total


def _call(method, state, h, n):
    m, dyn, integ, s = method.model, method.dyn, method.integrator, state
    dyn.model = method.model          # live parameters, as _step reads them
    work = method.__dict__.get("_run_work")
    if work is None or work[0].shape[0] != s.body_pos.shape[0]:
        work = method.__dict__["_run_work"] = (np.zeros((s.body_pos.shape[0], 13)), np.zeros(N_STATS))
    backup, stats = work
    stats[:] = 0.0
    motors = (method.motor_dof, np.asarray(method.motor_sign, float))
    settings = (float(dyn.damping), integ.scheme == "euler", method.measure_joints, method.eps_d)
    run_steps(integ.tree, model_of(m), integ.ws, loads_of(m), prims_of(m), motors, settings, float(h), int(n),
              float(s.t), state_of(s), method.q, method.qd, stages_of(integ), (dyn.R3, backup, stats))
    k = int(stats[S_DONE])
    s.t = float(stats[S_T])
    s.step_count += k
    return k, int(stats[S_STOP]) != STOP_NONE, stats


def _add(total, method, stats, k):
    """The RunInfo of k steps of the loop (each as _step reports it: one solve, the joint error)."""
    unconverged = int(stats[S_UNCONVERGED])
    last_res = float(stats[S_RES_LAST])
    last = StepInfo(iters_pos=1, residual_pos=last_res, converged_pos=last_res <= method.eps_d)
    if method.ignored:
        last.ignored = dict(method.ignored)
    part = RunInfo(iters_pos=k, residual_pos=float(stats[S_RES_MAX]), converged_pos=unconverged == 0, steps=k,
                   max_iters_pos=1, unconverged=unconverged, last=last)
    part.ignored = last.ignored
    total.add(part)
