"""Compiling the Numba kernels ahead of use (``impulsim warmup``).

The hot loops are Numba kernels compiled on first use and kept in Numba's on-disk cache, one directory per
version of the sources (:mod:`impulsim.kernel_cache`). The first step of a scene on an empty cache therefore waits for
the kernels it needs to compile, once per installation; later runs load them from the cache in well under
a second.

While kernels compile, a one-line message on stderr says what is compiling, that it happens once, and how
far it got. That message is :mod:`impulsim.compiling`'s (re-exported here: :class:`CompileReporter`,
:func:`report_compiles`, :func:`compile_messages`): ``import impulsim`` installs it for the whole process,
and it speaks when stderr is a terminal or the code runs in IPython/Jupyter, for library use and every
``impulsim`` command alike (``-q`` silences a command; ``impulsim.compile_messages(False)`` or
``IMPULSIM_COMPILE_MESSAGES=0`` a program, ``True`` or ``1`` turn it on elsewhere too).

:func:`warm_up` (``impulsim warmup``) compiles ahead what the scenes of each group need, by stepping small
scenes that take the same code paths as a scene file run with ``impulsim run``, so that later first steps
only load from the cache; applications add tasks of their own (:func:`plugin_tasks`, the bobsleigh
simulator's). Its own reporter prefixes each line with the task (and silences the process-wide
one meanwhile). :func:`warmup_command` deals the groups out to one worker process per usable core
(:func:`shares`, balanced by each group's compile time), which compile side by side into the same on-disk
cache and send their lines to the command; ``--jobs 1`` runs every task in the command's own process.
"""
from __future__ import annotations

import sys
import threading
import time
from dataclasses import dataclass
from typing import Callable, Optional, TextIO

from impulsim.compiling import (ONCE, SHOW_AFTER, TICK, CompileReporter, compile_messages,  # noqa: F401
                                kernel_group, report_compiles)
from impulsim.errors import ImpulsimError


# ---------------------------------------------------------------------------------------------- warm-up
@dataclass(frozen=True)
class WarmupTask:
    """Steps of one small scene that compile the kernels of one kind of scene."""
    name: str
    group: str
    scene: str = ""
    """Scene text (YAML, the format of ``impulsim run``)."""
    steps: int = 3
    method: Optional[str] = None
    options: tuple = ()
    action: Optional[Callable[[], None]] = None
    """Instead of stepping ``scene``: a function that does the work (an application's task, see
    :func:`plugin_tasks`)."""
    cpu_s: float = 0.0
    """CPU seconds the task takes alone on an empty cache, for an application's group (the library's groups are
    weighed by :data:`GROUP_CPU_S`)."""
    contact_loop: bool = False
    """Whether the task also compiles the impulse method's compiled contact loop for its scene
    (:mod:`impulsim.methods.impulse.contact_run`: about two minutes of CPU for each set of shape kinds, so only
    for the common one)."""


_DOUBLE_PENDULUM = """
settings: {h: 0.001, duration: 1, eps_d: 1.0e-6, eps_v: 1.0e-6}
bodies:
  - {name: upper, shapes: [box: {size: [0.05, 1.0, 0.05]}], density: 1000, position: [0, 0.5, 0]}
  - {name: lower, shapes: [box: {size: [0.05, 0.05, 1.0]}], density: 1000, position: [0, 1.0, -0.5]}
joints:
  - {name: shoulder, type: hinge, bodies: [world, upper], anchor: [0, 0, 0], axis: [1, 0, 0]}
  - {name: elbow, type: hinge, bodies: [upper, lower], anchor: [0, 1, 0], axis: [1, 0, 0]}
"""

_FORCE_ELEMENTS = """
settings: {h: 0.001, duration: 1}
bodies:
  - {name: upper_arm, shapes: [box: {size: [0.05, 0.05, 0.5]}], density: 1000, position: [0, 0, -0.25]}
  - {name: forearm, shapes: [box: {size: [0.05, 0.05, 0.5]}], density: 1000, position: [0, 0, -0.75]}
  - {name: weight, mass: 1.0, inertia: [0.001, 0.001, 0.001], position: [1, 0, -0.5]}
joints:
  - {name: shoulder, type: hinge, bodies: [world, upper_arm], anchor: [0, 0, 0], axis: [1, 0, 0]}
  - {name: elbow, type: hinge, bodies: [upper_arm, forearm], anchor: [0, 0, -0.5], axis: [1, 0, 0]}
servos:
  - {name: shoulder_servo, joint: shoulder, mode: angle, kp: 200, ki: 300, kd: 15, limit: 60,
     setpoints: [[0, 0.0], [0.5, 1.2]]}
springs:
  - {name: spring, bodies: [world, weight], anchor_a: [1, 0, 0], anchor_b: [0, 0, 0], stiffness: 100,
     damping: 1, rest_length: 0.5}
"""
"""An arm with a servo and a weight on a spring. The weight has no shape, so that nothing collides: a model with
force elements and without contacts runs in the compiled loops with force elements (run_path), which are
what this scene is for (contacts are the contact group's)."""

