"""Honest peers: MuJoCo's options scanned on the funnel, the wall and the heap, then impulsim against the
best reasonable MuJoCo configuration, paired in one process.

    nice python benchmarks/honest_peers.py scan [funnel|wall|heap ...] [--json FILE]
    nice python benchmarks/honest_peers.py ours heap [--seconds S] [--json FILE]
    nice python benchmarks/honest_peers.py paired [funnel|wall|heap ...] [--seconds S] [--json FILE]
        [--ours OPTION=VALUE ...] [--config default] [--mujoco-sleep] [--run]

``ours``: impulsim's own solver options (OUR_OPTIONS) on a scene, alone: time, sweeps and drift per option set.
``scan``: every configuration of impulsim.bench.mujoco_configs over a window of each scene, all from the same
start (the funnel: the state at t = 2 s, cubes piling into the funnel, reached with CG 30 sparse; the wall and
the heap: their initial state, the wall's window ending before the ball arrives). ``paired``: impulsim's
method and MuJoCo (the scene's configuration in contact.PEER_CONFIGS, or ``--config default``) step the same
scene side by side, alternating blocks of ``--block`` steps, each block timed in process CPU time; the
ratio is impulsim's CPU time over MuJoCo's. Beside the time: largest penetration (MuJoCo's every step;
impulsim's measured by MuJoCo's own collision stage on impulsim's poses every ``--probe`` steps), bodies
through (funnel), the largest rest drift before the impact (wall) or over the run (heap).

``--peer pybullet`` does the same against PyBullet (impulsim.bench.pybullet_peer): ``scan`` over PyBullet's
engine parameters (the funnel from its state at t = 2 s reached with PyBullet's defaults), ``confirm`` (the
acceptable configurations over the whole run, fastest first, as for MuJoCo; ``--first``, ``--checks``), ``paired``
(impulsim's penetration measured by Bullet's collision stage on impulsim's poses every ``--probe`` steps).
"""
from __future__ import annotations

import argparse
import ast
import json
import math
import os
import sys
import time

import numpy as np

from impulsim.bench import contact as C
from impulsim.bench import mujoco_configs as MC
from impulsim.dynamics import diagnostics
from impulsim.experiments import bender_contacts as S

FUNNEL_START_S = 2.0
FUNNEL_START_CONFIG = MC.Config("CG", 30, "pyramidal", "sparse", True)


def _load():
    import mujoco
    return mujoco


def _wall_ball_touches(y_ball: float, reach: float = 0.0) -> bool:
    """Whether the wall's ball touches the stones, or comes within ``reach`` [m] of them (a watch that sees every
    few steps stops watching the drift before the steps it does not see can carry the ball into the wall)."""
    return y_ball + S.WALL_BALL_RADIUS + reach >= -0.5 * S.WALL_STONE[1] - S.WALL_SETTINGS["eps_c"]


SCENES = {
    # xml, impulsim scene and method, step, window for the scan, rest bodies (MuJoCo body ids), budget [s]
    "funnel": dict(xml=C.funnel_mjcf, build=lambda: S.funnel(),
                   method=lambda m, **ours: C.make_method(m, S.FUNNEL_SETTINGS, **{**S.FUNNEL_SOLVER, **ours}),
                   h=S.FUNNEL_H, window=30, seconds=S.FUNNEL_DURATION, budget=4.0),
    "wall": dict(xml=C.wall_mjcf, build=lambda: S.wall(),
                 method=lambda m, **ours: C.make_method(m, S.WALL_SETTINGS, **{
                     **S.WALL_SOLVER, "shock_propagation": S.WALL_SHOCK_ITERATIONS, **ours}),
                 h=S.WALL_H, window=240, seconds=S.WALL_DURATION, budget=12.0),
    "heap": dict(xml=C.heap_mjcf, build=lambda: S.pyramid(),
                 method=lambda m, **ours: C.make_method(m, S.STACK_SETTINGS, **ours),
                 h=S.STACK_H, window=100, seconds=10.0, budget=12.0),
}


def _n_free(name):
    return {"funnel": S.FUNNEL_CUBES, "wall": len(S.wall_rows()), "heap": 55}[name]


