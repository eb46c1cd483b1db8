"""Pictures of a sweep: a metric over one parameter (a line, one per value of a third parameter if there
is one) or over two (a heat map)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np


def plot_sweep(table, metric: str, x: str, y: str | None = None, path: str | Path = "sweep.png") -> Path:
    """Write a PNG of ``metric`` over parameter ``x`` (and ``y``: heat map) from a sweep's table; failed
    cases are left out. Returns the path written."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = [r for r in table.to_pylist() if r.get("status") == "ok"]
    meta = table.schema.metadata or {}
    parameters = json.loads(meta.get(b"parameters", b"[]"))
    for column in (metric, x, y):
        if column is not None and rows and column not in rows[0]:
            raise ValueError(f"the sweep has no column {column!r} (columns: {', '.join(rows[0])})")
    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    if y is None:
        _lines(ax, rows, metric, x, [p for p in parameters if p != x])
    else:
        _heat_map(fig, ax, rows, metric, x, y)
    ax.set_xlabel(x)
    ax.set_title(f"{metric} ({len(rows)} cases)")
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _lines(ax, rows, metric, x, others):
    """One line of the metric over x per combination of the other parameters (up to 8 lines)."""
    groups: dict = {}
    for r in rows:
        label = ", ".join(f"{c}={r[c]:.4g}" if isinstance(r[c], float) else f"{c}={r[c]}" for c in others)
        groups.setdefault(label, []).append((r[x], r[metric]))
    for label, points in list(groups.items())[:8]:
        points.sort()
        ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=label or None)
    if any(groups) and len(groups) > 1:
        ax.legend(fontsize=7)
    ax.set_ylabel(metric)
    ax.grid(alpha=0.3)


def _heat_map(fig, ax, rows, metric, x, y):
    xs = sorted({r[x] for r in rows})
    ys = sorted({r[y] for r in rows})
    grid = np.full((len(ys), len(xs)), np.nan)
    for r in rows:
        grid[ys.index(r[y]), xs.index(r[x])] = r[metric]
    mesh = ax.pcolormesh(_edges(xs), _edges(ys), grid, shading="flat", cmap="viridis")
    fig.colorbar(mesh, ax=ax, label=metric)
    ax.set_ylabel(y)


def _edges(values):
    v = np.asarray(values, dtype=float)
    if len(v) == 1:
        return np.array([v[0] - 0.5, v[0] + 0.5])
    mid = 0.5 * (v[1:] + v[:-1])
    return np.concatenate([[2 * v[0] - mid[0]], mid, [2 * v[-1] - mid[-1]]])