_SHAPELESS_WEIGHT = "{name: weight, mass: 1.0, inertia: [0.001, 0.001, 0.001], position: [1, 0, -0.5]}"
_JOINTS_AND_CONTACTS = _FORCE_ELEMENTS.replace(
    _SHAPELESS_WEIGHT, "{name: weight, shapes: [sphere: {radius: 0.05}], mass: 1.0, position: [1, 0, -0.5]}")
"""The same arm with a sphere for the weight, which may then hit the arm: a scene with joints, force elements and
contacts, whose iterative joint correction takes the joints of a contact island (kernels of their own)."""

_CONTACTS = """
settings: {h: 0.002, duration: 1, eps_d: 1.0e-5, eps_v: 1.0e-5, eps_vc: 1.0e-3, shock_propagation: 20}
materials:
  floor: {static_friction: 0.3, dynamic_friction: 0.25, restitution: 0.7}
  wood: {static_friction: 0.2, dynamic_friction: 0.15, restitution: 0.7, density: 600}
bodies:
  - {name: ground, shapes: [half_space: {material: floor}], static: true}
  - {name: box1, shapes: [box: {size: [0.4, 0.3, 0.2], material: wood}], position: [0, 0, 0.099],
     velocity: [0, 0, -0.5]}
  - {name: box2, shapes: [box: {size: [0.3, 0.3, 0.3], material: wood}], position: [0.05, 0.02, 0.348],
     orientation: {axis: [0, 0, 1], angle: 0.3}, velocity: [0, 0, -0.5]}
  - {name: ball, shapes: [sphere: {radius: 0.1, material: wood}], position: [0.8, 0, 0.099],
     velocity: [0, 0, -0.5]}
  - {name: rod, shapes: [capsule: {radius: 0.05, length: 0.5, material: wood}], position: [-0.8, 0, 0.049],
     orientation: {axis: [0, 1, 0], angle: 1.5707963267948966}, velocity: [0, 0, -0.5]}
  - {name: drum, shapes: [cylinder: {radius: 0.1, length: 0.3, material: wood}], position: [0, 0.8, 0.149],
     velocity: [0, 0, -0.5]}
  - {name: egg, shapes: [ellipsoid: {semi_axes: [0.1, 0.08, 0.06], material: wood}], position: [0, -0.8, 0.059],
     velocity: [0, 0, -0.5]}
"""


_MESH_CONTACTS = """
settings: {h: 0.002, duration: 1}
bodies:
  - {name: floor, static: true, shapes: [mesh: {vertices: [[-1, -1, 0], [1, -1, 0], [1, 1, 0], [-1, 1, 0]],
                                                triangles: [[0, 1, 2], [0, 2, 3]]}]}
  - {name: box, shapes: [box: {size: [0.2, 0.2, 0.2]}], density: 500, position: [0, 0, 0.099],
     velocity: [0, 0, -0.5]}
"""
"""A box dropping onto a floor of two triangles: the narrow phase with its triangle-mesh path, which a scene with
a mesh shape takes, and so does every imported robot whose collision geometry is a mesh (UR5's first step
after the warm-up compiled it: 22 s of CPU)."""

_LIMITS = _DOUBLE_PENDULUM + """limits:
  - {name: shoulder_stops, joint: shoulder, lower: -0.5, upper: 0.5, restitution: 0.5}
  - {name: elbow_stops, joint: elbow, lower: -1.0, upper: 1.0}
"""
"""The double pendulum between stops: a model with joint limits and without contacts runs in the compiled loop
with limits (methods/impulse/limit_run.py), one version for LGS chains and one for joints corrected one by one."""

