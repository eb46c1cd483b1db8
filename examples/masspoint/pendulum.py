"""§5.1 of Schmitt & Thüring (2000): the 1 m mathematical pendulum at 5°, its period and O(h²) error.

    python examples/masspoint/pendulum.py [--plot DIR]
"""
import math
import sys

from _masspoint_common import parse_args, plot_lines, table, verdict

from impulsim.methods.masspoint import MassPointBuilder, record
from impulsim.methods.masspoint import analysis, diagnostics
from impulsim.simulation import Simulation
from impulsim.experiments.schmitt_runs import REPORT, run_pendulum

G = 9.81


def build_pendulum(amplitude_deg=5.0):
    """A suspension point and a 1 kg bob 1 m away, released from rest at the amplitude."""
    a = math.radians(amplitude_deg)
    b = MassPointBuilder("pendulum", gravity=(0.0, 0.0, -G))
    b.add_point("pivot", (0.0, 0.0, 0.0), fixed=True)
    b.add_point("bob", (math.sin(a), 0.0, -math.cos(a)), mass=1.0)
    b.add_distance("pivot", "bob")
    return b.build()


def main(argv=None) -> int:
    args = parse_args(__doc__, argv)
    rep = REPORT["pendulum"]
    t5 = analysis.pendulum_period_theory(math.radians(5.0), 1.0, G)

    # the run written out: build, step 1000 times at h = T5/100, measure the period from zero crossings
    model, state = build_pendulum()
    sim = Simulation(model, state, "masspoint", h=t5 / 100)      # eps = 1e-5 m, velocity correction on
    traj = record(sim, 1000)
    period = analysis.period_from_crossings(traj.t, traj.pos[:, model.body("bob"), 0])

    runs = {k: run_pendulum(t5 / k) for k in (100, 200, 400, 1000)}
    deficit = {h: run_pendulum(h).min_deficit_percent for h in (0.02, 0.0025)}
    table("Mathematical pendulum, 1 m, 5° (report §5.1)", [
        ("T0 small-angle theory [s]", rep["T0"], analysis.pendulum_period_theory(1e-9, 1.0, G)),
        ("T5 theory [s]", rep["T5"], t5),
        ("T_sim, h = T5/100 [s]", rep["T_sim(h=T5/100)"], period),
        ("T_sim, h = T5/1000 [s]", rep["T_sim(h=T5/1000)"], runs[1000].period),
        ("relative error, h = T5/100 [%]", -0.0166, 100 * runs[100].error / t5),
        ("error T5/100 : T5/200", 4.0, runs[100].error / runs[200].error),
        ("error T5/200 : T5/400", 4.0, runs[200].error / runs[400].error),
        ("energy deficit, h = 0.02 s [% of E_kin]", rep["deficit % (h=0.02)"], deficit[0.02]),
        ("energy deficit, h = 0.0025 s [% of E_kin]", rep["deficit % (h=0.0025)"], deficit[0.0025]),
        ("fin passes per step (max)", "2-5", int(traj.fin_passes.max())),
    ])
    if args.plot:
        energy = diagnostics.total_energy(model, traj.pos, traj.vel)
        kinetic = diagnostics.kinetic_energy(model, traj.vel)
        plot_lines(args.plot, "pendulum_energy", traj.t, {"100 E / max E_kin [%]": 100 * energy / kinetic.max()},
                   "t [s]", "%", "Pendulum: transient energy deficit (curvature error), h = T5/100")
    return verdict([
        ("T_sim(T5/100) agrees with the report to its 6 printed decimals",
         abs(period - rep["T_sim(h=T5/100)"]) < 1e-6),
        ("T_sim(T5/1000) agrees with the report to its 8 printed decimals",
         abs(runs[1000].period - rep["T_sim(h=T5/1000)"]) < 1e-8),
        ("halving h divides the period error by 4 ± 0.02 (O(h²))",
         all(abs(runs[a].error / runs[b].error - 4.0) < 0.02 for a, b in ((100, 200), (200, 400)))),
    ])


if __name__ == "__main__":
    sys.exit(main())
