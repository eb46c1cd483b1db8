"""The one-line message while kernels compile.

impulsim's hot loops are Numba kernels compiled on first use and kept in an on-disk cache
(:mod:`impulsim.kernel_cache`): the first step of a scene on an empty cache waits seconds to a minute for
them, once per installation, and later runs load them in well under a second. So that such a wait never
looks like a hang, a :class:`CompileReporter` listens to Numba's compile events and writes to stderr what
is compiling, that it happens once, and how far it got::

    compiling impulse method kernels (once; cached for later runs) … 12 done, 8 s

replaced, when the compiling is over, by ``compiled 31 kernels in 9.4 s (once; cached for later runs)``.
Compiling that takes less than :data:`SHOW_AFTER` (a second) says nothing, and loading kernels from the
cache fires no event at all.

``import impulsim`` installs one process-wide reporter (:func:`install_default`). It speaks where someone is
watching and is silent elsewhere, decided when a burst of compiling begins:

1. ``compile_messages(True)`` or ``compile_messages(False)`` in the program decides, else
2. the environment variable ``IMPULSIM_COMPILE_MESSAGES`` (``1`` on, ``0`` off), else
3. on when stderr is a terminal or the code runs in IPython or Jupyter, and not in a worker process that
   :mod:`multiprocessing` started (a sweep's Dask workers share the terminal with their parent); off
   everywhere else (tests, pipes, batch jobs).

On a terminal the line is redrawn while the compiling lasts and erased between kernels, so that what the
program prints meanwhile starts on a clean line; in a notebook it is redrawn in place; elsewhere only the
total is written, one line per burst. The ``impulsim`` command uses the same reporter: every command shows
the message by these rules, and ``-q`` turns it off.

The reporter costs nothing once the kernels are compiled: Numba calls it only when it compiles, never when
it loads from the cache or when a kernel runs. A burst ends by itself after :data:`QUIET_AFTER` seconds
without compiling (the compiling may happen in any thread, e.g. the simulation thread of ``impulsim view``);
a caller that knows the burst is over (``impulsim run`` after each batch of steps) calls
:meth:`CompileReporter.finish` to end the line at once.

A program may also install its own reporter (``with report_compiles(stream): ...``, e.g. to write to a log
file); while one is installed the process-wide reporter stays silent, so nothing is said twice.
"""
from __future__ import annotations

import atexit
import contextlib
import os
import sys
import threading
import time
from typing import Optional, TextIO

ONCE = "once; cached for later runs"
"""What every compile message says about the wait."""

SHOW_AFTER = 1.0
"""Seconds of compiling before a message appears: shorter waits stay silent."""

QUIET_AFTER = 1.0
"""Seconds without compiling after which the process-wide reporter ends a burst by itself."""

TICK = 0.5
"""Seconds between redraws of the live line."""

ENV = "IMPULSIM_COMPILE_MESSAGES"
"""The environment variable that turns the process-wide messages on (``1``) or off (``0``)."""

_ENV_VALUES = {"1": True, "on": True, "true": True, "yes": True,
               "0": False, "off": False, "false": False, "no": False, "": None, "auto": None}

_switch: Optional[bool] = None
_others = 0                  # reporters installed besides the process-wide one
_others_lock = threading.Lock()
_env_warned = False
_default: Optional["CompileReporter"] = None


def kernel_group(module: str) -> str:
    """A short name for the part of impulsim a kernel's module belongs to (``impulsim.contact.stage`` ->
    ``contact``, ``impulsim.methods.featherstone.aba`` -> ``featherstone method``); other modules give
    ``""``."""
    parts = module.split(".")
    if parts[0] != "impulsim" or len(parts) < 2:
        return ""
    if parts[1] == "methods" and len(parts) > 2:
        return f"{parts[2]} method"
    return parts[1]


