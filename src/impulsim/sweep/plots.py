"""Pictures of a sweep: a metric over one parameter (lines, one per value of a series parameter) or over
two (a heat map).

What is drawn is computed first, as data (:func:`line_data`, :func:`map_data`), then drawn
(:func:`plot_sweep`); the data is what the tests check. How the design decides the picture:

* a line needs several cases that differ in ``x`` only. A grid and a list design give them: the cases are
  grouped by the series parameter and by every other parameter that is not already fixed by ``x`` and the
  series (in a list design whose parameters move together, such as a static and a dynamic friction
  coefficient given as two lists of one length, the second follows the first and makes no series of its
  own); every series is drawn, none is dropped;
* a random or Latin-hypercube design has no two cases with the same value of a parameter, so there is no
  line to draw: the metric is a scatter over ``x``, coloured by the series parameter;
* a heat map needs every pair of its two parameters' values (a grid); other designs give a scatter
  coloured by the metric.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

_LEGEND_MAX = 12            # more series than this: coloured by a colour bar instead of a legend


@dataclass
class Series:
    """One line: its label (the values that define it) and its points, sorted by x."""
    label: str
    x: list
    y: list


@dataclass
class LineData:
    """A metric over one parameter: ``kind`` is ``lines`` (``series``) or ``scatter`` (``x``, ``y`` and
    ``colour``, the series parameter's values, or None); ``note`` says why a scatter replaced the lines."""
    kind: str
    metric: str
    x_name: str
    series_name: str | None
    series: list[Series] = field(default_factory=list)
    x: list = field(default_factory=list)
    y: list = field(default_factory=list)
    colour: list | None = None
    note: str = ""


@dataclass
class MapData:
    """A metric over two parameters: ``kind`` is ``heat map`` (``grid[j][i]`` at ``xs[i]``, ``ys[j]``; NaN
    where a case failed) or ``scatter`` (the cases' ``x``, ``y`` and ``value``), with the reason in ``note``."""
    kind: str
    metric: str
    x_name: str
    y_name: str
    xs: list = field(default_factory=list)
    ys: list = field(default_factory=list)
    grid: np.ndarray | None = None
    x: list = field(default_factory=list)
    y: list = field(default_factory=list)
    value: list = field(default_factory=list)
    note: str = ""


def sweep_info(table) -> tuple[list[str], str | None]:
    """The parameter names and the design (None if the table does not say) from a sweep table's metadata."""
    meta = table.schema.metadata or {}
    design = meta.get(b"design")
    return json.loads(meta.get(b"parameters", b"[]")), design.decode() if design else None


def _ok_rows(table, columns) -> list[dict]:
    """The rows of the cases that ran, after checking that the table has the ``columns``."""
    names = table.column_names
    for column in columns:
        if column is not None and column not in names:
            raise ValueError(f"the sweep has no column {column!r} (columns: {', '.join(names)})")
    return [r for r in table.to_pylist() if r.get("status") == "ok"]


def _label(names, values) -> str:
    return ", ".join(f"{n}={v:.4g}" if isinstance(v, float) else f"{n}={v}" for n, v in zip(names, values))


def _determined(rows, name, by) -> bool:
    """Whether the value of parameter ``name`` is the same in every case with the same values of ``by``."""
    seen: dict = {}
    for r in rows:
        key = tuple(r[b] for b in by)
        if seen.setdefault(key, r[name]) != r[name]:
            return False
    return True


def line_data(table, metric: str, x: str, series: str | None = None) -> LineData:
    """What a line plot of ``metric`` over parameter ``x`` (one line per value of ``series``) shows."""
    rows = _ok_rows(table, (metric, x, series))
    parameters, design = sweep_info(table)
    data = LineData("lines", metric, x, series)
    if design in ("random", "lhs"):
        return _scatter(data, rows, f"a {design} design has no two cases with the same {series or x}: "
                                    f"no line to draw")
    keys = [series] if series else []
    for p in parameters:
        if p not in (x, series) and not _determined(rows, p, [x] + keys):
            keys.append(p)               # a free dimension of the design: its values make series too
    groups: dict = {}
    for r in rows:
        groups.setdefault(tuple(r[k] for k in keys), []).append((r[x], r[metric]))
    for key in sorted(groups, key=_sort_key):
        points = sorted(groups[key], key=lambda p: _sort_key((p[0],)))
        data.series.append(Series(_label(keys, key), [p[0] for p in points], [p[1] for p in points]))
    data.series_name = ", ".join(keys) or None
    if data.series and all(len(s.x) < 2 for s in data.series) and len(rows) > 1:
        return _scatter(LineData("lines", metric, x, series), rows,
                        f"no two cases differ in {x} only: no line to draw")
    return data


def _scatter(data: LineData, rows, note: str) -> LineData:
    data.kind, data.note = "scatter", note
    data.x = [r[data.x_name] for r in rows]
    data.y = [r[data.metric] for r in rows]
    data.colour = [r[data.series_name] for r in rows] if data.series_name else None
    return data


def _sort_key(values):
    """Numbers before text, each in order (a series parameter may hold both)."""
    return tuple((0, v, "") if isinstance(v, (int, float)) else (1, 0, str(v)) for v in values)


def map_data(table, metric: str, x: str, y: str) -> MapData:
    """What a picture of ``metric`` over parameters ``x`` and ``y`` shows: a heat map when the cases hold
    every pair of the two parameters' values once, else a scatter coloured by the metric."""
    rows = _ok_rows(table, (metric, x, y))
    data = MapData("heat map", metric, x, y)
    _, design = sweep_info(table)
    xs = sorted({r[x] for r in table.to_pylist()}, key=lambda v: _sort_key((v,)))
    ys = sorted({r[y] for r in table.to_pylist()}, key=lambda v: _sort_key((v,)))
    pairs = [(r[x], r[y]) for r in table.to_pylist()]
    if design in ("random", "lhs") or len(set(pairs)) != len(pairs) or len(pairs) != len(xs) * len(ys):
        data.kind = "scatter"
        data.note = (f"the cases do not hold every pair of {x} and {y} once (a grid does): no heat map")
        data.x, data.y, data.value = [r[x] for r in rows], [r[y] for r in rows], [r[metric] for r in rows]
        return data
    data.xs, data.ys = xs, ys
    data.grid = np.full((len(ys), len(xs)), np.nan)
    for r in rows:
        data.grid[ys.index(r[y]), xs.index(r[x])] = r[metric]
    return data


def plot_sweep(table, metric: str, x: str, y: str | None = None, path: str | Path = "sweep.png",
               series: str | None = None) -> Path:
    """Write a PNG of ``metric`` from a sweep's table: over parameter ``x`` and ``y`` (a heat map), or over
    ``x`` alone (one line per value of ``series`` and of any other free parameter; see the module's
    notes for the designs that give a scatter instead). Failed cases are left out. Returns the path."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    if y is not None and series is not None:
        raise ValueError("plot_sweep: give y (a heat map) or series (lines), not both")
    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    data = map_data(table, metric, x, y) if y is not None else line_data(table, metric, x, series)
    cases = len(data.x) if data.kind == "scatter" else (
        sum(len(s.x) for s in data.series) if isinstance(data, LineData) else int(np.isfinite(data.grid).sum()))
    if isinstance(data, MapData):
        _draw_map(fig, ax, data)
    else:
        _draw_lines(fig, ax, data)
    ax.set_xlabel(x)
    ax.set_title(f"{metric} ({cases} cases)" + (f"\n{data.note}" if data.note else ""), fontsize=10)
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _draw_lines(fig, ax, data: LineData) -> None:
    import matplotlib.pyplot as plt
    if data.kind == "scatter":
        numeric = data.colour is not None and all(isinstance(c, (int, float)) for c in data.colour)
        dots = ax.scatter(data.x, data.y, c=data.colour if numeric else None, cmap="viridis", s=18)
        if numeric:
            fig.colorbar(dots, ax=ax, label=data.series_name)
    else:
        many = len(data.series) > _LEGEND_MAX
        colours = plt.cm.viridis(np.linspace(0, 0.9, len(data.series))) if many else [None] * len(data.series)
        for s, colour in zip(data.series, colours):
            ax.plot(s.x, s.y, marker="o", ms=3, color=colour, label=s.label or None)
        if len(data.series) > 1 and not many:
            ax.legend(fontsize=7)
        elif many:
            ax.text(0.01, 0.99, f"{len(data.series)} series: {data.series[0].label} (dark) to "
                    f"{data.series[-1].label} (light)", transform=ax.transAxes, va="top", fontsize=7)
    ax.set_ylabel(data.metric)
    ax.grid(alpha=0.3)


def _draw_map(fig, ax, data: MapData) -> None:
    if data.kind == "scatter":
        dots = ax.scatter(data.x, data.y, c=data.value, cmap="viridis", s=24)
        fig.colorbar(dots, ax=ax, label=data.metric)
    else:
        mesh = ax.pcolormesh(_edges(data.xs), _edges(data.ys), data.grid, shading="flat", cmap="viridis")
        fig.colorbar(mesh, ax=ax, label=data.metric)
    ax.set_ylabel(data.y_name)


def _edges(values):
    v = np.asarray(values, dtype=float)
    if len(v) == 1:
        return np.array([v[0] - 0.5, v[0] + 0.5])
    mid = 0.5 * (v[1:] + v[:-1])
    return np.concatenate([[2 * v[0] - mid[0]], mid, [2 * v[-1] - mid[-1]]])
