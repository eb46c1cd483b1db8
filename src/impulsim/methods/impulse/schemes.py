"""Step schemes of the impulse method: the standard step and the higher-order schemes of Bender 3.4.

Standard (Bender 3.2): impulses at t0 make the joints valid at t0+h; free step; velocity correction.

Order 2 (3.4.1): the constraint impulse stands for the integral of the constraint force over the step and
is applied at its midpoint: free half step, joint correction that makes the joints valid at t0+h (predicting
over the remaining h/2), second free half step, velocity correction. For a mass point under a force given
as a power series, x₁(t0+h) = x + ẋ h + h p / (2m) = x(t0+h) + O(h³).

Orders 4 and 6 (3.4.2, 3.4.3) combine the results x_m of m midpoint sub-steps of h/m each:
    x = −⅓ x₁ + ⁴⁄₃ x₂                            (matches the exact series to h⁴, error O(h⁵))
    x = ¹⁄₂₄ x₁ − ¹⁶⁄₁₅ x₂ + ⁸¹⁄₄₀ x₃             (error O(h⁷))
Positions and velocities combine linearly; orientations combine as quaternions and are normalized (the
weights sum to one, so the combination is consistent to the order of the scheme). Controller memory
(servo integrals) is that of the finest sub-step sequence.
"""
from __future__ import annotations

import numpy as np

from impulsim.dynamics.forces import compute_loads

EXTRAPOLATION_WEIGHTS = {
    "order4": (-1.0 / 3.0, 4.0 / 3.0),                       # Bender 3.4.2
    "order6": (1.0 / 24.0, -16.0 / 15.0, 81.0 / 40.0),       # Bender 3.4.3
}


def standard_after_loads(method, s, h, info, timer):
    """Joint correction over h from the current poses, free step, velocity correction (loads are set): the
    standard step after its loads (also a contact step's when it found no contact, contact_step)."""
    method._ensure_position_rows(s)
    timer.lap("rows")
    method._correct_positions(s, h, info)
    timer.lap("joint_correction")
    method._advance(s, h)
    timer.lap("free_step")
    if method.velocity_correction:
        method._update_rows(s)
        timer.lap("rows")
        method._correct_velocities(s, info)
        timer.lap("velocity_correction")


def _loads(method, s, h, timer):
    """Stage "forces" (see compute_loads)."""
    compute_loads(method.model, s, h, method.acc, method.tau)
    timer.lap("forces")


def standard(method, s, h, info, timer):
    """Bender Fig. 3.1: loads, joint correction with impulses at t0, free step, velocity correction."""
    _loads(method, s, h, timer)
    standard_after_loads(method, s, h, info, timer)


def _midpoint_step(method, s, h, info, timer):
    """One second-order sub-step: loads, free half step, correction aiming at t0+h, half step, velocities."""
    _loads(method, s, h, timer)
    if method._wagner is not None:
        method._wagner.t_end = s.t + h   # the correction aims at the sub-step's end (s.t is its start)
    method._advance(s, 0.5 * h)          # no prediction is pending here: a plain free half step
    timer.lap("free_step")
    standard_after_loads(method, s, 0.5 * h, info, timer)


def order2(method, s, h, info, timer):
    """Bender 3.4.1: the correcting impulses act at the midpoint of the step."""
    _midpoint_step(method, s, h, info, timer)


def _sequence(method, s, h, parts, info, timer):
    """``parts`` midpoint sub-steps of h/parts from the state in ``s`` (time advanced between them)."""
    t0 = s.t
    for k in range(parts):
        s.t = t0 + k * h / parts
        _midpoint_step(method, s, h / parts, info, timer)
    s.t = t0


def _extrapolated(weights):
    """Scheme combining the results of 1, 2, … midpoint sub-step sequences with the given weights."""
    def scheme(method, s, h, info, timer):
        start = _saved_start(method, s)
        total = _combination_buffers(method, s)
        for parts, c in enumerate(weights, start=1):
            s.assign(start)
            _sequence(method, s, h, parts, info, timer)
            for name, buf in total.items():
                if parts == 1:
                    np.multiply(getattr(s, name), c, out=buf)
                else:
                    buf += c * getattr(s, name)
        for name, buf in total.items():
            getattr(s, name)[...] = buf
        s.body_quat /= np.linalg.norm(s.body_quat, axis=1, keepdims=True)
        timer.lap("extrapolation")
    return scheme


def _saved_start(method, s):
    """A State owned by the method that holds the start of the step (allocated once)."""
    if getattr(method, "_scheme_start", None) is None:
        method._scheme_start = s.copy()
    else:
        method._scheme_start.assign(s)
    return method._scheme_start


def _combination_buffers(method, s):
    if getattr(method, "_scheme_buffers", None) is None:
        method._scheme_buffers = {name: np.zeros_like(getattr(s, name))
                                  for name in ("body_pos", "body_quat", "body_vel", "body_omega")}
    return method._scheme_buffers


SCHEMES = {"standard": standard, "order2": order2,
           "order3": _extrapolated(EXTRAPOLATION_WEIGHTS["order4"]),
           "order3_precise": _extrapolated(EXTRAPOLATION_WEIGHTS["order6"])}
"""The schemes by the global order they measure (docs/lgs.md): Bender's 4th- and 6th-order extrapolations
gain one order over the midpoint step, not two or four, because the impulse step is not symmetric in time;
"order3_precise" (three sub-step sequences) is ~10 times more accurate than "order3" for twice the work."""

ALIASES = {"order4": "order3", "order6": "order3_precise"}
"""The thesis's names (the orders the weights were derived for), kept for old scripts and scene files."""


def canonical(name: str) -> str:
    """The scheme's name by its measured order (aliases resolved)."""
    return ALIASES.get(name, name)