def compile_messages(on: Optional[bool]) -> Optional[bool]:
    """Turn the message while kernels compile on (``True``: also off a terminal, one line per burst) or off
    (``False``) for this process, or back to the automatic choice (``None``: the environment variable
    ``IMPULSIM_COMPILE_MESSAGES``, else on a terminal or in IPython/Jupyter only). Returns the previous
    setting, so that a caller can put it back. Also available as ``impulsim.compile_messages``."""
    global _switch
    if on is not None and not isinstance(on, bool):
        raise ValueError(f"compile_messages expects True, False or None, got {on!r}")
    previous, _switch = _switch, on
    return previous


def messages_wanted() -> bool:
    """Whether the process-wide reporter speaks now (the rules of the module docstring)."""
    if _switch is not None:
        return _switch
    env = _env_setting()
    if env is not None:
        return env
    return not _in_worker_process() and (_isatty(sys.stderr) or _in_ipython())


def _env_setting() -> Optional[bool]:
    global _env_warned
    raw = os.environ.get(ENV)
    if raw is None:
        return None
    value = raw.strip().lower()
    if value in _ENV_VALUES:
        return _ENV_VALUES[value]
    if not _env_warned:
        _env_warned = True
        _write(sys.stderr, f"impulsim: warning: {ENV} should be 0 or 1, not {raw!r}; compile messages "
                           f"stay automatic\n")
    return None


def _in_worker_process() -> bool:
    import multiprocessing
    return multiprocessing.parent_process() is not None


def _in_ipython() -> bool:
    """True inside an IPython shell or a Jupyter kernel (without importing IPython when it is not)."""
    ipython = sys.modules.get("IPython")
    get = getattr(ipython, "get_ipython", None)
    try:
        return get is not None and get() is not None
    except Exception:        # a half-imported IPython: not a shell
        return False


