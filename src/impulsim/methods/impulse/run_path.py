"""``ImpulseMethod.run`` in compiled code: which models take it, and the Python side of one compiled loop.

The compiled loops (see :mod:`run_kernels`) cover the standard scheme without contacts or Wagner's extra
constraints: without joint limits, with either all chains solved by LGS (the kernels of the fused step) or
all joints corrected iteratively; with joint limits, any mix of LGS chains and joints corrected one by one
(:mod:`limit_run`, the stages of the step with limits). User forces, timed loads, springs, motors and PID
servos are included (the servos' memory in the state is put back with the bodies when a step fails).
Everything else runs as calls of ``step``. On the servo arm example (examples/servo_arm.yaml, h = 1 ms)
``Simulation.run`` takes 8.0 µs a step (iterative) and 3.9 µs (LGS) in the loop against 52 and 55 µs stepped
in Python (CPU time, medians; benchmarks/force_elements_run.py, docs/performance.md). A model with force
elements takes a loop of its own (``run_kernels.lgs_run_elements``, ``iterative_run_elements``), compiled
apart from the plain one.
"""
from __future__ import annotations

import time
from types import SimpleNamespace

import numpy as np

from impulsim.dynamics.forces import has_force_elements
from impulsim.dynamics.groups import elements_of
from impulsim.dynamics.integrate import rotation_scheme
from impulsim.errors import SimulationError
from impulsim.methods.base import MAX_DISTANCE, MAX_SPEED, RunInfo, StepInfo, loop_compiled
from impulsim.methods.impulse import limit_run as lr
from impulsim.methods.impulse import run_kernels as rk
from impulsim.methods.impulse.lgs import diverged_error
from impulsim.methods.impulse.groups import (bodies_of, chains_of, fac_of, lgs_of, limit_group_of, pred_of,
                                            prims_of, rows_of, structure_of)

PATHS = ("lgs", "iterative", "limits")

COMPILE_PAYS_STEPS = 200_000
"""Steps from which a run compiles its loop even when Numba's cache does not hold it yet: compiling costs
about 7 s of CPU once, and the loop saves 30–40 µs per step on small models. Shorter runs take the loop
only once it is compiled (in this process, by ``impulsim warmup`` or by an earlier long run) and step in
Python before, so that a first short run does not wait for a compile it cannot earn back."""


def compiled_path(method) -> str | None:
    """"lgs", "iterative" or "limits" when ``method``'s steps can run in a compiled loop, else None."""
    if method.contacts is not None or method.scheme != "standard":
        return None
    if not getattr(method, "_run_fused", True):
        return None
    if getattr(method, "_wagner", None) is not None:
        return None          # Wagner's extra constraints are corrected in Python (see wagner.py)
    thickness = method._thickness()
    if thickness is not None and np.isfinite(thickness).any():
        return None          # the per-body travel check of Method.step is not in the compiled loop
    if method.limits is not None:
        return "limits"      # the staged step with limits, whatever corrects the joints (limit_run)
    if method._all_lgs_standard():
        return "lgs"      # with force elements the single step is staged: the loop gives the same bits
    if method._lgs is None and method._iter_prims is not None:
        return "iterative"
    return None


def _loop(path: str, elements: bool):
    """The compiled loop of ``path`` ("lgs", "iterative" or "limits"), with force elements or without (a model
    with springs, motors or servos, ``forces.has_force_elements``, takes its own loop, compiled apart)."""
    if path == "lgs":
        return rk.lgs_run_elements if elements else rk.lgs_run
    if path == "limits":
        return lr.limits_run_elements if elements else lr.limits_run
    return rk.iterative_run_elements if elements else rk.iterative_run


def loop_ready(path: str, n: int, *, elements: bool = False) -> bool:
    """Whether ``n`` steps should go through the compiled loop ``path`` (with force ``elements`` or without;
    see COMPILE_PAYS_STEPS)."""
    return n >= COMPILE_PAYS_STEPS or loop_compiled(_loop(path, elements))


