"""Bender's LGS measurements and the step-scheme convergence study, with their tables and plots.

    python benchmarks/lgs.py [OUTDIR] [--quick]
    python benchmarks/lgs.py [OUTDIR] --tree-step

Runs ``impulsim bench bender`` and ``impulsim bench order`` and writes into OUTDIR (default
benchmarks/results/lgs): bender.md / bender.json (the table), bench_lgs_scaling.png, order.md / order.json
and bench_order.png. Needs the ``bench`` extra (MuJoCo) for the peer columns.

``--tree-step`` runs only the step study of the 31-body tree (``bender.tree_step_limit``) with both solvers
and writes tree_step.md / tree_step.json.
"""
from __future__ import annotations

import contextlib
import io
import os
import sys

from impulsim import bench


def main(argv):
    quick = "--quick" in argv
    args = [a for a in argv if not a.startswith("--")]
    out = args[0] if args else os.path.join(os.path.dirname(__file__), "results", "lgs")
    os.makedirs(out, exist_ok=True)
    here = os.getcwd()
    os.chdir(out)                      # the benchmarks write their plots into the working directory
    try:
        if "--tree-step" in argv:
            _tree_step()
            return
        for name in ("bender", "order"):
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf):
                bench.run(name, quick=quick, json_path=f"{name}.json")
            with open(f"{name}.md", "w") as fh:
                fh.write(buf.getvalue())
            sys.stdout.write(buf.getvalue())
    finally:
        os.chdir(here)


def _tree_step():
    import json
    from impulsim.bench.bender import tree_step_limit
    records = tree_step_limit(solver="lgs") + tree_step_limit(solver="iterative")
    text = bench.markdown_table(records)
    with open("tree_step.md", "w") as fh:
        fh.write(text + "\n")
    with open("tree_step.json", "w") as fh:
        json.dump(records, fh, indent=2)
    print(text)


if __name__ == "__main__":
    main(sys.argv[1:])
