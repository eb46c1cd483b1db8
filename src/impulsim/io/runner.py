"""Running a simulation for a while with a recorder, timing and a progress bar; the run summary.

This is the loop behind ``impulsim run``; it is kept apart from the command line so that scripts and
tests can drive it directly.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np

from impulsim import limits
from impulsim.errors import SimulationError
from impulsim.io.energy import energy_line, energy_sources
from impulsim.io.recording import Recorder
from impulsim.progress import progress_bar
from impulsim.simulation import Simulation


@dataclass
class RunResult:
    """What a run did: steps, timing, per-step iteration counts and how it ended."""
    steps: int
    """Steps completed."""
    planned: int
    """Steps the duration asked for."""
    step_times: np.ndarray
    """Wall time of each completed step [s] (recording excluded)."""
    iters_pos: np.ndarray
    iters_vel: np.ndarray
    wall_time: float
    """Wall time of the whole loop, recording included [s]."""
    recorder: Optional[Recorder] = None
    error: Optional[SimulationError] = None
    interrupted: bool = False
    unconverged: int = 0
    """Steps whose position or velocity correction stopped above its tolerance."""


BROKEN_CONSTRAINT = 1e-2
"""[m or rad] A run that ends with a joint this far off has not simulated the model (``impulsim run``
exits with an error): the step was too large, or the model cannot be assembled."""


def broken_constraints(sim: Simulation, bound: float = BROKEN_CONSTRAINT) -> Optional[str]:
    """None if every joint of the final state holds within ``bound``; else one line naming the worst."""
    from impulsim.dynamics import diagnostics
    m = sim.model
    if getattr(m, "n_prims", 0) == 0:
        return None
    errors = np.asarray(diagnostics.constraint_errors(m, sim.state))
    worst = float(errors.max(initial=0.0)) if np.isfinite(errors).all() else math.inf
    if worst <= bound:
        return None
    p = int(np.argmax(np.where(np.isfinite(errors), errors, np.inf)))
    j = int(np.searchsorted(m.joint_prim_start, p, side="right") - 1)
    name = m.joint_names[j] if 0 <= j < m.n_joints else f"constraint {p}"
    return (f"the run ended with its constraints broken: joint \"{name}\" is off by {worst:.3g} (m or rad), "
            f"more than {bound:g}; the step h = {sim.h:g} s is too large for the model or the model cannot be "
            f"assembled")


def steps_for(duration: float, h: float) -> int:
    """Whole steps of size h [s] in ``duration`` [s], rounded to the nearest."""
    return max(0, int(math.floor(duration / h + 0.5)))


def run(sim: Simulation, duration: float, recorder: Optional[Recorder] = None, every: int = 1,
        progress: bool = False, desc: str = "", after_steps=None) -> RunResult:
    """Advance ``sim`` by ``duration`` [s]; record the start, every ``every``-th step and the end.

    Without callbacks or hooks on ``sim``, the steps between two records go through one call of
    :meth:`Simulation.run_steps` (compiled where the method can; the same results); the first step is
    taken alone, so that its time (compiling on a cold start) is reported apart. ``after_steps()`` is
    called after every step or batch of steps. A :class:`SimulationError` or Ctrl-C ends the run early;
    the result says so and ``sim.state`` holds the last good step.
    """
    n = steps_for(duration, sim.h)
    if n > limits.MAX_STEPS:
        raise ValueError(f"duration / h = {n:.3g} steps, more than the limit {limits.MAX_STEPS:g} of one run "
                         f"(split it with --resume)")
    iters = np.zeros((n, 2), np.int64)
    times, it_pos, it_vel = np.zeros(n), iters[:, 0], iters[:, 1]
    result = RunResult(0, n, times, it_pos, it_vel, 0.0, recorder)
    if recorder is not None and recorder.last_step() != sim.state.step_count:
        recorder.record(sim.state)
    bar = progress_bar(n, desc) if progress else None
    start = time.perf_counter()
    previous = _terminate_as_interrupt()
    try:
        if sim.batchable:
            _run_batched(sim, n, recorder, every, bar, result, iters, after_steps)
        for i in range(result.steps, n):
            t0 = time.perf_counter()
            info = sim.step()
            times[i] = time.perf_counter() - t0
            it_pos[i], it_vel[i] = info.iters_pos, info.iters_vel
            result.unconverged += int(not (info.converged_pos and info.converged_vel))
            result.steps = i + 1
            if after_steps is not None:
                after_steps()
            if recorder is not None and ((i + 1) % every == 0 or i + 1 == n):
                recorder.record(sim.state, info)
            if bar is not None:
                bar.update(1)
    except SimulationError as exc:
        result.error = exc
    except KeyboardInterrupt:
        result.interrupted = True
    finally:
        _restore_terminate(previous)
        if bar is not None:
            bar.close()
    result.wall_time = time.perf_counter() - start
    result.step_times, result.iters_pos, result.iters_vel = (a[:result.steps] for a in (times, it_pos,
                                                                                       it_vel))
    if recorder is not None and result.steps and recorder.last_step() != sim.state.step_count:
        recorder.record(sim.state)
    return result


BATCH = 1000
"""Most steps in one batch (a compiled batch cannot be interrupted; Ctrl-C is seen between batches)."""


def _run_batched(sim, n, recorder, every, bar, result, iters, after_steps):
    """Steps in batches that end at the recorded steps (the first step alone), each step's solves into
    ``iters``; per-step times are the batch's mean. result.steps counts the steps done, also when one
    fails."""
    start = sim.state.step_count
    i = 0
    while i < n:
        k = 1 if i == 0 else min(every - i % every, n - i, BATCH)
        t0 = time.perf_counter()
        try:
            info = sim.run_steps(k, iters=iters[i:i + k])
        finally:
            done = sim.state.step_count - start - i
            if done > 0:
                result.step_times[i:i + done] = (time.perf_counter() - t0) / done
                result.steps = i + done
        result.unconverged += info.unconverged
        i += k
        if after_steps is not None:
            after_steps()
        if recorder is not None and (i % every == 0 or i == n):
            recorder.record(sim.state, info.last)
        if bar is not None:
            bar.update(k)


def _terminate_as_interrupt():
    """SIGTERM ends the run like Ctrl-C (the last good step is kept, the recording closed cleanly);
    returns the handler it replaced (None outside the main thread, where signals cannot be set)."""
    import signal
    import threading
    if threading.current_thread() is not threading.main_thread():
        return None

    def interrupt(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")
    return signal.signal(signal.SIGTERM, interrupt)


def _restore_terminate(previous) -> None:
    if previous is not None:
        import signal
        signal.signal(signal.SIGTERM, previous)


def summary(result: RunResult, name: str, eps_d: Optional[float] = None,
            nonconservative: Sequence[str] = ()) -> list[str]:
    """A few lines: steps and time per step, energy drift (or change, where the scene does not conserve
    energy: see :mod:`impulsim.io.energy`; ``nonconservative`` names what the model does not hold, e.g.
    loads), largest constraint error, iterations."""
    lines = [f"{name}: {result.steps} steps in {result.wall_time:.3g} s"]
    if result.steps:
        lines[0] += f", {_ms_per_step(result.step_times)}"
    rec = result.recorder
    if rec is not None and len(rec) >= 1:
        table = rec.table()
        energy = table.column("energy").to_numpy()
        kinetic = table.column("energy_kinetic").to_numpy()
        error = table.column("constraint_error").to_numpy()
        sources = energy_sources(rec.model, table, nonconservative)
        lines.append(energy_line(float(energy[-1] - energy[0]), float(kinetic.max()), sources))
        tol = f" (eps_d {eps_d:g})" if eps_d is not None else ""
        lines.append(f"max constraint error: {error.max():.3g}{tol} over {len(rec)} recorded states")
    if result.steps:
        lines.append(f"iterations per step: position {result.iters_pos.mean():.3g} mean, "
                     f"{result.iters_pos.max()} max; velocity {result.iters_vel.mean():.3g} mean, "
                     f"{result.iters_vel.max()} max")
    if result.unconverged:
        lines.append(f"warning: {result.unconverged} steps stopped at the iteration cap above the tolerance")
    return lines


def _ms_per_step(step_times: np.ndarray) -> str:
    """Mean time per step after the first (which includes compiling the kernels on a cold start)."""
    if len(step_times) == 1:
        return f"{_duration(step_times[0])} for the step"
    steady = 1e3 * step_times[1:].mean()
    return f"{steady:.3g} ms/step (first step {_duration(step_times[0])})"


def _duration(seconds: float) -> str:
    """A time in ms below a second, else in s (a first step that compiles takes seconds to minutes)."""
    return f"{1e3 * seconds:.3g} ms" if seconds < 1.0 else f"{seconds:.3g} s"