class _Work:
    """Buffers of one compiled loop: the state and memory before the current step (bodies, the servos'
    integral, previous error and effort), the step's forces."""

    def __init__(self, n_bodies: int, n_servos: int):
        self.backup = np.zeros((n_bodies, rk.B_WIDTH))
        self.backup_flags = np.zeros((n_bodies, 2), np.int8)
        self.servo_backup = np.zeros((n_servos, 3))
        self.force = np.zeros((n_bodies, 3))
        self.torque = np.zeros((n_bodies, 3))
        self.stats = np.zeros(rk.N_STATS)
        self.no_iters = np.zeros((0, 2), np.int64)


def run_compiled(method, path: str, state, h: float, n: int, iters) -> RunInfo:
    """``n`` steps of ``method`` in the compiled loop ``path``; on a failed step, raise as Method.step does
    with the state and the method's memory put back to before that step."""
    method._check_input(state)
    work = _work(method, state)
    stats = work.stats
    stats[:] = 0.0
    stats[rk.S_CONV_P] = stats[rk.S_CONV_V] = 1.0
    if method._lgs is not None:
        stats[rk.S_DROPPED] = method._lgs.dropped
    out = work.no_iters if iters is None else iters
    if out.dtype != np.int64 or not out.flags.c_contiguous:
        out = np.zeros((n, 2), np.int64)
    t0 = time.perf_counter()
    _call(method, path, state, h, n, out, work)
    seconds = time.perf_counter() - t0
    if iters is not None and out is not iters:
        done = int(stats[rk.S_DONE]) + (stats[rk.S_FAIL] != 0)
        iters[:done] = out[:done]
    done = int(stats[rk.S_DONE])
    state.step_count += done
    if method._lgs is not None:
        method._lgs.factorizations += int(stats[rk.S_FACS])
        method._lgs.dropped = int(stats[rk.S_DROPPED])
    if method.limits is not None:
        method.limits.n_collisions = int(stats[rk.S_LAST_COLLISIONS])
    if stats[rk.S_FAIL]:
        _fail(method, path, state, h, work)
    state.t = float(stats[rk.S_T])
    return _run_info(method, stats, done, seconds, path)


def _work(method, state) -> _Work:
    work = method.__dict__.get("_run_work")
    shape = (state.body_pos.shape[0], state.servo_integral.shape[0])
    if work is None or (work.backup.shape[0], work.servo_backup.shape[0]) != shape:
        work = method.__dict__["_run_work"] = _Work(*shape)
    return work


def _call(method, path, state, h, n, out, work):
    m, s = method.model, state
    run = (n, float(s.t), MAX_DISTANCE, MAX_SPEED, work.stats, out)
    loads = (m.load_body, m.load_force, m.load_torque, m.load_start, m.load_end)
    elements = elements_of(m, s) if has_force_elements(m) else None
    run_work = (work.backup, work.backup_flags, work.force, work.torque, work.servo_backup)
    prims, bodies, rows, pred = prims_of(m), bodies_of(m, s, method), rows_of(method), pred_of(method)
    forces = (m.gravity, s.body_force, s.body_torque)
    # the scheme apart from the numbers: a tuple holding it is typed through Python on every call (lgs_run)
    scheme = rotation_scheme(method.integrator)
    options = (float(h), float(method.eps_d), float(method.eps_v), int(method.max_iter_pos),
               int(method.max_iter_vel), float(method.max_correction_speed))
    loop = _loop(path, elements is not None)
    if path == "limits":
        loop(run, loads, elements, run_work, _joints(method), prims, bodies, rows, pred, limit_group_of(method), forces,
             (*options, int(method._max_iter_collision), int(method._max_iter_contact),
              float(method._eps_vc)), scheme)
    elif path == "lgs":
        lgs = method._lgs
        loop(run, loads, elements, run_work, chains_of(lgs), structure_of(lgs), prims, bodies, rows, fac_of(lgs), pred,
             forces, (*options, float(lgs.dependent_pivot)), scheme)
    else:
        loop(run, loads, elements, run_work, method._iter_prims, method._row_prims, prims, bodies, rows, pred, forces,
             (*options, bool(method.velocity_correction)), scheme)


