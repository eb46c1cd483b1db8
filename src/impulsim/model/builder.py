"""The builder API: describe bodies, joints and actuators in your own frames, then ``build()``.

Example::

    b = ModelBuilder()
    b.add_body("rod", shapes=[Box(size=(0.05, 0.05, 1.0))], density=1000, position=(0, 0, -0.5))
    b.add_hinge("pivot", "world", "rod", anchor=(0, 0, 0), axis=(1, 0, 0))
    model, state = b.build()

Anchors and axes are given either once in world coordinates at the initial pose (``anchor=``, ``axis=``)
or per body in that body's user frame (``anchor_a=``/``anchor_b=``, ``axis_a=``/``axis_b=``).
"""
from __future__ import annotations

from typing import Iterable, Optional

import numpy as np

from impulsim.errors import ModelError
from impulsim.model.kinds import JointKind, Coordinate, ServoMode
from impulsim.model.specs import BodySpec, JointSpec, LimitSpec, MotorSpec, ServoSpec, SpringSpec, Material

WORLD = "world"


def _vec(v, what, n=3):
    if v is None:
        return None
    a = np.asarray(v, dtype=float).reshape(-1)
    if a.shape != (n,) or not np.all(np.isfinite(a)):
        raise ModelError(f"{what} must be {n} finite numbers, got {v!r}")
    return a


