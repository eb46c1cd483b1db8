"""The message while kernels compile, for library use and every command (impulsim.compiling): who sees it,
the switch, threads, and two cold starts in fresh processes on an empty kernel cache."""
import io
import json
import multiprocessing
import os
import re
import subprocess
import sys
import textwrap
import threading
import time
import types
from pathlib import Path

import numpy as np
import pytest
from numba import njit

import impulsim
from impulsim import compiling as C
from impulsim.cli import main

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"
PENDULUM = ROOT / "examples" / "pendulum.yaml"
LIVE = re.compile(r"\rcompiling [a-z ]*kernels \(once; cached for later runs\) … \d+ done, \d+ s")
TOTAL = re.compile(r"compiled \d+ kernels in \d+\.\d s \(once; cached for later runs\)")


class _Tty(io.StringIO):
    def isatty(self):
        return True


def _fresh_kernel(module="impulsim.fake_for_test"):
    """A new (never compiled) kernel that counts as impulsim's."""
    def kernel(x):
        return x * 2.0 + 1.0
    kernel.__module__ = module
    return njit(kernel)


def _wait_for_total(stream, timeout=10.0) -> str:
    """The stream's text once a line has ended (the process-wide reporter ends a burst by itself)."""
    end = time.monotonic() + timeout
    while "\n" not in stream.getvalue() and time.monotonic() < end:
        time.sleep(0.02)
    return stream.getvalue()


@pytest.fixture
def process_reporter(monkeypatch):
    """The process-wide reporter with the automatic rule, quick to speak and quick to end a burst."""
    monkeypatch.delenv(C.ENV, raising=False)
    monkeypatch.setattr(C, "_switch", None)
    rep = C.default_reporter()
    monkeypatch.setattr(rep, "show_after", 0.0)
    monkeypatch.setattr(rep, "quiet_after", 0.3)
    yield rep
    rep.finish()


def test_the_switch_is_exported_and_checked():
    assert impulsim.compile_messages is C.compile_messages
    with pytest.raises(ValueError, match="compile_messages expects True, False or None, got 'yes'"):
        C.compile_messages("yes")


def test_on_a_terminal_library_use_shows_the_live_line_and_its_total(process_reporter, monkeypatch):
    err = _Tty()
    monkeypatch.setattr(sys, "stderr", err)
    _fresh_kernel("impulsim.contact.fake")(np.float64(1.0))
    text = _wait_for_total(err)                 # nobody calls finish: the burst ends by itself
    assert text.startswith("\rcompiling contact kernels (once; cached for later runs) … 0 done, 0 s\033[K")
    assert text.endswith("\033[K\n") and TOTAL.fullmatch(text.split("\r")[-1].removesuffix("\033[K\n"))


def test_switched_on_off_a_terminal_one_line_per_burst(process_reporter, monkeypatch):
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    assert C.compile_messages(True) is None
    _fresh_kernel()(np.float64(1.0))
    _fresh_kernel()(np.float64(2.0))
    text = _wait_for_total(err)
    assert "\r" not in text and "\033" not in text
    assert TOTAL.fullmatch(text.removesuffix("\n")) and text.startswith("compiled 2 kernels in ")


def test_switched_off_silent_on_a_terminal(process_reporter, monkeypatch):
    err = _Tty()
    monkeypatch.setattr(sys, "stderr", err)
    C.compile_messages(False)
    _fresh_kernel()(np.float64(1.0))
    time.sleep(0.2)
    process_reporter.finish()
    assert err.getvalue() == ""


def test_the_environment_variable_decides_unless_the_program_does(process_reporter, monkeypatch):
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    monkeypatch.setenv(C.ENV, "1")
    _fresh_kernel()(np.float64(1.0))
    assert TOTAL.fullmatch(_wait_for_total(err).removesuffix("\n"))
    tty = _Tty()
    monkeypatch.setattr(sys, "stderr", tty)
    monkeypatch.setenv(C.ENV, "0")
    _fresh_kernel()(np.float64(1.0))
    C.compile_messages(True)                    # the program's word beats the environment's
    _fresh_kernel()(np.float64(1.0))
    assert _wait_for_total(tty).count("\n") == 1 and "compiled 1 kernels in " in tty.getvalue()


