"""Running a sweep: the cases on Dask workers, each row written when its case finishes.

:func:`run_sweep` is the whole sweep from Python and behind ``impulsim sweep``; :func:`run_case` is one
case, the unit a worker runs. Cases are independent runs from the scene's initial state, so the rows do not
depend on how many workers ran them or in which order.
"""
from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path
from typing import Callable, Iterable

import pyarrow as pa
import yaml

from impulsim.errors import ImpulsimError
from impulsim.progress import progress_bar
from impulsim.sweep.cases import build_case, read_document, set_path
from impulsim.sweep.design import Parameter, make_design, parameter_from, parse_parameter, DesignError
from impulsim.sweep.metrics import DEFAULT_METRICS, StepStats, check_metric, evaluate
from impulsim.sweep.store import Store, case_key, rows_table


class SweepError(ImpulsimError):
    """A sweep that cannot start (bad parameter, metric, design or sweep file, workers that do not come up);
    one line."""


# seconds a sweep's workers may take to come up (see docs/sweeps.md for the measured start-up times)
START_TIMEOUT = 120.0


def run_case(file: str, base: dict, index: int, values: dict, run: dict, metric_fns: dict) -> dict:
    """Run one case and return its row; any failure becomes the row's ``status``/``error``, never a raise."""
    start = time.perf_counter()
    row = {"case": index, **values}
    stats = StepStats()
    try:
        scene = build_case(base, values, file)
        duration = scene.settings.duration if run["duration"] is None else run["duration"]
        sim = scene.simulation(h=run["h"], method=run["method"], **run["options"])
        start_energy = _energy(scene.model, sim.state)
        n = max(0, int(round(duration / sim.h)))
        for _ in range(n):
            stats.add(sim.step())
        for name in run["metrics"]:
            row[name] = evaluate(name, metric_fns.get(name), scene.model, sim.state, start_energy, stats)
        row.update(status="ok", error="", steps=n)
    except Exception as exc:             # the case failed: keep the reason in its row
        for name in run["metrics"]:
            row.setdefault(name, float("nan"))
        row.update(status="failed", error=_first_line(exc), steps=len(stats.contacts))
    row.update(run_time_s=time.perf_counter() - start, worker=f"{os.uname().nodename}:{os.getpid()}")
    return row


def _energy(model, state) -> float:
    from impulsim.dynamics.diagnostics import total_energy
    return total_energy(model, state)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"[:300]


def _parameters(params) -> list[Parameter]:
    """Parameters from a {path: values} mapping, ``PATH=VALUES`` strings or Parameter objects."""
    if isinstance(params, dict):
        return [parameter_from(path, values) for path, values in params.items()]
    return [p if isinstance(p, Parameter) else parse_parameter(p) for p in params or ()]


def _metrics(metrics) -> tuple[list[str], dict]:
    """Metric names in order and the user functions among them."""
    if metrics is None:
        return list(DEFAULT_METRICS), {}
    if isinstance(metrics, dict):
        return list(metrics), {k: v for k, v in metrics.items() if callable(v)}
    names, fns = [], {}
    for m in metrics:
        if isinstance(m, tuple):
            names.append(m[0])
            fns[m[0]] = m[1]
        else:
            names.append(m)
    return names, fns


def _check(file, base, cases, names, fns, method, options):
    """Fail early, in one line, on what would make every case fail: a path, a metric, the method."""
    try:
        scene = build_case(base, cases[0], file)
        for name in names:
            if name not in fns:
                check_metric(name, scene.model)
        scene.make_method(method, **options)
        for values in cases[1:]:              # every path must lead into the scene
            doc = yaml.safe_load(yaml.safe_dump(base))
            for path, value in values.items():
                set_path(doc, path, value)
    except (ValueError, ImpulsimError) as exc:
        raise SweepError(str(exc).splitlines()[0]) from None
    return scene


