"""Time the mass-point method on Schmitt & Thüring's seven scenes (and a 50-link rope).

    python benchmarks/masspoint.py [--quick] [--json PATH]

Prints a Markdown table of median times per step and per stage, fin/V-correction passes and a physics
re-check of every timed run; the last rows are the cold start (import + first step) in a fresh
interpreter with an empty and with a filled Numba cache.
"""
import argparse
import json

from impulsim.bench import markdown_table
from impulsim.bench.masspoint import run


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    p.add_argument("--quick", action="store_true", help="200 steps per scene, no cold-start runs")
    p.add_argument("--json", metavar="PATH", help="also write the records as JSON")
    args = p.parse_args(argv)
    records = run(quick=args.quick)
    print(markdown_table(records))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(records, fh, indent=2)
    return 0 if all(not str(r.get("physics", "ok")).startswith("FAILED") for r in records) else 1


if __name__ == "__main__":
    raise SystemExit(main())
