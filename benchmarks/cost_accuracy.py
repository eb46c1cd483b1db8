"""Cost against accuracy: the error after T = 2 s against CPU time per simulated second, every method and
MuJoCo on a chain and a tree.

    nice python benchmarks/cost_accuracy.py [--scenes chain,tree] [--quick] [--json FILE] [--plot PNG]

Scenes (no contacts):
- chain: 10 links of Bender's chain (1 m × 0.1 m × 0.1 m, 1 kg) on ball joints, the first hinged at the origin,
  released at rest lying straight along x (a falling, folding chain).
- tree: Bender's binary tree of 63 bodies (6 levels, impulsim.experiments.bender.tree), turned by 60° about x
  from its hanging pose and released at rest.

Error: the largest distance [m] between a body's centre of mass and the reference's at T. Reference: MuJoCo's
RK4 on the same model (converted by impulsim.bench.mujoco_peer, same masses, inertias and joints) at a step
REF_H of the scene; its own accuracy is checked against impulsim's Featherstone method (RK4) at the same step
and printed (the figure below which errors are not resolved). CPU time: process CPU time of the whole run of
T / h steps (the first step excluded: it may compile), divided by T. impulsim's methods are stepped through
``method.run(state, h, n)``, as a user's ``Simulation.run`` steps them: methods with a compiled loop for the
model (the impulse method's LGS path, Featherstone's method without contacts) take all steps in one compiled
call, the others call ``step`` n times (``run_path`` in the records says which). MuJoCo is called through
its Python bindings, one ``mj_step`` per step, in the same process.

Methods: impulse (solver="lgs", Bender's linear-time solver for trees; scheme standard, order2, order3),
lagrange (RK4), featherstone (RK4), moreau; MuJoCo with its Euler (semi-implicit), implicitfast and RK4
integrators. Constraint tolerances 1e-10 so that they do not limit the error measured.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
import time

import numpy as np

import impulsim as ims
from impulsim.bench import mujoco_peer as P
from impulsim.experiments import bender as B
from impulsim.math import quat_from_axis_angle, quat_mul, quat_rotate

T = 2.0
TOL = dict(eps_d=1e-10, eps_v=1e-10)
METHODS = {
    "impulse": ("impulse", dict(TOL, solver="lgs")),
    "impulse order2": ("impulse", dict(TOL, solver="lgs", scheme="order2")),
    "impulse order3": ("impulse", dict(TOL, solver="lgs", scheme="order3")),
    "lagrange (RK4)": ("lagrange", dict(TOL, consistent_start=True)),
    "featherstone (RK4)": ("featherstone", dict(TOL)),
    "moreau": ("moreau", dict(TOL, e_r=1e-12, e_a=1e-12)),
    "MuJoCo Euler": ("mujoco", "Euler"),
    "MuJoCo implicitfast": ("mujoco", "implicitfast"),
    "MuJoCo RK4": ("mujoco", "RK4"),
}
STEPS = {   # step sizes [s] per method family: coarse enough to be cheap, fine enough to reach 1e-6 m
    "first": [1e-2, 3e-3, 1e-3, 3e-4, 1e-4, 3e-5],
    "second": [1e-2, 5e-3, 2e-3, 1e-3, 5e-4, 2e-4, 1e-4],
    "fourth": [1e-2, 5e-3, 2e-3, 1e-3, 5e-4, 2e-4],
}
FAMILY = {"impulse": "second", "impulse order2": "second", "impulse order3": "fourth", "lagrange (RK4)": "fourth",
          "featherstone (RK4)": "fourth", "moreau": "second", "MuJoCo Euler": "first",
          "MuJoCo implicitfast": "first", "MuJoCo RK4": "fourth"}
REF_H = {"chain": 1e-5, "tree": 2e-5}
BUDGET_S = 120.0
"""CPU seconds one run may take; finer steps of a method are skipped once a run exceeds it."""


def chain(n=10):
    """Bender's chain links lying along x from a ball joint at the origin, at rest."""
    b = ims.ModelBuilder(f"chain {n}")
    length = B.CHAIN_LINK[2]
    lying = quat_from_axis_angle(np.array([0.0, 1.0, 0.0]), 0.5 * math.pi)     # link z axis -> x
    for i in range(n):
        b.add_body(f"link{i}", shapes=[ims.Box(size=B.CHAIN_LINK)], mass=B.CHAIN_MASS,
                   position=((i + 0.5) * length, 0.0, 0.0), orientation=lying)
        b.add_ball(f"ball{i}", "world" if i == 0 else f"link{i - 1}", f"link{i}", anchor=(i * length, 0.0, 0.0))
    return b.build()


