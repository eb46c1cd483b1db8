"""The Python around a step called one at a time: Python function calls and µs per ``method.step``, and a
hash of the state the steps reach (to compare two source trees bit for bit).

    python benchmarks/step_python.py examples/falling_boxes.yaml --t0 1.5 --t1 1.6
    python benchmarks/step_python.py examples/falling_boxes.yaml --method lagrange --t0 0 --t1 1 --hash-only
    PYTHONPATH=../other/src python benchmarks/step_python.py ...   # the same figures of another checkout
    python benchmarks/step_python.py examples/falling_boxes.yaml --paired-call-sites

Each repetition loads the scene, runs its simulation to ``t0`` (Simulation.run) and times the steps from t0
to t1 with ``method.step`` in a Python loop (wall-clock, perf_counter). The figure given is the minimum over
the repetitions: on a shared machine whose load comes in bursts a repetition can take twice as long, and the
minimum is the run least disturbed. The calls per step are counted by cProfile over one more repetition;
they do not depend on the load, so they show a change to the Python around the kernels even when the times
cannot. The hash is the SHA-1 of the poses and velocities at t1 (its first 16 hex digits).

``--paired-call-sites`` times, in one process, each repetition's window twice from the same start: with the
kernels' call sites skipping the dispatcher's typing (impulsim.kernel.CallSite, the default) and with every
call typed by the dispatcher, in alternating order; it gives the median of the repetitions' ratios and both
minima (a pair shares the machine's load, so its ratio is steadier than either time).
"""
from __future__ import annotations

import argparse
import cProfile
import hashlib
import pstats
import statistics
import time

from impulsim.io import load_scene


def _simulation_at(path, method, t0):
    sim = load_scene(path).simulation(method=method)
    sim.run(t0)
    return sim


def _steps(sim, t1):
    """Calls of method.step from the simulation's time to t1 [s]; returns their number."""
    m, s, h = sim.method, sim.state, sim.h
    n = max(1, int(round((t1 - s.t) / h)))
    for _ in range(n):
        m.step(s, h)
    return n


def state_hash(state) -> str:
    """First 16 hex digits of the SHA-1 of the poses and velocities."""
    data = b"".join(a.tobytes() for a in (state.body_pos, state.body_quat, state.body_vel, state.body_omega))
    return hashlib.sha1(data).hexdigest()[:16]


def _timed(path, method, t0, t1) -> float:
    """Seconds a step from t0 to t1 of a fresh simulation of the scene."""
    sim = _simulation_at(path, method, t0)
    start = time.perf_counter()
    n = _steps(sim, t1)
    return (time.perf_counter() - start) / n


def paired_call_sites(path, method, t0, t1, reps) -> str:
    """The window timed with call sites remembering their kernels' versions and without, pair by pair."""
    from impulsim.kernel import CallSite          # (here: the other figures serve checkouts without it)
    with_sites, without = [], []
    for i in range(reps):
        for remember in ((True, False) if i % 2 == 0 else (False, True)):
            CallSite.remember = remember
            (with_sites if remember else without).append(_timed(path, method, t0, t1))
    CallSite.remember = True
    ratios = [a / b for a, b in zip(with_sites, without)]
    return (f"{path} [{t0:g}, {t1:g}] s: call sites {min(with_sites) * 1e6:.1f} µs a step, dispatcher typing "
            f"every call {min(without) * 1e6:.1f} µs (minima of {reps}); ratio of the pairs: median "
            f"{statistics.median(ratios):.3f} (range {min(ratios):.3f}–{max(ratios):.3f})")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("scene", help="a scene file")
    p.add_argument("--method", default=None, help="the method (default: the scene's)")
    p.add_argument("--t0", type=float, default=1.5, help="time [s] the simulation runs to first")
    p.add_argument("--t1", type=float, default=1.6, help="time [s] the timed steps end at")
    p.add_argument("-n", "--reps", type=int, default=15, help="repetitions timed (minimum taken)")
    p.add_argument("--hash-only", action="store_true", help="only run to t1 and print the state's hash")
    p.add_argument("--paired-call-sites", action="store_true",
                   help="time each repetition with and without the kernels' call sites (see the docstring)")
    a = p.parse_args(argv)
    if a.paired_call_sites:
        print(paired_call_sites(a.scene, a.method, a.t0, a.t1, a.reps))
        return
    if a.hash_only:
        sim = _simulation_at(a.scene, a.method, a.t1)
        print(state_hash(sim.state))
        return
    best = min(_timed(a.scene, a.method, a.t0, a.t1) for _ in range(a.reps))
    sim = _simulation_at(a.scene, a.method, a.t0)
    profile = cProfile.Profile()
    profile.enable()
    n = _steps(sim, a.t1)
    profile.disable()
    calls = pstats.Stats(profile).total_calls / n
    print(f"{a.scene} [{a.t0:g}, {a.t1:g}] s: {best * 1e6:.1f} µs a step (min of {a.reps}), "
          f"{calls:.0f} Python calls a step, state at t1 {state_hash(sim.state)}")


if __name__ == "__main__":
    main()
