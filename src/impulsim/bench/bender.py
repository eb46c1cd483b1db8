"""Bender's LGS measurements (thesis Sec. 3.3.3) run with our impulse method and with MuJoCo.

    impulsim bench chain | tree | loops | bender [--quick] [--json FILE]

* chain: ball-joint chains of 10 … 50 links, eps 1e-6, h = 10 ms (Table 3.1), LGS and iterative.
* tree: binary trees of 31 … 255 bodies at eps 1e-3, 1e-4, 1e-6, h = 1/30 s, 500 steps, 10 N m on the root
  for the first step (Tables 3.3, 3.4), LGS and iterative, plus the iterative method capped at 10 iterations
  per phase on tree 255.
* loops: three four-bar hinge loops at the three tolerances, h = 1/30 s (Table 3.6): iterative, LGS with
  loops cut (the thesis's hybrid) and LGS with dependent rows dropped (automatic; beside the thesis's
  hand-modified joints).
* bender: all three, and a plot of ms per step against the number of bodies (bench_lgs_scaling.png).

Each record carries the thesis's figure and MuJoCo (Euler, its default) on the same model from the same
state; trees also get MuJoCo's RK4. A run that diverges is reported as such, with the largest stable step.
"""
from __future__ import annotations

import os
import subprocess
import sys

from impulsim.experiments import bender as scenes, bender_tables as thesis
from impulsim.bench.harness import (Case, MAX_SOLVES, measure, measure_peer, finish, ours_stable_step,
                                    paired_ratio)

CHAIN_SIZES, QUICK_CHAIN_SIZES = (10, 20, 30, 40, 50), (10, 50)
TREE_SIZES, QUICK_TREE_SIZES = (31, 63, 127, 255), (127, 255)
TOLERANCES, QUICK_TOLERANCES = (1e-3, 1e-4, 1e-6), (1e-6,)
CHAIN_H, TREE_H, LOOPS_H = 0.01, 1.0 / 30.0, 1.0 / 30.0
CHAIN_STEPS = 200        # the thesis ran each chain length for 2 s
TREE_STEPS = 500         # 16.7 s, as in the thesis
LOOPS_STEPS = 500
QUICK_STEPS = 100
ITERATIVE_STEPS = 60     # the iterative method at tight tolerances takes up to ~0.1 s per step
LGS = dict(solver="lgs")


def _chain_cases(quick):
    out = []
    for n in QUICK_CHAIN_SIZES if quick else CHAIN_SIZES:
        build = (lambda n=n: scenes.chain(n))
        steps = QUICK_STEPS if quick else CHAIN_STEPS
        out.append(Case("chain", n, "lgs", 1e-6, CHAIN_H, steps, build, LGS,
                        thesis_ms=thesis.figure("chain", n, "lgs", 1e-6)))
        if not quick:
            out.append(Case("chain", n, "iterative", 1e-6, CHAIN_H, ITERATIVE_STEPS, build, dict(solver="iterative"),
                            thesis_ms=thesis.figure("chain", n, "iterative", 1e-6)))
    return out


def _tree_cases(quick):
    out = []
    for n in QUICK_TREE_SIZES if quick else TREE_SIZES:
        build = (lambda n=n: scenes.tree(scenes.tree_size_levels(n)))
        for tol in QUICK_TOLERANCES if quick else TOLERANCES:
            out.append(Case("tree", n, "lgs", tol, TREE_H, QUICK_STEPS if quick else TREE_STEPS, build, LGS,
                            torque=scenes.TREE_TORQUE, thesis_ms=thesis.figure("tree", n, "lgs", tol)))
            if not quick:
                out.append(Case("tree", n, "iterative", tol, TREE_H, ITERATIVE_STEPS, build, dict(solver="iterative"),
                                torque=scenes.TREE_TORQUE, thesis_ms=thesis.figure("tree", n, "iterative", tol)))
    n = 255
    out.append(Case("tree", n, "iterative capped 10", 1e-6, TREE_H, QUICK_STEPS if quick else TREE_STEPS,
                    lambda: scenes.tree(8), dict(solver="iterative", max_iter_pos=10, max_iter_vel=10),
                    torque=scenes.TREE_TORQUE, capped=True, thesis_ms=thesis.figure("tree", n, "", 1e-6, True)))
    return out


