"""Bender's funnel (Sec. 5.5.1.1, Table 5.1): 1000 cubes (e = 0.8, μ = 0.05) fall through a funnel, h = 1 ms.
Prints average and largest collision and contact counts and step times beside the thesis's, and MuJoCo's
step time on the same scene in this process.

    python examples/contact/funnel.py [SECONDS]      (default 8, the thesis's run: a few minutes for
                                                       impulsim, about 30 s for MuJoCo in the configuration
                                                       its solver scan picks, CG 30 iterations; runs longer
                                                       than impulsim.bench.contact.MUJOCO_FUNNEL_BUDGET_S
                                                       are cut)
"""
import sys

from impulsim.bench import contact as C
from impulsim.bench import markdown_table


def main(argv) -> int:
    seconds = float(argv[0]) if argv else 8.0
    records = C.funnel_records(quick=False) if seconds == 8.0 else _part(seconds)
    print(markdown_table(records))
    return 0


def _part(seconds):
    ours = C.funnel_stats(seconds)
    peer = C._mujoco_or_none(C.funnel_mujoco, seconds)
    rows = [dict(quantity=k, impulsim=v, thesis=C.FUNNEL_THESIS.get(k, "")) for k, v in ours.items()]
    if peer:
        rows += [dict(quantity=f"MuJoCo {k}", impulsim=v) for k, v in peer.items()]
    return rows


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
