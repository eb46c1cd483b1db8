"""Metrics: what a case's row reports about its run.

By name (``--metric NAME``):

* ``final.BODY.Q`` — a body's value at the end: Q is ``x``, ``y``, ``z`` [m] (centre of mass, world),
  ``vx``, ``vy``, ``vz``, ``speed`` [m/s], ``wx``, ``wy``, ``wz`` [rad/s];
* ``energy.total``, ``energy.kinetic``, ``energy.potential`` [J] at the end, ``energy.change`` [J]
  (end minus start);
* ``joint_error.max`` [m or rad] — the largest position error of any basic constraint at the end;
* ``contacts.mean``, ``contacts.max`` — contact points per step; ``iterations.mean`` — position sweeps or
  solves per step.

From Python, a metric may also be a function ``f(model, state) -> float`` evaluated at the end, given as
``{"name": f}``.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from impulsim.dynamics import diagnostics

DEFAULT_METRICS = ("energy.change", "joint_error.max", "contacts.mean")
_BODY_VALUES = {"x": ("body_pos", 0), "y": ("body_pos", 1), "z": ("body_pos", 2),
                "vx": ("body_vel", 0), "vy": ("body_vel", 1), "vz": ("body_vel", 2),
                "wx": ("body_omega", 0), "wy": ("body_omega", 1), "wz": ("body_omega", 2)}
_ENERGY = {"total": diagnostics.total_energy, "kinetic": diagnostics.kinetic_energy,
           "potential": diagnostics.potential_energy}
_STEP_STATS = ("contacts.mean", "contacts.max", "iterations.mean")


class MetricError(ValueError):
    """A metric name that is not known, or names a body the scene does not have."""


class StepStats:
    """Per-step counts gathered while a case runs (contacts, iterations)."""

    def __init__(self):
        self.contacts: list[int] = []
        self.iterations: list[int] = []

    def add(self, info) -> None:
        self.contacts.append(info.n_contacts)
        self.iterations.append(info.iters_pos)

    def value(self, name: str) -> float:
        data = {"contacts": self.contacts, "iterations": self.iterations}[name.split(".")[0]]
        if not data:
            return 0.0
        return float(np.max(data) if name.endswith(".max") else np.mean(data))


def check_metric(name: str, model) -> None:
    """Raise :class:`MetricError` (one line) if ``name`` is not a metric of this model."""
    parts = name.split(".")
    if name in _STEP_STATS or name in ("energy.change", "joint_error.max"):
        return
    if parts[0] == "energy" and len(parts) == 2 and parts[1] in _ENERGY:
        return
    if parts[0] == "final" and len(parts) == 3:
        if parts[1] not in model.body_names:
            raise MetricError(f"metric {name}: no body {parts[1]!r} in the scene")
        if parts[2] in _BODY_VALUES or parts[2] == "speed":
            return
    raise MetricError(f"unknown metric {name!r} (final.BODY.x|y|z|vx|vy|vz|speed|wx|wy|wz, "
                      f"energy.total|kinetic|potential|change, joint_error.max, contacts.mean|max, "
                      f"iterations.mean)")


def evaluate(name: str, fn: Callable | None, model, state, start_energy: float, stats: StepStats) -> float:
    """The value of one metric at the end of a run."""
    if fn is not None:
        return float(fn(model, state))
    parts = name.split(".")
    if name in _STEP_STATS:
        return stats.value(name)
    if name == "energy.change":
        return diagnostics.total_energy(model, state) - start_energy
    if name == "joint_error.max":
        errors = diagnostics.constraint_errors(model, state)
        return float(errors.max()) if errors.size else 0.0
    if parts[0] == "energy":
        return float(_ENERGY[parts[1]](model, state))
    k = model.body(parts[1])
    if parts[2] == "speed":
        return float(np.linalg.norm(state.body_vel[k]))
    array, axis = _BODY_VALUES[parts[2]]
    return float(getattr(state, array)[k, axis])