_LIMITS_AND_SPRING = _LIMITS + """springs:
  - {name: spring, bodies: [world, lower], anchor_a: [0, 1, -1], anchor_b: [0, 0, -0.5], stiffness: 10,
     damping: 1, rest_length: 0.2}
"""
"""The pendulum between stops with a spring: the loops with limits and force elements (``limits_run_elements``),
which a scene with limits and springs, motors or servos takes, and every imported robot with joint damping
(imports use the LGS solver). Each follows its loop without elements in the same process, which shares the
kernels both call (about 10 s each instead of 27 in a process of its own)."""

_BASIC_CONTACTS = _CONTACTS.split("  - {name: drum")[0]
"""The contact scene without its cylinder and ellipsoid: the narrow phase of a scene whose shapes are all
boxes, spheres, capsules and half-spaces is compiled without the other kinds' code (collision.core.BASIC_KINDS),
so both versions are warmed up."""


_CONTACTS_AND_A_PENDULUM = _BASIC_CONTACTS + """\
  - {name: arm, shapes: [box: {size: [0.05, 0.05, 0.5]}], density: 1000, position: [0, 2, 1.25]}
joints:
  - {name: pivot, type: hinge, bodies: [world, arm], anchor: [0, 2, 1.5], axis: [1, 0, 0]}
"""
"""The scene of boxes, spheres and capsules with a pendulum swinging apart: the other methods' contact steps
of a model with joints (Lagrange's projection onto its joints after contact forces, Featherstone's contacts
of a tree with a joint), which contacts alone do not reach."""


_CONTACTS_AND_A_LIMITED_PENDULUM = _CONTACTS_AND_A_PENDULUM + """\
limits:
  - {name: stop, joint: pivot, lower: -0.5, upper: 0.5, restitution: 0.3}
"""
"""The pendulum beside the boxes, spheres and capsules with stops on its hinge: the compiled contact loop's
version for joint limits."""


def _tasks() -> list[WarmupTask]:
    return [
        WarmupTask("impulse method, iterative solver", "impulse", _DOUBLE_PENDULUM),
        WarmupTask("impulse method, LGS solver", "impulse", _DOUBLE_PENDULUM, options=(("solver", "lgs"),)),
        WarmupTask("impulse method, servos and springs", "impulse", _FORCE_ELEMENTS),
        # a model with force elements runs a loop of its own per solver (run_path._loop): LGS's too
        WarmupTask("impulse method, servos and springs, LGS solver", "impulse", _FORCE_ELEMENTS,
                   options=(("solver", "lgs"),)),
        # the rotation scheme is compiled into the kernels (dynamics.integrate.rotation_scheme): RK4 above
        WarmupTask("impulse method, Euler rotation", "impulse", _DOUBLE_PENDULUM, options=(("integrator", "euler"),)),
        WarmupTask("impulse method, Cash-Karp rotation", "impulse", _DOUBLE_PENDULUM,
                   options=(("integrator", "rk45"),)),
        WarmupTask("impulse method, joint limits", "impulse", _LIMITS),
        WarmupTask("impulse method, joint limits and springs", "impulse", _LIMITS_AND_SPRING),
        WarmupTask("impulse method, joint limits, LGS solver", "impulse", _LIMITS, options=(("solver", "lgs"),)),
        WarmupTask("impulse method, joint limits and springs, LGS solver", "impulse", _LIMITS_AND_SPRING,
                   options=(("solver", "lgs"),)),
        WarmupTask("impulse method with contacts", "contact", _CONTACTS, steps=5),
        WarmupTask("impulse method with contacts (boxes, spheres, capsules)", "contact", _BASIC_CONTACTS, steps=5),
        WarmupTask("impulse method with contacts and joints", "contact", _JOINTS_AND_CONTACTS),
        WarmupTask("impulse method with contacts on a triangle mesh", "contact", _MESH_CONTACTS),
        # the other methods' own contact kernels, in the contact group's process, which has the detection
        # compiled by then (a group of their own would compile it once more, side by side)
        WarmupTask("Featherstone method with contacts", "contact", _CONTACTS_AND_A_PENDULUM, method="featherstone"),
        WarmupTask("Lagrange method with contacts", "contact", _CONTACTS_AND_A_PENDULUM, method="lagrange"),
        WarmupTask("Moreau method with contacts", "contact", _CONTACTS_AND_A_PENDULUM, method="moreau"),
        WarmupTask("Featherstone method", "featherstone", _DOUBLE_PENDULUM, method="featherstone"),
        WarmupTask("Lagrange method", "lagrange", _DOUBLE_PENDULUM, method="lagrange"),
        WarmupTask("Moreau method", "moreau", _DOUBLE_PENDULUM, method="moreau"),
        # a group of its own: compiling the loop compiles the ~60 kernels it calls once more whatever the cache
        # holds, so it gains nothing from following the contact group and runs beside it instead
        WarmupTask("impulse method, compiled contact loop (boxes, spheres, capsules)", "contact_loop",
                   _BASIC_CONTACTS, steps=1, contact_loop=True),
        # joint limits make a version of their own (their arguments' types differ): robots on the ground
        WarmupTask("impulse method, compiled contact loop with joint limits", "contact_loop",
                   _CONTACTS_AND_A_LIMITED_PENDULUM, steps=1, contact_loop=True),
    ]


