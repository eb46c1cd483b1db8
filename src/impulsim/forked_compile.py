"""Compiling on two cores: a forked copy of the process compiles one part of the kernels while the process
compiles the other.

Numba compiles one function at a time, in the thread that first calls it, so the first step of a scene on an
empty kernel cache keeps one core busy for up to a minute while the others idle. Where the step's kernels
fall into two parts that run one after the other (a contact step first detects the contacts, then resolves
them), the process can fork: the copy compiles the second part by taking a step of its own on made-up
input, writes the kernels to the on-disk cache and exits, while the process compiles the first part with
the real input. Before the second part, the process waits for the copy and then loads its kernels from the
cache. The results are the same bit for bit (the same kernels, compiled from the same sources with the same
options); only the wait is shorter.

It is used only where it is safe and pays:

* on Linux (``os.fork``; macOS libraries do not tolerate a forked child, Windows has no fork);
* with at least two usable cores;
* when the only thread running is the caller's (a fork copies only the calling thread, and another thread
  could hold a lock the copy would then wait on forever) — the compile messages' own ticker excepted,
  which the copy does not use;
* in the main process (a sweep's workers already compile side by side);
* when the kernel cache is written to disk (else the copy's work would be lost).

``IMPULSIM_PARALLEL_COMPILE=0`` turns it off; ``always`` forks even when the kernels are already compiled
(for tests of the mechanism: the copy then only loads them).
"""
from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
import time
from typing import Callable, Optional

ENV = "IMPULSIM_PARALLEL_COMPILE"
"""``0`` off, ``1`` on (the default), ``always``: fork even when the kernels are compiled."""

WAIT_BASE, WAIT_FACTOR = 60.0, 4.0
"""The process waits for the copy at most WAIT_BASE plus WAIT_FACTOR times its own time since the fork [s]
(the two parts take about as long), then stops the copy and compiles the rest itself: a copy that hangs
costs a minute or two, never the session."""

_TICKER = "impulsim-compile-messages"


def setting() -> str:
    """``"off"``, ``"on"`` or ``"always"``, from :data:`ENV`."""
    value = os.environ.get(ENV, "1").strip().lower()
    if value in ("0", "off", "false", "no"):
        return "off"
    return "always" if value == "always" else "on"


def usable_cores() -> int:
    """Cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def why_not() -> Optional[str]:
    """None when a fork may compile side by side now, else the reason it may not."""
    if setting() == "off":
        return f"{ENV}=0"
    if not (sys.platform.startswith("linux") and hasattr(os, "fork")):
        return "not on Linux"
    if usable_cores() < 2:
        return "one core"
    if multiprocessing.parent_process() is not None:
        return "a worker process"
    others = [t for t in threading.enumerate() if t is not threading.current_thread() and t.name != _TICKER]
    if others:
        return f"other threads run ({others[0].name})"
    return None


def uncompiled(kernel) -> bool:
    """Whether ``kernel`` (a Numba dispatcher with an on-disk cache) is neither compiled in this process nor
    in the cache: its first call would compile it. False when its cache is not on disk."""
    if kernel.overloads:
        return False
    try:
        from numba.core.caching import NullCache
        cache = kernel._cache
        if isinstance(cache, NullCache):
            return False
        return not os.path.exists(cache._cache_file._index_path)
    except AttributeError:            # another Numba's internals: do not fork
        return False


class ForkedCompile:
    """A forked copy of this process compiling kernels (see the module docstring); ``wait`` before using them."""

    def __init__(self, pid: int, pipe: int):
        self.pid = pid
        self._pipe = pipe
        self.started = time.perf_counter()
        self.kernels = 0
        """impulsim kernels the copy compiled (known after :meth:`wait`)."""
        self.ok: Optional[bool] = None
        """Whether the copy finished its work (None until :meth:`wait`)."""

    @classmethod
    def start(cls, work: Callable[[], None]) -> "ForkedCompile":
        """Fork; the copy runs ``work()`` silently (its stdout and stderr go nowhere) and exits, never
        returning to the caller's code. Call only when :func:`why_not` is None."""
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:                                    # the copy
            os.close(read)
            _run_in_copy(work, write)                   # never returns
        os.close(write)
        return cls(pid, read)

    def wait(self, limit: Optional[float] = None, group: str = "") -> bool:
        """Wait for the copy to exit (at most ``limit`` s from its start, by default WAIT_BASE + WAIT_FACTOR
        times the time so far; then stop it); True if it finished its work. Safe to call again. The compile
        message shows the wait as compiling ``group`` kernels and counts the copy's kernels."""
        if self.ok is not None:
            return self.ok
        if limit is None:
            limit = WAIT_BASE + (1.0 + WAIT_FACTOR) * (time.perf_counter() - self.started)
        from impulsim import compiling
        reporter = compiling.default_reporter()
        with reporter.compiling_elsewhere(group):
            self.ok = self._wait_until(limit)
        self.kernels = self._read_count()
        reporter.add_kernels(self.kernels)
        return self.ok

    def _wait_until(self, limit: float) -> bool:
        status = None
        try:
            while status is None:
                pid, code = os.waitpid(self.pid, os.WNOHANG)
                if pid:
                    status = code
                elif time.perf_counter() - self.started > limit:
                    self.stop()
                    status = -1
                else:
                    time.sleep(0.02)
        except BaseException:
            self.stop()
            raise
        return status == 0

    def stop(self) -> None:
        """End the copy now (a Ctrl-C while waiting, or the wait limit), and reap it."""
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except (ChildProcessError, ProcessLookupError):
            pass
        if self.ok is None:
            self.ok = False

    def _read_count(self) -> int:
        try:
            with os.fdopen(self._pipe, "rb") as pipe:
                text = pipe.read().decode() or "0"
            return int(text)
        except (OSError, ValueError):
            return 0


def _run_in_copy(work: Callable[[], None], pipe: int) -> None:
    """The forked copy's life: silence, do the work, report how many kernels it compiled, exit."""
    code = 1
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        from impulsim import compiling
        compiling.compile_messages(False)
        with compiling.CompileReporter(stream=open(os.devnull, "w"), live=False, show_after=float("inf")) as counter:
            work()
        os.write(pipe, str(counter.total_kernels).encode())
        code = 0
    except BaseException:                                # noqa: BLE001 - the copy must exit, whatever happened
        code = 1
    finally:
        os._exit(code)