def test_a_bad_environment_value_is_said_once_and_the_rule_stays_automatic(process_reporter, monkeypatch):
    err = _Tty()
    monkeypatch.setattr(sys, "stderr", err)
    monkeypatch.setenv(C.ENV, "loud")
    monkeypatch.setattr(C, "_env_warned", False)
    assert C.messages_wanted() and C.messages_wanted()      # a terminal: on
    assert err.getvalue() == ("impulsim: warning: IMPULSIM_COMPILE_MESSAGES should be 0 or 1, not 'loud'; "
                              "compile messages stay automatic\n")


def test_off_a_terminal_and_in_worker_processes_the_rule_is_silent(process_reporter, monkeypatch):
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert not C.messages_wanted()
    monkeypatch.setattr(sys, "stderr", _Tty())
    assert C.messages_wanted()
    monkeypatch.setattr(multiprocessing, "parent_process", lambda: object())   # e.g. a sweep's Dask worker
    assert not C.messages_wanted()


def test_in_jupyter_the_line_is_redrawn_without_escape_codes(process_reporter, monkeypatch):
    err = io.StringIO()                          # a notebook's stderr is no terminal
    monkeypatch.setattr(sys, "stderr", err)
    monkeypatch.setitem(sys.modules, "IPython", types.SimpleNamespace(get_ipython=lambda: object()))
    inner = _fresh_kernel("impulsim.dynamics.inner")

    def outer(x):
        return inner(x) - 1.0
    outer.__module__ = "impulsim.dynamics.fake"
    njit(outer)(np.float64(1.0))
    text = _wait_for_total(err)
    assert "\033" not in text and text.startswith("\rcompiling dynamics kernels (once; cached for later runs)")
    assert "… 1 done, " in text
    assert TOTAL.fullmatch(text.split("\r")[-1].rstrip(" \n")) and text.endswith("\n")


def test_compiles_in_another_thread_are_reported(process_reporter, monkeypatch):
    """As in ``impulsim view``, whose simulation thread steps (and compiles) while the main thread serves."""
    err = _Tty()
    monkeypatch.setattr(sys, "stderr", err)
    kernels = [_fresh_kernel("impulsim.methods.impulse.fake") for _ in range(3)]
    worker = threading.Thread(target=lambda: [k(np.float64(1.0)) for k in kernels])
    worker.start()
    _fresh_kernel("impulsim.contact.fake")(np.float64(1.0))      # the main thread compiles meanwhile
    worker.join()
    text = _wait_for_total(err)
    assert "compiling impulse method kernels" in text or "compiling contact kernels" in text
    total = text.split("\r")[-1].removesuffix("\033[K\n")
    assert TOTAL.fullmatch(total)
    assert sum(int(n) for n in re.findall(r"compiled (\d+) kernels", text)) == 4


def test_a_programs_own_reporter_silences_the_process_wide_one(process_reporter, monkeypatch):
    err = _Tty()
    monkeypatch.setattr(sys, "stderr", err)
    log = io.StringIO()
    with C.report_compiles(log, show_after=0.0) as rep:
        _fresh_kernel()(np.float64(1.0))
        rep.finish()
    assert log.getvalue().startswith("compiled 1 kernels in ") and err.getvalue() == ""
    _fresh_kernel()(np.float64(1.0))             # uninstalled: the process-wide reporter speaks again
    assert "compiled 1 kernels in " in _wait_for_total(err)


def test_every_command_follows_the_rule_and_q_silences_it(process_reporter, monkeypatch):
    monkeypatch.setattr(sys, "stderr", _Tty())
    seen = []
    monkeypatch.setattr("impulsim.warmup.warmup_command", lambda groups, quiet, **options: seen.append(C.messages_wanted()))
    assert main(["warmup", "impulse"]) == 0 and main(["warmup", "-q", "impulse"]) == 0
    assert seen == [True, False] and C._switch is None          # -q holds for its command only


# ------------------------------------------------------------------------ cold starts in fresh processes
def _cold_env(tmp_path, **extra) -> dict:
    """A fresh process's environment with an empty kernel cache (NUMBA_CACHE_DIR: see kernel_cache)."""
    env = {k: v for k, v in os.environ.items() if k != C.ENV}
    env.update(NUMBA_CACHE_DIR=str(tmp_path / "cache"),
               PYTHONPATH=os.pathsep.join(p for p in (str(SRC), os.environ.get("PYTHONPATH", "")) if p), **extra)
    return env


