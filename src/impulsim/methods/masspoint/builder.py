"""Describe a mass-point system point by point and link by link: a convenience over ``ModelBuilder``.

Example (the 1 m pendulum of Schmitt & Thüring §5.1)::

    b = MassPointBuilder("pendulum")
    b.add_point("pivot", (0, 0, 0), fixed=True)
    b.add_point("bob", (sin(a), 0, -cos(a)), mass=1.0)
    b.add_distance("pivot", "bob")              # length: the initial distance
    model, state = b.build()                    # the shared Model and State

Each call becomes one element of an ordinary :class:`~impulsim.model.ModelBuilder` (``b.builder``): a
fixed point is a static body, a point a point mass (``add_point``), a rail a point-on-line or
point-on-plane joint with the world, a link a distance joint, a thread a thread joint and a kick a timed
load. A rigid body is a set of points with a distance between *all* pairs (§2): ``add_rigid_body``.
:meth:`build` also checks that the start is consistent, as the method needs (report §3).
"""
from __future__ import annotations

import itertools
import math
from typing import Iterable, Optional

import numpy as np

from impulsim.errors import ModelError
from impulsim.methods.masspoint.system import point_system
from impulsim.model.builder import WORLD, ModelBuilder, Vec3
from impulsim.model.kinds import JointKind


class MassPointBuilder:
    """Collects points, links, threads, rails and kicks into ``self.builder``; :meth:`build` returns
    ``(Model, State)``."""

    def __init__(self, name: str = "masspoints", gravity: Vec3 = (0.0, 0.0, -9.81)):
        """An empty system called ``name`` with ``gravity`` [m/s²] in the world frame."""
        self.builder = ModelBuilder(name, gravity=gravity)

    def add_point(self, name: str, position: Vec3, *, mass: Optional[float] = None,
                  velocity: Vec3 = (0.0, 0.0, 0.0), fixed: bool = False, line: Optional[Vec3] = None,
                  plane: Optional[Vec3] = None) -> str:
        """A point mass at ``position`` [m] with ``velocity`` [m/s] (world frame).

        ``fixed=True`` makes it a suspension point (a static body; ``mass`` is unused). ``line=direction``
        keeps it on the fixed line through ``position`` with that direction, and ``plane=normal`` in the
        fixed plane through ``position`` with that normal (frictionless rails, joints named "NAME:rail").
        """
        given = [k for k, v in (("fixed", fixed or None), ("line", line), ("plane", plane)) if v is not None]
        label = f'bodies[{len(self.builder.bodies)}] "{name}"'
        if len(given) > 1:
            raise ModelError(f"{label}: give at most one of fixed, line and plane, got {', '.join(given)}")
        if fixed:
            if np.any(np.asarray(velocity, float) != 0.0):
                raise ModelError(f"{label}: a fixed point cannot have the velocity {list(velocity)!r}")
            return self.builder.add_body(name, static=True, position=position)
        self.builder.add_point(name, mass=mass, position=position, velocity=velocity)
        for kind, axis in ((JointKind.POINT_ON_LINE, line), (JointKind.POINT_ON_PLANE, plane)):
            if axis is not None:
                self.builder.add_joint(kind, f"{name}:rail", WORLD, name, axis=axis)
        return name

    def add_distance(self, a: str, b: str, *, length: Optional[float] = None, name: Optional[str] = None) -> str:
        """Rigid link |P_b − P_a| = ``length`` [m] (default: the initial distance)."""
        return self.builder.add_distance(f"{a}-{b}" if name is None else name, a, b, length=length)

    def add_thread(self, a: str, b: str, *, length: float, name: Optional[str] = None) -> str:
        """Massless inextensible thread |P_b − P_a| ≤ ``length`` [m] (§5.4)."""
        return self.builder.add_thread(f"{a}-{b}" if name is None else name, a, b, length=length)

    def add_rigid_body(self, name: str, points: Iterable[str]) -> list[str]:
        """Make ``points`` one rigid body: a distance between every pair (§2), named ``"{name}:{a}-{b}"``;
        n points give n(n−1)/2 links."""
        names = list(points)
        if len(names) < 2:
            raise ModelError(f'rigid body "{name}": needs at least two points, got {names!r}')
        return [self.add_distance(a, b, name=f"{name}:{a}-{b}") for a, b in itertools.combinations(names, 2)]

    def add_kick(self, point: str, force: Vec3, *, start: float = 0.0, duration: float = math.inf) -> int:
        """External force Fex [N] on ``point`` from ``start`` for ``duration`` [s] (world frame), a timed
        load: each step applies its mean over the step, so the impulse is exact."""
        if not float(duration) > 0.0:
            raise ModelError(f'loads[{len(self.builder.loads)}] on "{point}": duration must be positive [s], '
                             f"got {duration!r}")
        return self.builder.add_load(point, force=force, start=start, end=float(start) + float(duration))

    def build(self):
        """The shared ``(Model, State)``, after checking that the method can step it from this start."""
        model, state = self.builder.build()
        point_system(model, state)
        return model, state
