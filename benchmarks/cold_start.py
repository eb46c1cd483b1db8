"""Seconds to the first step, with an empty and with a filled Numba cache, each in a fresh process.

    python benchmarks/cold_start.py                      # all scenes, median of 3, a table
    python benchmarks/cold_start.py demo boxes -n 1      # some scenes, one repetition
    python benchmarks/cold_start.py --profile boxes      # one cold run, compile time per kernel
    python benchmarks/cold_start.py boxes --against ../old-checkout   # paired with another source tree
    python benchmarks/cold_start.py wall --against ../old-checkout --alternate -n 4   # two cores each, in turn
    python benchmarks/cold_start.py boxes wall --fork-pairs -n 3     # two cores against one, alternated
    python benchmarks/cold_start.py boxes --fork-pairs --beside-thread   # the same beside a user's thread
    python benchmarks/cold_start.py boxes --fork-pairs --method lagrange  # another method

``--against DIR`` compares this source tree with the one in DIR (a checkout of another version): each
repetition runs both cold first steps at the same time, one process per core, so that both meet the same
machine load, and prints their CPU seconds and their ratio (this tree / the other); the median ratio over
the repetitions is the figure to quote on a shared machine.

Each repetition makes a new empty cache directory (NUMBA_CACHE_DIR), runs the scene's first step in a fresh
process ("cold": every kernel the step needs is compiled and written to the cache), then again in another fresh
process with that directory ("warm": the kernels are loaded from the cache). The times are those of the child
process: importing impulsim, building the model and method, and the first step (where the kernels compile or
load); "(cpu)" is the process's CPU time in that step, less disturbed by other work on a shared
machine than the wall-clock time. The cache directory is removed afterwards; the source tree's own cache is not touched.

``--fork-pairs`` runs each cold first step twice, one after the other: as it runs by default (a contact
scene's first step forks a copy that compiles the contact resolution on the second core, see
impulsim.forked_compile) and with ``IMPULSIM_PARALLEL_COMPILE=0`` (one core), and prints the wall-clock
seconds of both, their ratio, and the CPU seconds (the copy's included). With ``--beside-thread`` the measured
process runs a thread of its own, as a Jupyter kernel does: the second core is then a new interpreter, not a
fork.

The CPU seconds of a first step count those of a forked copy or new interpreter too (reaped children).

Scenes: demo (examples/double_pendulum.yaml), pendulum (examples/pendulum.yaml), boxes
(examples/falling_boxes.yaml), tree255 (Bender's 255-body tree, LGS, 1e-6), wall (the contact wall of
``impulsim bench contact``).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCENES = ("demo", "pendulum", "boxes", "tree255", "wall")


# ---------------------------------------------------------------------------------------- child process
def _scene_file_stepper(path):
    from impulsim.io import load_scene
    sim = load_scene(ROOT / path).simulation(method=os.environ.get(_METHOD) or None)
    return sim.step


def _tree_stepper():
    from impulsim.bench import bender, harness
    case = next(c for c in bender._tree_cases(True)
                if c.n_bodies == 255 and c.method == "lgs" and c.tol == 1e-6)
    model, state = case.build()
    method = harness._method(case, model)
    state.body_torque[1] = case.torque
    return lambda: method.step(state, case.h)


def _wall_stepper():
    from impulsim.bench import contact as C
    from impulsim.experiments import bender_contacts as S
    model, state = S.wall()
    method = C.make_method(model, S.WALL_SETTINGS,
                           **{**S.WALL_SOLVER, "shock_propagation": S.WALL_SHOCK_ITERATIONS})
    return lambda: method.step(state, S.WALL_H)


STEPPERS = {"demo": lambda: _scene_file_stepper("examples/double_pendulum.yaml"),
            "pendulum": lambda: _scene_file_stepper("examples/pendulum.yaml"),
            "boxes": lambda: _scene_file_stepper("examples/falling_boxes.yaml"),
            "tree255": _tree_stepper, "wall": _wall_stepper}


class _CompileTimes:
    """Listens to Numba's compile events: exclusive seconds per kernel (callees' compiles subtracted)."""

    def __init__(self):
        from numba.core import event
        self.stack, self.own, self.count = [], {}, {}

        class Listener(event.Listener):
            def on_start(inner, ev):
                self.stack.append([time.perf_counter(), 0.0])

            def on_end(inner, ev):
                start, children = self.stack.pop()
                total = time.perf_counter() - start
                d = ev.data["dispatcher"]
                key = f"{d.py_func.__module__}.{d.py_func.__qualname__}"
                self.own[key] = self.own.get(key, 0.0) + total - children
                self.count[key] = self.count.get(key, 0) + 1
                if self.stack:
                    self.stack[-1][1] += total

        event.register("numba:compile", Listener())


def child(name: str, profile: bool) -> dict:
    if os.environ.get(_BESIDE_THREAD):      # a thread of the user's, as in a Jupyter kernel: no fork beside it
        import threading
        threading.Thread(target=threading.Event().wait, name="user-thread", daemon=True).start()
    t0 = time.perf_counter()
    import impulsim  # noqa: F401
    t1 = time.perf_counter()
    times = _CompileTimes() if profile else None
    step = STEPPERS[name]()
    t2, c2 = time.perf_counter(), _cpu_with_children()
    step()
    t3, c3 = time.perf_counter(), _cpu_with_children()
    step()
    t4 = time.perf_counter()
    out = dict(scene=name, import_s=t1 - t0, build_s=t2 - t1, first_s=t3 - t2, second_s=t4 - t3,
               total_s=t3 - t0, first_cpu_s=c3 - c2)
    if profile:
        out["kernels"] = sorted(((k, round(v, 3), times.count[k]) for k, v in times.own.items()),
                                key=lambda r: -r[1])
        out["llvm"] = _llvm_seconds()
        out["signatures"] = _signatures()
    return out


_BESIDE_THREAD = "COLD_START_BESIDE_THREAD"
_METHOD = "COLD_START_METHOD"
"""The method the scene-file scenes run with (--method), if not the scene's own."""


