"""``ImpulseMethod.run`` in compiled code: which models take it, and the Python side of one compiled loop.

The compiled loop (see :mod:`run_kernels`) covers the standard scheme without contacts, joint limits,
springs, motors, servos or Wagner's extra constraints, with either all chains solved by LGS (the fused step) or all joints corrected
iteratively; timed loads and user forces are included. Everything else runs as calls of ``step``.
"""
from __future__ import annotations

import time
from types import SimpleNamespace

import numpy as np

from impulsim.dynamics.integrate import rotation_scheme
from impulsim.errors import SimulationError
from impulsim.methods.base import MAX_DISTANCE, MAX_SPEED, RunInfo, StepInfo, loop_compiled
from impulsim.methods.impulse import run_kernels as rk
from impulsim.methods.impulse.lgs import diverged_error
from impulsim.methods.impulse.groups import bodies_of, chains_of, fac_of, pred_of, prims_of, rows_of, structure_of

PATHS = ("lgs", "iterative")

COMPILE_PAYS_STEPS = 200_000
"""Steps from which a run compiles its loop even when Numba's cache does not hold it yet: compiling costs
about 7 s of CPU once, and the loop saves 30–40 µs per step on small models. Shorter runs take the loop
only once it is compiled (in this process, by ``impulsim warmup`` or by an earlier long run) and step in
Python before, so that a first short run does not wait for a compile it cannot earn back."""


def compiled_path(method) -> str | None:
    """"lgs" or "iterative" when ``method``'s steps can run in the compiled loop, else None."""
    m = method.model
    if method.contacts is not None or method.limits is not None or method.scheme != "standard":
        return None
    if m.n_springs or m.n_motors or m.n_servos or not getattr(method, "_run_fused", True):
        return None
    if getattr(method, "_wagner", None) is not None:
        return None          # Wagner's extra constraints are corrected in Python (see wagner.py)
    thickness = method._thickness()
    if thickness is not None and np.isfinite(thickness).any():
        return None          # the per-body travel check of Method.step is not in the compiled loop
    if method._fused:
        return "lgs"
    if method._lgs is None and method._iter_prims is not None:
        return "iterative"
    return None


def loop_ready(path: str, n: int) -> bool:
    """Whether ``n`` steps should go through the compiled loop ``path`` (see COMPILE_PAYS_STEPS)."""
    return n >= COMPILE_PAYS_STEPS or loop_compiled(rk.lgs_run if path == "lgs" else rk.iterative_run)


class _Work:
    """Buffers of one compiled loop: the state and memory before the current step, the step's forces."""

    def __init__(self, n_bodies: int):
        self.backup = np.zeros((n_bodies, rk.B_WIDTH))
        self.backup_flags = np.zeros((n_bodies, 2), np.int8)
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
    if stats[rk.S_FAIL]:
        _fail(method, path, state, h, work)
    state.t = float(stats[rk.S_T])
    return _run_info(method, stats, done, seconds, path)


def _work(method, state) -> _Work:
    work = method.__dict__.get("_run_work")
    if work is None or work.backup.shape[0] != state.body_pos.shape[0]:
        work = method.__dict__["_run_work"] = _Work(state.body_pos.shape[0])
    return work


def _call(method, path, state, h, n, out, work):
    m, s = method.model, state
    run = (n, float(s.t), MAX_DISTANCE, MAX_SPEED, work.stats, out)
    loads = (m.load_body, m.load_force, m.load_torque, m.load_start, m.load_end)
    run_work = (work.backup, work.backup_flags, work.force, work.torque)
    prims, bodies, rows, pred = prims_of(m), bodies_of(m, s, method), rows_of(method), pred_of(method)
    forces = (m.gravity, s.body_force, s.body_torque)
    # the scheme apart from the numbers: a tuple holding it is typed through Python on every call (lgs_run)
    scheme = rotation_scheme(method.integrator)
    options = (float(h), float(method.eps_d), float(method.eps_v), int(method.max_iter_pos),
               int(method.max_iter_vel), float(method.max_correction_speed))
    if path == "lgs":
        lgs = method._lgs
        rk.lgs_run(run, loads, run_work, chains_of(lgs), structure_of(lgs), prims, bodies, rows, fac_of(lgs), pred,
                   forces, (*options, float(lgs.dependent_pivot)), scheme)
    else:
        rk.iterative_run(run, loads, run_work, method._iter_prims, method._row_prims, prims, bodies, rows, pred,
                         forces, (*options, bool(method.velocity_correction)), scheme)


def _fail(method, path, state, h, work):
    """The loop stopped after a step that failed a check: raise Method.step's error for it (the same
    checks on the same values) after putting the state and memory of before that step back."""
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
                                 solver=path)
        method._check_finite(state, state.step_count)
        method._check_divergence(state, before, h, info)
    except SimulationError as exc:
        error = exc
    finally:
        rk.backup_or_restore(state.body_pos, state.body_quat, state.body_vel, state.body_omega, method.pred_pos,
                             method.pred_quat, method.pred_vel, method.pred_omega, method.pred_valid, method.dirty,
                             work.backup, work.backup_flags, False)
        state.t = t_before
    raise error


def _run_info(method, stats, done, seconds, path) -> RunInfo:
    info = RunInfo(iters_pos=int(stats[rk.S_SUM_P]), iters_vel=int(stats[rk.S_SUM_V]),
                   residual_pos=float(stats[rk.S_RES_P]), residual_vel=float(stats[rk.S_RES_V]),
                   converged_pos=bool(stats[rk.S_CONV_P]), converged_vel=bool(stats[rk.S_CONV_V]),
                   clamped=int(stats[rk.S_CLAMPED]), steps=done, max_iters_pos=int(stats[rk.S_MAX_P]),
                   max_iters_vel=int(stats[rk.S_MAX_V]), unconverged=int(stats[rk.S_UNCONVERGED]),
                   timings={f"{path}_run": seconds})
    if done:
        info.last = StepInfo(iters_pos=int(stats[rk.S_LAST_P]), residual_pos=float(stats[rk.S_LAST_RP]),
                             converged_pos=bool(stats[rk.S_LAST_CONV_P]), clamped=int(stats[rk.S_LAST_CL]),
                             iters_vel=int(stats[rk.S_LAST_V]), residual_vel=float(stats[rk.S_LAST_RV]),
                             converged_vel=bool(stats[rk.S_LAST_CONV_V]))
    if method.ignored:
        info.ignored = dict(method.ignored)
        if info.last is not None:
            info.last.ignored = dict(method.ignored)
    return info