LIBRARY_GROUPS = ("impulse", "contact", "featherstone", "lagrange", "moreau", "contact_loop")
"""The library's warm-up groups; applications add theirs (:func:`plugin_tasks`)."""

_plugin_tasks: Optional[list] = None


def plugin_tasks() -> list[WarmupTask]:
    """The warm-up tasks that installed packages declare under the entry-point group ``impulsim.warmup`` (each
    entry a function returning a list of :class:`WarmupTask`), loaded once. Applications warm up their own
    kernels this way (the bobsleigh simulator's) without this module importing them."""
    global _plugin_tasks
    if _plugin_tasks is None:
        from importlib.metadata import entry_points
        found = []
        for point in sorted(entry_points(group="impulsim.warmup"), key=lambda p: p.name):
            found.extend(point.load()())
        _plugin_tasks = found
    return list(_plugin_tasks)


def warmup_groups() -> tuple[str, ...]:
    """What ``impulsim warmup`` can compile, the library's groups then the applications'; the default is all."""
    extra = [t.group for t in plugin_tasks() if t.group not in LIBRARY_GROUPS]
    return LIBRARY_GROUPS + tuple(dict.fromkeys(extra))


def warmup_tasks(groups=None) -> list[WarmupTask]:
    """The warm-up tasks of the given groups (all if None), in order."""
    every = warmup_groups()
    groups = every if not groups else tuple(groups)
    unknown = sorted(set(groups) - set(every))
    if unknown:
        raise ValueError(f"unknown warm-up group(s) {', '.join(unknown)} (available: {', '.join(every)})")
    return [t for t in _tasks() + plugin_tasks() if t.group in groups]


def run_task(task: WarmupTask) -> None:
    """Do the task: its action, or step its scene ``task.steps`` times (either compiles, or loads from the
    cache, what it needs)."""
    if task.action is not None:
        task.action()
        return
    from impulsim.io import scene_from_string
    scene = scene_from_string(task.scene, name=task.name)
    sim = scene.simulation(method=task.method, **dict(task.options))
    for _ in range(task.steps):
        sim.step()
    _compile_run_loop(sim, task.contact_loop)


def _compile_run_loop(sim, contact_loop: bool = False) -> None:
    """One step through Method.run's compiled loop, where the method has one (impulse: LGS, iterative, joint
    limits, and with ``contact_loop`` bodies in contact; Featherstone); a short run would otherwise step in
    Python until the loop is compiled (see run_path.loop_ready, contact_run.loop_ready and
    featherstone.run_loop)."""
    from impulsim.methods.featherstone import run_loop
    from impulsim.methods.impulse import contact_run, run_path
    saved = run_path.COMPILE_PAYS_STEPS, run_loop.COMPILE_PAYS_STEPS, contact_run.COMPILE_PAYS_STEPS
    run_path.COMPILE_PAYS_STEPS = run_loop.COMPILE_PAYS_STEPS = 0
    if contact_loop:
        contact_run.COMPILE_PAYS_STEPS = 0
    try:
        sim.run_steps(1)
    finally:
        run_path.COMPILE_PAYS_STEPS, run_loop.COMPILE_PAYS_STEPS, contact_run.COMPILE_PAYS_STEPS = saved