def _loop_cases(quick):
    out = []
    methods = {"lgs drop": dict(solver="lgs", loops="drop"), "lgs cut": dict(solver="lgs", loops="cut"),
               "iterative": dict(solver="iterative")}
    for tol in QUICK_TOLERANCES if quick else TOLERANCES:
        for name, opts in methods.items():
            if quick and name != "lgs drop":
                continue
            out.append(Case("loops", 9, name, tol, LOOPS_H, QUICK_STEPS if quick else LOOPS_STEPS, scenes.three_loops,
                            opts, thesis_ms=thesis.figure("loops", 9, name, tol)))
    return out


def _run_cases(cases, quick, peer_integrators=("Euler",)):
    """Measure every case; MuJoCo once per scene and size (from the tightest LGS run), merged into all."""
    records, peers = [], {}
    for case in cases:
        rec = measure(case)
        key = (case.scene, case.n_bodies)
        if case.method.startswith("lgs") and case.tol == min(c.tol for c in cases if c.scene == case.scene):
            if rec["status"] != "ok":
                rec["stable_h"] = ours_stable_step(case, ladder=3 if quick else 6)
            if key not in peers:
                peers[key] = _peers(rec, quick, peer_integrators)
                if rec["status"] == "ok" and "peer_ms_per_step" in peers[key]:
                    rec.update(paired_ratio(case, rec))
        records.append(rec)
    for rec in records:
        rec.update(peers.get((rec["scene"], rec["n_bodies"]), {}))
        finish(rec)
    return records


def _peers(rec, quick, integrators):
    from impulsim.bench import mujoco_peer
    if not mujoco_peer.available():
        return dict(peer="mujoco (not installed: pip install mujoco)")
    out = measure_peer(rec, integrators[0], ladder=3 if quick else 6)
    for integ in integrators[1:]:
        extra = measure_peer(rec, integ, ladder=0)
        out[f"peer_{integ.lower()}_ms_per_step"] = extra["peer_ms_per_step"]
        out[f"peer_{integ.lower()}_status"] = extra["peer_status"]
    return out


def chain(quick: bool = False) -> list[dict]:
    return _run_cases(_chain_cases(quick), quick)


def tree(quick: bool = False) -> list[dict]:
    return _run_cases(_tree_cases(quick), quick, ("Euler",) if quick else ("Euler", "RK4"))


def loops(quick: bool = False) -> list[dict]:
    return _run_cases(_loop_cases(quick), quick)


def bender(quick: bool = False, plot_path: str = "bench_lgs_scaling.png") -> list[dict]:
    """All of Bender's LGS measurements, the scaling plot and the cold start."""
    records = chain(quick) + tree(quick) + loops(quick)
    if plot_path:
        plot_scaling(records, plot_path)
        print(f"plot written to {plot_path}")
    return records + cold_start(empty_cache=not quick)


STEP_STUDY_RATES = (30, 35, 40, 45, 60, 120)
"""Steps per second of the tree step study (h = 1/rate)."""


