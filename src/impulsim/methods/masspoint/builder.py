"""Describe a mass-point system point by point and link by link, then ``build()`` it.

Example (the 1 m pendulum of Schmitt & Thüring §5.1)::

    b = MassPointBuilder("pendulum")
    b.add_point("pivot", (0, 0, 0), fixed=True)
    b.add_point("bob", (sin(a), 0, -cos(a)), mass=1.0)
    b.add_distance("pivot", "bob")              # length: the initial distance
    model, state = b.build()

A rigid body is a set of points with a distance constraint between *all* pairs (§2):
``b.add_rigid_body("cube", corner_names)`` adds them. Every error names the element, e.g.
``points[3] "tip": mass must be positive and finite, got -1.0``.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Iterable, Optional

import numpy as np

from impulsim.errors import ModelError
from impulsim.methods.masspoint.kinds import ConstraintKind, PointKind

INITIAL_TOLERANCE = 1e-9
"""Largest violation [m] of a constraint at t = 0 that build() accepts: the method assumes a consistent
start (§3), and anything larger is a modelling mistake, not rounding."""

RAIL_TOLERANCE = 1e-12
"""Largest off-rail velocity component [m/s] per unit speed accepted for a point on a line or plane."""


@dataclass
class _PointSpec:
    name: str
    position: np.ndarray
    velocity: np.ndarray
    mass: float
    kind: PointKind
    axis: np.ndarray


@dataclass
class _ConstraintSpec:
    name: str
    kind: ConstraintKind
    a: str
    b: str
    length: Optional[float]


@dataclass
class _KickSpec:
    point: str
    force: np.ndarray
    start: float
    end: float


def _vec(value, what: str) -> np.ndarray:
    a = np.asarray(value, dtype=float).reshape(-1)
    if a.shape != (3,) or not np.all(np.isfinite(a)):
        raise ModelError(f"{what} must be 3 finite numbers, got {value!r}")
    return a


def _unit(value, what: str) -> np.ndarray:
    a = _vec(value, what)
    norm = float(np.linalg.norm(a))
    if norm == 0.0:
        raise ModelError(f"{what} must not be the zero vector")
    return a / norm


class MassPointBuilder:
    """Collects points, constraints and kicks; :meth:`build` validates them and returns
    ``(MassPointModel, MassPointState)``."""

    def __init__(self, name: str = "masspoints", gravity=(0.0, 0.0, -9.81)):
        self.name = name
        self.gravity = _vec(gravity, "gravity")
        self.points: list[_PointSpec] = []
        self.constraints: list[_ConstraintSpec] = []
        self.kicks: list[_KickSpec] = []

    # points ---------------------------------------------------------------------------------------
    def add_point(self, name: str, position, *, mass: Optional[float] = None, velocity=(0.0, 0.0, 0.0),
                  fixed: bool = False, line=None, plane=None) -> str:
        """Add a point mass at ``position`` [m] with ``velocity`` [m/s] (world frame).

        ``fixed=True`` makes it a suspension point (never moves; ``mass`` is optional and unused).
        ``line=direction`` keeps it on the fixed line through ``position`` with that direction, and
        ``plane=normal`` in the fixed plane through ``position`` with that normal (frictionless rails).
        """
        label = f'points[{len(self.points)}] "{name}"'
        pos = _vec(position, f"{label}: position")
        vel = _vec(velocity, f"{label}: velocity")
        kind, axis = self._point_kind(label, fixed, line, plane)
        m = self._point_mass(label, mass, kind)
        _check_rail_velocity(label, kind, axis, vel)
        self.points.append(_PointSpec(name, pos, vel, m, kind, axis))
        return name

    @staticmethod
    def _point_kind(label, fixed, line, plane):
        given = [k for k, v in (("fixed", fixed or None), ("line", line), ("plane", plane)) if v is not None]
        if len(given) > 1:
            raise ModelError(f"{label}: give at most one of fixed, line and plane, got {', '.join(given)}")
        if fixed:
            return PointKind.FIXED, np.zeros(3)
        if line is not None:
            return PointKind.LINE, _unit(line, f"{label}: line direction")
        if plane is not None:
            return PointKind.PLANE, _unit(plane, f"{label}: plane normal")
        return PointKind.FREE, np.zeros(3)

    @staticmethod
    def _point_mass(label, mass, kind) -> float:
        if mass is None:
            if kind == PointKind.FIXED:
                return 0.0
            raise ModelError(f"{label}: a movable point needs a mass [kg]")
        m = float(mass)
        if not (math.isfinite(m) and m > 0.0):
            raise ModelError(f"{label}: mass must be positive and finite, got {mass!r}")
        return m

    # constraints ----------------------------------------------------------------------------------
    def add_distance(self, a: str, b: str, *, length: Optional[float] = None,
                     name: Optional[str] = None) -> str:
        """Rigid link |P_b − P_a| = ``length`` [m] (default: the initial distance)."""
        return self._add_constraint(ConstraintKind.DISTANCE, a, b, length, name)

    def add_thread(self, a: str, b: str, *, length: float, name: Optional[str] = None) -> str:
        """Massless inextensible thread |P_b − P_a| ≤ ``length`` [m] (§5.4)."""
        return self._add_constraint(ConstraintKind.THREAD, a, b, length, name)

    def add_rigid_body(self, name: str, points: Iterable[str]) -> list[str]:
        """Make ``points`` one rigid body: a distance constraint between every pair (§2).

        Returns the constraint names, ``"{name}:{a}-{b}"``; n points give n(n−1)/2 constraints.
        """
        names = list(points)
        if len(names) < 2:
            raise ModelError(f'rigid body "{name}": needs at least two points, got {names!r}')
        return [self.add_distance(a, b, name=f"{name}:{a}-{b}") for a, b in itertools.combinations(names, 2)]

    def _add_constraint(self, kind, a, b, length, name) -> str:
        name = f"{a}-{b}" if name is None else name
        label = f'constraints[{len(self.constraints)}] "{name}"'
        if length is not None:
            d = float(length)
            if not (math.isfinite(d) and d > 0.0):
                raise ModelError(f"{label}: length must be positive and finite, got {length!r}")
            length = d
        self.constraints.append(_ConstraintSpec(name, kind, str(a), str(b), length))
        return name

    # external forces ------------------------------------------------------------------------------
    def add_kick(self, point: str, force, *, start: float = 0.0, duration: float = math.inf) -> int:
        """External force Fex [N] on ``point`` from ``start`` for ``duration`` [s] (world frame).

        Within a step the force is held constant at its mean over the step, so the impulse it gives
        is exact even when the window does not line up with the steps. Returns the kick's index.
        """
        label = f'kicks[{len(self.kicks)}] on "{point}"'
        f = _vec(force, f"{label}: force")
        t0, dt = float(start), float(duration)
        if not math.isfinite(t0):
            raise ModelError(f"{label}: start must be a finite time [s], got {start!r}")
        if not dt > 0.0:
            raise ModelError(f"{label}: duration must be positive [s], got {duration!r}")
        self.kicks.append(_KickSpec(str(point), f, t0, t0 + dt))
        return len(self.kicks) - 1

    def build(self, *, initial_tolerance: float = INITIAL_TOLERANCE):
        """Validate and compile into an immutable :class:`MassPointModel` and its initial state."""
        from impulsim.methods.masspoint.compile import compile_model
        return compile_model(self, initial_tolerance)


def _check_rail_velocity(label, kind, axis, vel):
    speed = float(np.linalg.norm(vel))
    if kind == PointKind.FIXED:
        off = speed
    elif kind == PointKind.LINE:
        off = float(np.linalg.norm(vel - axis * (vel @ axis)))
    elif kind == PointKind.PLANE:
        off = abs(float(vel @ axis))
    else:
        return
    if off > RAIL_TOLERANCE * max(1.0, speed):
        where = "a fixed point" if kind == PointKind.FIXED else f"its {kind.name.lower()}"
        raise ModelError(f"{label}: velocity {vel.tolist()} leaves {where} (off-rail part {off:.3g} m/s)")