def warm_up(groups=None, progress: Optional[Callable[[int, int, WarmupTask, float], None]] = None) -> dict:
    """Compile ahead the kernels of the given groups (all if None) into Numba's on-disk cache.

    ``progress(i, n, task, seconds)`` is called after each task. Returns {task name: seconds}.
    """
    tasks = warmup_tasks(groups)
    out = {}
    for i, task in enumerate(tasks, 1):
        t = time.perf_counter()
        run_task(task)
        out[task.name] = time.perf_counter() - t
        if progress is not None:
            progress(i, len(tasks), task, out[task.name])
    return out


GROUP_CPU_S = {"impulse": 130.0, "contact": 115.0, "featherstone": 30.0, "lagrange": 24.0, "moreau": 17.0,
               "contact_loop": 290.0}
"""CPU seconds each group's tasks take in their process alone on an empty cache (measured, docs/performance.md):
the weights by which :func:`shares` deals the groups out to the worker processes of a parallel warm-up. The
contact group's counts only its own process: its first step forks a copy that compiles the contact
resolution on another core (about 26 s more, :mod:`impulsim.forked_compile`), time the other worker then
shares with it."""


def _present(groups=None) -> list[str]:
    """The groups of the warm-up of ``groups`` (all if None) that have tasks, in the order of warmup_groups()."""
    have = {t.group for t in warmup_tasks(groups)}
    return [g for g in warmup_groups() if g in have]


def group_cpu_s(group: str) -> float:
    """The weight of ``group`` in :func:`shares`: :data:`GROUP_CPU_S`, or its tasks' own ``cpu_s``."""
    if group in GROUP_CPU_S:
        return GROUP_CPU_S[group]
    return sum(t.cpu_s for t in plugin_tasks() if t.group == group)


def default_jobs(groups=None) -> int:
    """Processes ``impulsim warmup`` compiles in by default: one per usable core, at most one per group."""
    from impulsim.forked_compile import usable_cores
    return max(1, min(usable_cores(), len(_present(groups))))


def shares(groups=None, jobs: int = 2) -> list[tuple[str, ...]]:
    """The groups (all if None) dealt out to at most ``jobs`` processes so that the costliest share costs as
    little as it can (:data:`GROUP_CPU_S`; of the deals that achieve it, the one whose shares differ least).
    Each share keeps the order of warmup_groups(); shares come costliest first."""
    if jobs < 1:
        raise ValueError(f"warm-up: --jobs must be 1 or more, not {jobs}")
    present = _present(groups)
    n = min(jobs, len(present))
    best: Optional[tuple] = None
    for deal in _deals(present, n):
        cost = sorted((sum(group_cpu_s(g) for g in part), part) for part in deal)
        key = (cost[-1][0], cost[-1][0] - cost[0][0])
        if best is None or key < best[0]:
            best = key, [tuple(part) for _, part in reversed(cost)]
    return best[1]


def _deals(groups: list, n: int):
    """Every way to put ``groups`` into exactly ``n`` non-empty shares (each share in the groups' order)."""
    def place(i: int, parts: list):
        if i == len(groups):
            if len(parts) == n:
                yield parts
            return
        if len(groups) - i < n - len(parts):
            return                                   # too few groups left to fill the empty shares
        for k in range(len(parts)):
            yield from place(i + 1, parts[:k] + [parts[k] + [groups[i]]] + parts[k + 1:])
        if len(parts) < n:
            yield from place(i + 1, parts + [[groups[i]]])
    yield from place(0, [])


def warmup_command(groups=None, quiet: bool = False, stream: Optional[TextIO] = None,
                   jobs: Optional[int] = None) -> float:
    """``impulsim warmup``: compile ahead with one line per task (and a live line while compiling on a
    terminal; ``quiet``: no line at all); returns the seconds taken. A task that fails says so in its line,
    the others still run, and then an :class:`ImpulsimError` names the failed ones.

    With ``jobs`` of 2 or more (None: :func:`default_jobs`, one per usable core) the groups are dealt out
    (:func:`shares`) to as many worker processes, which compile side by side into the same on-disk cache
    (each kernel is cached per source version, :mod:`impulsim.kernel_cache`); their lines come as their tasks
    end. ``jobs=1`` runs every task in this process, one after the other."""
    stream = sys.stderr if stream is None else stream
    tasks = warmup_tasks(groups)
    parts = shares(groups, default_jobs(groups) if jobs is None else jobs)
    numbered = list(enumerate(tasks, 1))
    start = time.perf_counter()
    if len(parts) > 1:
        failed = _run_in_workers(groups, parts, numbered, quiet, stream)
    else:
        failed = _run_here(numbered, len(tasks), quiet, stream)
    seconds = time.perf_counter() - start
    if failed:
        raise ImpulsimError(f"warm-up: {len(failed)} of {len(tasks)} tasks failed ({'; '.join(failed)})")
    if not quiet:
        side = f" ({len(parts)} processes side by side)" if len(parts) > 1 else ""
        print(f"warm-up done in {seconds:.1f} s{side}: later runs load these kernels from the cache", file=stream)
    return seconds


