"""Compile messages and ahead-of-time compilation (impulsim.warmup, ``impulsim warmup``)."""
import io
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from numba import njit
from numba.core import event

from impulsim import compiling as C
from impulsim import warmup as W
from impulsim.cli import main

SRC = Path(W.__file__).resolve().parents[1]


def _fresh_kernel(module="impulsim.fake_for_test"):
    """A new (never compiled) kernel that counts as impulsim's."""
    def kernel(x):
        return x * 2.0 + 1.0
    kernel.__module__ = module
    return njit(kernel)


class _Tty(io.StringIO):
    def isatty(self):
        return True


def test_kernel_groups_name_the_part_of_impulsim():
    assert W.kernel_group("impulsim.contact.stage") == "contact"
    assert W.kernel_group("impulsim.methods.featherstone.aba") == "featherstone method"
    assert W.kernel_group("impulsim.dynamics") == "dynamics"
    assert W.kernel_group("numba.np.arrayobj") == "" and W.kernel_group("impulsim") == ""


def test_a_burst_ends_with_one_line_when_not_on_a_terminal():
    out = io.StringIO()
    with W.CompileReporter(out, show_after=0.0) as rep:
        assert _fresh_kernel()(np.float64(1.0)) == 3.0
        assert _fresh_kernel()(np.float64(2.0)) == 5.0
        rep.finish()
    lines = out.getvalue().splitlines()
    assert len(lines) == 1 and "\r" not in out.getvalue()
    assert lines[0].startswith("compiled 2 kernels in ") and lines[0].endswith(f"({W.ONCE})")
    assert rep.total_kernels == 2


def test_short_bursts_say_nothing():
    out = io.StringIO()
    with W.CompileReporter(out, show_after=1e9) as rep:
        _fresh_kernel()(np.float64(1.0))
        rep.finish()
    assert out.getvalue() == "" and rep.total_kernels == 1


def test_on_a_terminal_the_line_is_redrawn_erased_between_kernels_and_ended():
    out = _Tty()
    inner = _fresh_kernel("impulsim.contact.inner")

    def outer(x):
        return inner(x) + 1.0
    outer.__module__ = "impulsim.contact.fake"
    with W.CompileReporter(out, show_after=0.0) as rep:
        assert njit(outer)(np.float64(1.0)) == 4.0       # compiles inner inside outer's compile
        assert out.getvalue().endswith("\r\033[K")       # no kernel compiling: the line is erased
        rep.finish()
    text = out.getvalue()
    assert text.startswith("\rcompiling contact kernels (once; cached for later runs) … 0 done, ")
    assert "… 1 done, " in text
    last = text.split("\r")[-1]
    assert last.startswith("compiled 2 kernels in ") and last.endswith(f" s ({W.ONCE})\033[K\n")


def test_kernels_outside_impulsim_are_not_counted_and_uninstall_stops_listening():
    out = io.StringIO()
    rep = W.CompileReporter(out, show_after=0.0).install()
    _fresh_kernel("somewhere.else")(np.float64(1.0))
    rep.uninstall()
    _fresh_kernel()(np.float64(1.0))
    assert rep.total_kernels == 0 and out.getvalue() == ""


_COUNT_LISTENERS = ("import impulsim; from numba.core import event; "
                    "print(sum(type(ls).__module__ == 'impulsim.compiling' "
                    "for ls in event._registered.get('numba:compile', [])))")


def test_library_use_installs_one_listener_that_is_silent_off_a_terminal(monkeypatch, capsys):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (str(SRC), os.environ.get("PYTHONPATH", "")) if p))
    fresh = subprocess.run([sys.executable, "-c", _COUNT_LISTENERS], env=env, capture_output=True, text=True,
                           timeout=300)
    assert fresh.stdout.strip() == "1", fresh.stderr                 # import impulsim installs it
    assert C.install_default() is C.default_reporter()        # installed once, whoever asks again
    listeners = event._registered.get("numba:compile", [])
    assert len([ls for ls in listeners if type(ls).__qualname__.startswith("CompileReporter")]) == 1
    monkeypatch.delenv("IMPULSIM_COMPILE_MESSAGES", raising=False)
    monkeypatch.setattr(C.default_reporter(), "show_after", 0.0)
    _fresh_kernel()(np.float64(1.0))            # pytest's stderr is no terminal
    C.default_reporter().finish()
    assert capsys.readouterr().err == ""


def test_warmup_groups_are_checked():
    assert {t.group for t in W.warmup_tasks()} == set(W.WARMUP_GROUPS)
    assert {t.group for t in W.warmup_tasks(["contact"])} == {"contact"}
    with pytest.raises(ValueError, match="unknown warm-up group"):
        W.warmup_tasks(["nope"])


def test_warmup_command_with_an_unknown_group_is_one_line(capsys):
    assert main(["warmup", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown warm-up group(s) nope" in err


_COUNT_COMPILES = textwrap.dedent("""
    import json, sys
    from numba.core import event
    seen = []
    class L(event.Listener):
        def on_start(self, ev): pass
        def on_end(self, ev): seen.append(ev.data["dispatcher"].py_func.__qualname__)
    event.register("numba:compile", L())
    from impulsim.io import scene_from_string
    from impulsim.warmup import warmup_tasks
    task = warmup_tasks(["impulse"])[0]
    sim = scene_from_string(task.scene).simulation()
    for _ in range(3):
        sim.step()
    print(json.dumps(seen))
""")


@pytest.mark.slow
def test_warmup_fills_the_cache_that_a_later_process_loads(tmp_path):
    """On an empty cache, the first warm-up task (a double pendulum, impulse method) compiles; a second
    process stepping the same scene then loads every kernel from the on-disk cache and compiles none."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"),
               PYTHONPATH=os.pathsep.join(p for p in (str(SRC), os.environ.get("PYTHONPATH", "")) if p))
    first = subprocess.run([sys.executable, "-c", _COUNT_COMPILES], env=env, capture_output=True, text=True,
                           timeout=3600)
    assert first.returncode == 0, first.stderr
    compiled = json.loads(first.stdout.strip().splitlines()[-1])
    assert "predict_body" in compiled and any(tmp_path.joinpath("cache").rglob("*.nbi"))
    later = subprocess.run([sys.executable, "-c", _COUNT_COMPILES], env=env, capture_output=True, text=True,
                           timeout=3600)
    assert later.returncode == 0, later.stderr
    assert json.loads(later.stdout.strip().splitlines()[-1]) == []


def test_the_impulse_tasks_take_every_compiled_run_loop():
    """Each of the impulse method's compiled run loops (LGS, iterative; with force elements and without,
    run_path._loop) is taken by one impulse task, so that the warm-up compiles it."""
    from impulsim.dynamics.forces import has_force_elements
    from impulsim.io import scene_from_string
    from impulsim.methods.impulse import run_path
    loops = set()
    for task in W.warmup_tasks(["impulse"]):
        method = scene_from_string(task.scene).simulation(method=task.method, **dict(task.options)).method
        loops.add((run_path.compiled_path(method), has_force_elements(method.model)))
    assert {(path, elements) for path in run_path.PATHS for elements in (False, True)} <= loops
