"""§5.2 of Schmitt & Thüring (2000): the weightless 2 m cube kicked into flight, 1000 steps of 0.16 s,
with and without the velocity correction, and the float32 run that fails beyond 128 m.

    python examples/masspoint/cube.py [--plot DIR]
"""
import sys

import numpy as np
from _masspoint_common import parse_args, plot_lines, table, verdict

from impulsim.experiments.schmitt_runs import REPORT, run_cube


def main(argv=None) -> int:
    args = parse_args(__doc__, argv)
    rep = REPORT["cube"]
    with_v, without_v = run_cube(velocity_correction=True), run_cube(velocity_correction=False)
    single = run_cube(precision="float32", n_steps=400)
    first = single.first_failure
    gap = np.abs(with_v.traj.pos - without_v.traj.pos).max()
    table("Cube in free flight, all 28 pairs linked, h = 0.16 s (report §5.2)", [
        ("turn per step [deg]", rep["deg/step"], float(with_v.degrees_per_step.mean())),
        ("turn per step, spread over 999 steps [deg]", 0.0, float(np.ptp(with_v.degrees_per_step))),
        ("E_kin with V-correction [J]", rep["E_kin with V"], float(with_v.kinetic.mean())),
        ("E_kin without V-correction [J]", rep["E_kin without V"], float(without_v.kinetic.mean())),
        ("E_kin, rigid-rotor closed form with V [J]", None, with_v.closed_form_kinetic),
        ("E_kin, rigid-rotor closed form without V [J]", None, without_v.closed_form_kinetic),
        ("x_CM after 160 s [m]", -rep["distance [m]"], float(with_v.com[-1, 0])),
        ("largest position gap with/without V [m]", "5th decimal", float(gap)),
        ("fin passes per step (mean, max)", None,
         f"{with_v.traj.fin_passes.mean():.2f}, {with_v.traj.fin_passes.max()}"),
        ("V-correction passes per step (mean)", None, f"{with_v.traj.vel_passes.mean():.2f}"),
        ("float32: first step hitting the 500-pass cap", rep["float32 first failing step"], first),
        ("float32: x_CM at that step [m]", rep["float32 x_CM at failure"], float(single.com[first, 0])),
        ("float32: capped steps among steps 203..400", "all",
         f"{int(np.sum(single.failed_steps > 202))} of {single.traj.n_steps - 202}"),
    ])
    if args.plot:
        steps = np.arange(2, with_v.traj.n_steps + 1)
        plot_lines(args.plot, "cube_energy", steps, {"with V-correction": with_v.kinetic,
                                                     "without V-correction": without_v.kinetic},
                   "step", "E_kin [J]", "Cube: kinetic energy per step")
        plot_lines(args.plot, "cube_float32_passes", np.arange(1, single.traj.n_steps + 1),
                   {"float32": single.traj.fin_passes}, "step", "fin passes", "Cube in float32: fin passes")
    return verdict([
        ("turn per step is 20.092° to the report's 3 decimals", abs(with_v.degrees_per_step.mean() - 20.092) < 1e-3),
        ("E_kin without V-correction within 1.5e-3 J of the report's 102.0384043",
         abs(without_v.kinetic.mean() - rep["E_kin without V"]) < 1.5e-3),
        ("E_kin with V-correction ≈ 100.88", abs(with_v.kinetic.mean() - 100.88) < 0.005),
        ("centre of mass at x = -639.68 m after 160 s", abs(with_v.com[-1, 0] + 639.68) < 1e-9),
        ("float64 never hits the cap", with_v.first_failure is None and without_v.first_failure is None),
        ("float32 starts failing within 3 steps of the report's step 202", abs(first - 202) <= 3),
    ])


if __name__ == "__main__":
    sys.exit(main())
