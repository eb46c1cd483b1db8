"""A sweep never hangs at start-up: workers that never come up, a scheduler that cannot be reached and a
scheduler without workers each stop the sweep with a one-line SweepError soon after the start timeout, and
the worker processes the sweep started are gone by then."""
import socket
import time
from pathlib import Path

import pytest

from impulsim.sweep import SweepError, run_function_sweep
from impulsim.sweep.runner import _start_method
from tests.sweep.functions import projectile

pytest.importorskip("distributed")
psutil = pytest.importorskip("psutil")

NEVER_UP = Path(__file__).with_name("never_up.py")
PARAMS = {"speed": [10.0, 20.0], "angle_deg": [30.0]}
# after the deadline: killing the stuck workers (waits up to 10 s) and closing the cluster; generous for a
# loaded machine, far below the hour the stuck workers would otherwise wait
CLEAN_UP = 60.0


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


@pytest.mark.parametrize("method", [None, "fork"])
def test_workers_that_never_come_up_stop_the_sweep_at_the_deadline_and_are_ended(tmp_path, method):
    import dask
    pids = tmp_path / "pids"
    pids.mkdir()
    timeout = 8.0
    start = time.monotonic()
    with dask.config.set({"distributed.worker.preload": [str(NEVER_UP)], "impulsim-test.never-up-dir": str(pids)}):
        with pytest.raises(SweepError) as error:
            run_function_sweep(projectile, PARAMS, out=tmp_path / "out", workers=2, start_method=method,
                               start_timeout=timeout)
    elapsed = time.monotonic() - start
    message = str(error.value)
    assert "\n" not in message
    assert f"2 of 2 worker processes (start method {_start_method(method)!r}) not up after" in message
    assert "start_method='spawn'" in message and "start_timeout" in message
    # it waited for the deadline (the workers were stuck, not failing), and not much longer
    assert timeout <= elapsed < timeout + CLEAN_UP
    # both worker processes really started (and hung), and both are gone now
    started = [int(p.read_text()) for p in pids.glob("*.pid")]
    assert len(started) == 2
    assert [pid for pid in started if _alive(pid)] == []
    assert not list((tmp_path / "out" / "cases").glob("*.parquet")) if (tmp_path / "out").exists() else True


def test_workers_that_fail_to_start_stop_the_sweep_at_once(tmp_path):
    import dask
    pids = tmp_path / "pids"
    pids.mkdir()
    timeout = 120.0
    start = time.monotonic()
    config = {"distributed.worker.preload": [str(NEVER_UP)], "impulsim-test.never-up-dir": str(pids),
              "impulsim-test.fail": True}
    with dask.config.set(config):
        with pytest.raises(SweepError, match=r"worker processes \(start method '\w+'\) failed to start; try"):
            run_function_sweep(projectile, PARAMS, out=tmp_path / "out", workers=2, start_timeout=timeout)
    # the processes started and failed; the sweep did not wait for the deadline (two worker starts on a
    # busy machine take a few seconds, see docs/sweeps.md)
    assert len(list(pids.glob("*.pid"))) >= 1
    assert time.monotonic() - start < timeout / 2
    assert [pid for pid in (int(p.read_text()) for p in pids.glob("*.pid")) if _alive(pid)] == []


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_scheduler_that_is_not_there_stops_the_sweep_at_the_deadline(tmp_path):
    address = f"tcp://127.0.0.1:{_free_port()}"
    start = time.monotonic()
    with pytest.raises(SweepError, match=f"Dask scheduler {address}: not reachable within 3 s"):
        run_function_sweep(projectile, PARAMS, out=tmp_path / "out", scheduler=address, start_timeout=3)
    assert 3 <= time.monotonic() - start < 3 + CLEAN_UP


def test_a_scheduler_without_workers_stops_the_sweep_at_the_deadline(tmp_path):
    from distributed import LocalCluster
    with LocalCluster(n_workers=0, processes=False, dashboard_address=None) as cluster:
        start = time.monotonic()
        with pytest.raises(SweepError, match="no worker joined within 3 s; start workers with `dask worker"):
            run_function_sweep(projectile, PARAMS, out=tmp_path / "out", scheduler=cluster.scheduler_address,
                               start_timeout=3)
        assert 3 <= time.monotonic() - start < 3 + CLEAN_UP


@pytest.mark.parametrize("bad", [0, -1.0, "soon", float("nan")])
def test_a_start_timeout_that_is_not_a_positive_number_stops_the_sweep_before_any_case(tmp_path, bad):
    with pytest.raises(SweepError, match="start_timeout .*: expected a number of seconds above 0"):
        run_function_sweep(projectile, PARAMS, out=tmp_path / "out", workers=2, start_timeout=bad)
    assert not (tmp_path / "out").exists()


def test_the_command_line_takes_the_start_timeout_and_says_what_did_not_start(tmp_path, capsys):
    from impulsim.cli import main
    address = f"tcp://127.0.0.1:{_free_port()}"
    start = time.monotonic()
    code = main(["sweep", "--function", "tests.sweep.functions:projectile", "--param", "speed=10,20",
                 "--param", "angle_deg=30", "--scheduler", address, "--start-timeout", "2", "-q",
                 "-o", str(tmp_path / "out")])
    err = capsys.readouterr().err.strip()
    assert code == 2 and 2 <= time.monotonic() - start < 2 + CLEAN_UP
    assert err.count("\n") == 0 and f"{address}: not reachable within 2 s" in err
