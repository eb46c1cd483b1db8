"""Bender's wall (Sec. 5.5.1.2): 252 stones up to 24 high, hit by a 10 kg pendulum ball; e = 0.1, μs = 0.2,
μd = 0.1, h = 5 ms. Prints the wall-clock time (shock propagation after 10 iterations) against the thesis's
91 s (998 s without) and the stones' largest drift before the impact (goal 1 mm). The sweeps pass over
patches that stay within half the tolerance and a shock pass sweeps each level at most 4 times
(experiments.bender_contacts.WALL_SOLVER); --every-patch visits every patch in every sweep, as the thesis does.

    python examples/contact/wall.py [SECONDS] [--no-shock] [--every-patch]      (default 5, the thesis's run)
"""
import sys

from impulsim.bench import contact as C


def main(argv) -> int:
    shock = "--no-shock" not in argv
    every = dict(skip_resolved=False, skip_resolved_positions=False) if "--every-patch" in argv else {}
    args = [a for a in argv if not a.startswith("--")]
    seconds = float(args[0]) if args else 5.0
    r = C.wall_run(seconds, shock=shock, **every)
    impact = f"impact at {r['impact']:.3f} s" if r["impact"] is not None else "no impact yet"
    print(f"{seconds:g} s simulated in {r['wall_s']:.1f} s wall-clock ({'with' if shock else 'without'} shock "
          f"propagation; thesis {C.WALL_THESIS_S['shock' if shock else 'plain']:g} s for 5 s, goal "
          f"{C.WALL_GOAL_S:g} s); {r['avg_contacts']:.0f} contacts per step on average; {impact}; largest stone "
          f"drift before it {r['drift'] * 1e3:.3f} mm (goal 1 mm)")
    return 0 if r["drift"] <= C.REST_DRIFT_GOAL else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
