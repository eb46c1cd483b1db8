"""Microseconds per step of small models: ``method.step`` in a Python loop, ``method.run`` (the compiled
loop) and MuJoCo (Euler) on the same model from the same state, measured in one process.

    PYTHONPATH=src python benchmarks/small_models.py            # the table (about a minute)
    PYTHONPATH=src python benchmarks/small_models.py --quick    # fewer rounds
    PYTHONPATH=src python benchmarks/small_models.py --cold     # compile seconds of the run loops (and a
                                                                # servo arm's, with force elements)
    PYTHONPATH=src python benchmarks/small_models.py --overhead # run against the bare step kernel

Models: Bender's ball-joint chain of 10 links (h = 10 ms), a triple pendulum of hinged rods and a heavy top
on a ball joint (h = 1 ms, see impulsim.bench.orders), Bender's binary trees of 63 and 255 bodies (h =
1/30 s). The impulse method runs with its defaults (eps 1e-6) and the solver named in the table. MuJoCo:
the model converted by impulsim.bench.mujoco_peer (same bodies, masses, inertias, joints and initial
velocities; contacts and the energy computation disabled), integrator Euler, the same h, its other options
at their defaults.

Every model is measured in rounds; a round times a block of steps of each contender in turn (so a load
change on a shared machine hits all of them alike), in CPU time of the process (time spent waiting for a
core on a busy machine is not counted). Each timed block follows an untimed tenth of a block of the same
contender: the contender before it (a Python loop of ``step`` calls, above all) leaves the processor's
caches full of its own code and data, which had cost the next one up to 20 % on the smallest models. The table gives the median over the rounds of the microseconds
per step, and the median of the per-round ratios to MuJoCo, and the position and velocity solves per step
(sweeps for the iterative solver) of the run's next block of steps.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import paired_blocks as paired  # noqa: E402

import impulsim as ims
from impulsim.bench import orders
from impulsim.experiments import bender as scenes
from impulsim.methods.impulse import run_path

MODELS = [
    # name, build, h, solvers, steps per block
    ("chain 10", lambda: scenes.chain(10), 0.01, ("lgs", "iterative"), 200),
    ("triple pendulum", orders.triple_pendulum, 1e-3, ("lgs", "iterative"), 500),
    ("heavy top", orders.heavy_top, 1e-3, ("lgs", "iterative"), 500),
    ("tree 63", lambda: scenes.tree(6), 1 / 30, ("lgs",), 40),
    ("tree 255", lambda: scenes.tree(8), 1 / 30, ("lgs",), 10),
]


def _solves(method, state, h, k):
    """Mean position and velocity solves (LGS) or sweeps (iterative) per step over k more steps."""
    iters = np.zeros((k, 2), np.int64)
    method.run(state, h, k, iters=iters)
    return iters.mean(axis=0)


def measure(name, build, h, solvers, block, rounds):
    model, state = build()
    contenders = {"mujoco": paired.mujoco_contender(model, state, h)[0]}
    runs = {}
    for solver in solvers:
        contenders[f"{solver} step"] = paired.impulse_contender(model, state, h, solver)[0]
        contenders[f"{solver} run"], *runs[solver] = paired.impulse_contender(model, state, h, solver, True)
    for fn in contenders.values():      # warm-up (compiled kernels loaded, caches filled)
        fn(block)
    times = paired.time_rounds(contenders, dict.fromkeys(contenders, block), rounds)
    mj = times["mujoco"]
    rows = []
    for solver in solvers:
        step, run = times[f"{solver} step"], times[f"{solver} run"]
        method, s = runs[solver]
        solves = _solves(method, s, h, block)
        rows.append(dict(model=name, bodies=model.n_bodies - 1, h=h, solver=solver, path=method.run_path,
                         solves_pos=float(solves[0]), solves_vel=float(solves[1]),
                         step_us=float(np.median(step)), run_us=float(np.median(run)),
                         mujoco_us=float(np.median(mj)), step_ratio=float(np.median(step / mj)),
                         run_ratio=float(np.median(run / mj))))
    return rows


def table(rounds):
    print(f"load average {os.getloadavg()[0]:.2f}; {rounds} rounds; CPU µs per step, medians")
    print("| model | bodies | h [s] | solver | step() loop | run() | MuJoCo Euler | step / MuJoCo | run / MuJoCo | "
          "solves per step (pos + vel) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, build, h, solvers, block in MODELS:
        for r in measure(name, build, h, solvers, block, rounds):
            print(f"| {r['model']} | {r['bodies']} | {r['h']:.3g} | {r['solver']} ({r['path']}) | "
                  f"{r['step_us']:.1f} | {r['run_us']:.1f} | {r['mujoco_us']:.1f} | {r['step_ratio']:.2f} | "
                  f"{r['run_ratio']:.2f} | {r['solves_pos']:.2f} + {r['solves_vel']:.2f} |", flush=True)


COLD = """
import sys
import time
import impulsim as ims
from impulsim.bench import orders
from impulsim.io import load_scene
from impulsim.methods.impulse import run_path
run_path.COMPILE_PAYS_STEPS = 0      # a short run compiles its loop (else it steps in Python until cached)
servo_arm = load_scene(sys.argv[1])
for name, build in (("triple_pendulum", orders.triple_pendulum), ("servo_arm", lambda: (servo_arm.model,
                                                                                        servo_arm.state.copy()))):
    for solver in ("lgs", "iterative"):
        model, state = build()
        method = ims.make_method("impulse", model, solver=solver, contacts=False)
        t0, c0 = time.perf_counter(), time.process_time()
        method.step(state, 1e-3)
        t1, c1 = time.perf_counter(), time.process_time()
        method.run(state, 1e-3, 10)
        t2, c2 = time.perf_counter(), time.process_time()
        print(name, solver, t1 - t0, c1 - c0, t2 - t1, c2 - c1)
