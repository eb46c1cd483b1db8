"""Benchmark of the mass-point method on the report's seven scenes and a 50-link rope.

``run(quick)`` returns one record per scene: median wall time per step after warm-up, median time per
stage, mean and largest fin/V-correction passes, and a physics re-check of the timed run (so a fast
wrong run cannot pass). The cold start (import + first step, Numba compilation included) is measured in
fresh interpreters, once with an empty compilation cache and once with the cache filled. The report
gives no timings to compare with.
"""
from __future__ import annotations

import math
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from impulsim.experiments import schmitt as scenes
from impulsim.methods.masspoint import analysis, diagnostics as dg
from impulsim.experiments.schmitt_runs import REPORT
from impulsim.methods.masspoint.method import MassPointMethod

WARMUP = 20
STAGES = ("forces", "predict", "fin_correction", "velocity_correction")


def _check_pendulum(model, system, pos, t):
    period = analysis.period_from_crossings(t, pos[:, model.body("bob"), 0])
    return abs(period - REPORT["pendulum"]["T_sim(h=T5/100)"]) < 1e-6, f"T = {period:.7f} s"


def _check_cube(model, system, pos, t):
    com = dg.centre_of_mass(model, pos)
    corner = pos[:, model.body(scenes.cube_corner_name(-1, -1, -1))]
    turn = math.degrees(float(np.mean(analysis.turn_angles_about_z(corner, com)[1:])))
    return abs(turn - 20.092) < 1e-3, f"{turn:.5f} deg/step"


def _check_rail(model, system, pos, t):
    dev = float(np.abs(dg.centre_of_mass(model, pos)[:, 0] - 1.5).max())
    return dev < 1e-12, f"|x_CM - 1.5| = {dev:.1e} m"


def _check_links(model, system, pos, t):
    err = float(dg.link_errors(system, pos).max())
    return err < 1e-5, f"max link error {err:.1e} m"


T5 = REPORT["pendulum"]["T5"]
CASES = [  # name, scene, h [s], steps (full), physics re-check
    ("pendulum", scenes.pendulum, T5 / 100, 1000, _check_pendulum),
    ("cube", scenes.cube, 0.16, 1000, _check_cube),
    ("rigid_pendulum", scenes.rigid_pendulum, 0.01, 2000, _check_links),
    ("thread_pendulum", scenes.thread_pendulum, 0.01, 5000, _check_links),
    ("rail_pendulum", scenes.rail_pendulum, 0.01, 2000, _check_rail),
    ("closed_chain", scenes.closed_chain, 0.01, 1200, _check_links),
    ("top", scenes.top, 0.005, 2233, _check_links),
    ("rope_50", scenes.rope, 0.002, 500, _check_links),
]


def time_scene(name, scene, h, n_steps, check) -> dict:
    """Step a scene ``n_steps`` times, timing every step; re-check the physics of the timed run."""
    model, state = scene()
    method = MassPointMethod(model)
    pos, t = [state.body_pos.copy()], [state.t]
    walls, stages, fin, vel, capped = [], {s: [] for s in STAGES}, [], [], 0
    for k in range(n_steps):
        start = time.perf_counter()
        info = method.step(state, h)
        walls.append(time.perf_counter() - start)
        pos.append(state.body_pos.copy())
        t.append(state.t)
        for s in STAGES:
            stages[s].append(info.timings.get(s, 0.0))
        fin.append(info.iters_pos)
        vel.append(info.iters_vel)
        capped += (not info.converged_pos) + (not info.converged_vel)
    ok, figure = check(model, method.system, np.array(pos), np.array(t))
    record = {"scene": name, "points": int(model.body_point.sum()), "links": method.system.n_constraints,
              "steps": n_steps,
              "median step [us]": 1e6 * float(np.median(walls[WARMUP:]))}
    record.update({f"{s} [us]": 1e6 * float(np.median(v[WARMUP:])) for s, v in stages.items()})
    record.update({"fin passes mean": float(np.mean(fin)), "fin passes max": int(np.max(fin)),
                   "V passes mean": float(np.mean(vel)), "capped loops": capped,
                   "physics": ("ok: " if ok else "FAILED: ") + figure})
    return record


_COLD = ("import time; t = time.perf_counter(); "
         "from impulsim.methods.masspoint import MassPointMethod; from impulsim.experiments import schmitt as scenes; "
         "m, s = scenes.cube(); MassPointMethod(m).step(s, 0.16); print(time.perf_counter() - t)")


def cold_start(empty_cache: bool) -> float:
    """Seconds from a fresh interpreter's import to the end of the first cube step."""
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as tmp:
        if empty_cache:
            env["NUMBA_CACHE_DIR"] = tmp
        out = subprocess.run([sys.executable, "-c", _COLD], env=env, capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def run(quick: bool = False) -> list[dict]:
    """Records for ``impulsim bench masspoint``; ``quick`` times 200 steps per scene, no cold starts."""
    records = [time_scene(name, scene, h, min(n, 200) if quick else n, check)
               for name, scene, h, n, check in CASES]
    if not quick:
        records.append({"scene": "cube, fresh interpreter", "cold start, empty cache [s]": cold_start(True),
                        "cold start, filled cache [s]": cold_start(False)})
    return records