def run_sweep(scene: str | os.PathLike, params=None, *, design: str = "grid", samples: int | None = None,
              seed: int = 0, method: str | None = None, duration: float | None = None, h: float | None = None,
              options: dict | None = None, metrics=None, out: str | os.PathLike | None = None,
              workers: int | None = None, scheduler: str | None = None, start_method: str | None = None,
              start_timeout: float = START_TIMEOUT, progress: bool = False,
              say: Callable[[str], None] | None = None) -> pa.Table:
    """Run every case of a design over the scene file ``scene`` and return the table of rows.

    ``params``: {path: values} (values as ``"0.1,0.2"``, ``"0.2:0.9:8"``, ``"0.2:0.9"``, a list or
    ``{from, to, num}``) or a list of ``"PATH=VALUES"`` strings. ``metrics``: names (see
    :mod:`impulsim.sweep.metrics`) or {name: f(model, state)}. ``out``: the directory the rows are written
    to (default ``out/sweep-SCENE``); cases already there with the same key are not run again.
    ``workers``: Dask worker processes on this machine (default: the number of cores; 0 runs the cases in
    this process without Dask); ``scheduler``: the address of a running Dask scheduler to use instead.
    ``start_method``: how the local cluster starts its worker processes: ``forkserver`` (the default on
    Linux: forked from a clean server process that has imported impulsim), ``spawn`` (the default elsewhere:
    a fresh interpreter) or ``fork`` (a copy of this process, the fastest, but it can deadlock when this
    process runs other threads; see docs/sweeps.md). ``start_timeout``: seconds the local cluster's
    workers, or the connection to ``scheduler`` and its first worker, may take to come up; past it the
    sweep stops with a :class:`SweepError` and the worker processes it started are ended.
    """
    say = say or (lambda line: None)
    file = str(scene)
    try:
        text, base = read_document(file)
        cases = make_design(_parameters(params), design, samples, seed)
    except (DesignError, ValueError) as exc:
        raise SweepError(str(exc).splitlines()[0]) from None
    names, fns = _metrics(metrics)
    options = dict(options or {})
    if start_method is not None and scheduler is None:
        _start_method(start_method)           # an unknown method stops the sweep before any case runs
    start_timeout = _positive_timeout(start_timeout)
    scene_obj = _check(file, base, cases, names, fns, method, options)
    run = {"method": method, "options": options, "duration": duration, "h": h, "metrics": names}
    store = Store(out or Path("out") / f"sweep-{Path(file).stem}")
    manifest = {"scene": file, "design": design, "samples": samples, "seed": seed,
                "parameters": list(cases[0]), "run": {**run, "metrics": names}, "cases": len(cases)}
    return _run_cases(store, cases, [case_key(text, values, run) for values in cases], manifest, names, design,
                      lambda i: (run_case, file, base, i, cases[i], run, fns), Path(file).name,
                      lambda: _warm_up(scene_obj, method, options, h, say),
                      (workers, scheduler, start_method, start_timeout), progress, say)


def _run_cases(store, cases, keys, manifest, names, design, task, title, warm_up, dask_args, progress,
               say) -> pa.Table:
    """The part every sweep shares: skip the cases already stored with the same key, run the others
    (``task(i)`` is the case's function and its arguments; ``dask_args``: workers, scheduler, start method
    and start timeout), write each row when its case finishes, and write the table of all rows."""
    rows, todo = {}, []
    for i, key in enumerate(keys):
        row = store.done(i, key)
        if row is None:
            todo.append(i)
        else:
            rows[i] = row
    store.write_manifest(manifest)
    say(f"sweep of {title}: {len(cases)} cases, {len(rows)} already done, writing to {store.out}")
    if todo:
        warm_up and warm_up()
        for i, row in _execute(task, todo, *dask_args, progress, say):
            row["key"] = keys[i]
            store.write_case(i, row)
            rows[i] = row
    table = store.write_results(list(rows.values()), list(cases[0]), names, design)
    failed = sum(1 for r in rows.values() if r.get("status") != "ok")
    say(f"{len(rows)} cases, {failed} failed; table in {store.out / 'results.parquet'}")
    return table


def run_function_case(fn: Callable[[dict], dict], index: int, values: dict, names: list) -> dict:
    """Run ``fn(values)`` for one case and return its row: the values and the metrics ``fn`` returned; any
    failure (a raise, or a result that is not a mapping) becomes the row's ``status``/``error``."""
    start = time.perf_counter()
    row = {"case": index, **values}
    try:
        result = fn(dict(values))
        if not isinstance(result, dict):
            raise TypeError(f"{_qualified_name(fn)} returned {type(result).__name__}, not a dict of metrics")
        clash = sorted(set(result) & (set(values) | {"case", "status", "error", "key"}))
        if clash:
            raise ValueError(f"{_qualified_name(fn)} returned {clash[0]!r}, a parameter or row column")
        row.update(result)
        row.update(status="ok", error="")
    except Exception as exc:             # the case failed: keep the reason in its row
        for name in names:               # null, not NaN: a metric may be text
            row.setdefault(name, None)
        row.update(status="failed", error=_first_line(exc))
    row.update(run_time_s=time.perf_counter() - start, worker=f"{os.uname().nodename}:{os.getpid()}")
    return row