def tree_step_limit(levels: int = 5, rates=STEP_STUDY_RATES, seconds: float = TREE_STEPS * TREE_H,
                    solver: str = "lgs") -> list[dict]:
    """The tree of ``levels`` levels at several steps h, all with the thesis's kick (10 N m over 1/30 s, given
    as one step of 10 N m · (1/30 s) / h, so the angular impulse is the same): whether every step converges,
    the band of the total energy after the kick, the fastest body rate and the largest rotation per step
    |ω| h, and the mean solves per step. Shows where the joint correction's iteration stops converging."""
    import numpy as np
    import impulsim as ims
    from impulsim.dynamics import diagnostics
    out = []
    for rate in rates:
        h = 1.0 / rate
        model, st = scenes.tree(levels)
        caps = dict(max_iter_pos=MAX_SOLVES, max_iter_vel=MAX_SOLVES) if solver == "lgs" else {}
        method = ims.make_method("impulse", model, solver=solver, eps_d=1e-6, eps_v=1e-6, **caps)
        energies, solves, fastest, failed = [], [], 0.0, None
        for i in range(int(round(seconds / h))):
            st.body_torque[1] = np.array(scenes.TREE_TORQUE) * (TREE_H / h) if i == 0 else 0.0
            info = method.step(st, h)
            if not (info.converged_pos and info.converged_vel):
                failed = i + 1
                break
            energies.append(diagnostics.total_energy(model, st))
            solves.append(info.iters_pos)
            fastest = max(fastest, float(np.linalg.norm(st.body_omega, axis=1).max()))
        out.append(dict(scene="tree step limit", method=f"impulse {solver}", n_bodies=model.n_bodies - 1, h=h,
                        status="ok" if failed is None else f"no convergence at step {failed}",
                        energy_band=float(np.ptp(energies)), max_rate=fastest, max_turn_per_step=fastest * h,
                        mean_solves_pos=float(np.mean(solves))))
    return out


def cold_start(empty_cache: bool = True) -> list[dict]:
    """Import, build tree 255 and its first LGS step in a fresh process: with an empty compilation cache
    (everything compiled; skipped with ``empty_cache=False``) and with a filled cache."""
    import tempfile
    code = ("import time; t0 = time.perf_counter(); import impulsim as ims; from impulsim.experiments import bender as scenes; "
            "t1 = time.perf_counter(); m, s = scenes.tree(8); me = ims.make_method('impulse', m, solver='lgs'); "
            "t2 = time.perf_counter(); me.step(s, 1/30); t3 = time.perf_counter(); me.step(s, 1/30); "
            "t4 = time.perf_counter(); print(t1 - t0, t2 - t1, t3 - t2, t4 - t3)")
    out = []
    with tempfile.TemporaryDirectory() as cache:
        runs = [("empty cache", {"NUMBA_CACHE_DIR": cache})] if empty_cache else []
        runs.append(("warm cache", {"NUMBA_CACHE_DIR": cache} if empty_cache else {}))
        for label, env in runs:
            res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                 env={**os.environ, **env}, check=True)
            imp, build, first, second = (float(v) for v in res.stdout.split())
            out.append(dict(scene="cold start", method=f"impulse lgs ({label})", n_bodies=255, tol=1e-6, h=TREE_H,
                            ms_per_step=1e3 * second, iters_pos=None, iters_vel=None, max_pos_error=None, peer=None,
                            peer_ms_per_step=None, import_ms=1e3 * imp, build_ms=1e3 * build,
                            first_step_ms=1e3 * first))
    return out


def plot_scaling(records, path):
    """ms per step against bodies for chain and trees (eps 1e-6): ours, MuJoCo and the thesis (log scale)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5))
    for ax, scene, title in ((axes[0], "chain", "Ball-joint chain, h = 10 ms"),
                             (axes[1], "tree", "Binary tree, h = 1/30 s")):
        rs = sorted((r for r in records if r["scene"] == scene and r["method"] == "impulse lgs" and r["tol"] == 1e-6),
                    key=lambda r: r["n_bodies"])
        n = [r["n_bodies"] for r in rs]
        ax.semilogy(n, [r["ms_per_step"] for r in rs], "o-", label="impulsim LGS")
        ax.semilogy(n, [r.get("peer_ms_per_step") for r in rs], "s--", label="MuJoCo (Euler), same h")
        ax.semilogy(n, [r.get("thesis_ms") for r in rs], "^:", label="Bender 2007 (P4 3.4 GHz)")
        for r in rs:
            if r["status"] != "ok":
                ax.annotate("diverges", (r["n_bodies"], r["ms_per_step"]), fontsize=8)
        ax.set_xlabel("bodies")
        ax.set_ylabel("ms per step (median)")
        ax.set_title(title)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
