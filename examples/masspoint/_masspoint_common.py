"""Shared printing, checking and plotting for the mass-point examples (not a scene itself)."""
from __future__ import annotations

import argparse
from pathlib import Path


def parse_args(doc: str, argv=None):
    """Command line of every example: ``--plot DIR`` writes its figures as PNG into DIR."""
    p = argparse.ArgumentParser(description=doc.strip().splitlines()[0])
    p.add_argument("--plot", metavar="DIR", help="write the figures as PNG files into DIR")
    return p.parse_args(argv)


def table(title: str, rows) -> None:
    """Print rows of (quantity, report's figure, ours) under a title."""
    rows = [(str(q), _fmt(r), _fmt(o)) for q, r, o in rows]
    widths = [max(len(r[k]) for r in rows + [("quantity", "report", "impulsim")]) for k in range(3)]
    print(f"\n{title}")
    for q, r, o in [("quantity", "report", "impulsim")] + rows:
        print(f"  {q:<{widths[0]}}  {r:>{widths[1]}}  {o:>{widths[2]}}")


def _fmt(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.11g}"
    return str(v)


def verdict(checks) -> int:
    """Print each (description, passed) check; return the exit code (0 when all passed)."""
    failed = [d for d, ok in checks if not ok]
    for d, ok in checks:
        print(f"  [{'ok' if ok else 'FAILED'}] {d}")
    return 1 if failed else 0


def plot_lines(directory, name: str, x, series: dict, xlabel: str, ylabel: str, title: str,
               equal_axes: bool = False) -> Path:
    """Plot each label -> y of ``series`` against x and save ``directory/name.png``."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(8, 4))
    for label, y in series.items():
        ax.plot(x, y, label=label, lw=1)
    ax.set(xlabel=xlabel, ylabel=ylabel, title=title)
    if len(series) > 1:
        ax.legend()
    ax.grid(alpha=0.3)
    if equal_axes:
        ax.set_aspect("equal")
    path = Path(directory) / f"{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)
    print(f"  wrote {path}")
    return path