def tree(levels=6, tilt_deg=60.0):
    """Bender's tree turned by ``tilt_deg`` about x around its pivot (the origin), at rest."""
    turn = quat_from_axis_angle(np.array([1.0, 0.0, 0.0]), math.radians(tilt_deg))
    b = ims.ModelBuilder(f"tree {2 ** levels - 1}")
    for name, parent, _, top, d, length in B.tree_bodies(levels):
        top_t, d_t = quat_rotate(turn, top), quat_rotate(turn, d)
        b.add_body(name, shapes=[ims.Box(size=(B.TREE_SECTION, B.TREE_SECTION, length))], density=B.TREE_DENSITY,
                   position=top_t + 0.5 * length * d_t, orientation=quat_mul(turn, B.quat_z_to(d)))
        b.add_ball(f"j_{name}", parent, name, anchor=top_t)
    return b.build()


SCENES = {"chain": chain, "tree": tree}


def _moving(model):
    return np.nonzero(model.body_inv_mass > 0)[0]


def run_ours(scene, method, options, h):
    """(centres of the moving bodies at T [n, 3], CPU seconds per simulated second)."""
    model, state = SCENES[scene]()
    m = ims.make_method(method, model, **options)
    steps = int(round(T / h))
    m.run(state, h, 1)
    c0 = time.process_time()
    m.run(state, h, steps - 1)
    cpu = time.process_time() - c0
    run_ours.path = m.run_path
    return state.body_pos[_moving(model)].copy(), cpu / (T - h)


def run_mujoco(scene, integrator, h):
    """The same for MuJoCo: centres of the bodies (same order) at T, CPU seconds per simulated second."""
    import mujoco
    model, state = SCENES[scene]()
    peer = P.build(model, state, h, integrator)
    d = P.initial_data(peer, model, state)
    steps = int(round(T / h))
    mujoco.mj_step(peer.mj_model, d)
    c0 = time.process_time()
    for _ in range(steps - 1):
        mujoco.mj_step(peer.mj_model, d)
    cpu = time.process_time() - c0
    mujoco.mj_forward(peer.mj_model, d)
    ids = [peer.body_ids[int(k)] for k in _moving(model)]
    # MuJoCo's body frame is impulsim's principal frame at the start (mujoco_peer), so xpos is the centre
    return d.xpos[ids].copy(), cpu / (T - h)


def run(name, scene, h):
    """(positions at T, CPU s per simulated s, how the steps were taken)."""
    kind, opt = METHODS[name]
    if kind == "mujoco":
        return (*run_mujoco(scene, opt, h), "mj_step")
    return (*run_ours(scene, kind, opt, h), run_ours.path)


def error(pos, ref) -> float:
    return float(np.linalg.norm(pos - ref, axis=1).max()) if np.isfinite(pos).all() else float("nan")


