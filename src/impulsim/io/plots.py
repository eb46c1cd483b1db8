"""PNG plots of a recording: energy, momentum and constraint error over time.

Figures are drawn with matplotlib's Agg canvas directly (no pyplot), so plotting neither needs a
display nor changes the backend of a program that imports impulsim.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

import numpy as np
import pyarrow as pa
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from impulsim.io.recording import read_metadata, read_recording


def _column(table: pa.Table, name: str) -> np.ndarray:
    return table.column(name).to_numpy()


def _figure(rows: int = 1) -> tuple[Figure, list]:
    fig = Figure(figsize=(8, 3 * rows), layout="constrained")
    FigureCanvasAgg(fig)
    axes = [fig.add_subplot(rows, 1, i + 1) for i in range(rows)]
    return fig, axes


def plot_energy(table: pa.Table, title: str = ""):
    """Kinetic, potential and total energy [J] over time [s]."""
    fig, (ax,) = _figure()
    t = _column(table, "t")
    for name, label in (("energy_kinetic", "kinetic"), ("energy_potential", "potential"),
                        ("energy", "total")):
        ax.plot(t, _column(table, name), label=label)
    ax.set(xlabel="t [s]", ylabel="energy [J]", title=f"{title} energy".strip())
    ax.legend(loc="best")
    ax.grid(True, alpha=0.3)
    return fig


def plot_momentum(table: pa.Table, title: str = ""):
    """Linear momentum [kg m/s] and angular momentum about the origin [kg m²/s] over time [s]."""
    fig, (top, bottom) = _figure(2)
    t = _column(table, "t")
    for ax, prefix, unit in ((top, "momentum", "kg m/s"), (bottom, "angular_momentum", "kg m²/s")):
        for axis in "xyz":
            ax.plot(t, _column(table, f"{prefix}.{axis}"), label=axis)
        ax.set(ylabel=f"{prefix.replace('_', ' ')} [{unit}]")
        ax.legend(loc="best")
        ax.grid(True, alpha=0.3)
    top.set_title(f"{title} momentum".strip())
    bottom.set_xlabel("t [s]")
    return fig


def plot_constraint_error(table: pa.Table, title: str = "", eps_d: Optional[float] = None):
    """Largest position error of any joint primitive [m or rad] over time [s], log scale."""
    fig, (ax,) = _figure()
    t = _column(table, "t")
    err = _column(table, "constraint_error")
    floor = 1e-18   # exact zeros cannot be shown on a log axis
    ax.semilogy(t, np.maximum(err, floor), label="max position error")
    if eps_d is not None:
        ax.axhline(eps_d, color="k", linestyle="--", linewidth=0.8, label=f"eps_d = {eps_d:g}")
    ax.set(xlabel="t [s]", ylabel="constraint error [m or rad]", title=f"{title} constraint error".strip())
    ax.legend(loc="best")
    ax.grid(True, which="both", alpha=0.3)
    return fig


def plot_recording(recording, out_dir: str | os.PathLike, eps_d: Optional[float] = None) -> list[Path]:
    """Write energy.png, momentum.png and constraint_error.png for a recording (path or table)."""
    table = recording if isinstance(recording, pa.Table) else read_recording(recording)
    meta = read_metadata(table)
    title = meta.get("scene", "")
    if eps_d is None:
        eps_d = meta.get("options", {}).get("eps_d")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, fig in (("energy", plot_energy(table, title)), ("momentum", plot_momentum(table, title)),
                      ("constraint_error", plot_constraint_error(table, title, eps_d))):
        path = out_dir / f"{name}.png"
        fig.savefig(path, dpi=100)
        written.append(path)
    return written
