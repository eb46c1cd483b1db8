"""Newton's cradle (Bender Sec. 5.5.3, Table 5.3): five 1 kg balls (r = 1 m) on hinged rods, 1 … 4 of them
swung out by 45°. Prints the energy and angular-velocity deviations over the impact beside the thesis's.

    python examples/contact/cradle.py [N_DEFLECTED ...]

Exits with 1 if a deviation exceeds the issue's goal (2e-6).
"""
import sys

from impulsim.bench import contact as C


def main(argv) -> int:
    failures = 0
    for n in [int(a) for a in argv] or [1, 2, 3, 4]:
        de, dw, t = C.cradle_impact(n)
        e_t, w_t = C.CRADLE_THESIS[n]
        ok = de <= C.CRADLE_GOAL and dw <= C.CRADLE_GOAL
        failures += not ok
        print(f"{n} deflected: impact at {t:.3f} s, energy deviation {de:.3e} J (thesis {e_t:.3e}), "
              f"angular-velocity deviation {dw:.3e} rad/s (thesis {w_t:.3e}) {'ok' if ok else 'ABOVE GOAL'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