def measure(scenes, names, quick=False):
    out = []
    for scene in scenes:
        ref, _ = run_mujoco(scene, "RK4", REF_H[scene])
        check, _ = run_ours(scene, "featherstone", TOL, REF_H[scene])
        floor = error(check, ref)
        print(f"{scene}: reference MuJoCo RK4 at h = {REF_H[scene]:g} s; Featherstone RK4 at the same h differs "
              f"by {floor:.3g} m (load {os.getloadavg()[0]:.1f})", file=sys.stderr, flush=True)
        for name in names:
            hs = STEPS[FAMILY[name]]
            hs = hs[1::2] if quick else hs
            for h in hs:
                try:
                    pos, cpu, path = run(name, scene, h)
                    err = error(pos, ref)
                except Exception as exc:   # a method that refuses or fails at this step is reported
                    print(f"  {scene} {name} h={h:g}: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
                    err, cpu, path = float("nan"), float("nan"), ""
                rec = dict(scene=scene, method=name, h=h, error_m=err, cpu_s_per_s=cpu, ref_floor_m=floor,
                           load=os.getloadavg()[0], run_path=path)
                out.append(rec)
                print(f"  {scene} {name} h={h:g}: error {err:.3g} m, {cpu:.3g} s CPU per s (load "
                      f"{rec['load']:.1f})", file=sys.stderr, flush=True)
                if not cpu * T < BUDGET_S:
                    break
    return out


def plot(records, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    scenes = sorted({r["scene"] for r in records})
    fig, axes = plt.subplots(1, len(scenes), figsize=(6.5 * len(scenes), 5), squeeze=False)
    for ax, scene in zip(axes[0], scenes):
        for name in METHODS:
            rs = [r for r in records if r["scene"] == scene and r["method"] == name
                  and np.isfinite(r["error_m"]) and r["error_m"] > 0]
            if not rs:
                continue
            style = "--" if name.startswith("MuJoCo") else "-"
            ax.loglog([r["error_m"] for r in rs], [r["cpu_s_per_s"] for r in rs], style, marker="o", ms=3,
                      label=name)
        floor = next(r["ref_floor_m"] for r in records if r["scene"] == scene)
        ax.axvline(max(floor, 1e-12), color="grey", lw=0.8)
        ax.axvspan(1e-6, 1e-2, color="0.93", zorder=0)
        ax.set_xlabel(f"largest centre-of-mass error after {T:g} s [m]")
        ax.set_ylabel("CPU seconds per simulated second")
        ax.set_title(f"{scene} (reference: MuJoCo RK4, h = {REF_H[scene]:g} s)")
        ax.invert_xaxis()
        ax.grid(True, which="both", lw=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def table(records) -> str:
    lines = ["| scene | method | h [s] | error [m] | CPU s per simulated s |", "|---|---|---|---|---|"]
    for r in records:
        lines.append(f"| {r['scene']} | {r['method']} | {r['h']:g} | {r['error_m']:.3g} | {r['cpu_s_per_s']:.3g} |")
    return "\n".join(lines)


LOG_LINE = re.compile(r"^  (\w+) (.+) h=([\d.e+-]+): error ([\w.+-]+) m, ([\w.+-]+) s CPU per s \(load ([\d.]+)\)")
REF_LINE = re.compile(r"^(\w+): reference .* differs by ([\d.e+-]+) m")


def records_from_log(path):
    """The records of a run rebuilt from its progress lines on stderr (one line per run, as printed by
    measure): a run cut short still gives its table and plot."""
    out, floor = [], {}
    for line in open(path):
        m = REF_LINE.match(line)
        if m:
            floor[m.group(1)] = float(m.group(2))
            continue
        m = LOG_LINE.match(line)
        if m:
            out.append(dict(scene=m.group(1), method=m.group(2), h=float(m.group(3)), error_m=float(m.group(4)),
                            cpu_s_per_s=float(m.group(5)), ref_floor_m=floor.get(m.group(1), float("nan")),
                            load=float(m.group(6))))
    return out


LEVELS = (1e-2, 1e-3, 1e-4, 1e-5, 1e-6)


def cost_at(records, scene, method, level):
    """CPU seconds per simulated second at error ``level`` [m], interpolated log-log between the two runs
    around it; minus the largest step's cost when even that step is more accurate (an upper bound); None
    when no run reaches the level."""
    rs = sorted(((r["error_m"], r["cpu_s_per_s"]) for r in records if r["scene"] == scene and r["method"] == method
                 and np.isfinite(r["error_m"]) and r["error_m"] > 0), reverse=True)
    for (e0, c0), (e1, c1) in zip(rs, rs[1:]):
        if e1 <= level <= e0:
            if e0 == e1:
                return min(c0, c1)
            w = (math.log(level) - math.log(e0)) / (math.log(e1) - math.log(e0))
            return math.exp(math.log(c0) + w * (math.log(c1) - math.log(c0)))
    if rs and rs[0][0] < level:        # even the largest step is more accurate: its cost bounds it
        return -rs[0][1]
    return None


def summary(records) -> str:
    """CPU seconds per simulated second each method needs for an error of 1e-2 … 1e-6 m, per scene."""
    lines = ["| scene | method | " + " | ".join(f"{x:g} m" for x in LEVELS) + " |",
             "|---|---|" + "---|" * len(LEVELS)]
    for scene in sorted({r["scene"] for r in records}):
        for name in METHODS:
            cells = [cost_at(records, scene, name, x) for x in LEVELS]
            if any(c is not None for c in cells):
                text = ["—" if c is None else (f"≤ {-c:.3g}" if c < 0 else f"{c:.3g}") for c in cells]
                lines.append(f"| {scene} | {name} | " + " | ".join(text) + " |")
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scenes", default="chain,tree")
    p.add_argument("--methods", default=",".join(METHODS))
    p.add_argument("--quick", action="store_true", help="every other step size")
    p.add_argument("--json", default=None)
    p.add_argument("--plot", default=None)
    p.add_argument("--from-log", default=None, help="rebuild table and plot from a run's stderr instead of running")
    p.add_argument("--update", default=None, help="a JSON of an earlier run: its records of the scenes and methods "
                   "measured now are replaced, the others kept (table, summary and plot of the merged set)")
    a = p.parse_args(argv)
    records = (records_from_log(a.from_log) if a.from_log
               else measure(a.scenes.split(","), a.methods.split(","), a.quick))
    if a.update:
        fresh = {(r["scene"], r["method"]) for r in records}
        with open(a.update) as f:
            kept = [r for r in json.load(f) if (r["scene"], r["method"]) not in fresh]
        records = sorted(kept + records, key=lambda r: (r["scene"], list(METHODS).index(r["method"])))
    print(table(records))
    print()
    print(summary(records))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(records, f, indent=1)
    if a.plot:
        plot(records, a.plot)


if __name__ == "__main__":
    main()