def _qualified_name(fn) -> str:
    return f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', repr(fn))}"


def run_function_sweep(fn: Callable[[dict], dict], params, *, design: str = "grid", samples: int | None = None,
                       seed: int = 0, metrics: list[str] | None = None, key: str = "",
                       out: str | os.PathLike | None = None, workers: int | None = None,
                       scheduler: str | None = None, start_method: str | None = None,
                       start_timeout: float = START_TIMEOUT, progress: bool = False,
                       say: Callable[[str], None] | None = None) -> pa.Table:
    """Run ``fn(values)`` for every case of a design and return the table of rows, as :func:`run_sweep`
    does for a scene: the same designs, Dask workers, rows written at once, failed cases kept as rows.
    If ``fn`` has a ``warm_up`` attribute (a callable without arguments), it is called once here before
    the workers start, so that the kernels the cases need are compiled once (see :func:`_warm_up`).

    ``fn``: a top-level (importable, picklable) function from a case's {path: value} to a {name: value}
    dict of metrics (numbers or text); an application's run, say. ``params``: as in :func:`run_sweep`; the
    paths mean whatever ``fn`` makes of them. ``metrics``: the names ``fn`` returns, used for the plot
    metadata and as null columns of failed cases (default: whatever it returns). A case's key is ``fn``'s
    qualified name, its values, the metric names and ``key``: a rerun into the same ``out`` skips the cases
    already there; change ``key`` (a version, say) when ``fn`` itself changed and the rows must be redone.
    ``workers``, ``scheduler``, ``start_method``, ``start_timeout``: as in :func:`run_sweep`."""
    say = say or (lambda line: None)
    name = _qualified_name(fn)
    if not callable(fn) or "<lambda>" in name or "<locals>" in name:
        raise SweepError(f"run_function_sweep: {name} is not a top-level function (workers import it by name)")
    try:
        cases = make_design(_parameters(params), design, samples, seed)
    except (DesignError, ValueError) as exc:
        raise SweepError(str(exc).splitlines()[0]) from None
    names = list(metrics or ())
    if start_method is not None and scheduler is None:
        _start_method(start_method)
    start_timeout = _positive_timeout(start_timeout)
    run = {"function": name, "metrics": names, "key": key}
    store = Store(out or Path("out") / f"sweep-{getattr(fn, '__name__', 'function')}")
    manifest = {"function": name, "design": design, "samples": samples, "seed": seed,
                "parameters": list(cases[0]), "run": run, "cases": len(cases)}
    return _run_cases(store, cases, [case_key(name, values, run) for values in cases], manifest, names,
                      design, lambda i: (run_function_case, fn, i, cases[i], names), name,
                      _function_warm_up(fn, say), (workers, scheduler, start_method, start_timeout),
                      progress, say)


def _function_warm_up(fn, say):
    """``fn.warm_up`` run like the scene sweeps' warm-up (:func:`_timed_warm_up`), or None."""
    hook = getattr(fn, "warm_up", None)
    return (lambda: _timed_warm_up(hook, say)) if callable(hook) else None


def resolve_function(spec: str) -> Callable[[dict], dict]:
    """The function named by ``"package.module:name"`` (a sweep's ``function``), imported."""
    import importlib
    module_name, sep, attr = str(spec).partition(":")
    if not sep or not module_name or not attr:
        raise SweepError(f"function {spec!r}: expected MODULE:NAME, e.g. impulsim.apps.bobsleigh.sweep:bob_case")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise SweepError(f"function {spec!r}: cannot import {module_name}: {exc}") from None
    fn = getattr(module, attr, None)
    if not callable(fn):
        raise SweepError(f"function {spec!r}: {module_name} has no function {attr!r}")
    return fn


def _warm_up(scene, method, options, h, say) -> None:
    """One step of the base scene here, before the workers start, so that the kernels are compiled once:
    the workers on this machine load them from Numba's on-disk cache instead of compiling them again
    (workers started with ``fork`` begin with them loaded)."""
    _timed_warm_up(lambda: scene.simulation(h=h, method=method, **options).step(), say)


