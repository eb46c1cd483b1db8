"""Sweeps end to end: the oscillator's law across a stiffness sweep, the same rows on 1 and 2 Dask workers and after a
kill and resume, failed cases kept as rows, and a sweep on a separately started Dask scheduler."""
import math
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from impulsim.sweep import SweepError, read_sweep, run_sweep

pytest.importorskip("distributed")

SCENE = """\
description: a block on a spring in free space, stretched 0.1 m and released
gravity: [0, 0, 0]
settings: {h: 0.001, duration: 0.5}
bodies:
  - {name: block, shapes: [box: {size: [0.1, 0.1, 0.1]}], mass: 1.0, position: [0, 0.6, 0]}
springs:
  - {name: spring, bodies: [world, block], anchor_a: [0, 0, 0], stiffness: 100, rest_length: 0.5}
"""
AMPLITUDE, REST, H, T = 0.1, 0.5, 0.001, 0.5
# 16 cases: 8 stiffnesses x 2 masses
PARAMS = {"springs.spring.stiffness": "50:400:8", "bodies.block.mass": [1.0, 2.0]}
METRICS = ["final.block.y", "final.block.vy", "energy.change"]
# columns that depend on where and how fast a case ran, not on its result
RUN_COLUMNS = {"run_time_s", "worker"}


@pytest.fixture()
def scene(tmp_path):
    path = tmp_path / "drop.yaml"
    path.write_text(SCENE)
    return path


def _rows(table):
    return [{k: v for k, v in row.items() if k not in RUN_COLUMNS} for row in table.to_pylist()]


def test_a_stiffness_sweep_follows_the_harmonic_oscillator(scene, tmp_path):
    table = run_sweep(scene, PARAMS, metrics=METRICS, out=tmp_path / "out", workers=0)
    rows = table.to_pylist()
    assert [r["status"] for r in rows] == ["ok"] * 16
    by_ratio = {}
    for r in rows:
        k, m = r["springs.spring.stiffness"], r["bodies.block.mass"]
        omega = (k / m) ** 0.5
        exact = REST + AMPLITUDE * math.cos(omega * T)      # y(t) of the undamped oscillator
        # the step's error grows at most like A ω² h t (first order in h), 4.7 mm for the stiffest case
        assert abs(r["final.block.y"] - exact) <= AMPLITUDE * omega ** 2 * H * T
        by_ratio.setdefault(k / m, []).append(r["final.block.y"])
    # the motion depends on k/m only: cases with the same ratio end at the same place
    repeated = [ys for ys in by_ratio.values() if len(ys) > 1]
    assert len(repeated) == 4
    assert all(max(ys) - min(ys) < 1e-12 for ys in repeated)
    # every row was written at once, one file per case, and the results file holds the same rows
    assert len(list((tmp_path / "out" / "cases").glob("case-*.parquet"))) == 16
    assert _rows(pq.read_table(tmp_path / "out" / "results.parquet")) == _rows(table)


def test_the_same_rows_on_one_and_two_workers(scene, tmp_path):
    one = run_sweep(scene, PARAMS, metrics=METRICS, out=tmp_path / "one", workers=1)
    two = run_sweep(scene, PARAMS, metrics=METRICS, out=tmp_path / "two", workers=2)
    assert one.num_rows == 16
    assert _rows(one) == _rows(two)
    assert len({r["worker"] for r in two.to_pylist()}) == 2


def test_every_start_method_gives_the_same_rows(scene, tmp_path):
    from impulsim.sweep.runner import _start_method
    params = {"springs.spring.stiffness": "100,200"}
    rows, workers = {}, {}
    for method in (None, "forkserver", "spawn", "fork"):       # None: the default, forkserver on Linux
        table = run_sweep(scene, params, metrics=METRICS, out=tmp_path / str(method), workers=1,
                          start_method=method)
        rows[method], workers[method] = _rows(table), {r["worker"] for r in table.to_pylist()}
    if sys.platform.startswith("linux"):
        assert _start_method(None) == "forkserver"
    # bit for bit: the rows compare with ==, floats included
    assert rows[None] == rows["forkserver"] == rows["spawn"] == rows["fork"]
    assert len(set.union(*workers.values())) == 4                # four clusters, four worker processes
    with pytest.raises(SweepError, match="start_method 'thread'"):
        run_sweep(scene, params, out=tmp_path / "bad", workers=1, start_method="thread")
    assert not (tmp_path / "bad").exists()


