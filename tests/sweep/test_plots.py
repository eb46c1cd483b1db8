"""What a sweep's plots show, checked on their data (series and their points), not on pixels: lines over one
parameter with a second as the series for grid and list designs, a scatter for random and Latin-hypercube
designs, heat maps only where the cases form a grid."""
import math

import numpy as np
import pytest

from impulsim.sweep import make_design, parse_parameter, plot_sweep, run_sweep
from impulsim.sweep.plots import line_data, map_data
from impulsim.sweep.store import rows_table


def _table(specs, design, metric, samples=None, fail=()):
    """A sweep table of the design over ``specs`` with ``metric(values)`` as its metric column; the cases
    whose index is in ``fail`` failed."""
    cases = make_design([parse_parameter(s) for s in specs], design, samples, seed=3)
    rows = [{"case": i, **values, "m": metric(values) if i not in fail else math.nan,
             "status": "failed" if i in fail else "ok"} for i, values in enumerate(cases)]
    return rows_table(rows, list(cases[0]), ["m"], design), cases


def f(v):
    return 10.0 * v["a"] + v.get("b", 0.0) ** 2 + 0.1 * v.get("c", 0.0)


def test_a_grid_gives_one_line_per_value_of_the_series_with_every_point():
    table, _ = _table(["a=0:1:5", "b=1,2,3"], "grid", f)
    data = line_data(table, "m", "a", series="b")
    assert data.kind == "lines"
    assert [s.label for s in data.series] == ["b=1", "b=2", "b=3"]
    for s, b in zip(data.series, (1, 2, 3)):
        assert s.x == list(np.linspace(0, 1, 5))
        assert s.y == [10 * a + b * b for a in s.x]
    # without naming the series, the other free parameter is the series
    assert [s.label for s in line_data(table, "m", "a").series] == ["b=1", "b=2", "b=3"]
    # lines over b instead: five series (one per a) of three points
    over_b = line_data(table, "m", "b")
    assert len(over_b.series) == 5 and all(s.x == [1, 2, 3] for s in over_b.series)


def test_no_series_is_dropped_and_a_third_grid_parameter_splits_the_series():
    table, _ = _table(["a=0:1:3", "b=1:12:12", "c=5,7"], "grid", f)
    data = line_data(table, "m", "a", series="b")
    assert len(data.series) == 24                      # 12 values of b times 2 of c
    assert {s.label for s in data.series} == {f"b={b:.4g}, c={c}" for b in np.linspace(1, 12, 12) for c in (5, 7)}
    assert sum(len(s.x) for s in data.series) == table.num_rows
    for s in data.series:
        b, c = (float(part.split("=")[1]) for part in s.label.split(", "))
        assert s.y == pytest.approx([10 * a + b * b + 0.1 * c for a in s.x], rel=0, abs=1e-12)


def test_list_parameters_that_move_together_make_one_line_not_one_point_series():
    # the incline sweep's case: static and dynamic friction as two lists of one length
    table, _ = _table(["a=0.4:0.9:11", "b=0.4:0.9:11"], "list", f)
    data = line_data(table, "m", "a")
    assert data.kind == "lines" and len(data.series) == 1
    assert data.series[0].x == list(np.linspace(0.4, 0.9, 11))
    assert data.series[0].y == [10 * a + a * a for a in data.series[0].x]


def test_a_list_design_with_a_repeated_series_value_gives_its_lines():
    # three speeds times four coefficients written out as a list design; c moves with a (not a series)
    a = [0.4, 0.5, 0.6, 0.7] * 3
    b = [1] * 4 + [2] * 4 + [3] * 4
    specs = ["a=" + ",".join(map(str, a)), "b=" + ",".join(map(str, b)), "c=" + ",".join(str(2 * x) for x in a)]
    table, _ = _table(specs, "list", f)
    data = line_data(table, "m", "a", series="b")
    assert data.kind == "lines" and [s.label for s in data.series] == ["b=1", "b=2", "b=3"]
    for s, bb in zip(data.series, (1, 2, 3)):
        assert s.x == [0.4, 0.5, 0.6, 0.7]
        assert s.y == pytest.approx([10 * x + bb * bb + 0.2 * x for x in s.x], rel=0, abs=1e-12)


def test_failed_cases_are_left_out_of_the_lines():
    table, cases = _table(["a=0:1:5", "b=1,2"], "grid", f, fail={3})
    data = line_data(table, "m", "a", series="b")
    assert cases[3]["b"] == 2                          # the last parameter varies fastest
    assert [len(s.x) for s in data.series] == [5, 4]
    assert cases[3]["a"] not in data.series[1].x and cases[3]["a"] in data.series[0].x


@pytest.mark.parametrize("design", ["random", "lhs"])
def test_random_designs_give_a_scatter_coloured_by_the_series(design):
    table, cases = _table(["a=0:1", "b=1:3"], design, f, samples=20)
    data = line_data(table, "m", "a", series="b")
    assert data.kind == "scatter" and not data.series
    assert "no line" in data.note and design in data.note
    assert data.x == [c["a"] for c in cases] and data.colour == [c["b"] for c in cases]
    assert data.y == [f(c) for c in cases]
    # and a heat map is refused for the same reason
    assert map_data(table, "m", "a", "b").kind == "scatter"


def test_a_heat_map_over_a_grid_holds_each_case_in_its_cell():
    table, cases = _table(["a=0:1:4", "b=1,2,3"], "grid", f, fail={5})
    data = map_data(table, "m", "a", "b")
    assert data.kind == "heat map" and data.grid.shape == (3, 4)
    for i, c in enumerate(cases):
        cell = data.grid[data.ys.index(c["b"]), data.xs.index(c["a"])]
        assert math.isnan(cell) if i == 5 else cell == f(c)
    # a list design over the same pairs on the diagonal only is no grid
    diagonal, _ = _table(["a=0:1:4", "b=1:4:4"], "list", f)
    assert map_data(diagonal, "m", "a", "b").kind == "scatter"


def test_a_real_list_sweep_carries_its_design_and_plots_one_line(tmp_path):
    scene = tmp_path / "spring.yaml"
    scene.write_text("""\
gravity: [0, 0, 0]
settings: {h: 0.001, duration: 0.05}
bodies:
  - {name: block, shapes: [box: {size: [0.1, 0.1, 0.1]}], mass: 1.0, position: [0, 0.6, 0]}
springs:
  - {name: spring, bodies: [world, block], anchor_a: [0, 0, 0], stiffness: 100, rest_length: 0.5}
""")
    table = run_sweep(scene, {"springs.spring.stiffness": "100:400:4", "bodies.block.mass": "1:4:4"},
                      design="list", metrics=["final.block.y"], out=tmp_path / "out", workers=0)
    data = line_data(table, "final.block.y", "springs.spring.stiffness")
    assert data.kind == "lines" and len(data.series) == 1 and len(data.series[0].x) == 4
    # k/m is 100 in every case: the same motion, so the line is flat to rounding
    assert max(data.series[0].y) - min(data.series[0].y) < 1e-12
    path = plot_sweep(table, "final.block.y", "springs.spring.stiffness", path=tmp_path / "p.png")
    assert path.stat().st_size > 1000
    with pytest.raises(ValueError, match="no column 'nope'"):
        line_data(table, "nope", "springs.spring.stiffness")