def _timed_warm_up(action, say) -> None:
    """Run ``action`` once; a failure is left for the cases to report. A compile of over 1 s is said here
    unless the process's compile line (:mod:`impulsim.compiling`) has just said it."""
    from impulsim.compiling import default_reporter
    start = time.perf_counter()
    try:
        action()
    except Exception:            # the cases will report it
        return
    finally:
        default_reporter().finish()
    seconds = time.perf_counter() - start
    if seconds > 1.0 and not default_reporter().wanted():
        say(f"compiled the kernels once in {seconds:.1f} s (cached for the workers)")


def _execute(task, todo, workers, scheduler, start_method, start_timeout, progress, say) -> Iterable:
    """(case index, row) as each case finishes, ``task(i)`` giving the case's function and arguments: in
    this process, or on Dask."""
    bar = _bar(len(todo), progress)
    if workers == 0 and scheduler is None:
        for i in todo:
            fn, *args = task(i)
            yield i, fn(*args)
            bar and bar.update(1)
        bar and bar.close()
        return
    from distributed import as_completed
    with _client(workers, scheduler, start_method, start_timeout, say) as client:
        futures = {}
        for i in todo:
            fn, *args = task(i)
            futures[client.submit(fn, *args, key=f"case-{i}-{os.getpid()}", pure=False)] = i
        for future in as_completed(futures):
            yield futures[future], future.result()
            bar and bar.update(1)
    bar and bar.close()


def _positive_timeout(seconds) -> float:
    """``start_timeout`` as a number of seconds above zero, else a SweepError."""
    try:
        value = float(seconds)
    except (TypeError, ValueError):
        value = float("nan")
    if not value > 0:
        raise SweepError(f"start_timeout {seconds!r}: expected a number of seconds above 0")
    return value


class _client:
    """A Dask client on a new LocalCluster (closed afterwards) or on the scheduler at ``address``; either
    up within ``timeout`` seconds, else a SweepError and the worker processes started here ended."""

    def __init__(self, workers, address, start_method, timeout, say):
        self.workers, self.address, self.start_method, self.say = workers, address, start_method, say
        self.timeout = timeout
        self.stack = contextlib.ExitStack()

    def __enter__(self):
        with self.stack as stack:
            self.client = self._connect(stack) if self.address else self._local_cluster(stack)
            self.stack = stack.pop_all()
        link = getattr(self.client, "dashboard_link", None) if _has_bokeh() else None
        self.say(f"Dask: {len(self.client.scheduler_info()['workers'])} workers"
                 + (f", dashboard {link}" if link else ""))
        return self.client

    def __exit__(self, *exc):
        self.stack.close()

    def _connect(self, stack):
        """A client on the running scheduler at ``address`` that has at least one worker."""
        from distributed import Client
        start = time.monotonic()
        try:
            client = stack.enter_context(Client(self.address, timeout=self.timeout))
        except (OSError, TimeoutError) as exc:
            raise SweepError(f"Dask scheduler {self.address}: not reachable within {self.timeout:g} s "
                             f"({_first_line(exc)}); check that it runs at that address, or raise "
                             f"start_timeout") from None
        try:
            client.wait_for_workers(1, timeout=max(1.0, self.timeout - (time.monotonic() - start)))
        except TimeoutError:
            raise SweepError(f"Dask scheduler {self.address}: no worker joined within {self.timeout:g} s; "
                             f"start workers with `dask worker {self.address}`") from None
        return client

    def _local_cluster(self, stack):
        """A client on a new LocalCluster of one single-threaded worker process per case slot, every one of
        them up within ``timeout`` (the cluster starts empty and grows, so that the wait has a deadline)."""
        import logging
        import dask
        from distributed import Client, LocalCluster
        n = self.workers or os.cpu_count() or 1
        method = _start_method(self.start_method)
        stack.enter_context(dask.config.set({"distributed.worker.multiprocessing-method": method}))
        _preload_forkserver(method)
        start = time.monotonic()
        before = set(_descendants())   # pids of this process's children before the cluster (see _end_strays)
        cluster = LocalCluster(n_workers=0, threads_per_worker=1, processes=True,
                               dashboard_address=":0" if _has_bokeh() else None, silence_logs=logging.ERROR)
        processes = {}                 # pid: psutil.Process of every worker process seen, to end if need be
        closing = [self.timeout]       # how long closing the cluster may take before its processes are ended
        strays = [None]                # after a failed start: the children before it (see _end_strays)
        stack.callback(lambda: _close_cluster(cluster, closing[0], processes, strays[0]))
        client = stack.enter_context(Client(cluster))
        cluster.scale(n)
        deadline = start + self.timeout
        while True:                    # in slices: note the processes, see one that failed to start at once
            try:
                client.wait_for_workers(n, timeout=max(0.1, min(1.0, deadline - time.monotonic())))
                _note_processes(cluster, processes)
                return client
            except TimeoutError:
                pass
            _note_processes(cluster, processes)
            failed = _failed_workers(cluster)
            if failed or time.monotonic() >= deadline:
                break
        up = len(client.scheduler_info()["workers"])
        waited = time.monotonic() - start
        _kill(processes.values())      # not up by now: stuck or failed, not slow
        closing[0], strays[0] = 10.0, before
        what = (f"{failed} of {n} worker processes (start method {method!r}) failed to start" if failed else
                f"{n - up} of {n} worker processes (start method {method!r}) not up after {waited:.0f} s")
        raise SweepError(f"Dask local cluster: {what}; try start_method='spawn', fewer workers or a longer "
                         f"start_timeout (now {self.timeout:g} s)")


