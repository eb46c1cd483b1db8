"""Compiling on two cores (impulsim.forked_compile): the forked copy that compiles the contact resolution while
the process detects. Each check runs in a fresh Python process, where the calling thread is the only one (a
pytest worker has threads of its own, and the module refuses to fork beside them)."""
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forks only on Linux")


def _python(code: str, **env) -> subprocess.CompletedProcess:
    environ = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(ROOT, "src"), ROOT]), **env)
    out = subprocess.run([sys.executable, "-c", code], env=environ, capture_output=True, text=True, timeout=600,
                         cwd=ROOT)
    assert out.returncode == 0, out.stderr[-3000:]
    return out


STEPS = r"""
import hashlib, json, numpy as np
import impulsim as ims
b = ims.ModelBuilder()
b.add_body("ground", static=True, shapes=[ims.HalfSpace()])
rng = np.random.default_rng(4)
for i in range(4):
    b.add_body(f"box{i}", mass=1.0, shapes=[ims.Box(size=(0.3, 0.2, 0.25))], position=(0.6 * i, 0.0, 0.2 + 0.3 * i),
               velocity=rng.normal(0.0, 1.0, 3), angular_velocity=rng.normal(0.0, 3.0, 3))
b.add_hinge("pair", "box0", "box1", anchor=(0.3, 0.0, 0.35), axis=(0.0, 1.0, 0.0))
model, state = b.build()
method = ims.make_method("impulse", model)
for _ in range(40):
    method.step(state, 0.002)
side = method.contacts.side_compile
digest = hashlib.sha1(b"".join(getattr(state, n).tobytes() for n in
                               ("body_pos", "body_quat", "body_vel", "body_omega"))).hexdigest()
print(json.dumps({"state": digest, "forked": side is not None, "ok": None if side is None else side.ok}))
"""


def test_a_step_with_a_forked_copy_gives_the_same_state_and_the_copy_stays_silent():
    forked = _python(STEPS, IMPULSIM_PARALLEL_COMPILE="always")
    alone = _python(STEPS, IMPULSIM_PARALLEL_COMPILE="0")
    lines = forked.stdout.splitlines()
    assert len(lines) == 1, forked.stdout          # nothing from the copy: its output goes nowhere
    with_copy, without = json.loads(lines[0]), json.loads(alone.stdout.splitlines()[-1])
    assert with_copy["forked"] and with_copy["ok"] is True, with_copy
    assert not without["forked"]
    assert with_copy["state"] == without["state"]


def test_the_copy_that_fails_or_hangs_is_reported_and_ended():
    out = _python(r"""
import json, time
from impulsim.forked_compile import ForkedCompile
def fails():
    raise RuntimeError("in the copy")
done = ForkedCompile.start(lambda: None)
failed = ForkedCompile.start(fails)
hung = ForkedCompile.start(lambda: time.sleep(60))
t = time.perf_counter()
print(json.dumps([done.wait(), failed.wait(), hung.wait(limit=0.5), time.perf_counter() - t]))
""")
    done, failed, hung, seconds = json.loads(out.stdout.splitlines()[-1])
    assert (done, failed, hung) == (True, False, False)
    assert seconds < 30.0                            # the hung copy was stopped at its limit, not waited out


def test_no_fork_beside_other_threads_or_when_switched_off():
    out = _python(r"""
import json, threading
from impulsim import forked_compile as F
alone = F.why_not()
stop = threading.Event()
worker = threading.Thread(target=stop.wait, name="user-thread")
worker.start()
beside = F.why_not()
stop.set(); worker.join()
print(json.dumps([alone, beside]))
""")
    alone, beside = json.loads(out.stdout.splitlines()[-1])
    if os.cpu_count() and len(os.sched_getaffinity(0)) >= 2:
        assert alone is None
    assert beside is not None and "user-thread" in beside
    off = _python("from impulsim import forked_compile as F; print(F.why_not())", IMPULSIM_PARALLEL_COMPILE="0")
    assert "IMPULSIM_PARALLEL_COMPILE=0" in off.stdout


def test_setting_reads_the_switch(monkeypatch):
    from impulsim import forked_compile as F
    for value, expected in (("0", "off"), ("off", "off"), ("1", "on"), ("", "on"), ("always", "always")):
        monkeypatch.setenv(F.ENV, value)
        assert F.setting() == expected


def test_the_viewer_steps_a_throwaway_copy_first_only_on_an_empty_cache_with_contacts(monkeypatch):
    from types import SimpleNamespace

    from impulsim import forked_compile as F
    from impulsim.viewer.app import compile_before_threads
    made = []

    def make_sim(state, h, method, contacts=True):
        sim = SimpleNamespace(method=SimpleNamespace(contacts=object() if contacts else None), steps=0)
        sim.step = lambda: setattr(sim, "steps", sim.steps + 1)
        made.append(sim)
        return sim

    monkeypatch.setattr(F, "why_not", lambda: None)
    monkeypatch.setattr(F, "uncompiled", lambda kernel: True)
    assert compile_before_threads(make_sim, 0.01, "impulse") and made[-1].steps == 1
    assert not compile_before_threads(lambda *a: make_sim(*a, contacts=False), 0.01, "impulse")
    monkeypatch.setattr(F, "uncompiled", lambda kernel: False)
    n = len(made)
    assert not compile_before_threads(make_sim, 0.01, "impulse") and len(made) == n   # compiled: nothing made
