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
only load from the cache. Its own reporter prefixes each line with the task (and silences the process-wide
one meanwhile).
"""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from typing import Callable, Optional, TextIO

from impulsim.compiling import (ONCE, SHOW_AFTER, CompileReporter, compile_messages,  # noqa: F401
                                kernel_group, report_compiles)
from impulsim.errors import ImpulsimError


# ---------------------------------------------------------------------------------------------- warm-up
@dataclass(frozen=True)
class WarmupTask:
    """Steps of one small scene that compile the kernels of one kind of scene."""
    name: str
    group: str
    scene: str
    """Scene text (YAML, the format of ``impulsim run``)."""
    steps: int = 3
    method: Optional[str] = None
    options: tuple = ()


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


_BASIC_CONTACTS = _CONTACTS.split("  - {name: drum")[0]
"""The contact scene without its cylinder and ellipsoid: the narrow phase of a scene whose shapes are all
boxes, spheres, capsules and half-spaces is compiled without the other kinds' code (collision.core.BASIC_KINDS),
so both versions are warmed up."""


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
        WarmupTask("impulse method with contacts", "contact", _CONTACTS, steps=5),
        WarmupTask("impulse method with contacts (boxes, spheres, capsules)", "contact", _BASIC_CONTACTS, steps=5),
        WarmupTask("impulse method with contacts and joints", "contact", _JOINTS_AND_CONTACTS),
        WarmupTask("Featherstone method", "featherstone", _DOUBLE_PENDULUM, method="featherstone"),
        WarmupTask("Lagrange method", "lagrange", _DOUBLE_PENDULUM, method="lagrange"),
        WarmupTask("Moreau method", "moreau", _DOUBLE_PENDULUM, method="moreau"),
    ]


WARMUP_GROUPS = ("impulse", "contact", "featherstone", "lagrange", "moreau")
"""What ``impulsim warmup`` can compile; the default is all of it."""


def warmup_tasks(groups=None) -> list[WarmupTask]:
    """The warm-up tasks of the given groups (all if None), in order."""
    groups = WARMUP_GROUPS if not groups else tuple(groups)
    unknown = sorted(set(groups) - set(WARMUP_GROUPS))
    if unknown:
        raise ValueError(f"unknown warm-up group(s) {', '.join(unknown)} (available: {', '.join(WARMUP_GROUPS)})")
    return [t for t in _tasks() if t.group in groups]


def run_task(task: WarmupTask) -> None:
    """Step the task's scene ``task.steps`` times (this compiles, or loads from the cache, what it needs)."""
    from impulsim.io import scene_from_string
    scene = scene_from_string(task.scene, name=task.name)
    sim = scene.simulation(method=task.method, **dict(task.options))
    for _ in range(task.steps):
        sim.step()
    _compile_run_loop(sim)


def _compile_run_loop(sim) -> None:
    """One step through Method.run's compiled loop, where the method has one (impulse: LGS, iterative;
    Featherstone); a short run would otherwise step in Python until the loop is compiled (see
    run_path.loop_ready and featherstone.run_loop)."""
    from impulsim.methods.featherstone import run_loop
    from impulsim.methods.impulse import run_path
    saved = run_path.COMPILE_PAYS_STEPS, run_loop.COMPILE_PAYS_STEPS
    run_path.COMPILE_PAYS_STEPS = run_loop.COMPILE_PAYS_STEPS = 0
    try:
        sim.run_steps(1)
    finally:
        run_path.COMPILE_PAYS_STEPS, run_loop.COMPILE_PAYS_STEPS = saved


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


def warmup_command(groups=None, quiet: bool = False, stream: Optional[TextIO] = None) -> float:
    """``impulsim warmup``: compile ahead with one line per task (and a live line while compiling on a
    terminal; ``quiet``: no line at all); returns the seconds taken. A task that fails says so in its line,
    the others still run, and then an :class:`ImpulsimError` names the failed ones."""
    stream = sys.stderr if stream is None else stream
    tasks = warmup_tasks(groups)
    start = time.perf_counter()
    failed = []
    reporter = None if quiet else CompileReporter(stream)
    if reporter is not None:
        reporter.install()           # the process-wide reporter is silent while this one listens
    else:
        previous = compile_messages(False)
    try:
        for i, task in enumerate(tasks, 1):
            if reporter is not None:
                reporter.prefix = f"[{i}/{len(tasks)}] {task.name}: "
            t = time.perf_counter()
            try:
                run_task(task)
            except ImpulsimError as exc:      # the other tasks still compile; the command then fails
                failed.append(f"{task.name}: {exc}")
                if reporter is not None:
                    reporter.finish()
                print(f"[{i}/{len(tasks)}] {task.name}: failed: {exc}", file=stream, flush=True)
                continue
            if reporter is not None:
                reporter.finish()
            if not quiet:
                print(f"[{i}/{len(tasks)}] {task.name}: ready ({time.perf_counter() - t:.1f} s)", file=stream,
                      flush=True)
    finally:
        if reporter is not None:
            reporter.uninstall()
        else:
            compile_messages(previous)
    seconds = time.perf_counter() - start
    if failed:
        raise ImpulsimError(f"warm-up: {len(failed)} of {len(tasks)} tasks failed ({'; '.join(failed)})")
    if not quiet:
        print(f"warm-up done in {seconds:.1f} s: later runs load these kernels from the cache", file=stream)
    return seconds
