"""The sweeps shown in docs/sweeps.md: a servo's gains, a box sliding up an incline over friction and speed,
and (``--bob``) bob runs on the test chute over runner friction and spring set, and over the pilot's line.

    python benchmarks/sweep_showcase.py [--workers N] [--out out/showcase] [--bob]

Writes the tables under OUT/ and the plots to docs/images/sweep_*.png (``--bob``: sweep_bob_*.png only), and
prints the figures quoted in the docs (cases, wall time, failed cases).
"""
from __future__ import annotations

import argparse
import math
import shutil
import time
from pathlib import Path

import impulsim.sweep
from impulsim.dynamics.diagnostics import joint_coordinate

ROOT = Path(__file__).resolve().parents[1]
IMAGES = ROOT / "docs" / "images"

THETA, SPEED, START = math.radians(20.0), 2.0, -1.0   # slope angle, launch speed [m/s], along-slope start [m]
_T = (math.cos(THETA), 0.0, math.sin(THETA))            # up the slope
_N = (-math.sin(THETA), 0.0, math.cos(THETA))           # the slope's normal
_P = [START * t + 0.15 * n for t, n in zip(_T, _N)]     # box centre: 0.1 m slab half-thickness + 0.05 m
INCLINE = f"""\
description: a box launched up a 20 degree incline; Coulomb friction stops it
settings: {{h: 0.001, duration: 1.5, restitution_rule: geometric, friction_rule: geometric}}
materials:
  ice: {{static_friction: 0.5, dynamic_friction: 0.5, restitution: 0.0}}
bodies:
  - {{name: slope, shapes: [box: {{size: [6, 2, 0.2], material: ice}}], static: true,
     orientation: {{axis: [0, 1, 0], angle_deg: -20}}}}
  - {{name: box, shapes: [box: {{size: [0.2, 0.2, 0.1], material: ice}}], mass: 1.0,
     position: [{_P[0]:.9f}, 0, {_P[2]:.9f}], orientation: {{axis: [0, 1, 0], angle_deg: -20}},
     velocity: [{SPEED * _T[0]:.9f}, 0, {SPEED * _T[2]:.9f}]}}
"""


def elbow_error(model, state) -> float:
    """|elbow angle − its last set-point| [rad] at the end of the run."""
    return abs(joint_coordinate(model, state, "elbow") - 0.3)


def servo_sweep(out: Path, workers):
    return impulsim.sweep(ROOT / "examples" / "servo_arm.yaml",
                          {"servos.elbow_servo.kp": "20:160:8", "servos.elbow_servo.kd": "1:9:5"},
                          duration=4.0, metrics={"elbow_error": elbow_error, "energy.total": None},
                          out=out / "servo", workers=workers)


MUS = [round(0.4 + 0.05 * k, 2) for k in range(11)]   # all at or above tan 20° = 0.364: the box stays put
SPEEDS = (1.0, 2.0, 3.0)                                # launch speeds [m/s]


def travel(model, state) -> float:
    """How far the box went up the slope from its start [m]."""
    k = model.body("box")
    return float(sum((state.body_pos[k, i] - _P[i]) * _T[i] for i in range(3)))


def incline_sweep(out: Path, workers):
    """A list design: every friction coefficient at every launch speed, the two coefficients equal and the
    velocity's two components moving together (33 cases)."""
    scene = out / "incline.yaml"
    scene.write_text(INCLINE)
    mus = MUS * len(SPEEDS)
    speeds = [v for v in SPEEDS for _ in MUS]
    return impulsim.sweep(scene, {"materials.ice.dynamic_friction": mus, "materials.ice.static_friction": mus,
                                  "bodies.box.velocity.0": [round(v * _T[0], 9) for v in speeds],
                                  "bodies.box.velocity.2": [round(v * _T[2], 9) for v in speeds]},
                          design="list", metrics={"travel": travel, "final.box.speed": None},
                          out=out / "incline", workers=workers)


MU_TS = [0.002, 0.003, 0.004, 0.005, 0.006, 0.007]     # runner friction along the runner (0.004: the default)
SPRING_FACTORS = [0.7, 1.0, 1.4]                        # soft, standard and hard α and γ springs
LINE_PULLS = [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]             # pilot: from the riding place (0) to the line (1)
LOOK_AHEADS = [0.4, 0.6, 0.8]                           # pilot: time to the aim point [s] (0.6: the default)


