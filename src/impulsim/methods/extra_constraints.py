"""Wagner's constraints beyond the model's joints (Wagner 2001, Table 5.1, App. G), shared by the methods that
keep them: the Lagrange method (as rows of its system) and the impulse method (by impulses, like joints with
a moving target).

Pass them to a method with ``make_method(name, model, constraints=[...])``. Each names a body point by
the body (name or index; ``"world"`` for the ground) and an anchor in that body's *user* frame (the frame
its position and orientation were given in), like the builder's ``anchor_a``/``anchor_b``.

* :class:`PointToFunction` — C = P − f(t) (3 rows): a body point follows a prescribed world path.
* :class:`PointToPath` — a body point travels along a Bézier curve at a set speed: at the start of each
  step the curve point closest to P is found and the target moves on from there at ``speed`` [m/s]
  (Wagner 6.1.3); at the curve's end the target stops or turns back.
* :class:`EqualVelocity` — C = Ṗ₁ − Ṗ₂ (3 velocity rows): two body points move alike; with one body
  the point's velocity is held at zero.
* :class:`VelocityToFunction` — C = Ṗ − f(t) (3 velocity rows): a body point's velocity follows f(t).

The model's own velocity joint (``add_velocity_joint``) covers EqualVelocity with a constant offset; the
classes here add the time functions and the path, which the model cannot express yet.
"""
from __future__ import annotations

import numpy as np

from impulsim.errors import ModelError
from impulsim.math import quat_rotate_inv
from impulsim.methods.curves import BezierCurve
from impulsim.model.kinds import Prim

POINT_FUNCTION = 9
"""Kind of a block that holds a point of B at a world point f(t): C = P − f(t) (3 rows)."""
VELOCITY_FUNCTION = 10
"""Kind of a block that makes the velocity of a point of B equal f(t): C = Ṗ − f(t) (3 velocity rows)."""
VEL_POINT = int(Prim.VEL_POINT)
"""Kind of a block that makes two body points move alike (the model's velocity-joint primitive)."""


def body_index(model, body, label: str) -> int:
    """Index of ``body`` (name or index) in the model, or a ModelError naming ``label``."""
    if isinstance(body, (int, np.integer)):
        if not 0 <= int(body) < model.n_bodies:
            raise ModelError(f"{label}: body index {body} does not exist")
        return int(body)
    try:
        return model.body(body)
    except KeyError:
        raise ModelError(f'{label}: body "{body}" does not exist') from None


def principal_anchor(model, k: int, anchor) -> np.ndarray:
    """A point given in body k's user frame, expressed in its principal frame [m]."""
    p = np.zeros(3) if anchor is None else np.asarray(anchor, float).reshape(3)
    return quat_rotate_inv(model.body_frame_quat[k], p - model.body_frame_offset[k])


def _check_function(f, label):
    if not callable(f):
        raise ModelError(f"{label}: the function must be callable as f(t) -> (value, rate, second rate)")
    try:
        out = [np.asarray(v, float).reshape(3) for v in f(0.0)]
    except Exception as exc:
        raise ModelError(f"{label}: f(0) must return three 3-vectors ({exc})") from None
    if len(out) != 3 or not all(np.all(np.isfinite(v)) for v in out):
        raise ModelError(f"{label}: f(0) must return three finite 3-vectors")


class ExtraConstraint:
    """Base class: one block of rows on body B (and optionally A) of a known kind."""

    kind: int
    name: str

    def block(self, model) -> dict:
        raise NotImplementedError

    def begin_step(self, model, state, h: float) -> None:
        """Called once before every step with the state at its start."""

    def function(self, t: float):
        """(f, ḟ, f̈) at time t for time-dependent kinds."""
        return np.zeros(3), np.zeros(3), np.zeros(3)


class PointToFunction(ExtraConstraint):
    """Hold the point ``anchor`` of ``body`` at f(t): C = P − f(t), Ċ = Ṗ − ḟ, c = … − f̈ (Wagner App. G)."""

    kind = POINT_FUNCTION

    def __init__(self, name: str, body, f, anchor=None):
        self.name, self.body, self.f, self.anchor = name, body, f, anchor
        _check_function(f, f'constraint "{name}"')

    def block(self, model) -> dict:
        k = body_index(model, self.body, f'constraint "{self.name}"')
        return dict(kind=int(self.kind), a=0, b=k, anchor_b=principal_anchor(model, k, self.anchor))

    def function(self, t: float):
        return self.f(t)


class VelocityToFunction(PointToFunction):
    """Make the velocity of ``anchor`` on ``body`` follow f(t) [m/s]: C = Ṗ − f(t) (velocity rows)."""

    kind = VELOCITY_FUNCTION