def funnel_configs():
    """The funnel's reduced scan (6000 degrees of freedom; on the shared machine the full grid would take
    hours): the default; Newton with 30 and 10 iterations; every CG and PGS configuration with the sparse
    Jacobian (auto is sparse here), islands on and off for CG; one dense configuration (CG 30), which shows
    what dense costs at this size."""
    out = [MC.DEFAULT, MC.Config("Newton", 30, "pyramidal", "sparse"), MC.Config("Newton", 10, "pyramidal", "sparse")]
    out += [MC.Config("CG", it, cone, "sparse", isl) for it in MC.ITERATIONS for cone in MC.CONES
            for isl in (True, False)]
    out += [MC.Config("PGS", it, cone, "sparse") for it in MC.ITERATIONS for cone in MC.CONES]
    return out + [MC.Config("CG", 30, "pyramidal", "dense")]


def scan_scene(name, progress=True):
    """Scan every configuration on the scene's window; returns (results, chosen, start description)."""
    mujoco = _load()
    sc = SCENES[name]
    xml = sc["xml"]()
    start, where = None, "the initial state"
    if name == "funnel":
        m, d = MC.load(xml, FUNNEL_START_CONFIG)
        for _ in range(int(round(FUNNEL_START_S / S.FUNNEL_H))):
            mujoco.mj_step(m, d)
        start = MC.snapshot(m, d)
        where = f"the state at t = {FUNNEL_START_S:g} s ({d.ncon} contacts), reached with {FUNNEL_START_CONFIG.label}"
    rest = None if name == "funnel" else np.arange(1, _n_free(name) + 1)
    say = (lambda r: print(f"  {r.config.label}: {r.cpu_ms:.3g} ms CPU, pen {r.penetration:.3g}, "
                           f"drift {r.drift:.3g}, {r.steps} steps, stable {r.stable}", file=sys.stderr,
                           flush=True)) if progress else None
    configs, warmup = MC.configurations(), 2
    if name == "funnel":
        configs, warmup = funnel_configs(), 1
    results = MC.scan(xml, sc["window"], configs=configs, start=start, rest_bodies=rest, budget_s=sc["budget"],
                      progress=say, warmup=warmup)
    return results, MC.best_reasonable(results), where


def _result_of(row) -> MC.Result:
    parts = [x.strip() for x in row["config"].split(",")]
    solver, it = parts[0].split()[:2]
    cfg = MC.Config(solver, int(it), parts[1], parts[2], "no islands" not in parts)
    return MC.Result(**{**row, "config": cfg})


def confirm_scene(name, scan_json, seconds=None, first=0, checks=None):
    """The scan's acceptable configurations, fastest first, over the scene's whole run (``seconds``, default
    the scene's) from its initial state, until one keeps the scan's bound throughout (MC.confirm)."""
    sc = SCENES[name]
    rec = next(r for r in json.load(open(scan_json)) if r["scene"] == name)
    results = [_result_of(row) for row in rec["results"]]
    default = next(r for r in results if r.config == MC.DEFAULT)
    steps = int(round((seconds or sc["seconds"]) / sc["h"]))
    count = (lambda m, d: int((d.xpos[1:, 2] < S.FUNNEL_OUTLET_Z).sum())) if name == "funnel" else None
    rest, long = None, None
    if name != "funnel":
        # the default's own long run sets the bound where it is affordable (the wall's impact and collapse
        # press far deeper than the standing wall of the scan's window); on the funnel Newton needs hours, so
        # the bound stays the scan window's
        rest = np.arange(1, _n_free(name) + 1) if name == "heap" else None
        m, d = MC.load(sc["xml"](), MC.DEFAULT)
        long = MC.Result(config=MC.DEFAULT, **MC.run_window(m, d, steps, rest))
        # the bound: the larger of the window's and the long run's figures (the wall's long run measures no
        # rest drift: the wall collapses; its drift bound stays the standing wall's)
        default = MC.Result(**{**long.__dict__, "penetration": max(long.penetration, default.penetration),
                               "drift": max(long.drift, default.drift)})
    def say(r):
        print(f"  long run {r.config.label}: {r.cpu_ms:.3g} ms CPU, pen {r.penetration:.3g}, count {r.count}, "
              f"stable {r.stable}", file=sys.stderr, flush=True)
    best, checked = MC.confirm(sc["xml"](), results, default, steps, count=count, rest_bodies=rest, progress=say,
                               first=first, checks=checks)
    return dict(scene=name, steps=steps, bound=MC.quality_bound(default), load=os.getloadavg(),
                default_long=long.row() if name != "funnel" else None,
                confirmed=best.config.label if best else None, checked=[r.row() for r in checked])


