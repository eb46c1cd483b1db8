"""Holck's test 10 (multitransarm): two 2 kg links on prismatic joints in series along an axis tilted from
the horizontal, pushed up the slope at 1.4 m/s; they slide up, L2 further along L1, then fall back onto the lower
stops (restitution 0.5) and come to rest there, within their limits (L1 ±0.09 m, L2 ±0.18 m). Holck
notes that small tilts give small impulses; both 45° and 10° are run.

    python examples/featherstone/multitransarm.py [duration]
"""
from __future__ import annotations

import sys

from impulsim.experiments.holck import multitransarm

from _common import LimitWatch, report, simulate

BOUNDS = {"S1": (-0.09, 0.09), "S2": (-0.18, 0.18)}
H = 0.01
# a stop that holds a link lands it on the bound at the end of each step (the acceleration over the step is
# anticipated); what remains is the RK4 error of the step and the push-back of the first hits: measured
# 6e-5 m at 45°, so 0.2 mm
OVERSHOOT_TOL = 2e-4
# at rest on the stops the links move by the same small error only (measured 2e-5 m over 0.5 s)
REST_TOL = 1e-4
# the impulses of one step never add energy beyond the push-back of a crossed bound (measured 1.5e-4 J)
RISE_TOL = 1e-3


def main(argv=()) -> int:
    duration = float(argv[0]) if argv else 10.0
    failures = 0
    for tilt in (45.0, 10.0):
        w = LimitWatch(simulate(multitransarm(tilt), h=H), BOUNDS).run(duration)
        final = w.history[-1][1]
        on_stops = abs(final[0] + 0.09) < OVERSHOOT_TOL and abs(final[1] + 0.18) < OVERSHOOT_TOL
        ok = (w.overshoot(BOUNDS) < OVERSHOOT_TOL and w.drift() < REST_TOL and w.rise < RISE_TOL and on_stops
              and w.energy < w.energy0)
        failures += report(f"multitransarm {tilt:g} deg", ok,
                           f"range S1 [{w.low[0]:+.5f}, {w.high[0]:+.5f}] m, S2 [{w.low[1]:+.5f}, {w.high[1]:+.5f}] m, "
                           f"crossing {w.overshoot(BOUNDS):.1e} m, moved {w.drift():.1e} m in the last "
                           f"{w.window} s, energy {w.energy0:.3f} -> {w.energy:.3f} J (largest rise in a step "
                           f"{w.rise:.1e} J)")
    return failures


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