class ModelBuilder:
    """Collects a scene description; :meth:`build` validates it and returns ``(Model, State)``."""

    def __init__(self, name: str = "scene", gravity=(0.0, 0.0, -9.81)):
        self.name = name
        self.gravity = _vec(gravity, "gravity")
        self.bodies: list[BodySpec] = []
        self.joints: list[JointSpec] = []
        self.motors: list[MotorSpec] = []
        self.servos: list[ServoSpec] = []
        self.springs: list[SpringSpec] = []
        self.limits: list[LimitSpec] = []
        self.materials: dict[str, Material] = {"default": Material()}
        self.collision_rules: list[tuple[str, str, bool]] = []   # (body_a, body_b, exclude?)

    # bodies ---------------------------------------------------------------------------------------
    def add_material(self, name: str, **props) -> str:
        """Define a material (restitution, static_friction, dynamic_friction, density)."""
        mat = Material(name=name, **props)
        for key in ("restitution", "static_friction", "dynamic_friction", "density"):
            v = getattr(mat, key)
            if not (np.isfinite(v) and v >= 0):
                raise ModelError(f'materials "{name}": {key} must be non-negative, got {v!r}')
        self.materials[name] = mat
        return name

    def add_body(self, name: str, *, shapes: Iterable = (), mass: Optional[float] = None,
                 inertia=None, com=None, density: Optional[float] = None,
                 position=(0.0, 0.0, 0.0), orientation=(1.0, 0.0, 0.0, 0.0),
                 velocity=(0.0, 0.0, 0.0), angular_velocity=(0.0, 0.0, 0.0),
                 static: bool = False, kinematic: bool = False, material: Optional[str] = None,
                 collision_group: int = 1, collision_mask: int = -1, where: str = "") -> str:
        """Add a rigid body whose user frame sits at ``position`` with ``orientation`` (world).

        Mass properties come from ``mass`` + ``inertia`` (3 principal moments or a 3×3 tensor about
        ``com``, user frame) or from the ``shapes`` at ``density`` [kg/m³]; giving ``mass`` with shapes
        scales the shapes' properties to that mass. ``velocity`` [m/s] is that of the user-frame origin,
        ``angular_velocity`` [rad/s] is in the world frame. Static and kinematic bodies (infinite mass)
        keep the user frame as their body frame. Two bodies' shapes may collide only if each one's
        ``collision_group`` bits meet the other's ``collision_mask``.
        """
        label = f'bodies[{len(self.bodies)}] "{name}"'
        self.bodies.append(BodySpec(
            name=name, shapes=list(shapes), mass=mass, inertia=inertia, com=_vec(com, f"{label}: com"),
            density=density, position=_vec(position, f"{label}: position"),
            orientation=_vec(orientation, f"{label}: orientation", 4),
            velocity=_vec(velocity, f"{label}: velocity"),
            angular_velocity=_vec(angular_velocity, f"{label}: angular_velocity"),
            static=bool(static), kinematic=bool(kinematic), material=material,
            collision_group=int(collision_group), collision_mask=int(collision_mask), where=where))
        return name

    def exclude_collision(self, body_a: str, body_b: str) -> None:
        """Never test the shapes of these two bodies against each other."""
        self.collision_rules.append((body_a, body_b, True))

    def allow_collision(self, body_a: str, body_b: str) -> None:
        """Test these bodies against each other even though a joint connects them."""
        self.collision_rules.append((body_a, body_b, False))

    # joints ---------------------------------------------------------------------------------------
    def add_joint(self, kind: JointKind | str, name: str, body_a: str, body_b: str, *, where: str = "",
                  **frame) -> str:
        """Add a joint of any kind between ``body_a`` and ``body_b`` (``"world"`` for the ground).

        Keyword arguments: anchor, anchor_a, anchor_b, axis, axis_a, axis_b, length (distance joints),
        velocity / angular_velocity (velocity joints: prescribed B-minus-A relative velocity, world).
        """
        kind = _joint_kind(kind, name)
        label = f'joints[{len(self.joints)}] "{name}"'
        spec = JointSpec(name=name, kind=kind, body_a=body_a, body_b=body_b, where=where)
        for key, value in frame.items():
            if not hasattr(spec, key) or key in ("name", "kind", "body_a", "body_b", "where"):
                raise ModelError(f"{label}: unknown joint parameter {key!r}")
            if key == "length":
                setattr(spec, key, None if value is None else float(value))
            else:
                setattr(spec, key, _vec(value, f"{label}: {key}"))
        self.joints.append(spec)
        return name

    def add_ball(self, name, body_a, body_b, **kw):
        """Ball (spherical) joint: removes the three relative translations at the anchor."""
        return self.add_joint(JointKind.BALL, name, body_a, body_b, **kw)

    def add_distance(self, name, body_a, body_b, **kw):
        """Distance joint: |b − a| = length (default: the initial distance)."""
        return self.add_joint(JointKind.DISTANCE, name, body_a, body_b, **kw)

    def add_hinge(self, name, body_a, body_b, **kw):
        """Hinge (revolute): ball + direction; one rotation about ``axis`` remains."""
        return self.add_joint(JointKind.HINGE, name, body_a, body_b, **kw)

    def add_slider(self, name, body_a, body_b, **kw):
        """Slider (prismatic): point-on-line + rotation lock; one translation along ``axis`` remains."""
        return self.add_joint(JointKind.SLIDER, name, body_a, body_b, **kw)

    def add_cylindrical(self, name, body_a, body_b, **kw):
        """Cylindrical: point-on-line + direction; translation along and rotation about ``axis``."""
        return self.add_joint(JointKind.CYLINDRICAL, name, body_a, body_b, **kw)

    def add_universal(self, name, body_a, body_b, **kw):
        """Universal (cardan): ball + double rotation; rotations about ``axis_a`` and ``axis_b`` remain."""
        return self.add_joint(JointKind.UNIVERSAL, name, body_a, body_b, **kw)

    def add_fixed(self, name, body_a, body_b, **kw):
        """Fixed: ball + rotation lock; no relative motion."""
        return self.add_joint(JointKind.FIXED, name, body_a, body_b, **kw)

    def add_velocity_joint(self, name, body_a, body_b, **kw):
        """Velocity-only joint: B's point (and/or rotation) moves with A's plus a prescribed velocity."""
        return self.add_joint(JointKind.VELOCITY, name, body_a, body_b, **kw)

    # actuators ------------------------------------------------------------------------------------
    def add_motor(self, name: str, joint: str, effort: float = 0.0, coordinate: str = "auto",
                  where: str = "") -> str:
        """A motor applying ``effort`` (torque [N m] or force [N]) along the joint axis, + to B, − to A."""
        self.motors.append(MotorSpec(name, joint, _coordinate(coordinate), float(effort), where))
        return name

    def add_servo(self, name: str, joint: str, mode: str = "angle", *, kp: float, ki: float = 0.0,
                  kd: float = 0.0, limit: float = np.inf, setpoints=((0.0, 0.0),),
                  interpolate: bool = False, where: str = "") -> str:
        """A PID servo on a joint's angle, position, angular_velocity or velocity.

        effort = kp e + ki ∫e dt + kd de/dt, clamped to ±limit; with Bender's form
        sg = K_r (e + (1/T_N) ∫e + T_V ė) use kp = K_r, ki = K_r/T_N, kd = K_r T_V.
        ``setpoints`` is a sequence of (time [s], value) pairs, held (or interpolated) over time, or one
        number: a constant set-point (as in scene files).
        """
        if np.ndim(setpoints) == 0:
            setpoints = ((0.0, setpoints),)
        try:
            mode_kind = ServoMode[mode.upper()]
        except KeyError:
            raise ModelError(f'servos[{len(self.servos)}] "{name}": unknown mode {mode!r} '
                             f"(use {', '.join(m.name.lower() for m in ServoMode)})") from None
        self.servos.append(ServoSpec(name, joint, mode_kind, float(kp), float(ki), float(kd),
                                     float(limit), [tuple(map(float, p)) for p in setpoints],
                                     bool(interpolate), where))
        return name

    def add_limit(self, name: str, joint: str, lower: float = -np.inf, upper: float = np.inf, *,
                  restitution: float = 0.0, coordinate: str = "auto", where: str = "") -> str:
        """Keep a joint coordinate within [lower, upper]: a hinge's angle [rad, in (−π, π)] or a slider's
        position [m] (cylindrical joints: ``coordinate`` "angle" or "position"). The stops act like contacts
        with restitution ``restitution`` (Newton's law on the coordinate's rate, 0 … 1)."""
        self.limits.append(LimitSpec(name, joint, _coordinate(coordinate), float(lower), float(upper),
                                     float(restitution), where))
        return name

    def add_spring(self, name: str, body_a: str, body_b: str, *, stiffness: float, damping: float = 0.0,
                   rest_length: Optional[float] = None, anchor_a=None, anchor_b=None,
                   where: str = "") -> str:
        """A spring-damper between body points (user frames; default: the centres of the user frames).

        Force on A: (D (|d| − l) + c ḋ) d̂ with d = b − a; the opposite force acts on B.
        """
        self.springs.append(SpringSpec(name, body_a, body_b, _vec(anchor_a, "spring anchor_a"),
                                       _vec(anchor_b, "spring anchor_b"), float(stiffness),
                                       float(damping), rest_length, where))
        return name

    def build(self):
        """Validate and compile into an immutable :class:`Model` and its initial :class:`State`."""
        from impulsim.model.compile import compile_model
        return compile_model(self)


def _joint_kind(kind, name) -> JointKind:
    if isinstance(kind, JointKind):
        return kind
    try:
        return JointKind[str(kind).upper().replace("-", "_")]
    except KeyError:
        names = ", ".join(k.name.lower() for k in JointKind)
        raise ModelError(f'joint "{name}": unknown joint type {kind!r} (use one of: {names})') from None


def _coordinate(c) -> Optional[Coordinate]:
    if c == "auto" or c is None:
        return None
    try:
        return Coordinate[str(c).upper()]
    except KeyError:
        raise ModelError(f"unknown joint coordinate {c!r} (use angle or position)") from None