def test_a_killed_sweep_resumes_with_the_same_rows(scene, tmp_path):
    reference = run_sweep(scene, PARAMS, metrics=METRICS, out=tmp_path / "ref", workers=0, duration=4.0)
    out = tmp_path / "killed"
    cmd = [sys.executable, "-m", "impulsim.cli", "sweep", str(scene), "--workers", "0", "-o", str(out), "-q",
           "--duration", "4"]
    cmd += [f"--param={k}={v if isinstance(v, str) else ','.join(map(str, v))}" for k, v in PARAMS.items()]
    cmd += [f"--metric={m}" for m in METRICS]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 600
    while len(list((out / "cases").glob("case-*.parquet"))) < 3 and time.time() < deadline \
            and proc.poll() is None:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    done = len(list((out / "cases").glob("case-*.parquet")))
    assert 3 <= done < 16, "the sweep should have been killed part way"
    assert read_sweep(out).num_rows == done            # what was written is readable after the kill
    said = []
    resumed = run_sweep(scene, PARAMS, metrics=METRICS, out=out, workers=0, say=said.append, duration=4.0)
    assert f"{done} already done" in said[0]
    assert _rows(resumed) == _rows(reference)


def test_a_failing_case_is_a_row_with_its_error(scene, tmp_path):
    table = run_sweep(scene, {"bodies.block.mass": [1.0, -1.0, 2.0]}, metrics=["final.block.y"],
                      out=tmp_path / "out", workers=0)
    rows = table.to_pylist()
    assert [r["status"] for r in rows] == ["ok", "failed", "ok"]
    assert "mass" in rows[1]["error"] and rows[1]["error"].count("\n") == 0
    assert math.isnan(rows[1]["final.block.y"]) and not math.isnan(rows[2]["final.block.y"])


def test_a_bad_path_or_metric_stops_the_sweep_before_any_case_runs(scene, tmp_path):
    with pytest.raises(SweepError, match="no item 'bal'"):
        run_sweep(scene, {"bodies.bal.mass": "1,2"}, out=tmp_path / "a", workers=0)
    with pytest.raises(SweepError, match="no body 'bal'"):
        run_sweep(scene, {"bodies.block.mass": "1,2"}, metrics=["final.bal.z"], out=tmp_path / "b", workers=0)
    assert not list((tmp_path / "a" / "cases").glob("*.parquet")) if (tmp_path / "a").exists() else True


def _wait_for(path: Path, seconds: float) -> None:
    deadline = time.time() + seconds
    while not path.exists() and time.time() < deadline:
        time.sleep(0.1)
    assert path.exists(), f"{path} did not appear"


@pytest.mark.skipif(shutil.which("dask") is None, reason="the dask command is not installed")
def test_a_sweep_runs_on_a_separately_started_scheduler(scene, tmp_path):
    info = tmp_path / "scheduler.json"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    scheduler = subprocess.Popen(["dask", "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                                  "--scheduler-file", str(info)], env=env,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    worker = None
    try:
        _wait_for(info, 60)
        worker = subprocess.Popen(["dask", "worker", "--scheduler-file", str(info), "--nworkers", "1",
                                   "--nthreads", "1", "--no-dashboard", "--host", "127.0.0.1"], env=env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        import json
        address = json.loads(info.read_text())["address"]
        table = run_sweep(scene, {"springs.spring.stiffness": "100,200"}, metrics=METRICS,
                          out=tmp_path / "out", scheduler=address)
        local = run_sweep(scene, {"springs.spring.stiffness": "100,200"}, metrics=METRICS,
                          out=tmp_path / "local", workers=0)
        assert _rows(table) == _rows(local)
    finally:
        for proc in (worker, scheduler):
            if proc is not None:
                proc.terminate()
                try:
                    proc.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    proc.kill()