def _cpu_with_children() -> float:
    """CPU seconds of this process and of its reaped children (a forked compiling copy)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _signatures() -> dict:
    """Argument types of every compiled specialization, per kernel compiled more than once."""
    import gc
    from numba.core.registry import CPUDispatcher
    out = {}
    for d in gc.get_objects():
        if isinstance(d, CPUDispatcher) and len(d.signatures) > 1:
            out[f"{d.py_func.__module__}.{d.py_func.__qualname__}"] = [
                ", ".join(str(t) for t in sig) for sig in d.signatures]
    return out


def _llvm_seconds() -> dict:
    """Seconds under Numba's LLVM lock per kernel (code generation and optimization, callees included)."""
    import gc
    from numba.core.registry import CPUDispatcher
    out = {}
    for d in gc.get_objects():
        if isinstance(d, CPUDispatcher):
            for cres in d.overloads.values():
                timers = (cres.metadata or {}).get("timers", {})
                if timers:
                    key = f"{d.py_func.__module__}.{d.py_func.__qualname__}"
                    out[key] = out.get(key, 0.0) + timers.get("llvm_lock", 0.0)
    return out


# --------------------------------------------------------------------------------------- parent process
def start_child(name: str, cache_dir: str, profile: bool = False, root: Path = ROOT,
                fork: bool = True, beside_thread: bool = False) -> subprocess.Popen:
    """The child process measuring scene ``name`` with the sources of ``root`` and the cache ``cache_dir``
    (``fork`` False: on one core, IMPULSIM_PARALLEL_COMPILE=0; ``beside_thread``: with a thread of its own
    running, so that the second core is a new interpreter, not a fork)."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir, PYTHONPATH=os.pathsep.join(
        p for p in (str(root / "src"), os.environ.get("PYTHONPATH", "")) if p))
    if not fork:
        env["IMPULSIM_PARALLEL_COMPILE"] = "0"
    if beside_thread:
        env[_BESIDE_THREAD] = "1"
    cmd = [sys.executable, __file__, "--child", name] + (["--profile"] if profile else [])
    return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=root)


def finish_child(name: str, proc: subprocess.Popen) -> dict:
    out, err = proc.communicate()
    if proc.returncode != 0:
        raise SystemExit(f"{name}: child failed:\n{err[-3000:]}")
    return json.loads(out.strip().splitlines()[-1])


def run_child(name: str, cache_dir: str, profile: bool = False) -> dict:
    t = time.perf_counter()
    out = finish_child(name, start_child(name, cache_dir, profile))
    out["process_s"] = time.perf_counter() - t
    return out


def cold_child(name: str, **options) -> dict:
    """One cold first step of scene ``name`` in a fresh process on an empty cache of its own, removed
    afterwards (``options`` as :func:`start_child`'s)."""
    cache = tempfile.mkdtemp(prefix="impulsim-cold-")
    try:
        return finish_child(name, start_child(name, cache, **options))
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def measure_against(name: str, other: Path, reps: int) -> list:
    """CPU seconds of the cold first step here and in ``other``, both run at the same time, per repetition."""
    pairs = []
    for i in range(reps):
        caches = [tempfile.mkdtemp(prefix="impulsim-cold-") for _ in range(2)]
        try:
            procs = [start_child(name, caches[0]), start_child(name, caches[1], root=other)]
            here, there = (finish_child(name, p)["first_cpu_s"] for p in procs)
        finally:
            for c in caches:
                shutil.rmtree(c, ignore_errors=True)
        pairs.append((here, there))
        print(f"{name:10s} {here:9.2f} {there:9.2f} {here / there:7.3f}   (load {os.getloadavg()[0]:.1f})", flush=True)
    ratio = statistics.median(h / t for h, t in pairs)
    print(f"{name:10s} median ratio {ratio:.3f} over {reps} pairs", flush=True)
    return pairs


def measure_alternated(name: str, other: Path, reps: int) -> list:
    """Cold first steps on two cores (the default way), here and in ``other``, one after the other, the order
    alternated per repetition: each gets the whole machine, so the wall-clock seconds compare."""
    pairs = []
    for i in range(reps):
        roots = (ROOT, other) if i % 2 == 0 else (other, ROOT)
        got = {root: cold_child(name, root=root) for root in roots}
        here, there = got[ROOT], got[other]
        pairs.append((here["first_s"], there["first_s"], here["first_cpu_s"], there["first_cpu_s"]))
        print(f"{name:10s} {here['first_s']:9.2f} {there['first_s']:9.2f} {here['first_s'] / there['first_s']:7.3f} "
              f"{here['first_cpu_s']:9.2f} {there['first_cpu_s']:9.2f}   (load {os.getloadavg()[0]:.1f})", flush=True)
    med = [statistics.median(p[k] for p in pairs) for k in range(4)]
    print(f"{name:10s} medians: wall {med[0]:.1f} against {med[1]:.1f} s, cpu {med[2]:.1f} against {med[3]:.1f} s "
          f"over {reps} pairs", flush=True)
    return pairs


def measure_fork_pairs(name: str, reps: int, beside_thread: bool = False) -> list:
    """Cold first steps on two cores (the default) and on one, one after the other, per repetition (with
    ``beside_thread`` both with a thread of the user's running)."""
    pairs = []
    for i in range(reps):
        two, one = (cold_child(name, fork=fork, beside_thread=beside_thread) for fork in (True, False))
        pairs.append((two["first_s"], one["first_s"], two["first_cpu_s"], one["first_cpu_s"]))
        print(f"{name:10s} {two['first_s']:9.2f} {one['first_s']:9.2f} {two['first_s'] / one['first_s']:7.3f} "
              f"{two['first_cpu_s']:9.2f} {one['first_cpu_s']:9.2f}   (load {os.getloadavg()[0]:.1f})", flush=True)
    ratio = statistics.median(p[0] / p[1] for p in pairs)
    print(f"{name:10s} median ratio {ratio:.3f} over {reps} pairs (median wall {statistics.median(p[0] for p in pairs):.1f} "
          f"against {statistics.median(p[1] for p in pairs):.1f} s)", flush=True)
    return pairs


def measure(name: str, reps: int) -> dict:
    cold, warm = [], []
    for _ in range(reps):
        cache = tempfile.mkdtemp(prefix="impulsim-cold-")
        try:
            cold.append(run_child(name, cache))
            warm.append(run_child(name, cache))
        finally:
            shutil.rmtree(cache, ignore_errors=True)
    med = lambda rows, key: statistics.median(r[key] for r in rows)   # noqa: E731
    return dict(scene=name, reps=reps, cold_first=med(cold, "first_s"), cold_total=med(cold, "total_s"),
                cold_first_cpu=med(cold, "first_cpu_s"), warm_first_cpu=med(warm, "first_cpu_s"),
                cold_import=med(cold, "import_s"), warm_first=med(warm, "first_s"),
                warm_total=med(warm, "total_s"), warm_import=med(warm, "import_s"),
                runs=dict(cold=cold, warm=warm))


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("scenes", nargs="*", default=list(SCENES), help=f"among {', '.join(SCENES)}")
    p.add_argument("-n", "--reps", type=int, default=3, help="repetitions (median taken), default 3")
    p.add_argument("--profile", action="store_true", help="one cold run per scene, compile time per kernel")
    p.add_argument("--signatures", action="store_true",
                   help="with --profile: the argument types of every kernel compiled more than once")
    p.add_argument("--json", help="also write the measurements here")
    p.add_argument("--against", metavar="DIR", help="pair each cold run with one of the source tree in DIR")
    p.add_argument("--alternate", action="store_true",
                   help="with --against: the two trees' cold first steps one after the other on two cores each "
                        "(wall-clock seconds), instead of side by side on one core each (CPU seconds)")
    p.add_argument("--fork-pairs", action="store_true",
                   help="each cold first step on two cores (the default) and on one, alternated")
    p.add_argument("--beside-thread", action="store_true",
                   help="with --fork-pairs: a thread running in the measured process (as in Jupyter), so that "
                        "the second core is a new interpreter instead of a fork")
    p.add_argument("--method", help="the method the scene-file scenes (demo, pendulum, boxes) run with, "
                                     "instead of the scene's own")
    p.add_argument("--child", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.method:
        os.environ[_METHOD] = args.method          # read by the child processes
    if args.child:
        print(json.dumps(child(args.child, args.profile)))
        return
    for name in args.scenes:
        if name not in STEPPERS:
            raise SystemExit(f"unknown scene {name!r} (use {', '.join(SCENES)})")
    rows = []
    if args.fork_pairs:
        print(f"{'scene':10s} {'two wall':>9s} {'one wall':>9s} {'ratio':>7s} {'two cpu':>9s} {'one cpu':>9s}"
              f"   (cold first step, s; cpu includes the forked copy)")
        for name in args.scenes:
            rows.append(dict(scene=name, pairs=measure_fork_pairs(name, args.reps, args.beside_thread)))
    elif args.against:
        other = Path(args.against).resolve()
        if not (other / "src" / "impulsim").is_dir():
            raise SystemExit(f"--against {args.against}: no src/impulsim there")
        if args.alternate:
            print(f"{'scene':10s} {'here wall':>9s} {'there':>9s} {'ratio':>7s} {'here cpu':>9s} {'there':>9s}"
                  f"   (cold first step on two cores, s; {other})")
            for name in args.scenes:
                rows.append(dict(scene=name, pairs=measure_alternated(name, other, args.reps)))
        else:
            print(f"{'scene':10s} {'here cpu':>9s} {'there cpu':>9s} {'ratio':>7s}   (cold first step, s; {other})")
            for name in args.scenes:
                rows.append(dict(scene=name, pairs=measure_against(name, other, args.reps)))
    elif args.profile:
        for name in args.scenes:
            r = cold_child(name, profile=True)
            rows.append(r)
            print(f"{name}: first step {r['first_s']:.1f} s ({r['first_cpu_s']:.1f} s cpu), compiled {sum(c for _, _, c in r['kernels'])} "
                  f"signatures of {len(r['kernels'])} kernels in {sum(s for _, s, _ in r['kernels']):.1f} s")
            llvm = r["llvm"]
            print(f"  {'own s':>7s}  sigs  {'llvm s (incl.)':>14s}  kernel")
            for key, s, c in r["kernels"]:
                print(f"  {s:7.2f}  {c:3d}x  {llvm.get(key, 0.0):14.2f}  {key}")
            if args.signatures:
                for key, sigs in sorted(r["signatures"].items()):
                    print(f"  {key}: {len(sigs)} signatures")
                    for sig in sigs:
                        print(f"      ({sig})")
    else:
        print(f"{'scene':10s} {'cold import':>11s} {'cold 1st step':>13s} {'(cpu)':>7s} {'cold total':>10s} "
              f"{'warm import':>11s} {'warm 1st step':>13s} {'(cpu)':>7s} {'warm total':>10s}   "
              f"(s, median of {args.reps})", flush=True)
        for name in args.scenes:
            r = measure(name, args.reps)
            rows.append(r)
            print(f"{name:10s} {r['cold_import']:11.2f} {r['cold_first']:13.2f} {r['cold_first_cpu']:7.2f} "
                  f"{r['cold_total']:10.2f} {r['warm_import']:11.2f} {r['warm_first']:13.2f} "
                  f"{r['warm_first_cpu']:7.2f} {r['warm_total']:10.2f}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
