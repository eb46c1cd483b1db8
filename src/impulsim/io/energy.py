"""Whether a run should conserve energy, and the summary line that says how much it changed.

Energy is conserved by the equations of motion of a scene with gravity, joints and undamped springs
only; there a change of the total energy over a run is the method's error ("drift"). Servos, motors,
damped springs, stops that lose energy, contacts, prescribed motion and timed loads all do work or
dissipate, so there the same number is a physical "change" and not a fault.
"""
from __future__ import annotations

from typing import Iterable, Optional

import numpy as np

from impulsim.model.kinds import JointKind


def energy_sources(model, table=None, extra: Iterable[str] = ()) -> list[str]:
    """The elements of ``model`` (and of a recording ``table``: contacts that happened) that do work or
    dissipate; empty when energy should be conserved. ``extra`` adds elements the model does not hold
    (e.g. a scene's timed loads)."""
    out = []
    if model.n_servos:
        out.append("servos")
    if model.n_motors:
        out.append("motors")
    if np.any(np.asarray(model.spring_damping) > 0):
        out.append("damped springs")
    if np.any(np.asarray(model.limit_restitution) < 1):
        out.append("joint limits")
    if np.any(np.asarray(model.body_kinematic)):
        out.append("kinematic bodies")
    if np.any(np.asarray(model.joint_kind) == int(JointKind.VELOCITY)):
        out.append("velocity joints")
    if table is not None and "n_contacts" in table.column_names:
        touched = (np.asarray(table.column("n_contacts").to_numpy()).max(initial=0) > 0 or
                   np.asarray(table.column("n_collisions").to_numpy()).max(initial=0) > 0)
        if touched:
            out.append("contacts")
    return out + [e for e in extra if e not in out]


def energy_line(change: float, peak_kinetic: float, sources: list[str]) -> str:
    """``energy drift: ...`` where energy should be conserved, else ``energy change: ... (servos, ...)``."""
    rel = (f" ({100.0 * change / peak_kinetic:.3g} % of the peak kinetic energy)"
           if 0 < peak_kinetic < np.inf and np.isfinite(change) else "")
    if not sources:
        return f"energy drift: {change:.3g} J{rel}"
    return f"energy change: {change:.3g} J{rel}; not conserved in this scene ({', '.join(sources)})"
