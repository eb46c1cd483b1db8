"""Sweeps over bobsleigh runs: :func:`bob_case` is one run from a case's parameter values, for
:func:`impulsim.sweep.run_function_sweep`.

    from impulsim.sweep import run_function_sweep
    from impulsim.apps.bobsleigh.sweep import bob_case, METRICS
    table = run_function_sweep(bob_case, {"track": ["test_chute"], "setup.runner.mu_t": "0.002:0.008:4",
                                          "setup.spring_set": "soft,standard,hard"}, metrics=METRICS)

Parameter paths (every one optional):

* ``track``: a shipped track's name or a track file (default ``test_chute``);
* ``start_speed`` [m/s], ``h`` [s], ``max_time`` [s]: as in :func:`~impulsim.apps.bobsleigh.run.run`;
* ``setup.KEY`` and ``setup.GROUP.KEY``: the bob's parameters, as ``run(..., setup=...)`` takes them
  (``setup.directness``, ``setup.runner.mu_t``, ``setup.bumper.eps_n``, ...);
* ``setup.spring_set``: the stiffness of the centre separation (α) and front axle (γ) double springs, as a
  set's name (``soft``, ``standard``, ``hard``: 0.7, 1 and 1.4 times the file's values, the sets of the
  driving simulator) or as the factor itself;
* ``pilot.NAME``: a parameter of the :class:`~impulsim.apps.bobsleigh.pilot.Pilot` (``look_ahead``,
  ``gain``, ``line_pull``, ...).

An unknown path is the case's error (one line), so a misspelt parameter fails every case visibly. From the
command line (``bob_case.warm_up`` loads the bob's kernels once before the workers start)::

    impulsim sweep --function impulsim.apps.bobsleigh.sweep:bob_case \
        --param setup.runner.mu_t=0.002:0.008:4 --param setup.spring_set=soft,standard,hard \
        --metric run_time --metric outcome --plot run_time
"""
from __future__ import annotations

import math
from dataclasses import fields

import numpy as np

from impulsim.apps.bobsleigh.drive.setup import SPRING_SETS, SPRUNG_JOINTS
from impulsim.apps.bobsleigh.pilot import Pilot

METRICS = ["run_time", "outcome", "top_speed", "sim_time", "cpu_time"]
"""What :func:`bob_case` returns: the run time [s] (NaN unless the bob finished), the outcome (finish,
crash, off track, stopped, time limit), the top speed [m/s] over the 100 Hz trace, the simulated time [s]
and the process CPU time of the run [s]."""

_RUN_KEYS = {"start_speed", "h", "max_time"}


def bob_case(values: dict) -> dict:
    """One bob run with the case's ``values`` (see the module docstring) and its metrics (:data:`METRICS`)."""
    from impulsim.apps.bobsleigh.run import run
    track, kwargs, setup, spring_factor, pilot = _split(values)
    bob = None
    if setup or spring_factor != 1.0:
        from impulsim.apps.bobsleigh.bob import load_bob
        bob = load_bob("two_man").with_setup(**setup)
        if spring_factor != 1.0:
            _scale_springs(bob, spring_factor)
    result = run(track, bob=bob, pilot=pilot, **kwargs)
    speed = np.asarray(result.trace.get("speed", ()), float)
    t = np.asarray(result.trace.get("t", ()), float)
    return {"run_time": result.run_time if result.outcome == "finish" else float("nan"),
            "outcome": result.outcome,
            "top_speed": float(speed.max()) if speed.size else float("nan"),
            "sim_time": float(t[-1]) if t.size else 0.0,
            "cpu_time": float(result.stats.get("cpu_time", float("nan")))}


def _warm_up_bob() -> None:
    """A few steps of the bob on the test chute, so that a sweep compiles (or loads) the bob's kernels once
    before its workers start."""
    from impulsim.apps.bobsleigh.run import run
    run("test_chute", max_time=0.02)


bob_case.warm_up = _warm_up_bob


def _split(values: dict):
    """(track, run keywords, setup dict, spring factor, Pilot) from the case's {path: value}."""
    track, kwargs, setup, spring_factor, pilot = "test_chute", {}, {}, 1.0, {}
    names = {f.name for f in fields(Pilot)}
    for path, value in values.items():
        head, _, rest = path.partition(".")
        if path == "track":
            track = str(value)
        elif path in _RUN_KEYS:
            kwargs[path] = float(value)
        elif head == "setup" and rest == "spring_set":
            spring_factor = _spring_factor(value)
        elif head == "setup" and rest:
            group, _, key = rest.partition(".")
            if key:
                setup.setdefault(group, {})[key] = float(value)
            else:
                setup[group] = float(value)
        elif head == "pilot" and rest in names:
            pilot[rest] = float(value)
        else:
            raise ValueError(f"bob sweep: unknown parameter {path!r} (track, start_speed, h, max_time, "
                             f"setup.KEY, setup.GROUP.KEY, setup.spring_set, pilot.{{{','.join(sorted(names))}}})")
    return track, kwargs, setup, spring_factor, Pilot(**pilot)


def _spring_factor(value) -> float:
    if isinstance(value, str):
        if value not in SPRING_SETS:
            raise ValueError(f"bob sweep: setup.spring_set {value!r} is none of {', '.join(SPRING_SETS)}")
        return SPRING_SETS[value]
    factor = float(value)
    if not (factor > 0 and math.isfinite(factor)):
        raise ValueError(f"bob sweep: setup.spring_set factor must be positive, got {value!r}")
    return factor


def _scale_springs(bob, factor: float) -> None:
    """Multiply the inner and outer stiffness of the α and γ double springs by ``factor`` (in place)."""
    scaled = 0
    for b in bob.bodies:
        if b["name"] in SPRUNG_JOINTS and len(b.get("spring", ())) > 2:
            sp = list(b["spring"])
            sp[1], sp[2] = sp[1] * factor, sp[2] * factor
            b["spring"] = tuple(sp)
            scaled += 1
    if scaled != len(SPRUNG_JOINTS):
        raise ValueError(f"bob sweep: the bob has {scaled} of the {len(SPRUNG_JOINTS)} double springs "
                         f"({', '.join(SPRUNG_JOINTS)}) that setup.spring_set scales")