class MujocoProbe:
    """MuJoCo's collision stage on impulsim's poses: the largest penetration among the same geometry."""

    def __init__(self, name, model):
        mujoco = _load()
        self.mujoco, self.name, self.model = mujoco, name, model
        self.m = mujoco.MjModel.from_xml_string(SCENES[name]["xml"]())
        self.d = mujoco.MjData(self.m)
        self.dyn = np.nonzero(model.body_inv_mass > 0)[0]

    def penetration(self, state) -> float:
        q = self.d.qpos
        adr = 0
        for k in self.dyn:
            pos, quat = diagnostics.body_user_pose(self.model, state, int(k))
            if self.name == "wall" and k == self.dyn[-1]:          # the ball: its hinge angle about x
                pivot = np.array([0.0, -(0.5 * S.WALL_STONE[1] + S.WALL_BALL_RADIUS) + S.WALL_REACH,
                                  S.WALL_PIVOT_Z])
                r0 = -np.array([0.0, np.sin(S.WALL_RELEASE), np.cos(S.WALL_RELEASE)])
                r = (pos - pivot) / np.linalg.norm(pos - pivot)
                q[adr] = math.atan2(r0[1] * r[2] - r0[2] * r[1], float(r0 @ r))
                adr += 1
                continue
            q[adr:adr + 3], q[adr + 3:adr + 7] = pos, quat
            adr += 7
        self.mujoco.mj_kinematics(self.m, self.d)
        self.mujoco.mj_collision(self.m, self.d)
        return MC.penetration(self.d)


class Watch:
    """One contender's contact figures over a paired run, gathered outside its timed steps: the contacts per
    step, the largest penetration [m] and the largest drift [m] of the bodies that should rest (the wall:
    until its ball touches the stones; the heap: over the run; the funnel: not watched)."""

    def __init__(self, name, positions, rest, ball_touches):
        self.name, self.positions, self.rest, self.ball_touches = name, positions, rest, ball_touches
        self.start = positions()[rest].copy()
        self.contacts, self.penetration, self.drift = [], 0.0, 0.0
        self.touched = name != "wall"

    def see(self, n_contacts, penetration=None):
        self.contacts.append(n_contacts)
        if penetration is not None:
            self.penetration = max(self.penetration, penetration)
        if not self.touched or self.name == "heap":
            self.touched = self.name == "wall" and self.ball_touches()
            drift = np.linalg.norm(self.positions()[self.rest] - self.start, axis=1).max()
            self.drift = max(self.drift, float(drift))


def paired_blocks(name, steps, block, ours, peer, peer_label, ours_k=1):
    """Alternate blocks of ``block`` steps of impulsim and the peer; each ``step`` callable is timed in process
    CPU time, each ``see(i)`` (the watch, untimed) follows its step. impulsim's ``step`` takes ``ours_k`` steps a
    call (``method.run``; ``block`` a multiple of it), its watch sees every ``ours_k``-th step. impulsim's first
    call, which loads or compiles its kernels, is timed apart. Returns (ours ms/step, peer ms/step, our first
    call [s])."""
    (ours_step, ours_see), (peer_step, peer_see) = ours, peer
    cpu_ours, cpu_peer, first, done = [], [], None, 0
    while done < steps:
        n = min(block, steps - done)
        c0 = time.process_time()
        for i in range(0, n, ours_k):
            info = ours_step()
            if first is None:
                first = time.process_time() - c0
                c0 = time.process_time()
            t = time.process_time()
            ours_see(done + i, info)
            c0 += time.process_time() - t
        cpu_ours.append((time.process_time() - c0, n - (ours_k if done == 0 else 0)))
        c0 = time.process_time()
        for i in range(n):
            peer_step()
            t = time.process_time()
            peer_see(done + i)
            c0 += time.process_time() - t
        cpu_peer.append((time.process_time() - c0, n))
        done += n
        print(f"  {name} {done}/{steps}: ours {1e3 * cpu_ours[-1][0] / max(cpu_ours[-1][1], 1):.3g} ms, "
              f"{peer_label} {1e3 * cpu_peer[-1][0] / n:.3g} ms per step", file=sys.stderr, flush=True)
    per_step = lambda cpu: 1e3 * sum(c for c, _ in cpu) / sum(k for _, k in cpu)  # noqa: E731
    return per_step(cpu_ours), per_step(cpu_peer), first


