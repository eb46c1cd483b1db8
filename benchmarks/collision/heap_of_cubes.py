"""Bender's heap of 1000 falling cubes and the broad-phase scaling scene; same as
``impulsim bench collision`` (add ``--quick`` for 300 cubes). Needs MuJoCo: pip install 'impulsim[bench]'.

    python benchmarks/collision/heap_of_cubes.py [--quick] [--json results.json]
"""
import argparse

from impulsim.bench import run

if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--json", default=None)
    args = p.parse_args()
    run("collision", quick=args.quick, json_path=args.json)