def _failed_workers(cluster) -> int:
    """How many of the cluster's worker processes failed to start (their nanny says so)."""
    return sum(1 for nanny in list(getattr(cluster, "_created", ()))
               if str(getattr(nanny, "status", "")) == "Status.failed")


def _close_cluster(cluster, timeout: float, processes: dict, strays_since: set | None = None) -> None:
    """Close ``cluster`` within about ``timeout`` seconds, then end any of its worker ``processes`` still
    alive ({pid: psutil.Process}); after a failed start (``strays_since``: the pids of this process's children
    before the cluster) also the worker processes whose nannies never gave their pid (see _end_strays)."""
    _note_processes(cluster, processes)
    try:
        cluster.close(timeout=timeout)
    except Exception:          # a cluster that does not close in time: its processes are ended below
        pass
    _note_processes(cluster, processes)
    _kill(processes.values())
    if strays_since is not None:
        _end_strays(strays_since)


def _descendants() -> dict:
    """{pid: psutil.Process} of every process this one started, directly or through theirs."""
    import psutil
    try:
        return {p.pid: p for p in psutil.Process().children(recursive=True)}
    except psutil.Error:
        return {}


def _end_strays(before: set) -> None:
    """End the worker processes a failed start left behind without telling their pids: on a loaded machine a
    nanny may start its worker process only after the deadline, and with the fork server that process is a
    child of the server, not of the nanny. Ended: the processes this one started, directly or through the
    fork server, since ``before`` (pids) was taken, but for the fork server itself and the resource tracker,
    which this process keeps for later clusters."""
    keep = before | _multiprocessing_helpers()
    new = [p for pid, p in _descendants().items() if pid not in keep]
    _kill(new)


def _multiprocessing_helpers() -> set:
    """The pids of multiprocessing's fork server and resource tracker of this process, where they run."""
    from multiprocessing import forkserver, resource_tracker
    pids = {getattr(getattr(forkserver, "_forkserver", None), "_forkserver_pid", None),
            getattr(getattr(resource_tracker, "_resource_tracker", None), "_pid", None)}
    return {p for p in pids if p}


def _note_processes(cluster, processes: dict) -> None:
    """Add the cluster's worker processes, those still starting included, to ``processes`` (by pid)."""
    import psutil
    nannies = list(getattr(cluster, "_created", ())) + list(getattr(cluster, "workers", {}).values())
    for nanny in nannies:
        pid = getattr(getattr(getattr(nanny, "process", None), "process", None), "pid", None)
        if pid and pid not in processes:
            try:
                processes[pid] = psutil.Process(pid)
            except psutil.Error:       # already gone
                pass


def _kill(processes, wait: float = 10.0) -> None:
    """End ``processes`` (psutil.Process; SIGKILL, which psutil sends only to the process it first saw
    under that pid) and wait up to ``wait`` seconds until none runs; reaping them is left to their parent."""
    import psutil
    for proc in processes:
        try:
            proc.kill()
        except psutil.Error:       # already gone
            pass
    end = time.monotonic() + wait
    while any(_running(proc) for proc in processes) and time.monotonic() < end:
        time.sleep(0.05)