def _our_watch(name, model, state, probe, penetration, h=0.0):
    """impulsim's Watch on the scene and its ``see(i, info)``: the peer's collision stage on impulsim's
    poses gives the penetration every ``probe`` steps. A watch that sees every ``probe``-th step only (``h``
    [s] given) counts the wall's ball as touching once it is within ``probe`` steps of the stones at its speed."""
    rest = np.nonzero(model.body_inv_mass > 0)[0][:_n_free(name)]
    watch = Watch(name, lambda: state.body_pos, rest,
                  lambda: _wall_ball_touches(state.body_pos[-1, 1], probe * h * abs(state.body_vel[-1, 1])))
    see = lambda i, info: watch.see(info.n_contacts, penetration(state) if i % probe == 0 else None)  # noqa
    return watch, see


def paired(name, seconds, block=100, probe=5, config=None, options=None, mujoco_sleep=False, run=False):
    """impulsim and MuJoCo on the same scene in one process, alternating blocks of ``block`` steps. ``options``:
    impulsim options over the scene's settings (e.g. shock_propagation, sleep); ``mujoco_sleep``: MuJoCo's
    sleeping switched on (mjENBL_SLEEP; it puts islands to sleep, so the configuration needs islands).
    ``run``: impulsim steps ``probe`` steps a call through ``method.run`` (its compiled loop where the model
    takes one, as Simulation.run steps), its watch seeing every ``probe``-th step (the penetration is probed
    that often anyway; the rest drift is then sampled every ``probe`` steps, MuJoCo's every step)."""
    mujoco = _load()
    sc = SCENES[name]
    config = config or C._peer(name)
    if mujoco_sleep and not config.islands:
        raise SystemExit(f"MuJoCo sleeps by islands: {config.label} has none (use --config default)")
    model, state = sc["build"]()
    method = sc["method"](model, **(options or {}))
    m, d = MC.load(sc["xml"](), config)
    if mujoco_sleep:
        m.opt.enableflags |= int(mujoco.mjtEnableBit.mjENBL_SLEEP)
    ours, see_ours = _our_watch(name, model, state, probe, MujocoProbe(name, model).penetration,
                                h=sc["h"] if run else 0.0)
    mj = Watch(name, lambda: d.xpos, np.arange(1, _n_free(name) + 1), lambda: _wall_ball_touches(d.xpos[-1, 1]))
    steps = int(round(seconds / sc["h"]))
    ours_step = (lambda: method.run(state, sc["h"], probe)) if run else (lambda: method.step(state, sc["h"]))
    ours_ms, mj_ms, first = paired_blocks(
        name, steps, block, (ours_step, see_ours),
        (lambda: mujoco.mj_step(m, d), lambda i: mj.see(d.ncon, MC.penetration(d))), "MuJoCo",
        ours_k=probe if run else 1)
    out = dict(scene=name, seconds=seconds, steps=steps, config=config.label + (", sleeping" if mujoco_sleep else ""),
               ours_options=options or {}, block=block, ours_stepped_by=f"run({probe})" if run else "step",
               ours_run_path=method.run_path,
               ours_cpu_ms=ours_ms, mujoco_cpu_ms=mj_ms, ratio=ours_ms / mj_ms, ours_first_step_s=first,
               ours_penetration=ours.penetration, ours_penetration_probe_every=probe,
               mujoco_penetration=mj.penetration, ours_avg_contacts=float(np.mean(ours.contacts)),
               mujoco_avg_contacts=float(np.mean(mj.contacts)),
               stable=not MC.warning_counts(d) and bool(np.isfinite(d.qpos).all()),
               mujoco_warnings=MC.warning_counts(d), load=os.getloadavg())
    if name == "funnel":
        out.update(ours_through=int((state.body_pos[model.body_inv_mass > 0, 2] < S.FUNNEL_OUTLET_Z).sum()),
                   mujoco_through=int((d.xpos[1:, 2] < S.FUNNEL_OUTLET_Z).sum()))
    else:
        out.update(ours_drift=ours.drift, mujoco_drift=mj.drift,
                   drift_window="before the ball touches the wall" if name == "wall" else "over the run")
    return out