"""


def cold():
    """Seconds of the first step and of the first run after it, in a fresh process with an empty cache (the
    run's seconds are the compile cost its loop adds) and then with that cache filled; wall and CPU time
    (on a busy machine the CPU time is the steadier figure). The triple pendulum takes the plain loops, the
    servo arm (examples/servo_arm.yaml, two PID servos) the loops with the force elements' loads."""
    scene = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples", "servo_arm.yaml")
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        for label in ("empty cache", "filled cache"):
            out = subprocess.run([sys.executable, "-c", COLD, scene], env=env, capture_output=True, text=True,
                                 check=True).stdout
            for line in out.split("\n"):
                if line:
                    model, solver, step_wall, step_cpu, run_wall, run_cpu = line.split()
                    print(f"{label}: {model} {solver}: first step {float(step_wall):.2f} s ({float(step_cpu):.2f} s "
                          f"cpu), first run after it {float(run_wall):.2f} s ({float(run_cpu):.2f} s cpu)")


def overhead(steps=100000):
    """CPU µs per step of ``run`` against a bare compiled loop over the fused LGS step kernel alone (no
    backup, checks or totals): what the run loop adds per step."""
    from numba import njit
    from impulsim.methods.impulse import run_path
    from impulsim.methods.impulse.lgs_step import lgs_standard_step

    @njit
    def bare(n, *args):
        for _ in range(n):
            lgs_standard_step(*args)

    for name, build, h, _, _ in MODELS[:3]:
        model, state = build()
        method = ims.make_method("impulse", model, solver="lgs", contacts=False)
        method.run(state, h, 100)
        captured = {}
        kernel, run_path.rk.lgs_run = run_path.rk.lgs_run, lambda *a: captured.setdefault("args", a)
        try:
            method.run(state.copy(), h, 1)
        finally:
            run_path.rk.lgs_run = kernel
        # lgs_standard_step's arguments from lgs_run's (its groups, forces and settings)
        _, _, _, _, chains, struct, prims, bodies, rows, fac, pred, forces, settings, scheme = captured["args"]
        args = (chains, struct, prims, bodies, rows, fac, pred, *forces, settings[0], scheme, *settings[1:])
        bare(10, *args)
        c0 = time.process_time()
        bare(steps, *args)
        c1 = time.process_time()
        method.run(state, h, steps)
        c2 = time.process_time()
        a, b = (c1 - c0) / steps * 1e6, (c2 - c1) / steps * 1e6
        print(f"{name}: bare step kernel {a:.2f} µs, run {b:.2f} µs, run adds {b - a:.2f} µs per step")


def main(argv=None):
    # the table measures the compiled loops: compile them on the first short run (a short run otherwise steps
    # in Python until the loop is in Numba's cache, see run_path.loop_ready)
    run_path.COMPILE_PAYS_STEPS = 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="5 rounds instead of 25")
    ap.add_argument("--cold", action="store_true", help="compile seconds of the run loops instead")
    ap.add_argument("--overhead", action="store_true", help="what the run loop adds to the bare step kernel")
    args = ap.parse_args(argv)
    if args.cold:
        cold()
    elif args.overhead:
        overhead()
    else:
        table(5 if args.quick else 25)


if __name__ == "__main__":
    main()
