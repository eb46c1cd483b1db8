"""§5.7 of Schmitt & Thüring (2000): a pyramid top on its fixed tip, kicked for one step of 0.005 s,
2233 steps; spin, nutation and the projection of the axis point p2.

    python examples/masspoint/top.py [--plot DIR]
"""
import sys

import numpy as np
from _masspoint_common import parse_args, plot_lines, table, verdict

from impulsim.experiments.schmitt_runs import REPORT, run_top
from impulsim.methods.masspoint import diagnostics


def main(argv=None) -> int:
    args = parse_args(__doc__, argv)
    rep = REPORT["top"]
    result = run_top()
    traj, model = result.run.traj, result.run.model
    tilted, upright = result.max_tilt_step, result.vertical_step
    mass = diagnostics.masses(model)
    lz = np.einsum("i,ki->k", mass, np.cross(traj.pos, traj.vel)[:, :, 2])[1:]
    table("Top on its tip, 6 points of 1 kg, height 1 m (our choice), h = 0.005 s (report §5.7)", [
        ("spin at largest tilt [rev/s]", rep["rev/s at max tilt"], result.spin_at(tilted)),
        ("spin with the axis vertical [rev/s]", rep["rev/s vertical"], result.spin_at(upright)),
        ("largest tilt [deg]", rep["max tilt deg"], float(result.tilt.max())),
        ("smallest tilt after the first swing [deg]", 0.0, float(result.tilt[upright - 1])),
        ("energy deficit at largest tilt [% of E_kin]", None, result.deficit_at(tilted)),
        ("energy deficit with the axis vertical [% of E_kin]", None, result.deficit_at(upright)),
        ("L_z spread over the run [relative]", 0.0, float(np.ptp(lz) / abs(lz[0]))),
        ("fin / V-correction passes per step (mean)", None,
         f"{traj.fin_passes.mean():.1f} / {traj.vel_passes.mean():.1f}"),
    ])
    if args.plot:
        p2 = traj.pos[:, model.body("p2")]
        plot_lines(args.plot, "top_axis_projection", p2[:, 0], {"p2 (x, y)": p2[:, 1]}, "x [m]", "y [m]",
                   "Top: axis point p2 seen from above (the report's Fig. 5.7-2)", equal_axes=True)
        plot_lines(args.plot, "top_tilt", traj.t[1:], {"tilt [deg]": result.tilt}, "t [s]", "deg",
                   "Top: tilt of the axis")
    return verdict([
        ("every fin and V-correction loop converged",
         bool(traj.fin_converged.all() and traj.vel_converged.all())),
        ("angular momentum about the vertical conserved to 1e-12", np.ptp(lz) < 1e-12 * abs(lz[0])),
        ("axis returns to within 0.1° of the vertical", result.tilt[upright - 1] < 0.1),
    ])


if __name__ == "__main__":
    sys.exit(main())
