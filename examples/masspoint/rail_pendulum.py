"""§5.5 of Schmitt & Thüring (2000): the rigid triple pendulum hung from a point sliding on the x-axis;
with no horizontal force the centre of mass stays at x = 1.5 m.

    python examples/masspoint/rail_pendulum.py [--plot DIR]
"""
import sys

import numpy as np
from _masspoint_common import parse_args, plot_lines, table, verdict

from impulsim.methods.masspoint import diagnostics
from impulsim.experiments.schmitt_runs import REPORT, run_rail_pendulum


def main(argv=None) -> int:
    args = parse_args(__doc__, argv)
    result = run_rail_pendulum()
    traj = result.run.traj
    com = diagnostics.centre_of_mass(result.run.model, traj.pos)
    slider = traj.pos[:, result.run.model.body("p1")]
    deviation = float(np.abs(com[:, 0] - REPORT["rail_pendulum"]["x_CM"]).max())
    table("Rail pendulum, 4 × 2 kg, p1 on the x-axis, h = 0.01 s, 2000 steps (report §5.5)", [
        ("x_CM [m]", REPORT["rail_pendulum"]["x_CM"], float(com[-1, 0])),
        ("largest |x_CM - 1.5| over the run [m]", 0.0, deviation),
        ("largest |y|, |z| of the sliding point [m]", 0.0, float(np.abs(slider[:, 1:]).max())),
        ("range of the slider's x [m]", None, f"{slider[:, 0].min():.3f} .. {slider[:, 0].max():.3f}"),
        ("mean energy deficit [% of E_kin]", None, result.mean_deficit_percent),
        ("fin passes per step (mean, max)", None, f"{traj.fin_passes.mean():.2f}, {traj.fin_passes.max()}"),
    ])
    if args.plot:
        plot_lines(args.plot, "rail_pendulum_com", traj.t, {"x_CM - 1.5": com[:, 0] - 1.5,
                                                          "slider x": slider[:, 0]},
                   "t [s]", "m", "Rail pendulum: centre of mass and slider")
    return verdict([
        ("x_CM stays at 1.5 to 1e-12 m", deviation < 1e-12),
        ("the slider never leaves the x-axis", not slider[:, 1:].any()),
    ])


if __name__ == "__main__":
    sys.exit(main())