def bob_friction_sweep(out: Path, workers):
    """Run time on the test chute over runner friction μ_t × spring set (18 runs)."""
    from impulsim.apps.bobsleigh.sweep import METRICS, bob_case
    return impulsim.sweep.run_function_sweep(bob_case, {"setup.runner.mu_t": MU_TS,
                                                        "setup.spring_set": SPRING_FACTORS},
                                             metrics=METRICS, out=out / "bob_friction", workers=workers)


def bob_pilot_sweep(out: Path, workers):
    """Run time on the test chute over the pilot's line pull × look-ahead time (18 runs)."""
    from impulsim.apps.bobsleigh.sweep import METRICS, bob_case
    return impulsim.sweep.run_function_sweep(bob_case, {"pilot.line_pull": LINE_PULLS,
                                                        "pilot.look_ahead": LOOK_AHEADS},
                                             metrics=METRICS, out=out / "bob_pilot", workers=workers)


def bob_main(out: Path, workers) -> None:
    """The two bob sweeps: tables, plots and the figures the docs quote."""
    import os
    for name, sweep, x, series in (("bob_friction", bob_friction_sweep, "setup.runner.mu_t", "setup.spring_set"),
                                   ("bob_pilot", bob_pilot_sweep, "pilot.line_pull", "pilot.look_ahead")):
        load = os.getloadavg()[0]
        start = time.perf_counter()
        table = sweep(out, workers)
        seconds = time.perf_counter() - start
        rows = table.to_pylist()
        failed = sum(r["status"] != "ok" for r in rows)
        path = impulsim.sweep.plot_sweep(table, "run_time", x, None, IMAGES / f"sweep_{name}.png", series=series)
        cpu = sum(r["cpu_time"] or 0.0 for r in rows)
        print(f"{name}: {len(rows)} cases, {failed} failed, {seconds:.1f} s wall, {cpu:.1f} s CPU in the runs, "
              f"load average {load:.2f} at the start; plot {path}")
        for r in rows:
            print(f"  {x} = {r[x]:<6g} {series} = {r[series]:<4g} {r['outcome']:<10} run time "
                  f"{r['run_time']:.3f} s, top speed {r['top_speed']:.2f} m/s, CPU {r['cpu_time']:.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--out", default="out/showcase")
    parser.add_argument("--bob", action="store_true", help="only the bob sweeps (sweep_bob_*.png)")
    args = parser.parse_args()
    out = Path(args.out)
    IMAGES.mkdir(parents=True, exist_ok=True)
    if args.bob:
        for name in ("bob_friction", "bob_pilot"):
            shutil.rmtree(out / name, ignore_errors=True)
        bob_main(out, args.workers)
        return
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    for name, run, plot in (("servo", servo_sweep, ("elbow_error", "servos.elbow_servo.kp", "servos.elbow_servo.kd",
                                                    None)),
                            ("incline", incline_sweep, ("travel", "materials.ice.dynamic_friction", None,
                                                        "bodies.box.velocity.0"))):
        start = time.perf_counter()
        table = run(out, args.workers)
        seconds = time.perf_counter() - start
        failed = sum(s != "ok" for s in table.column("status").to_pylist())
        path = impulsim.sweep.plot_sweep(table, plot[0], plot[1], plot[2], IMAGES / f"sweep_{name}.png",
                                         series=plot[3])
        print(f"{name}: {table.num_rows} cases, {failed} failed, {seconds:.1f} s wall; plot {path}")
        if name == "incline":
            _incline_check(table)


def _incline_check(table) -> None:
    """Print the stopping point against the closed form: up the slope the box decelerates at
    g (sin θ + μ cos θ) and stops after v² / (2 g (sin θ + μ cos θ)); it stays if μ ≥ tan θ."""
    g = 9.81
    worst = 0.0
    for row in table.to_pylist():
        mu = row["materials.ice.dynamic_friction"]
        v = math.hypot(row["bodies.box.velocity.0"], row["bodies.box.velocity.2"])
        exact = v ** 2 / (2 * g * (math.sin(THETA) + mu * math.cos(THETA)))
        worst = max(worst, abs(row["travel"] - exact))
        print(f"  v = {v:.1f} m/s, mu = {mu:.2f}: travelled {row['travel']:.4f} m up the slope, closed form "
              f"{exact:.4f} m ({1e3 * (row['travel'] - exact):+.3f} mm), final speed {row['final.box.speed']:.1e}")
    print(f"  largest difference from the closed form: {1e3 * worst:.3f} mm")


if __name__ == "__main__":
    main()
