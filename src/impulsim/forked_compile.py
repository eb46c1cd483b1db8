"""Compiling on two cores: a copy of the process compiles one part of the kernels while the process
compiles the other.

Numba compiles one function at a time, in the thread that first calls it, so the first step of a scene on an
empty kernel cache keeps one core busy for up to a minute while the others idle. Where the step's kernels
fall into two parts that run one after the other (a contact step first detects the contacts, then resolves
them), a second process can compile the second part by taking a step of its own on made-up input, write the
kernels to the on-disk cache and exit, while the process compiles the first part with the real input.
Before the second part, the process waits for the other and then loads its kernels from the cache. The
results are the same bit for bit (the same kernels, compiled from the same sources with the same options);
only the wait is shorter.

The second process is one of two kinds (:func:`way`):

* a **fork** (:class:`ForkedCompile`): a copy of the process made in an instant. Only on Linux
  (``os.fork``; macOS libraries do not tolerate a forked child, Windows has no fork), and only when the
  only thread running is the caller's (a fork copies only the calling thread, and another thread could hold
  a lock the copy would then wait on forever) — the compile messages' own ticker excepted, which the copy
  does not use;
* a **new interpreter** (:class:`SpawnedCompile`) everywhere else: beside other threads (a Jupyter kernel,
  the viewer's stepping thread) or off Linux. It is handed the work and its arguments pickled (a method
  and a state pickle), imports impulsim (about a second) and runs the same work.

Either needs at least two usable cores, the main process (a sweep's workers already compile side by side)
and the kernel cache written to disk (else the other process's work would be lost).

``IMPULSIM_PARALLEL_COMPILE=0`` turns it off; ``always`` starts the second process even when the kernels
are already compiled (for tests of the mechanism: it then only loads them).
"""
from __future__ import annotations

import multiprocessing
import os
import pickle
import signal
import subprocess
import sys
import tempfile
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
_CHILD_ENV = "IMPULSIM_COMPILE_CHILD"
"""Set for a new interpreter started by :class:`SpawnedCompile`: the module search path of the process that
started it, which it takes as its own."""


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


def why_not_at_all() -> Optional[str]:
    """None when a second process may compile side by side now (a fork or a new interpreter), else the
    reason it may not. (A new interpreter started here runs with the switch off, so starts none of its own.)"""
    if setting() == "off":
        return f"{ENV}=0"
    if usable_cores() < 2:
        return "one core"
    if multiprocessing.parent_process() is not None:
        return "a worker process"
    return None


def _why_no_fork() -> Optional[str]:
    """None when a fork is safe here, else why not (the conditions a new interpreter does not need)."""
    if not (sys.platform.startswith("linux") and hasattr(os, "fork")):
        return "not on Linux"
    others = [t for t in threading.enumerate() if t is not threading.current_thread() and t.name != _TICKER]
    if others:
        return f"other threads run ({others[0].name})"
    return None


def why_not() -> Optional[str]:
    """None when a fork may compile side by side now, else the reason it may not."""
    return why_not_at_all() or _why_no_fork()


def way() -> Optional[str]:
    """``"fork"`` where a fork may compile side by side now, ``"spawn"`` where only a new interpreter may
    (other threads run, or not on Linux), None where neither may (see :func:`why_not_at_all`)."""
    if why_not_at_all() is not None:
        return None
    return "fork" if _why_no_fork() is None else "spawn"


def start(work: Callable, *args) -> Optional["ForkedCompile"]:
    """A second process running ``work(*args)`` by :func:`way`: forked, or a new interpreter (``work`` and
    ``args`` then pickled; None if they do not pickle). None where neither may run."""
    how = way()
    if how == "fork":
        return ForkedCompile.start(lambda: work(*args))
    if how == "spawn":
        return SpawnedCompile.start(work, *args)
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

    def _exit_status(self) -> Optional[int]:
        """The copy's exit status once it has exited (reaped), else None."""
        pid, code = os.waitpid(self.pid, os.WNOHANG)
        return code if pid else None

    def _wait_until(self, limit: float) -> bool:
        try:
            while (status := self._exit_status()) is None:
                if time.perf_counter() - self.started > limit:
                    self.stop()
                    return False
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


class SpawnedCompile(ForkedCompile):
    """A new Python interpreter compiling kernels: where a fork is not safe (see the module docstring).
    Same use as :class:`ForkedCompile`; the work and its arguments reach it pickled through a file."""

    def __init__(self, proc: subprocess.Popen, payload: str):
        super().__init__(proc.pid, -1)
        self.proc = proc
        self._payload = payload
        """The pickled work's file: the interpreter removes it once read; :meth:`_read_count` makes sure."""

    @classmethod
    def start(cls, work: Callable, *args) -> Optional["SpawnedCompile"]:
        """Start an interpreter that runs ``work(*args)`` silently and exits; None if ``work`` or ``args`` do
        not pickle (the caller then compiles alone). ``work`` must be importable by its module's name."""
        try:
            payload = pickle.dumps((work, args), protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:                                # noqa: BLE001 - anything unpicklable: no second process
            return None
        fd, path = tempfile.mkstemp(prefix="impulsim-compile-", suffix=".pickle")
        with os.fdopen(fd, "wb") as f:
            f.write(payload)
        env = dict(os.environ, **{_CHILD_ENV: os.pathsep.join(_import_path()), ENV: "0"})
        code = ("import os, sys; sys.path[:] = os.environ['" + _CHILD_ENV + "'].split(os.pathsep); "
                "from impulsim.forked_compile import _run_spawned; _run_spawned(sys.argv[1])")
        try:
            proc = subprocess.Popen([sys.executable, "-c", code, path], stdin=subprocess.DEVNULL,
                                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        except OSError:
            os.unlink(path)
            return None
        return cls(proc, path)

    def _exit_status(self) -> Optional[int]:
        return self.proc.poll()

    def stop(self) -> None:
        try:
            self.proc.kill()
            self.proc.wait()
        except OSError:
            pass
        if self.ok is None:
            self.ok = False

    def _read_count(self) -> int:
        try:
            return int(self.proc.stdout.read().decode() or "0")
        except (OSError, ValueError):
            return 0
        finally:
            self.proc.stdout.close()
            try:                                    # an interpreter that died before reading its work
                os.unlink(self._payload)
            except FileNotFoundError:
                pass


def _import_path() -> list[str]:
    """This interpreter's module search path, for a new one to import the same impulsim (and the modules
    pickled work comes from) — the current directory in place of the empty entry."""
    return [p or os.getcwd() for p in sys.path]


def _run_spawned(path: str) -> None:
    """A new interpreter's life (:class:`SpawnedCompile`): read the work, silence, do it, report how many
    kernels it compiled on the stdout it was started with, exit."""
    report = os.dup(1)
    try:
        with open(path, "rb") as f:
            work, args = pickle.load(f)
    finally:
        os.unlink(path)
    _run_in_copy(lambda: work(*args), report)


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