def _joints(method) -> tuple:
    """``joints`` of limit_run.limits_step: the LGS chains (or None), the primitives corrected one by one and
    those with rows of their own (or None), every primitive's index."""
    return lgs_of(method._lgs), method._iter_prims, method._row_prims, method._every_prim()


def _fail(method, path, state, h, work):
    """The loop stopped after a step that failed a check: raise Method.step's error for it (the same
    checks on the same values) after putting the state (bodies and servo memory) and the method's memory of
    before that step back."""
    stats = work.stats
    t_before = float(stats[rk.S_T])
    b_pos = work.backup[:, rk.B_POS:rk.B_POS + 3]
    before = SimpleNamespace(t=t_before, step_count=state.step_count, body_pos=b_pos)
    info = StepInfo(residual_pos=float(stats[rk.S_LAST_RP]), residual_vel=float(stats[rk.S_LAST_RV]))
    state.t = t_before + h
    error = SimulationError(f"step {state.step_count} (t = {t_before:.6g} s): the step failed a check "
                            f"(code {int(stats[rk.S_FAIL])}); the state was left at the last good step")
    try:
        if stats[rk.S_FAIL] == rk.FAIL_DIVERGED:
            raise diverged_error(state.step_count, t_before, h, info.residual_pos, int(stats[rk.S_LAST_P]),
                                 solver="coupled" if path == "limits" else path)
        method._check_finite(state, state.step_count)
        method._check_divergence(state, before, h, info)
    except SimulationError as exc:
        error = exc
    finally:
        rk.backup_or_restore(state.body_pos, state.body_quat, state.body_vel, state.body_omega, method.pred_pos,
                             method.pred_quat, method.pred_vel, method.pred_omega, method.pred_valid, method.dirty,
                             work.backup, work.backup_flags, False)
        if work.servo_backup.shape[0]:
            state.servo_integral[:] = work.servo_backup[:, 0]
            state.servo_prev_error[:] = work.servo_backup[:, 1]
            state.servo_effort[:] = work.servo_backup[:, 2]
        state.t = t_before
    raise error


def _run_info(method, stats, done, seconds, path) -> RunInfo:
    info = RunInfo(iters_pos=int(stats[rk.S_SUM_P]), iters_vel=int(stats[rk.S_SUM_V]),
                   residual_pos=float(stats[rk.S_RES_P]), residual_vel=float(stats[rk.S_RES_V]),
                   converged_pos=bool(stats[rk.S_CONV_P]), converged_vel=bool(stats[rk.S_CONV_V]),
                   clamped=int(stats[rk.S_CLAMPED]), n_collisions=int(stats[rk.S_COLLISIONS]),
                   iters_collision=int(stats[rk.S_ITERS_COLLISION]), steps=done, max_iters_pos=int(stats[rk.S_MAX_P]),
                   max_iters_vel=int(stats[rk.S_MAX_V]), unconverged=int(stats[rk.S_UNCONVERGED]),
                   timings={f"{path}_run": seconds})
    if done:
        info.last = StepInfo(iters_pos=int(stats[rk.S_LAST_P]), residual_pos=float(stats[rk.S_LAST_RP]),
                             converged_pos=bool(stats[rk.S_LAST_CONV_P]), clamped=int(stats[rk.S_LAST_CL]),
                             iters_vel=int(stats[rk.S_LAST_V]), residual_vel=float(stats[rk.S_LAST_RV]),
                             converged_vel=bool(stats[rk.S_LAST_CONV_V]),
                             n_collisions=int(stats[rk.S_LAST_COLLISIONS]),
                             iters_collision=int(stats[rk.S_LAST_ITERS_COLLISION]))
    if method.ignored:
        info.ignored = dict(method.ignored)
        if info.last is not None:
            info.last.ignored = dict(method.ignored)
    return info