@pytest.mark.slow
def test_a_command_on_a_terminal_says_what_compiles_once(tmp_path):
    """``impulsim compare`` (silent before) with stderr on a pseudo-terminal and an empty kernel cache."""
    master, slave = os.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "impulsim.cli", "compare", str(PENDULUM), "--methods", "impulse",
                             "-d", "0.01"], env=_cold_env(tmp_path), stdout=subprocess.PIPE, stderr=slave,
                            stdin=subprocess.DEVNULL)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:                           # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    stdout, _ = proc.communicate(timeout=600)
    err = b"".join(chunks).decode()
    assert proc.returncode == 0, err
    assert LIVE.search(err), err
    last = err.replace("\r\n", "\n").split("\r")[-1]      # the terminal driver writes \n as \r\n
    assert TOTAL.fullmatch(last.removesuffix("\033[K\n")), err
    assert b"impulse" in stdout


_LIBRARY_USE = textwrap.dedent("""
    import json, sys
    from numba.core import event
    seen = []
    class L(event.Listener):
        def on_start(self, ev): pass
        def on_end(self, ev): seen.append(ev.data["dispatcher"].py_func.__qualname__)
    event.register("numba:compile", L())
    from impulsim.io import load_scene
    sim = load_scene(sys.argv[1]).simulation()
    for _ in range(3):
        sim.step()
    print(sim.state.step_count, json.dumps(seen))
""")
"""Three steps of a scene as a user's script takes them; prints the steps taken and the kernels compiled."""


@pytest.mark.slow
def test_library_use_says_it_compiles_once_and_a_later_process_loads_everything(tmp_path):
    """A script that steps a scene, stderr a pipe, ``IMPULSIM_COMPILE_MESSAGES=1``, on an empty kernel cache:
    one line for the compiling of the first step (written at the latest when the program ends), and the
    kernels land in the on-disk cache. The same script in a later process then loads every kernel from there:
    it compiles none and says nothing."""
    env = _cold_env(tmp_path, IMPULSIM_COMPILE_MESSAGES="1")
    first = subprocess.run([sys.executable, "-c", _LIBRARY_USE, str(PENDULUM)], capture_output=True, text=True,
                           env=env, timeout=600)
    assert first.returncode == 0, first.stderr
    steps, compiled = first.stdout.strip().split(" ", 1)
    assert steps == "3" and "predict_body" in json.loads(compiled)
    lines = first.stderr.splitlines()
    assert len(lines) == 1 and TOTAL.fullmatch(lines[0]), first.stderr
    assert any((tmp_path / "cache").rglob("*.nbi"))
    later = subprocess.run([sys.executable, "-c", _LIBRARY_USE, str(PENDULUM)], capture_output=True, text=True,
                           env=env, timeout=600)
    assert later.returncode == 0, later.stderr
    assert later.stdout.strip() == "3 []" and later.stderr == ""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_does_not_inherit_a_burst_under_way(process_reporter, monkeypatch):
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    monkeypatch.setattr(process_reporter, "quiet_after", 60.0)
    C.compile_messages(True)
    _fresh_kernel()(np.float64(1.0))            # a burst waits for a quiet minute or finish
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:                                # the child: its copy of the reporter holds no burst
        os.write(write, b"1" if process_reporter._start is None and process_reporter._depth == 0 else b"0")
        os._exit(0)
    os.close(write)
    assert os.read(read, 1) == b"1"
    os.waitpid(pid, 0)
    os.close(read)
    process_reporter.finish()
    assert err.getvalue().startswith("compiled 1 kernels in ")


def test_a_wait_for_compiling_elsewhere_shows_as_compiling_and_counts_its_kernels(process_reporter, monkeypatch):
    err = _Tty()
    monkeypatch.setattr(sys, "stderr", err)
    _fresh_kernel("impulsim.collision.fake")(np.float64(1.0))        # this process's own compiling ...
    with process_reporter.compiling_elsewhere("contact"):           # ... then the wait for a forked copy's
        time.sleep(0.7)
    process_reporter.add_kernels(5)
    process_reporter.finish()
    text = err.getvalue()
    assert "compiling contact kernels (once; cached for later runs) … 1 done" in text   # the line stayed up
    assert text.split("\r")[-1].startswith("compiled 6 kernels in ")                    # 1 here + 5 there
