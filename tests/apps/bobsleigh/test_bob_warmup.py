"""``impulsim warmup`` covers the bobsleigh simulator: after the warm-up of its group, a new process that
runs a pilot down another track and drives the driving page's session compiles no kernel."""
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import impulsim

SRC = Path(impulsim.__file__).resolve().parents[1]

_DRIVE_AND_RUN = textwrap.dedent("""
    import json, tempfile
    from numba.core import event
    seen = []
    class L(event.Listener):
        def on_start(self, ev): pass
        def on_end(self, ev): seen.append(ev.data["dispatcher"].py_func.__module__ + "." +
                                          ev.data["dispatcher"].py_func.__qualname__)
    event.register("numba:compile", L())
    from impulsim.apps.bobsleigh.drive.session import DriveSession
    from impulsim.apps.bobsleigh.run import run
    session = DriveSession("test_chute", runs_dir=tempfile.mkdtemp(), reference=False)
    session.start()
    for _ in range(3):
        session.tick(1 / 60)
    run("whistler", max_time=0.03, start_speed=20.0)
    print(json.dumps(seen))
""")


def test_a_bob_after_the_warmup_compiles_nothing():
    """The warm-up runs on the suite's cache (it loads what is there and compiles what is not); the drive
    session and a run on Whistler then take only kernels the warm-up's run on the test chute compiled."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (str(SRC), os.environ.get("PYTHONPATH", "")) if p))
    warm = subprocess.run([sys.executable, "-m", "impulsim", "warmup", "-q", "bobsleigh"], env=env,
                          capture_output=True, text=True, timeout=900)
    assert warm.returncode == 0, warm.stderr
    later = subprocess.run([sys.executable, "-c", _DRIVE_AND_RUN], env=env, capture_output=True, text=True,
                           timeout=600)
    assert later.returncode == 0, later.stderr[-3000:]
    assert json.loads(later.stdout.strip().splitlines()[-1]) == []
