"""Soak runs: many steps of a chain and of a contact scene, checked for non-finite values, constraint errors
and energy gained at rest. Usage: python benchmarks/soak.py chain|contact STEPS [REPORT.json]"""
import json
import sys
import time
from pathlib import Path

import numpy as np

from impulsim.dynamics import diagnostics
from impulsim.io import load_scene

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def soak(kind: str, steps: int, report: str | None):
    scene = load_scene(EXAMPLES / ("double_pendulum.yaml" if kind == "chain" else "falling_boxes.yaml"))
    sim = scene.simulation()
    m = sim.model
    e0 = diagnostics.total_energy(m, sim.state)
    worst_error, e_min_late, e_max_late, rest_energy = 0.0, np.inf, -np.inf, None
    start = time.perf_counter()
    out = {"kind": kind, "planned": steps}
    for i in range(1, steps + 1):
        sim.step()
        if i % 100 == 0 or i == steps:
            s = sim.state
            assert all(np.isfinite(getattr(s, n)).all() for n in ("body_pos", "body_quat", "body_vel", "body_omega"))
            err = float(np.max(diagnostics.constraint_errors(m, s), initial=0.0))
            worst_error = max(worst_error, err)
            e = diagnostics.total_energy(m, s)
            if kind == "contact" and s.t >= 10.0:        # at rest after the pile settled
                rest_energy = e if rest_energy is None else rest_energy
                e_max_late = max(e_max_late, e)
            out.update(steps=i, t=s.t, wall=time.perf_counter() - start, max_constraint_error=worst_error,
                       energy_start=e0, energy_now=e, max_speed=float(np.abs(s.body_vel).max()))
            if rest_energy is not None:
                out.update(energy_at_10s=rest_energy, max_energy_after_10s=e_max_late,
                           gain_at_rest=e_max_late - rest_energy)
        if report and (i % 20000 == 0 or i == steps):
            Path(report).write_text(json.dumps(out, indent=1))
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    soak(sys.argv[1], int(float(sys.argv[2])), sys.argv[3] if len(sys.argv) > 3 else None)
