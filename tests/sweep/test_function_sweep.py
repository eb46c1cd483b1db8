"""Function sweeps: a function of the case's values run over a design like a scene; the same rows in this
process, on 2 Dask workers and after a kill and resume; a raising case is a row with its error; and the bob
sweep's cases are the bob runs their parameter paths name."""
import math
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from impulsim.sweep import SweepError, read_sweep, run_function_sweep
from tests.sweep.functions import G, not_a_dict, projectile

pytest.importorskip("distributed")

ROOT = Path(__file__).resolve().parents[2]
# 12 cases: 4 speeds x 3 angles
PARAMS = {"speed": "5:20:4", "angle_deg": [30, 45, 60]}
METRICS = ["range", "flight_time", "apex"]
RUN_COLUMNS = {"run_time_s", "worker"}


def _rows(table):
    return [{k: v for k, v in row.items() if k not in RUN_COLUMNS} for row in table.to_pylist()]


def test_a_function_sweep_gives_the_same_rows_in_process_and_on_two_workers(tmp_path):
    here = run_function_sweep(projectile, PARAMS, metrics=METRICS, out=tmp_path / "here", workers=0)
    two = run_function_sweep(projectile, PARAMS, metrics=METRICS, out=tmp_path / "two", workers=2)
    rows = here.to_pylist()
    assert [r["status"] for r in rows] == ["ok"] * 12
    for r in rows:                       # each row is the function of its own values
        v, a = r["speed"], math.radians(r["angle_deg"])
        assert r["range"] == pytest.approx(v * v * math.sin(2 * a) / G, rel=1e-15)
    # 30° and 60° reach the same range (sin 2a), 45° the farthest
    by_speed = {}
    for r in rows:
        by_speed.setdefault(r["speed"], {})[r["angle_deg"]] = r["range"]
    assert all(d[30] == pytest.approx(d[60], rel=1e-12) and d[45] > d[30] for d in by_speed.values())
    assert _rows(here) == _rows(two)
    assert len({r["worker"] for r in two.to_pylist()}) == 2
    assert len(list((tmp_path / "two" / "cases").glob("case-*.parquet"))) == 12


def test_a_killed_function_sweep_resumes_with_the_same_rows(tmp_path):
    params = {**PARAMS, "delay": [0.3]}
    reference = run_function_sweep(projectile, PARAMS | {"delay": [0.0]}, metrics=METRICS, out=tmp_path / "ref",
                                   workers=0)
    out = tmp_path / "killed"
    code = (f"import sys; sys.path.insert(0, {str(ROOT)!r}); from tests.sweep.functions import projectile; "
            f"from impulsim.sweep import run_function_sweep; "
            f"run_function_sweep(projectile, {params!r}, metrics={METRICS!r}, out={str(out)!r}, workers=0)")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 300
    while len(list((out / "cases").glob("case-*.parquet"))) < 3 and time.time() < deadline \
            and proc.poll() is None:
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    done = len(list((out / "cases").glob("case-*.parquet")))
    assert 3 <= done < 12, "the sweep should have been killed part way"
    assert read_sweep(out).num_rows == done
    said = []
    resumed = run_function_sweep(projectile, params, metrics=METRICS, out=out, workers=0, say=said.append)
    assert f"{done} already done" in said[0]
    strip = lambda rows: [{k: v for k, v in r.items() if k not in ("delay", "key")} for r in rows]  # noqa: E731
    assert strip(_rows(resumed)) == strip(_rows(reference))
    # the rerun skips every case; a new key (the function changed, say) runs them all again
    again = []
    run_function_sweep(projectile, params, metrics=METRICS, out=out, workers=0, say=again.append)
    assert "12 already done" in again[0]
    fresh = []
    run_function_sweep(projectile, {**PARAMS, "delay": [0.0]}, metrics=METRICS, out=out, workers=0,
                       key="v2", say=fresh.append)
    assert "0 already done" in fresh[0]


def test_a_raising_case_is_a_row_with_its_error(tmp_path):
    table = run_function_sweep(projectile, {"speed": [10.0, -1.0, 20.0], "angle_deg": [45]}, metrics=METRICS,
                               out=tmp_path / "out", workers=0)
    rows = table.to_pylist()
    assert [r["status"] for r in rows] == ["ok", "failed", "ok"]
    assert rows[1]["error"] == "ValueError: speed -1.0 m/s is negative"
    assert rows[1]["range"] is None and rows[1]["apex"] is None and rows[2]["range"] == pytest.approx(400 / G, rel=1e-15)
    bad = run_function_sweep(not_a_dict, {"speed": [1.0]}, out=tmp_path / "bad", workers=0).to_pylist()
    assert bad[0]["status"] == "failed" and "not a dict" in bad[0]["error"]


def test_a_function_workers_cannot_import_is_refused_before_any_case_runs(tmp_path):
    def local(values):
        return {}
    with pytest.raises(SweepError, match="not a top-level function"):
        run_function_sweep(local, {"speed": [1.0]}, out=tmp_path / "a", workers=0)
    with pytest.raises(SweepError, match="not a top-level function"):
        run_function_sweep(lambda v: {}, {"speed": [1.0]}, out=tmp_path / "b", workers=0)
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()
