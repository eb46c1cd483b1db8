"""§5.6 of Schmitt & Thüring (2000): a chain of eight 1 m links between two fixed points, released from
rest, 1200 steps of 0.01 s. The report's starting shape is lost with its figure; we start from an
upturned "U" (see impulsim.experiments.schmitt.closed_chain).

    python examples/masspoint/closed_chain.py [--plot DIR]
"""
import sys

import numpy as np
from _masspoint_common import parse_args, plot_lines, table, verdict

from impulsim.experiments.schmitt_runs import REPORT, run_closed_chain


def main(argv=None) -> int:
    args = parse_args(__doc__, argv)
    rep = REPORT["closed_chain"]
    result = run_closed_chain()
    traj = result.run.traj
    error = result.run.energy - result.run.energy[0]
    finer = [run_closed_chain(n_steps=int(round(1.0 / h)), h=h) for h in (0.005, 0.0025)]
    worst = [float(error[:101].min())] + [float((r.run.energy - r.run.energy[0]).min()) for r in finer]
    table("Closed chain, 7 × 1 kg between fixed p1 and p9, h = 0.01 s (report §5.6)", [
        ("mean energy deficit [% of E_kin]", rep["mean deficit %"], result.mean_deficit_percent),
        ("early peak E_kin (first 3 s) [J]", rep["early E_kin peak"], result.early_peak_kinetic),
        ("later peak E_kin [J]", rep["late E_kin max"], result.late_peak_kinetic),
        ("steps where the V-correction hit 200 passes", rep["V-correction failures"], len(result.velocity_failures)),
        ("V-correction passes per step after step 20 (mean, max)", rep["mean V passes"],
         f"{traj.vel_passes[20:].mean():.1f}, {traj.vel_passes.max()}"),
        ("fin passes per step (mean, max)", None, f"{traj.fin_passes.mean():.1f}, {traj.fin_passes.max()}"),
        ("worst deficit in the first second, h = 0.01 / 0.005 / 0.0025 [J]", None,
         " / ".join(f"{w:.3f}" for w in worst)),
    ])
    if args.plot:
        plot_lines(args.plot, "closed_chain_energy", np.arange(traj.n_steps + 1),
                   {"E - E0": error, "E_kin / 100": result.run.kinetic / 100}, "step", "J",
                   "Closed chain: energy error and kinetic energy")
    first, second = np.array_split(np.abs(error), 2)
    return verdict([
        ("every fin loop converged", bool(traj.fin_converged.all())),
        ("energy error does not grow (second half within the first half's worst)", second.max() <= first.max()),
        ("worst deficit falls about fourfold per halving of h (O(h²))",
         all(2.8 < a / b < 5.2 for a, b in zip(worst, worst[1:]))),
    ])


if __name__ == "__main__":
    sys.exit(main())
