"""LGS joint correction under fast motion: Bender's binary trees (and chains) with every ball joint spinning at
a random relative angular velocity (σ rad/s per component, fixed seed), eps 1e-6, h = 1/30 s.

    python benchmarks/fast_motion.py [--sizes 63 255 511] [--sigma 1.0] [--steps 100] [--seed 1] [--no-mujoco]
    python benchmarks/fast_motion.py --chain 50 --h 0.01      # a chain of 50 links instead
    python benchmarks/fast_motion.py --halving                # with step halving (lgs_halving.HalvingStepper)

Prints per model: joint-correction solves per step (mean, max), velocity solves per step, the largest joint
error after any step, the median wall and CPU time per step (after 5 warm-up steps) and MuJoCo's Euler step on
the same model from the same state, CPU time of this thread in alternating blocks in this process (``paired``),
so that machine load hits both alike and preemption does not count; MuJoCo's resets after "unstable" warnings are counted (its time then covers restarted runs).
"""
import argparse
import time

import numpy as np

import impulsim as ims
from impulsim.dynamics import diagnostics
from impulsim.errors import SimulationError
from impulsim.experiments import bender as scenes
from impulsim.experiments.fast_motion import spin_joints
from impulsim.methods.impulse.lgs_halving import HalvingStepper

WARMUP = 5


def build(kind, n, sigma, seed):
    model, state = scenes.tree(scenes.tree_size_levels(n)) if kind == "tree" else scenes.chain(n)
    spin_joints(model, state, sigma, seed)
    return model, state


def run(model, state, h, steps, eps=1e-6, halving=False, **opts):
    """Step ``steps`` times; (solves_pos, solves_vel, worst joint error, seconds per step) arrays, the
    stepper and the final state. With ``halving``, solves count every attempt (discarded ones too)."""
    method = ims.make_method("impulse", model, solver="lgs", eps_d=eps, eps_v=eps, **opts)
    if halving:
        method = HalvingStepper(method)
    st = state.copy()
    pos, vel, err, sec, sub, cpu = [], [], [], [], [], []
    run.stopped = None
    for k in range(steps):
        t, c = time.perf_counter(), time.thread_time()
        try:
            info = method.step(st, h)
        except SimulationError as e:     # the plain method refuses a step whose correction diverges
            run.stopped = f"stopped at step {k + 1} of {steps}: {e}"
            break
        sec.append(time.perf_counter() - t)
        cpu.append(time.thread_time() - c)
        pos.append(info.solves_pos if halving else info.iters_pos)
        vel.append(info.solves_vel if halving else info.iters_vel)
        sub.append(info.substeps if halving else 1)
        err.append(float(diagnostics.constraint_errors(model, st).max(initial=0.0)))
    run.substeps, run.cpu = np.array(sub), np.array(cpu)
    return np.array(pos), np.array(vel), np.array(err), np.array(sec), method, st


def paired(model, state, h, method, st, blocks=10, per_block=10):
    """Median seconds per step of ours and MuJoCo Euler, alternating blocks (ours continue from ``st``)."""
    import mujoco
    from impulsim.bench import mujoco_peer
    peer = mujoco_peer.build(model, state, h)
    d = mujoco_peer.initial_data(peer, model, state)
    ours, theirs = [], []
    for _ in range(blocks):
        for _ in range(per_block):
            t = time.thread_time()
            method.step(st, h)
            ours.append(time.thread_time() - t)
        for _ in range(per_block):
            t = time.thread_time()
            mujoco.mj_step(peer.mj_model, d)
            theirs.append(time.thread_time() - t)
    resets = int(d.warning[mujoco.mjtWarning.mjWARN_BADQACC].number)
    return float(np.median(ours)), float(np.median(theirs)), resets


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[63, 255, 511])
    ap.add_argument("--chain", type=int, default=0, help="a chain of this many links instead of trees")
    ap.add_argument("--sigma", type=float, default=1.0)
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--h", type=float, default=1.0 / 30.0)
    ap.add_argument("--no-mujoco", action="store_true")
    ap.add_argument("--halving", action="store_true", help="halve steps whose joint correction stalls or diverges")
    a = ap.parse_args()
    models = [("chain", a.chain)] if a.chain else [("tree", n) for n in a.sizes]
    for kind, n in models:
        model, state = build(kind, n, a.sigma, a.seed)
        pos, vel, err, sec, method, st = run(model, state, a.h, a.steps, halving=a.halving)
        if run.stopped:
            print(f"{kind} {n}: sigma {a.sigma} rad/s, h {a.h:.4g} s: {run.stopped}", flush=True)
            continue
        line = (f"{kind} {n}{' halving' if a.halving else ''}: sigma {a.sigma} rad/s, h {a.h:.4g} s, {a.steps} steps: joint solves/step mean "
                f"{pos.mean():.2f} max {pos.max()}, substeps/step {run.substeps.mean():.2f} max {run.substeps.max()}, velocity solves/step {vel.mean():.2f}, max joint error "
                f"{err.max():.2e} m, {1e3 * np.median(sec[WARMUP:]):.3f} ms/step (CPU {1e3 * np.median(run.cpu[WARMUP:]):.3f})")
        if not a.no_mujoco:
            ours, theirs, resets = paired(model, state, a.h, method, st)
            line += f"; paired CPU: ours {1e3 * ours:.3f} ms, MuJoCo Euler {1e3 * theirs:.3f} ms ({ours / theirs:.2f}x)"
            if resets:
                line += f", MuJoCo unstable (reset to its start {resets} times in {10 * 10} steps)"
        print(line, flush=True)


if __name__ == "__main__":
    main()