def _running(proc) -> bool:
    import psutil
    try:
        return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def _start_method(chosen: str | None) -> str:
    """How the local cluster starts its worker processes: the ``chosen`` method, else ``forkserver`` where
    there is one (Linux): workers forked from a server process that has imported impulsim but runs no
    other thread, so that no lock can be copied held (``fork`` copies this process, threads' locks and
    all), else ``spawn``."""
    import multiprocessing
    methods = multiprocessing.get_all_start_methods()
    if chosen is not None:
        if chosen not in methods:
            raise SweepError(f"start_method {chosen!r}: this system has {', '.join(methods)}")
        return chosen
    return "forkserver" if "forkserver" in methods else "spawn"


def _preload_forkserver(method: str) -> None:
    """Before the fork server starts (at the first ``forkserver`` cluster of this process), add impulsim's
    sweep runner (and with it impulsim, NumPy, SciPy and Numba) to the modules Dask has it import: every
    worker forked from it then begins with them imported."""
    if method != "forkserver":
        return
    import multiprocessing.forkserver
    from distributed.utils import get_mp_context
    get_mp_context()                          # sets Dask's own preload list, once a process
    have = list(getattr(multiprocessing.forkserver._forkserver, "_preload_modules", None) or ["distributed"])
    if "impulsim.sweep.runner" not in have:
        multiprocessing.forkserver.set_forkserver_preload(have + ["impulsim.sweep.runner"])


def _has_bokeh() -> bool:
    try:
        import bokeh  # noqa: F401
        return True
    except ImportError:
        return False


def _bar(n, enabled):
    """The progress bar over the ``n`` cases to run, or None without ``progress``."""
    return progress_bar(n, "sweep", unit="case") if enabled else None


def read_sweep(out: str | os.PathLike) -> pa.Table:
    """Every finished case's row of the sweep in ``out`` (also while it runs, or after it was killed)."""
    import json
    import pyarrow.parquet as pq
    cases = sorted((Path(out) / "cases").glob("case-*.parquet"))
    manifest = Path(out) / "manifest.json"
    info = json.loads(manifest.read_text()) if manifest.exists() else {}
    return rows_table([row for path in cases for row in pq.read_table(path).to_pylist()],
                      info.get("parameters", ()), info.get("run", {}).get("metrics", ()), info.get("design"))


def load_sweep_file(path: str | os.PathLike) -> dict:
    """A sweep file (YAML) as keyword arguments of :func:`run_sweep` (with ``scene``) or of
    :func:`run_function_sweep` (with ``function: MODULE:NAME`` instead, and ``key``); relative scene paths
    resolve from the sweep file's folder. Keys: scene or function, params, design, samples, seed, method,
    duration, h, options (scenes only), metrics, out, workers, scheduler, start_method, start_timeout,
    key."""
    path = Path(path)
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SweepError(f"{path}: no such sweep file") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark else str(path)
        raise SweepError(f"{where}: YAML syntax error: {getattr(exc, 'problem', exc)}") from None
    allowed = {"scene", "function", "key", "params", "design", "samples", "seed", "method", "duration", "h",
               "options", "metrics", "out", "workers", "scheduler", "start_method", "start_timeout"}
    if not isinstance(doc, dict) or ("scene" in doc) == ("function" in doc):
        raise SweepError(f"{path}: a sweep file is a mapping with 'params' and either 'scene' or 'function'")
    unknown = sorted(set(doc) - allowed)
    if unknown:
        raise SweepError(f"{path}: unknown key {unknown[0]!r} (allowed: {', '.join(sorted(allowed))})")
    kwargs = dict(doc)
    if "function" in doc:
        scene_only = sorted(set(doc) & {"method", "duration", "h", "options"})
        if scene_only:
            raise SweepError(f"{path}: {scene_only[0]!r} applies to a scene sweep, not to a function")
    elif "key" in doc:
        raise SweepError(f"{path}: 'key' applies to a function sweep (a scene sweep keys on the scene's text)")
    else:
        kwargs["scene"] = str((path.parent / doc["scene"]).resolve())
    if "out" in kwargs:
        kwargs["out"] = str(path.parent / kwargs["out"])
    return kwargs
