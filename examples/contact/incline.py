"""Bender's incline (Sec. 5.5.2, Table 5.2): ten cubes slide 5 s down a 15° plane without friction, then brake
with μ = 0.535 … 0.85. Prints each braking distance against Coulomb's law and the thesis's deviation.

    python examples/contact/incline.py
"""
import sys

import numpy as np

from impulsim.bench import contact as C
from impulsim.experiments import bender_contacts as S


def main() -> int:
    analytic, simulated = C.incline_distances()
    thesis = np.abs(S.INCLINE_THESIS_SIMULATED - S.INCLINE_THESIS_COMPUTED)
    for mu, a, s, t in zip(S.INCLINE_MUS, analytic, simulated, thesis):
        print(f"mu {mu:.3f}: analytic {a:8.4f} m, simulated {s:8.4f} m, deviation {abs(s - a):.4f} m "
              f"(thesis {t:.4f} m)")
    worst = float(np.abs(simulated - analytic).max())
    print(f"largest deviation {worst:.4f} m (goal {C.INCLINE_GOAL} m, thesis 0.0069 m)")
    return 0 if worst <= C.INCLINE_GOAL else 1


if __name__ == "__main__":
    sys.exit(main())