OUR_OPTIONS = ({}, dict(skip_resolved=True, skip_resolved_positions=True), dict(shock_propagation=10),
               dict(shock_propagation=5), dict(shock_propagation=3), dict(shock_propagation=2),
               dict(shock_propagation=1), dict(shock_propagation=0))
"""impulsim's solver options scanned over a scene's settings: the thesis's sweeps, passing over resolved
patches, and shock propagation after 10 … 0 sweeps."""


def ours_scan(name, seconds):
    """impulsim alone on the scene for ``seconds`` under each of OUR_OPTIONS: median CPU ms per step (the first
    step, which loads the kernels, left out), sweeps a step, and the largest displacement of a rest body [m]
    (the heap: over the run; the wall: before its ball touches it; the funnel: None). One record per option
    set; the wall and the funnel add theirs to the scene's solver options."""
    sc = SCENES[name]
    out = []
    for options in OUR_OPTIONS:
        model, state = sc["build"]()
        method = sc["method"](model, **options)
        watch = None if name == "funnel" else Watch(
            name, lambda: state.body_pos, np.nonzero(model.body_inv_mass > 0)[0][:_n_free(name)],
            lambda: _wall_ball_touches(state.body_pos[-1, 1]))
        method.step(state, sc["h"])
        cpu, sweeps = [], []
        for _ in range(int(round(seconds / sc["h"]))):
            c0 = time.process_time()
            info = method.step(state, sc["h"])
            cpu.append(time.process_time() - c0)
            sweeps.append((info.iters_pos, info.iters_vel))
            if watch is not None:
                watch.see(info.n_contacts)
        rec = dict(scene=name, options=options, seconds=seconds, cpu_ms=1e3 * float(np.median(cpu)),
                   mean_cpu_ms=1e3 * float(np.mean(cpu)), sweeps=np.mean(sweeps, axis=0).tolist(),
                   drift=None if watch is None else watch.drift, load=os.getloadavg())
        print(json.dumps(rec), flush=True)
        out.append(rec)
    return out


# PyBullet ----------------------------------------------------------------------------------------------------
def pb_scan_scene(name, progress=True):
    """PyBullet's configurations over the scene's window; (results, chosen, start description)."""
    from impulsim.bench import pybullet_peer as P
    sc = P.scene(name)[2]
    start, where = None, "the initial state"
    if name == "funnel":
        start, where = P.start_file(name, sc["start_s"])
    say = (lambda r: print(f"  {r.config.label}: {r.cpu_ms:.3g} ms CPU, pen {r.penetration:.3g}, "
                           f"drift {r.drift:.3g}, {r.steps} steps, stable {r.stable}", file=sys.stderr,
                           flush=True)) if progress else None
    try:
        results = P.scan(name, start=start, progress=say)
    finally:
        if start:
            os.remove(start)
    return results, P.best_reasonable(results), where


