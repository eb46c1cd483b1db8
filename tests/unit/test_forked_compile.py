"""Compiling on two cores (impulsim.forked_compile): the second process (a forked copy, or a new interpreter
beside other threads) that compiles the contact resolution while the process detects. Each check runs in a
fresh Python process, where the calling thread is the only one unless the check starts one (a pytest worker
has threads of its own, and the module does not fork beside them)."""
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
import hashlib, json, os, threading, numpy as np
import impulsim as ims
from impulsim import forked_compile as F
stop = threading.Event()
if os.environ.get("USER_THREAD"):      # a thread of the user's (as in a Jupyter kernel): no fork beside it
    threading.Thread(target=stop.wait, name="user-thread", daemon=True).start()

def forty_steps(setting):
    os.environ["IMPULSIM_PARALLEL_COMPILE"] = setting
    b = ims.ModelBuilder()
    b.add_body("ground", static=True, shapes=[ims.HalfSpace()])
    rng = np.random.default_rng(4)
    for i in range(4):
        b.add_body(f"box{i}", mass=1.0, shapes=[ims.Box(size=(0.3, 0.2, 0.25))],
                   position=(0.6 * i, 0.0, 0.2 + 0.3 * i), velocity=rng.normal(0.0, 1.0, 3),
                   angular_velocity=rng.normal(0.0, 3.0, 3))
    if os.environ["METHOD"] != "moreau":           # Moreau's method has no joints
        b.add_hinge("pair", "box0", "box1", anchor=(0.3, 0.0, 0.35), axis=(0.0, 1.0, 0.0))
    model, state = b.build()
    method = ims.make_method(os.environ["METHOD"], model)
    for _ in range(40):
        method.step(state, 0.002)
    side = method.side_compile
    digest = hashlib.sha1(b"".join(getattr(state, n).tobytes() for n in
                                   ("body_pos", "body_quat", "body_vel", "body_omega"))).hexdigest()
    return {"state": digest, "side": side is not None, "ok": None if side is None else side.ok,
            "spawned": isinstance(side, F.SpawnedCompile)}

print(json.dumps([forty_steps("always"), forty_steps("0")]))
"""


@pytest.mark.parametrize("method, beside_thread", [
    ("impulse", False), ("impulse", True), ("lagrange", False), ("lagrange", True), ("featherstone", False),
    ("moreau", False)], ids=["impulse-forked", "impulse-new-interpreter", "lagrange-forked",
                             "lagrange-new-interpreter", "featherstone-forked", "moreau-forked"])
def test_a_first_contact_step_beside_a_second_process_gives_the_same_state_and_it_stays_silent(
        method, beside_thread):
    """Each method's first contact step with a second process (``always``: even on a filled cache) that
    steps a copy on made-up contacts: forked, or beside a thread of the user's a new interpreter. 40 steps
    give the state of 40 steps without one, bit for bit, and the second process printed nothing."""
    out = _python(STEPS, METHOD=method, **({"USER_THREAD": "1"} if beside_thread else {}))
    lines = out.stdout.splitlines()
    assert len(lines) == 1, out.stdout              # nothing from the second process: its output goes nowhere
    with_side, alone = json.loads(lines[0])
    assert with_side["side"] and with_side["ok"] is True and with_side["spawned"] == beside_thread, with_side
    assert not alone["side"]
    assert with_side["state"] == alone["state"]


KERNEL_MODULE = """
from numba import njit

@njit(cache=True)
def twice_plus_one(x):
    return 2.0 * x + 1.0

def compile_it():
    twice_plus_one(1.5)
"""


def test_a_new_interpreter_leaves_its_kernels_in_the_cache_for_this_process(tmp_path):
    """The new interpreter runs pickled work from a module on this process's search path (not on
    PYTHONPATH), compiles a kernel into the shared cache and reports it; this process then finds the kernel
    in the cache and loads it without compiling."""
    (tmp_path / "side_module.py").write_text(KERNEL_MODULE)
    out = _python(r"""
import json, sys
sys.path.insert(0, sys.argv[1])
from numba.core import event
from impulsim import forked_compile as F      # first: impulsim puts the kernel cache in a folder of its own
import side_module
compiled = []
class L(event.Listener):
    def on_start(self, ev): pass
    def on_end(self, ev): compiled.append(ev.data["dispatcher"].py_func.__name__)
before = F.uncompiled(side_module.twice_plus_one)
side = F.SpawnedCompile.start(side_module.compile_it)
ok = side.wait()
after = F.uncompiled(side_module.twice_plus_one)
event.register("numba:compile", L())
value = side_module.twice_plus_one(2.0)
print(json.dumps([before, ok, side.kernels, after, value, compiled]))
""".replace("sys.argv[1]", repr(str(tmp_path))), NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    before, ok, kernels, after, value, compiled = json.loads(out.stdout.splitlines()[-1])
    assert before and ok and not after
    assert kernels == 0          # not one of impulsim's kernels: the interpreter counts only those
    assert value == 5.0 and compiled == []


def test_a_new_interpreter_that_fails_hangs_or_cannot_be_handed_its_work_is_reported():
    out = _python(r"""
import json, time
from impulsim.forked_compile import SpawnedCompile
failed = SpawnedCompile.start(int, "not a number")
hung = SpawnedCompile.start(time.sleep, 60)
unpicklable = SpawnedCompile.start(lambda: None)
t = time.perf_counter()
waits = [failed.wait(), hung.wait(limit=3.0), unpicklable is None, time.perf_counter() - t]
import os
print(json.dumps(waits + [os.path.exists(failed._payload) or os.path.exists(hung._payload)]))
""")
    failed, hung, unpicklable, seconds, left = json.loads(out.stdout.splitlines()[-1])
    assert (failed, hung, unpicklable) == (False, False, True)
    assert seconds < 30.0
    assert not left                     # the pickled work's files are gone, read or not


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


def test_no_fork_beside_other_threads_a_new_interpreter_instead_and_neither_when_switched_off():
    out = _python(r"""
import json, threading
from impulsim import forked_compile as F
alone = F.why_not(), F.way()
stop = threading.Event()
worker = threading.Thread(target=stop.wait, name="user-thread")
worker.start()
beside = F.why_not(), F.way()
stop.set(); worker.join()
print(json.dumps([alone, beside]))
""")
    (alone, alone_way), (beside, beside_way) = json.loads(out.stdout.splitlines()[-1])
    if os.cpu_count() and len(os.sched_getaffinity(0)) >= 2:
        assert alone is None and alone_way == "fork"
        assert beside_way == "spawn"
    assert beside is not None and "user-thread" in beside
    off = _python("from impulsim import forked_compile as F; print(F.why_not(), F.way())",
                  IMPULSIM_PARALLEL_COMPILE="0")
    assert off.stdout.split() == ["IMPULSIM_PARALLEL_COMPILE=0", "None"]


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
        detector = object() if contacts else None
        sim = SimpleNamespace(method=SimpleNamespace(contact_detector=lambda: detector), steps=0)
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
