"""A hinge swinging between stops at ±0.5 rad without gravity (Bender 5.4.3, Holck test 8): with e = 1 every
hit keeps the rate, with e = 0.5 every hit halves it.

    python examples/contact/joint_limits.py
"""
import sys

import numpy as np

from impulsim.bench import contact as C


def main() -> int:
    worst = 0.0
    for e in (1.0, 0.5):
        hits = C.limit_hits(e)
        ratios = hits[:, 1] / hits[:, 0]
        worst = max(worst, float(np.abs(ratios - e).max()))
        print(f"e = {e:g}: {len(hits)} hits, rate after / before = {np.array2string(ratios, precision=8)}")
    print(f"largest deviation from e: {worst:.2e}")
    return 0 if worst <= 1e-6 else 1


if __name__ == "__main__":
    sys.exit(main())
