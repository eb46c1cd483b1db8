"""A tower of 20 boxes and a pyramid of 55 boxes left at rest on the ground (h = 10 ms): the largest drift of
any box must stay below 1 mm (contact experiment 6).

    python examples/contact/stacking.py [SECONDS]      (default 10)
"""
import sys

from impulsim.bench import contact as C
from impulsim.experiments import bender_contacts as S


def main(argv) -> int:
    seconds = float(argv[0]) if argv else 10.0
    failures = 0
    for name, build in (("tower of 20", S.tower), ("pyramid of 55", S.pyramid)):
        model, state = build()
        drift, step, info = C.rest_drift(model, state, C.make_method(model, S.STACK_SETTINGS), S.STACK_H, seconds)
        ok = drift <= C.REST_DRIFT_GOAL
        failures += not ok
        print(f"{name}: largest drift over {seconds:g} s {drift * 1e3:.3f} mm, {step * 1e3:.1f} ms per step, "
              f"{info.n_contacts} contacts {'ok' if ok else 'ABOVE 1 mm'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
