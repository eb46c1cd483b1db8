"""Holck's test 12 (testcase12): seven 1 kg links (0.1 m) in series on horizontal hinges from a static base
fold down under gravity onto their minimum stops (−0.2 rad each) and should rest there. Holck found that
they never quite settle (the impulse method's weakness at static contact, here at the stops), better with
smaller steps (runs 2, 3: 1/300 s, 1/600 s) and with restitution 0.3 instead of 0.5 (run 4).

The same happens here: a link held on its stop by impulses lifts off between them (during a step the stops
exert no force), and in a chain each lift disturbs the neighbours. What is checked: every joint ends on its
stop, the stops are crossed by little, the residual motion shrinks with the step, and the links lose (not
gain) energy overall.

    python examples/featherstone/testcase12.py [duration]
"""
from __future__ import annotations

import sys

from impulsim.experiments.holck import testcase12

from _common import LimitWatch, report, simulate

JOINTS = [f"J{i}" for i in range(7)]
BOUNDS = {j: (-0.2, 1.0) for j in JOINTS}
# measured: crossings 2e-2 rad at 1/300 s and 1e-2 rad at 1/600 s (the first hits of the falling chain,
# pushed back at beta · depth / h); a stop crossed by more than 0.05 rad (3°) would be a failure to hold
OVERSHOOT_TOL = 0.05
# at 1/600 s every joint ends within 0.02 rad of its stop (measured ≤ 1e-2); at 1/300 s the links still
# bounce by up to 8e-2 rad (Holck's run 2: "better, but does not reach rest"), not checked
ON_STOP_TOL = 0.02
RUNS = (("1/300 s, e = 0.5", 1 / 300, dict(restitution=0.5)), ("1/600 s, e = 0.5", 1 / 600, dict(restitution=0.5)),
        ("1/600 s, e = 0.3", 1 / 600, dict(restitution=0.3)))


def main(argv=()) -> int:
    duration = float(argv[0]) if argv else 5.0
    failures, drifts = 0, {}
    for label, h, options in RUNS:
        w = LimitWatch(simulate(testcase12(**options), h=h), JOINTS).run(duration)
        final = w.history[-1][1]
        off = max(abs(q + 0.2) for q in final)
        drifts[label] = w.drift()
        ok = w.overshoot(BOUNDS) < OVERSHOOT_TOL and w.energy < w.energy0 and (h > 1 / 400 or off < ON_STOP_TOL)
        failures += report(f"testcase12 {label}", ok,
                           f"crossing {w.overshoot(BOUNDS):.1e} rad, farthest from its stop at the end {off:.1e} rad, "
                           f"residual motion {w.drift():.1e} rad in the last {w.window} s, energy "
                           f"{w.energy0:.2f} -> {w.energy:.2f} J (largest rise in a step {w.rise:.1e} J)")
    finer = drifts["1/600 s, e = 0.5"] < drifts["1/300 s, e = 0.5"]
    failures += report("testcase12 smaller step", finer, "the residual motion on the stops shrinks from 1/300 s "
                       f"to 1/600 s: {drifts['1/300 s, e = 0.5']:.1e} -> {drifts['1/600 s, e = 0.5']:.1e} rad")
    return failures


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
