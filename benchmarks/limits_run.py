"""Microseconds per step of the impulse method on a model with joint limits: single steps called from Python
against ``run`` in its compiled loop with limits (methods/impulse/limit_run.py), and MuJoCo on the same arm, in
one process, with the position and velocity passes a step and how far each lets a joint past its stop.

    PYTHONPATH=src python benchmarks/limits_run.py             # 9 rounds of 500 steps
    PYTHONPATH=src python benchmarks/limits_run.py --rounds 3
    PYTHONPATH=src python benchmarks/limits_run.py --one-by-one  # LGS with its limits corrected one at a time
    PYTHONPATH=src python benchmarks/limits_run.py --free-fall   # the arm falling freely, with and without stops

The model: an arm of six links (0.3 m boxes, 800 kg/m³) on hinges whose axes alternate between y and x, each
between stops at ±0.6 rad (restitution 0.3), released horizontally under gravity at h = 1 ms, so the links
fall onto their stops and then rest on them. A round times a block of single steps, a block of the same
length in the loop, and the same block of MuJoCo steps (``bench`` extra: the arm converted by
impulsim.bench.mujoco_peer, each stop a joint range; Euler integrator, h = 1 ms, MuJoCo's default Newton
solver, which suits a model this small), in CPU time of the process (the machine is shared); the table gives the
medians over the rounds and the median of the per-round ratios. The loop is compiled before the rounds.

Physics differ: MuJoCo's limits are soft constraints without restitution, which let a loaded joint sink past
its stop; the impulse method's stops bounce by Newton's law and hold within its tolerance. The last column
gives the largest angle past a stop over the rounds, sampled after every step in an untimed run of the same
length.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import impulsim as ims
import paired_blocks
from impulsim.bench import mujoco_peer
from impulsim.contact.limits import limit_coordinates
from impulsim.methods.impulse import run_path

H = 1e-3


def arm(n: int = 6, stops: float | None = 0.6):
    """The limited arm of the module docstring: (model, state); its stops at ±``stops`` [rad], or none."""
    b = ims.ModelBuilder("limited arm")
    parent, p = "world", np.zeros(3)
    for k in range(n):
        along_x = k % 2 == 0
        e = np.array([1.0, 0.0, 0.0]) if along_x else np.array([0.0, 0.0, -1.0])
        size = (0.3, 0.08, 0.08) if along_x else (0.08, 0.08, 0.3)
        b.add_body(f"link{k}", shapes=[ims.Box(size=size)], density=800, position=p + 0.15 * e)
        b.add_hinge(f"joint{k}", parent, f"link{k}", anchor=p, axis=(0, 1, 0) if along_x else (1, 0, 0))
        if stops is not None:
            b.add_limit(f"stops{k}", f"joint{k}", -stops, stops, restitution=0.3)
        parent, p = f"link{k}", p + 0.3 * e
    return b.build()


def measure(solver: str, rounds: int, steps: int, one_by_one: bool = False) -> dict:
    """Medians of CPU µs a step (single steps, ``run``, MuJoCo), the passes a step of the measured run and
    the largest angle past a stop [rad] of each."""
    model, state = arm()
    single = ims.make_method("impulse", model, solver=solver, contacts=False)
    looped = ims.make_method("impulse", model, solver=solver, contacts=False)
    if one_by_one:
        single._limit_coupling = looped._limit_coupling = None
    s_single, s_looped = state.copy(), state.copy()
    mj_block, mj_data = paired_blocks.mujoco_contender(model, state, H)
    saved = run_path.COMPILE_PAYS_STEPS
    run_path.COMPILE_PAYS_STEPS = 0          # compile the loop now, not from 200 000 steps on
    try:
        looped.run(s_looped, H, 10)
        single.step(s_single, H)
        mj_block(10)
        times, infos = [], []
        for _ in range(rounds):
            t0 = time.process_time()
            for _ in range(steps):
                single.step(s_single, H)
            t1 = time.process_time()
            infos.append(looped.run(s_looped, H, steps))
            t2 = time.process_time()
            mj_block(steps)
            t3 = time.process_time()
            times.append(((t1 - t0) / steps * 1e6, (t2 - t1) / steps * 1e6, (t3 - t2) / steps * 1e6))
    finally:
        run_path.COMPILE_PAYS_STEPS = saved
    times = np.array(times)
    n = rounds * steps
    return {"solver": solver, "path": looped.run_path, "step": float(np.median(times[:, 0])),
            "run": float(np.median(times[:, 1])), "ratio": float(np.median(times[:, 0] / times[:, 1])),
            "mujoco": float(np.median(times[:, 2])), "vs_mujoco": float(np.median(times[:, 1] / times[:, 2])),
            "pos": sum(i.iters_pos for i in infos) / n, "vel": sum(i.iters_vel for i in infos) / n,
            "max_pos": max(i.max_iters_pos for i in infos),
            "past": past_stops(model, state, solver, n, one_by_one), "mujoco_past": mujoco_past_stops(model, state, n),
            "mujoco_warnings": paired_blocks.mujoco_warnings(mj_data)}


def past_stops(model, state, solver, n, one_by_one) -> float:
    """Largest angle [rad] past a stop over n steps of the impulse method from ``state``, after every step."""
    method = ims.make_method("impulse", model, solver=solver, contacts=False)
    if one_by_one:
        method._limit_coupling = None
    s = state.copy()
    worst = 0.0
    for _ in range(n):
        method.step(s, H)
        q = limit_coordinates(model, s)
        worst = max(worst, float(np.max(np.maximum(model.limit_lower - q, q - model.limit_upper))))
    return worst


def mujoco_past_stops(model, state, n) -> float:
    """Largest angle [rad] past a joint range over n MuJoCo steps from ``state``, after every step."""
    import mujoco
    peer = mujoco_peer.build(model, state, H)
    m = peer.mj_model
    d = mujoco_peer.initial_data(peer, model, state)
    limited = np.flatnonzero(m.jnt_limited)
    adr = m.jnt_qposadr[limited]
    lo, hi = m.jnt_range[limited, 0], m.jnt_range[limited, 1]
    worst = 0.0
    for _ in range(n):
        mujoco.mj_step(m, d)
        q = d.qpos[adr]
        worst = max(worst, float(np.max(np.maximum(lo - q, q - hi))))
    return worst


def free_fall(rounds: int = 31, steps: int = 100) -> dict:
    """What limits cost when no stop acts: CPU µs a step of ``run`` (LGS, its compiled loop) over the arm's first
    ``steps`` steps from its release, with stops at ±3 rad that it does not reach and without stops; medians
    of ``rounds`` runs, each from the release."""
    saved = run_path.COMPILE_PAYS_STEPS
    run_path.COMPILE_PAYS_STEPS = 0
    out = {}
    try:
        for label, stops in (("stops at ±3 rad", 3.0), ("no stops", None)):
            model, state = arm(stops=stops)
            ims.make_method("impulse", model, solver="lgs", contacts=False).run(state.copy(), H, 2)   # compiled
            times = []
            for _ in range(rounds):
                method = ims.make_method("impulse", model, solver="lgs", contacts=False)
                s = state.copy()
                t0 = time.process_time()
                info = method.run(s, H, steps)
                times.append((time.process_time() - t0) / steps * 1e6)
            assert info.n_collisions == 0 and not (method.limits is not None and method.limits.lam.any())
            out[label] = float(np.median(times))
    finally:
        run_path.COMPILE_PAYS_STEPS = saved
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--one-by-one", action="store_true",
                        help="LGS with its limits corrected one at a time, as before they were solved together")
    parser.add_argument("--free-fall", action="store_true",
                        help="what the limits cost when no stop acts (the arm falling freely, with and without stops)")
    args = parser.parse_args()
    if args.free_fall:
        for label, us in free_fall().items():
            print(f"{label}: {us:.1f} µs a step")
        return
    print("| solver | step() µs | run() µs | step / run | MuJoCo Euler µs | run / MuJoCo "
          "| position passes a step (max) | velocity passes a step | past a stop [rad]: impulse, MuJoCo |")
    print("|---|---|---|---|---|---|---|---|---|")
    for solver in ("iterative", "lgs"):
        r = measure(solver, args.rounds, args.steps, args.one_by_one and solver == "lgs")
        name = r["solver"] + (" (limits one by one)" if args.one_by_one and solver == "lgs" else "")
        print(f"| {name} | {r['step']:.0f} | {r['run']:.1f} | {r['ratio']:.1f} | {r['mujoco']:.1f} | "
              f"{r['vs_mujoco']:.1f} | {r['pos']:.1f} ({r['max_pos']}) | {r['vel']:.1f} | "
              f"{r['past']:.1e}, {r['mujoco_past']:.1e} |", flush=True)
        if r["mujoco_warnings"]:
            print(f"MuJoCo warned: {r['mujoco_warnings']}")


if __name__ == "__main__":
    main()