def _run_here(numbered, total: int, quiet: bool, stream: TextIO, live: Optional[bool] = None,
              done: Optional[Callable[[int, Optional[str]], None]] = None) -> list[str]:
    """Run the tasks ``numbered`` [(number, task)] in this process, one line each on ``stream`` (``live``: the
    compile line's way, see CompileReporter); ``done(number, error or None)`` after each. Returns
    "name: error" of the failed ones."""
    failed = []
    reporter = None if quiet else CompileReporter(stream, live=live)
    if reporter is not None:
        reporter.install()           # the process-wide reporter is silent while this one listens
    else:
        previous = compile_messages(False)
    try:
        for i, task in numbered:
            head = f"[{i}/{total}] {task.name}"
            if reporter is not None:
                reporter.prefix = head + ": "
            t = time.perf_counter()
            try:
                run_task(task)
            except ImpulsimError as exc:      # the other tasks still compile; the command then fails
                failed.append(f"{task.name}: {exc}")
                if reporter is not None:
                    reporter.finish()
                print(f"{head}: failed: {exc}", file=stream, flush=True)
                if done is not None:
                    done(i, str(exc))
                continue
            if reporter is not None:
                reporter.finish()
            if not quiet:
                print(f"{head}: ready ({time.perf_counter() - t:.1f} s)", file=stream, flush=True)
            if done is not None:
                done(i, None)
    finally:
        if reporter is not None:
            reporter.uninstall()
        else:
            compile_messages(previous)
    return failed


# ------------------------------------------------------------------------------- parallel warm-up
# The parent starts one worker process per share (``python -c`` running :func:`worker_main`); a worker runs its
# tasks like ``jobs=1`` does and sends, one JSON object a line on its stdout, each line it would print
# ({"line": text}) and the end of each task ({"done": number, "error": text or null}). The parent prints the
# lines as they come and names, as failed, the tasks of a worker that ended before reporting them.

_WORKER_CODE = "import sys; from impulsim.warmup import worker_main; sys.exit(worker_main(sys.argv[1:]))"


def worker_command(groups, share, quiet: bool) -> list[str]:
    """The command line of the worker process that compiles the groups ``share`` of the warm-up of ``groups``
    (numbering its tasks among all of theirs)."""
    every = ",".join(_present(groups))
    return [sys.executable, "-c", _WORKER_CODE, every, ",".join(share), *(["-q"] if quiet else [])]


def worker_main(argv) -> int:
    """A worker process of a parallel warm-up (``argv``: every group of the warm-up and this worker's share,
    comma-separated, then ``-q`` for no lines): runs its share's tasks and reports on stdout (see above).
    Returns 1 if a task failed."""
    import json
    import os
    events = os.fdopen(os.dup(1), "w", buffering=1)    # the reports; whatever else prints goes to stderr
    os.dup2(2, 1)
    lock = threading.Lock()

    def send(event: dict) -> None:
        with lock:
            events.write(json.dumps(event) + "\n")
            events.flush()

    every, share = argv[0].split(","), argv[1].split(",")
    quiet = "-q" in argv[2:]
    tasks = warmup_tasks(every)
    numbered = sorted(((i, t) for i, t in enumerate(tasks, 1) if t.group in share),
                      key=lambda it: share.index(it[1].group))     # in the share's order
    failed = _run_here(numbered, len(tasks), quiet, _EventLines(send), live=False,
                       done=lambda i, error: send({"done": i, "error": error}))
    events.close()
    return 1 if failed else 0


class _EventLines:
    """A text stream that sends each complete line it is given as a ``{"line": text}`` report."""

    def __init__(self, send: Callable[[dict], None]):
        self._send = send
        self._pending = ""

    def write(self, text: str) -> int:
        self._pending += text
        *lines, self._pending = self._pending.split("\n")
        for line in lines:
            self._send({"line": line})
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False