class EqualVelocity(ExtraConstraint):
    """Ṗ_a = Ṗ_b for a point of ``body_a`` and one of ``body_b`` (velocity rows); ``body_a="world"``
    holds the point of ``body_b`` at rest."""

    kind = VEL_POINT

    def __init__(self, name: str, body_a, body_b, anchor_a=None, anchor_b=None):
        self.name, self.body_a, self.body_b = name, body_a, body_b
        self.anchor_a, self.anchor_b = anchor_a, anchor_b

    def block(self, model) -> dict:
        label = f'constraint "{self.name}"'
        a, b = body_index(model, self.body_a, label), body_index(model, self.body_b, label)
        if a == b:
            raise ModelError(f"{label}: needs two different bodies")
        return dict(kind=int(self.kind), a=a, b=b, anchor_a=principal_anchor(model, a, self.anchor_a),
                    anchor_b=principal_anchor(model, b, self.anchor_b), vel_target=np.zeros(3))


class PointToPath(ExtraConstraint):
    """Move the point ``anchor`` of ``body`` along ``curve`` (a :class:`BezierCurve` or its control points)
    at ``speed`` [m/s]; ``at_end`` is ``"stop"`` or ``"reverse"``.

    At the start of each step the curve parameter u* of the point closest to P is found (near the
    previous one); the target then runs from B(u*) with du/dt = ±speed/|B'(u*)| held over the step, so
    f(t) = B(u(t)), ḟ = B' u̇, f̈ = B'' u̇². Reaching u = 1 (or 0 when reversed) the target stops there or
    turns back.
    """

    kind = POINT_FUNCTION

    def __init__(self, name: str, body, curve, speed: float, anchor=None, at_end: str = "stop"):
        if at_end not in ("stop", "reverse"):
            raise ModelError(f'constraint "{name}": at_end must be "stop" or "reverse", got {at_end!r}')
        if not (np.isfinite(speed) and speed >= 0):
            raise ModelError(f'constraint "{name}": speed must be a non-negative number of m/s, got {speed!r}')
        self.name, self.body, self.anchor = name, body, anchor
        self.curve = curve if isinstance(curve, BezierCurve) else BezierCurve(curve)
        self.speed, self.at_end = float(speed), at_end
        self.direction = 1.0
        self.u = None
        self._t0, self._u0, self._rate = 0.0, 0.0, 0.0

    def block(self, model) -> dict:
        k = body_index(model, self.body, f'constraint "{self.name}"')
        return dict(kind=int(self.kind), a=0, b=k, anchor_b=principal_anchor(model, k, self.anchor))

    def begin_step(self, model, state, h: float) -> None:
        from impulsim.math import quat_rotate
        k = body_index(model, self.body, self.name)
        p = state.body_pos[k] + quat_rotate(state.body_quat[k], principal_anchor(model, k, self.anchor))
        self.u = self.curve.closest_parameter(p, self.u)
        end = 1.0 if self.direction > 0 else 0.0
        if abs(self.u - end) < 1e-12:
            if self.at_end == "reverse":
                self.direction = -self.direction
        length_rate = float(np.linalg.norm(self.curve.tangent(self.u)))
        rate = self.direction * self.speed / length_rate if length_rate > 0 else 0.0
        if self.at_end == "stop" and abs(self.u - end) < 1e-12:
            rate = 0.0
        self._t0, self._u0, self._rate = state.t, self.u, rate

    def function(self, t: float):
        u = self._u0 + self._rate * (t - self._t0)
        rate = self._rate
        if not 0.0 <= u <= 1.0:          # the end is reached inside the step: hold it there
            u = min(1.0, max(0.0, u))
            rate = 0.0
        c = self.curve
        return c.point(u), c.tangent(u) * rate, c.curvature_vector(u) * rate * rate


def _movable(model, k: int) -> bool:
    return model.body_inv_mass[k] > 0.0


def validated_extras(model, constraints) -> list:
    """``constraints`` as a list, each an ExtraConstraint with a name of its own on existing bodies (see
    check_extras); a ModelError names the first that is not."""
    extras = list(constraints)
    for c in extras:
        if not isinstance(c, ExtraConstraint):
            raise ModelError(f"constraints must be ExtraConstraint objects (PointToFunction, PointToPath, "
                             f"VelocityToFunction, EqualVelocity), got {type(c).__name__}")
    names = [c.name for c in extras]
    for name in names:
        if names.count(name) > 1:
            raise ModelError(f'constraint "{name}": the name is used twice')
    check_extras(model, extras)
    return extras


def check_extras(model, extras) -> None:
    """Every extra constraint names existing bodies, at least one of them movable (ModelError naming it)."""
    for extra in extras:
        block = extra.block(model)
        for key in ("a", "b"):
            if not 0 <= block[key] < model.n_bodies:
                raise ModelError(f'constraint "{extra.name}": body index {block[key]} does not exist')
        if not (_movable(model, block["a"]) or _movable(model, block["b"])):
            raise ModelError(f'constraint "{extra.name}": acts only on static or kinematic bodies, '
                             "which no force can move")
