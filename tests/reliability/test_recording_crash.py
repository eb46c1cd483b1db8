"""A recording survives its run being killed: rows are streamed to a journal flushed at an interval, so
SIGKILL loses at most one interval, and SIGTERM / SIGINT end the run with the Parquet file written."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from impulsim.io.recording import journal_path, read_recording, recover_recording
from tests.child_process import default_sigint

ROOT = Path(__file__).resolve().parents[2]
CHILD = r"""
import sys
from impulsim.io import load_scene
from impulsim.io.recording import Recorder
scene = load_scene(sys.argv[1])
sim = scene.simulation()
rec = Recorder(scene.model, {"scene": "crash"}, path=sys.argv[2], flush_rows=10**9, flush_seconds=0.2)
rec.record(sim.state)
flushed = 0
while True:
    info = sim.step()
    rec.record(sim.state, info)
    if rec._n_flushed != flushed:
        flushed = rec._n_flushed
        print(flushed, flush=True)
"""


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    return env


def test_sigkill_loses_at_most_one_flush_interval(tmp_path):
    out = tmp_path / "recording.parquet"
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(ROOT / "examples" / "pendulum.yaml"), str(out)],
                             stdout=subprocess.PIPE, env=_env(), text=True)
    reported = []
    try:
        deadline = time.monotonic() + 300
        while len(reported) < 3 and time.monotonic() < deadline:
            line = child.stdout.readline()
            if not line:
                break
            reported.append(int(line))
        assert len(reported) >= 3, "the child did not flush three times"
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
        for line in child.stdout:       # flushes reported between our last read and the kill
            reported.append(int(line))
    finally:
        if child.poll() is None:
            child.kill()
    assert not out.exists() and journal_path(out).exists()
    table = read_recording(out)
    steps = table.column("step").to_numpy()
    # every row the child reported flushed is there, in order, and no row is damaged
    assert table.num_rows >= reported[-1]
    assert np.array_equal(steps, np.arange(table.num_rows))
    assert np.isfinite(table.column("energy").to_numpy()).all()
    rows = recover_recording(out)
    assert rows == table.num_rows and out.exists() and not journal_path(out).exists()
    assert read_recording(out).num_rows == rows


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_sigterm_and_sigint_close_the_recording(tmp_path, sig):
    out = tmp_path / "run"
    child = subprocess.Popen([sys.executable, "-c", "import sys; from impulsim.cli import main; sys.exit(main())",
                              "run", str(ROOT / "examples" / "pendulum.yaml"), "-d", "1e5", "-q", "-o", str(out)],
                             env=_env(), preexec_fn=default_sigint)
    try:
        deadline = time.monotonic() + 300
        journal = journal_path(out / "recording.parquet")
        while not (journal.exists() and journal.stat().st_size > 50_000) and time.monotonic() < deadline:
            time.sleep(0.2)
        child.send_signal(sig)
        code = child.wait(timeout=120)
    finally:
        if child.poll() is None:
            child.kill()
    assert code == 130
    table = read_recording(out / "recording.parquet")
    assert not journal.exists() and (out / "final_state.npz").exists()
    steps = table.column("step").to_numpy()
    assert table.num_rows > 10 and np.array_equal(steps, np.arange(table.num_rows))


def _interrupt_at_line(code, line_index):
    """A trace function that raises KeyboardInterrupt (as a Ctrl-C would) at the ``line_index``-th line
    run inside ``code``."""
    seen = [0]

    def trace(frame, event, arg):
        if frame.f_code is not code:
            return None
        if event == "line":
            seen[0] += 1
            if seen[0] == line_index:
                raise KeyboardInterrupt
        return trace
    return trace


@pytest.mark.parametrize("flush_rows", [1, 10**9])       # with and without the journal written every row
def test_ctrl_c_anywhere_in_record_keeps_the_last_step_true(tmp_path, flush_rows):
    """Ctrl-C may arrive between any two lines of ``record``; the step the recorder reports last must be the
    step of its last row either way, or a run ending on Ctrl-C records that step twice (or not at all)."""
    from impulsim.io import load_scene
    from impulsim.io.recording import Recorder
    scene = load_scene(str(ROOT / "examples" / "pendulum.yaml"))
    sim = scene.simulation()
    code = Recorder.record.__code__
    for line_index in range(1, 40):
        rec = Recorder(scene.model, path=tmp_path / f"r{line_index}-{flush_rows}.parquet", flush_rows=flush_rows)
        rec.record(sim.state)
        sim.step()
        sys.settrace(_interrupt_at_line(code, line_index))
        try:
            rec.record(sim.state)
        except KeyboardInterrupt:
            pass
        finally:
            sys.settrace(None)
        rec.close()
        steps = read_recording(rec.path).column("step").to_numpy()
        assert rec.last_step() == steps[-1], f"Ctrl-C at line {line_index} of record: rows {steps}"