def _run_in_workers(groups, parts, numbered, quiet: bool, stream: TextIO) -> list[str]:
    """Run the shares ``parts`` in worker processes side by side; print their lines on ``stream`` (with a
    live line on a terminal saying how far they got); returns "name: error" of the failed tasks."""
    import os
    import queue
    import subprocess
    import tempfile
    from pathlib import Path

    import impulsim
    by_number = dict(numbered)
    total = len(numbered)
    env = dict(os.environ)                # the workers import this impulsim, hence use the same cache
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(Path(impulsim.__file__).resolve().parents[1]),
                                                    env.get("PYTHONPATH", "")) if p)
    status = _Status(stream, len(parts), total) if not quiet and _is_terminal(stream) else None
    lines: "queue.Queue[tuple[int, Optional[bytes]]]" = queue.Queue()
    procs, errs, readers = [], [], []
    reported: dict[int, Optional[str]] = {}
    failed = []
    try:
        for k, part in enumerate(parts):
            errs.append(tempfile.TemporaryFile())
            procs.append(subprocess.Popen(worker_command(groups, part, quiet), stdin=subprocess.DEVNULL,
                                          stdout=subprocess.PIPE, stderr=errs[-1], env=env))
            readers.append(threading.Thread(target=_read_lines, args=(procs[-1].stdout, k, lines),
                                            name="impulsim-warmup-reader", daemon=True))
            readers[-1].start()
        open_pipes = len(procs)
        while open_pipes:
            try:
                k, raw = lines.get(timeout=TICK)
            except queue.Empty:
                if status is not None:
                    status.draw(len(reported))
                continue
            if raw is None:
                open_pipes -= 1
                continue
            text, done = _parse_report(raw)
            if done is not None:
                reported[done[0]] = done[1]
                if done[1] is not None:
                    failed.append(f"{by_number[done[0]].name}: {done[1]}")
            if text is not None:
                if status is not None:
                    status.erase()
                print(text, file=stream, flush=True)
        for k, (proc, part) in enumerate(zip(procs, parts)):
            code = proc.wait()
            errs[k].seek(0)
            err = errs[k].read().decode(errors="replace")
            missing = [i for i, t in numbered if t.group in part and i not in reported]
            if code == 0 and not missing:
                if err.strip():
                    sys.stderr.write(err)           # warnings the worker wrote
                continue
            last = next((ln.strip() for ln in reversed(err.splitlines()) if ln.strip()), "")
            why = f"its warm-up process ended with exit code {code}" + (f" ({last})" if last else "")
            for i in missing:
                failed.append(f"{by_number[i].name}: {why}")
                if status is not None:
                    status.erase()
                if not quiet:
                    print(f"[{i}/{total}] {by_number[i].name}: failed: {why}", file=stream, flush=True)
    finally:
        if status is not None:
            status.erase()
        for proc in procs:
            if proc.poll() is None:                 # interrupted: the workers stop too
                proc.kill()
                proc.wait()
        for err in errs:
            err.close()
    return failed


def _read_lines(pipe, k: int, out) -> None:
    """Put each line of a worker's stdout on ``out`` as (k, bytes), then (k, None) at its end."""
    with pipe:
        for raw in pipe:
            out.put((k, raw))
    out.put((k, None))


def _parse_report(raw: bytes):
    """(line to print or None, (task number, error or None) or None) of one line of a worker's stdout; a line
    that is no report is printed as it is."""
    import json
    text = raw.decode(errors="replace").rstrip("\n")
    try:
        event = json.loads(text)
    except ValueError:
        return text, None
    if not isinstance(event, dict):
        return text, None
    if "done" in event:
        return None, (int(event["done"]), event.get("error"))
    return (str(event["line"]) if "line" in event else text), None


def _is_terminal(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


class _Status:
    """The live line of a parallel warm-up on a terminal: how many processes compile, how many tasks are done."""

    def __init__(self, stream: TextIO, processes: int, total: int):
        self.stream, self.processes, self.total = stream, processes, total
        self.start = time.perf_counter()
        self.shown = False

    def draw(self, done: int) -> None:
        seconds = time.perf_counter() - self.start
        if seconds < SHOW_AFTER:
            return
        self.stream.write(f"\rcompiling in {self.processes} processes ({ONCE}) … {done} of {self.total} tasks "
                          f"done, {seconds:.0f} s\033[K")
        self.stream.flush()
        self.shown = True

    def erase(self) -> None:
        if self.shown:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self.shown = False