def pb_confirm_scene(name, scan_json, seconds=None, checks=None, first=0):
    """The scan's three fastest acceptable configurations over the whole run; the bound from the defaults'
    window and the defaults' own whole run (the larger of each figure; the funnel: the window's)."""
    from impulsim.bench import pybullet_peer as P
    rec = next(r for r in json.load(open(scan_json)) if r["scene"] == name)
    results = [MC.Result(**{**row, "config": _pb_config(row["config"])}) for row in rec["results"]]
    default = next(r for r in results if r.config == P.DEFAULT)
    long = P.long_run(name, P.DEFAULT, seconds)
    print(f"  long run (defaults): {long.cpu_ms:.3g} ms CPU, pen {long.penetration:.3g}, drift {long.drift:.3g}, "
          f"count {long.count}", file=sys.stderr, flush=True)
    bound_from = MC.Result(**{**long.__dict__, "penetration": max(long.penetration, default.penetration),
                              "drift": max(long.drift, default.drift)})
    say = lambda r: print(f"  long run {r.config.label}: {r.cpu_ms:.3g} ms CPU, pen {r.penetration:.3g}, "  # noqa
                          f"drift {r.drift:.3g}, count {r.count}, stable {r.stable}", file=sys.stderr, flush=True)
    best, checked = P.confirm(name, results, bound_from, seconds, checks=checks, progress=say, first=first)
    return dict(scene=name, bound=MC.quality_bound(bound_from), load=os.getloadavg(), default_long=long.row(),
                confirmed=best.config.label if best else None, checked=[r.row() for r in checked])


def _pb_config(label):
    from impulsim.bench import pybullet_peer as P
    for c in P.configurations(dantzig=True):
        if c.label == label:
            return c
    raise ValueError(f"unknown PyBullet configuration {label!r}")


def pb_paired(name, seconds, block=100, probe=5, config=None):
    """impulsim and PyBullet on the same scene in one process, alternating blocks of ``block`` steps, each
    timed in process CPU time (impulsim's first step, which loads its kernels, left out)."""
    from impulsim.bench import pybullet_peer as P
    config = config or P.peer_config(name)
    sc = SCENES[name]
    model, state = sc["build"]()
    method = sc["method"](model)
    world = P.build(model, state, sc["h"], config, **P.scene(name)[2]["rules"])
    judge = P.build(model, state, sc["h"], P.DEFAULT, **P.scene(name)[2]["rules"])   # Bullet's collision stage
    ours, see_ours = _our_watch(name, model, state, probe, lambda st: P.probe_penetration(judge, model, st))
    pb = Watch(name, world.positions, P.rest_indices(name, world), lambda: P.wall_ball_touches(world))
    steps = int(round(seconds / sc["h"]))
    ours_ms, pb_ms, first = paired_blocks(
        name, steps, block, (lambda: method.step(state, sc["h"]), see_ours),
        (world.step, lambda i: pb.see(world.n_contacts(), world.penetration())), "PyBullet")
    out = dict(scene=name, peer="pybullet", seconds=seconds, steps=steps, config=config.label, block=block,
               ours_cpu_ms=ours_ms, pybullet_cpu_ms=pb_ms, ratio=ours_ms / pb_ms, ours_first_step_s=first,
               ours_penetration=ours.penetration, ours_penetration_probe_every=probe,
               pybullet_penetration=pb.penetration, ours_avg_contacts=float(np.mean(ours.contacts)),
               pybullet_avg_contact_points=float(np.mean(pb.contacts)), stable=P._finite(world),
               load=os.getloadavg())
    if name == "funnel":
        out.update(ours_through=int((state.body_pos[model.body_inv_mass > 0, 2] < S.FUNNEL_OUTLET_Z).sum()),
                   pybullet_through=P.count_through(world))
    else:
        out.update(ours_drift=ours.drift, pybullet_drift=pb.drift,
                   drift_window="before the ball touches the wall" if name == "wall" else "over the run")
    world.close()
    judge.close()
    return out


def scan_report(title, name, window, where, results, best, default_config, table) -> dict:
    """Print a scan's table, its quality bound (from the default configuration's row) and the choice;
    return the scan's record."""
    default = next(r for r in results if r.config == default_config)
    pen, drift = MC.quality_bound(default)
    print(f"\n## {title}: {window} steps from {where}; load {os.getloadavg()}\n")
    print(table(results, best))
    print(f"\nbound: penetration ≤ {pen:.3g} m, rest drift ≤ {drift:.3g} m; chosen: {best.config.label}", flush=True)
    return dict(scene=name, start=where, window=window, chosen=best.config.label,
                bound=dict(penetration=pen, drift=drift), load=os.getloadavg(),
                results=[r.row() for r in results])


