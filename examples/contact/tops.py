"""Friction effects (Bender Sec. 5.5.3): a tippe top that flips onto its peg, and a rattleback spun both ways
(the thesis's reverses at 2.854 s when spun against its preferred direction). Geometry: see
impulsim/experiments/bender_contacts.py (the thesis gives none).

    python examples/contact/tops.py [SECONDS]      (default 5)
"""
import sys

from impulsim.bench import contact as C
from impulsim.experiments import bender_contacts as S


def main(argv) -> int:
    seconds = float(argv[0]) if argv else 5.0
    t, up = C.tippe_top_axis(seconds)
    flip = C.inversion_time(t, up)
    print(f"tippe top: flipped at {flip} s; axis z component at the end {up[-1]:+.3f} (+1: peg up)")
    reversals = []
    for spin in (S.RATTLE_SPIN, -S.RATTLE_SPIN):
        t, wz = C.rattleback_spin(spin, seconds)
        rev = C.reversal_time(t, wz, spin)
        reversals.append(rev)
        print(f"rattleback spun at {spin:+g} rad/s: reversal at {rev} s, ω_z at the end {wz[-1]:+.3f} rad/s")
    ok = flip is not None and sum(r is not None for r in reversals) == 1
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