def _isatty(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _write(stream, text: str) -> None:
    try:
        stream.write(text)
        stream.flush()
    except (OSError, ValueError, AttributeError):     # a closed pipe must not break a simulation
        pass


def _module_of(dispatcher) -> str:
    return getattr(getattr(dispatcher, "py_func", None), "__module__", "") or ""


class CompileReporter:
    """Listens to Numba's compile events and writes what compiles to ``stream`` (None: ``sys.stderr`` as
    it is when a burst begins).

    A *burst* is the compiling between two quiet moments (in a run: within one step). It begins with a
    kernel of impulsim that Python calls; compiling of other packages' functions is not announced. On a
    terminal (``live``) the line is redrawn while the burst lasts, e.g. ``compiling contact kernels (once;
    cached for later runs) … 12 done, 8 s``, erased while no kernel compiles, and replaced at the end by
    the burst's total; in IPython/Jupyter it is redrawn in place; elsewhere only the total is written, one
    line per burst. ``live`` True or False forces the terminal's way or the total alone. Bursts shorter than
    ``show_after`` write nothing. A burst ends when :meth:`finish` is called while nothing compiles, or by
    itself after ``quiet_after`` seconds without compiling (None: only by :meth:`finish`). Events may come
    from any thread.
    """

    def __init__(self, stream: Optional[TextIO] = None, live: Optional[bool] = None,
                 show_after: float = SHOW_AFTER, prefix: str = "", quiet_after: Optional[float] = None):
        self.stream = stream
        self.live = live
        self.show_after = float(show_after)
        self.prefix = prefix
        self.quiet_after = None if quiet_after is None else float(quiet_after)
        self.total_kernels = 0
        """impulsim kernels (each signature counts) compiled while installed."""
        self.total_seconds = 0.0
        """Seconds spent in bursts while installed."""
        self._lock = threading.RLock()
        self._depth = 0           # nesting of the compiles of the current burst
        self._skip = 0            # nesting of compiles not reported (not impulsim's, or not wanted)
        self._start: Optional[float] = None
        self._last = 0.0          # when the last compile of the burst ended
        self._kernels = 0
        self._group = ""
        self._shown = False
        self._width = 0
        self._out: Optional[TextIO] = None
        self._style = ""          # "terminal", "notebook" or "" (the total alone), fixed per burst
        self._stop: Optional[threading.Event] = None
        self._listener = None
        self._counts_as_other = True

    # installing -----------------------------------------------------------------------------------
    def install(self) -> "CompileReporter":
        """Start listening (again a no-op if listening already)."""
        global _others
        from numba.core import event

        reporter = self

        class _Listener(event.Listener):
            def on_start(self, ev):
                reporter._on_start(ev.data["dispatcher"])

            def on_end(self, ev):
                reporter._on_end(ev.data["dispatcher"])

        if self._listener is None:
            self._listener = _Listener()
            event.register("numba:compile", self._listener)
            if self._counts_as_other:
                with _others_lock:
                    _others += 1
        return self

    def uninstall(self) -> None:
        """End the current burst and stop listening."""
        global _others
        from numba.core import event
        self.finish()
        if self._listener is not None:
            event.unregister("numba:compile", self._listener)
            self._listener = None
            if self._counts_as_other:
                with _others_lock:
                    _others -= 1

    def __enter__(self) -> "CompileReporter":
        return self.install()

    def __exit__(self, *exc) -> None:
        self.uninstall()

    def attach(self, sim) -> None:
        """End a burst after every step of ``sim`` (a :class:`~impulsim.simulation.Simulation`)."""
        sim.after_step.append(lambda _sim, _info: self.finish())

    def wanted(self) -> bool:
        """Whether a burst beginning now is reported (always, for a reporter a program installs itself)."""
        return True

    def _forget(self) -> None:
        """Drop the burst under way (in a child made by ``fork``: its ticker thread did not come along, and
        the compiling was the parent's)."""
        self._lock = threading.RLock()
        self._depth = self._skip = 0
        self._start = self._stop = self._out = None
        self._shown = False

    # events ---------------------------------------------------------------------------------------
    def _on_start(self, dispatcher) -> None:
        with self._lock:
            if self._skip:
                self._skip += 1
                return
            if self._depth == 0:
                group = kernel_group(_module_of(dispatcher))
                if not group or (self._start is None and not self.wanted()):
                    self._skip = 1
                    return
                if self._start is None:
                    self._begin()
                self._group = group
                if self._style:
                    self._draw()
            self._depth += 1

    def _on_end(self, dispatcher) -> None:
        with self._lock:
            if self._skip:
                self._skip -= 1
                return
            self._depth = max(0, self._depth - 1)
            self._last = time.perf_counter()
            if kernel_group(_module_of(dispatcher)):
                self._kernels += 1
                self.total_kernels += 1
            if self._depth == 0 and self._style == "terminal":
                self._erase()             # whatever the program prints next starts on a clean line
            elif self._style:
                self._draw()

    def _begin(self) -> None:
        self._out = sys.stderr if self.stream is None else self.stream
        if self.live is not None:
            self._style = "terminal" if self.live else ""
        elif _isatty(self._out):
            self._style = "terminal"
        elif self._out is sys.stderr and _in_ipython():
            self._style = "notebook"
        else:
            self._style = ""
        self._start = self._last = time.perf_counter()
        self._kernels = 0
        self._shown = False
        self._width = 0
        if self._style or self.quiet_after is not None:
            self._stop = stop = threading.Event()
            interval = TICK if self.quiet_after is None else min(TICK, self.quiet_after)
            threading.Thread(target=self._tick, args=(stop, interval), name="impulsim-compile-messages",
                             daemon=True).start()

    def _tick(self, stop: threading.Event, interval: float) -> None:
        while not stop.wait(interval):
            with self._lock:
                if stop.is_set() or self._start is None:
                    return
                if self._depth > 0:
                    if self._style:
                        self._draw()
                elif self.quiet_after is not None and time.perf_counter() - self._last >= self.quiet_after:
                    self._end()
                    return

    # compiling done by another process for this one -----------------------------------------------
    @contextlib.contextmanager
    def compiling_elsewhere(self, group: str):
        """Show the wait for kernels that another process compiles for this one (a forked copy, see
        impulsim.forked_compile) as this process's own compiling of ``group`` kernels: the line stays up
        and counts the seconds while the block runs. :meth:`add_kernels` then counts what it compiled."""
        with self._lock:
            shown = not self._skip and (self._start is not None or self.wanted())
            if shown:
                if self._start is None:
                    self._begin()
                self._group = group
                self._depth += 1
                if self._style:
                    self._draw()
        try:
            yield
        finally:
            if shown:
                with self._lock:
                    self._depth = max(0, self._depth - 1)
                    self._last = time.perf_counter()
                    if self._depth == 0 and self._style == "terminal":
                        self._erase()

    def add_kernels(self, n: int) -> None:
        """Count ``n`` kernels compiled elsewhere for this process into the current burst's total."""
        with self._lock:
            if self._start is not None:
                self._kernels += int(n)
            self.total_kernels += int(n)

    # the line -------------------------------------------------------------------------------------
    def _draw(self) -> None:
        seconds = time.perf_counter() - self._start
        if seconds < self.show_after:
            return
        what = f"{self._group} kernels" if self._group else "kernels"
        self._put(f"{self.prefix}compiling {what} ({ONCE}) … {self._kernels} done, {seconds:.0f} s")
        self._shown = True

    def _put(self, line: str, end: str = "") -> None:
        """Write ``line`` over the live line (``end`` "\\n" to keep it)."""
        if self._style == "terminal":
            _write(self._out, "\r" + line + "\033[K" + end)
        elif self._style == "notebook":      # no escape codes: pad over a longer earlier line
            _write(self._out, "\r" + line.ljust(self._width) + end)
            self._width = 0 if end else max(self._width, len(line))
        else:
            _write(self._out, line + end)

    def _erase(self) -> None:
        if self._shown:
            _write(self._out, "\r\033[K" if self._style == "terminal" else "\r" + " " * self._width + "\r")
            self._shown = False
            self._width = 0

    def finish(self) -> None:
        """End the current burst (if any, and unless a kernel is compiling): write its total where it took
        long enough to be noticed."""
        with self._lock:
            if self._start is not None and self._depth == 0:
                self._end()

    def _end(self) -> None:
        seconds = self._last - self._start
        if self._stop is not None:
            self._stop.set()
            self._stop = None
        self.total_seconds += seconds
        if seconds >= self.show_after and self._kernels:
            self._put(f"{self.prefix}compiled {self._kernels} kernels in {seconds:.1f} s ({ONCE})", "\n")
        else:
            self._erase()
        self._shown = False
        self._start = None
        self._group = ""
        self._out = None


class _ProcessReporter(CompileReporter):
    """The process-wide reporter: speaks by :func:`messages_wanted`, and not while a program's own
    reporter is installed."""

    def __init__(self):
        super().__init__(quiet_after=QUIET_AFTER)
        self._counts_as_other = False

    def wanted(self) -> bool:
        return _others == 0 and messages_wanted()


def install_default() -> CompileReporter:
    """Install the process-wide reporter once (``import impulsim`` does); returns it."""
    global _default
    with _others_lock:
        if _default is None:
            _default = _ProcessReporter()
            atexit.register(_default.finish)    # a burst that ends with the program still gets its total
            if hasattr(os, "register_at_fork"):
                os.register_at_fork(after_in_child=_default._forget)
    return _default.install()


def default_reporter() -> CompileReporter:
    """The process-wide reporter (installed if it was not)."""
    return install_default()


def report_compiles(stream: Optional[TextIO] = None, live: Optional[bool] = None,
                    show_after: float = SHOW_AFTER) -> CompileReporter:
    """A :class:`CompileReporter` to use as a context manager around code that may compile kernels; while
    it is installed the process-wide reporter stays silent."""
    return CompileReporter(stream, live, show_after)