def pb_main(a):
    from impulsim.bench import pybullet_peer as P
    records = []
    for name in a.scenes:
        print(f"pybullet {a.what} {name} (load {os.getloadavg()}) ...", file=sys.stderr, flush=True)
        if a.what == "scan":
            results, best, where = pb_scan_scene(name)
            records.append(scan_report(f"PyBullet, {name}", name, P.scene(name)[2]["window"], where, results, best,
                                       P.DEFAULT, P.table))
        elif a.what == "confirm":
            r = pb_confirm_scene(name, a.scan_json or f"benchmarks/results/peers/pybullet_scan_{name}.json",
                                 a.seconds, a.checks, a.first)
            print(json.dumps(r, default=str), flush=True)
            records.append(r)
        else:
            cfg = P.DEFAULT if a.config == "default" else None
            r = pb_paired(name, a.seconds or SCENES[name]["seconds"], a.block, config=cfg)
            print(json.dumps(r), flush=True)
            records.append(r)
    return records


def _option(text):
    """``name=value`` -> (name, value), the value read as a Python literal (1, 0.5, True, None) or kept as text."""
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise SystemExit(f"--ours: expected OPTION=VALUE, got {text!r}")
    try:
        return name, ast.literal_eval(value)
    except (ValueError, SyntaxError):
        return name, value


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("what", choices=("scan", "confirm", "paired", "ours"))
    p.add_argument("scenes", nargs="*", default=list(SCENES))
    p.add_argument("--seconds", type=float, default=None, help="paired: simulated seconds (default: the scene's)")
    p.add_argument("--block", type=int, default=100)
    p.add_argument("--config", default=None, help="paired: 'default' for MuJoCo's defaults")
    p.add_argument("--json", default=None)
    p.add_argument("--first", type=int, default=0, help="confirm: skip this many of the fastest candidates")
    p.add_argument("--checks", type=int, default=None,
                   help="confirm: run this many candidates and keep the fastest over the long run that passes "
                        "(default: stop at the first that passes)")
    p.add_argument("--scan-json", default=None, help="confirm: the scan's records (default: benchmarks/results/peers)")
    p.add_argument("--peer", choices=("mujoco", "pybullet"), default="mujoco")
    p.add_argument("--ours", nargs="*", default=[], metavar="OPTION=VALUE",
                   help="paired with MuJoCo: impulsim options over the scene's settings, e.g. shock_propagation=1 "
                        "sleep=True")
    p.add_argument("--mujoco-sleep", action="store_true", help="paired: switch MuJoCo's sleeping on")
    p.add_argument("--run", action="store_true",
                   help="paired: impulsim steps through method.run, 5 steps a call (its compiled loop where it has one)")
    a = p.parse_args(argv)
    a.ours = dict(_option(text) for text in a.ours)
    records = []
    if a.peer == "pybullet":
        records = pb_main(a)
        a.scenes = []
    for name in a.scenes:
        print(f"{a.what} {name} (load {os.getloadavg()[0]:.1f}) ...", file=sys.stderr, flush=True)
        if a.what == "scan":
            results, best, where = scan_scene(name)
            records.append(scan_report(name, name, SCENES[name]["window"], where, results, best, MC.DEFAULT,
                                       MC.table))
        elif a.what == "ours":
            records += ours_scan(name, a.seconds or SCENES[name]["seconds"])
        elif a.what == "confirm":
            r = confirm_scene(name, a.scan_json or f"benchmarks/results/peers/scan_{name}.json", a.seconds,
                              a.first, a.checks)
            print(json.dumps(r, default=str))
            records.append(r)
        else:
            cfg = MC.DEFAULT if a.config == "default" else None
            r = paired(name, a.seconds or SCENES[name]["seconds"], a.block, config=cfg, options=a.ours,
                       mujoco_sleep=a.mujoco_sleep, run=a.run)
            print(json.dumps(r))
            records.append(r)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(records, f, indent=1, default=str)


if __name__ == "__main__":
    main()
