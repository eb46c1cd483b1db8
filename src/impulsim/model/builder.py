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

from typing import Iterable, Optional, Sequence

import numpy as np

from impulsim.errors import ModelError
from impulsim.geometry.shapes import Shape
from impulsim.model.kinds import JointKind, Coordinate, ServoMode
from impulsim.model.specs import (BodySpec, JointSpec, LimitSpec, LoadSpec, MotorSpec, ServoSpec, SpringSpec,
                                  Material)

WORLD = "world"

Vec3 = Sequence[float]
"""Three numbers (x, y, z): a tuple, a list or a numpy array."""

Quat = Sequence[float]
"""Four numbers (w, x, y, z): a rotation quaternion, scalar first."""

Inertia = Sequence[float] | Sequence[Sequence[float]]
"""Three principal moments of inertia or a 3×3 inertia tensor [kg m²]."""

Setpoints = Sequence[Sequence[float]] | float
"""(time [s], value) pairs, or one number: a constant set-point."""


def _vec(v, what, n=3):
    if v is None:
        return None
    a = np.asarray(v, dtype=float).reshape(-1)
    if a.shape != (n,) or not np.all(np.isfinite(a)):
        raise ModelError(f"{what} must be {n} finite numbers, got {v!r}")
    return a


class ModelBuilder:
    """Collects a scene description; :meth:`build` validates it and returns ``(Model, State)``."""

    def __init__(self, name: str = "scene", gravity: Vec3 = (0.0, 0.0, -9.81)):
        """An empty scene called ``name`` with ``gravity`` [m/s²] in the world frame."""
        self.name = name
        self.gravity = _vec(gravity, "gravity")
        self.bodies: list[BodySpec] = []
        self.joints: list[JointSpec] = []
        self.motors: list[MotorSpec] = []
        self.servos: list[ServoSpec] = []
        self.springs: list[SpringSpec] = []
        self.limits: list[LimitSpec] = []
        self.loads: list[LoadSpec] = []
        self.materials: dict[str, Material] = {"default": Material()}
        self.collision_rules: list[tuple[str, str, bool]] = []   # (body_a, body_b, exclude?)

    # bodies ---------------------------------------------------------------------------------------
    def add_material(self, name: str, *, restitution: float = 0.0, static_friction: float = 0.0,
                     dynamic_friction: float = 0.0, density: float = 1000.0) -> str:
        """Define a material that bodies name with ``material=``; returns the name.

        Args:
            restitution: Newton's coefficient of restitution e (0: plastic, 1: elastic) of its contacts.
            static_friction, dynamic_friction: Coulomb friction coefficients μ_s ≥ μ_d (dimensionless).
            density: density [kg/m³] of bodies that take their mass from their shapes.

        For a contact of two materials the coefficients are combined (see docs/contacts.md).
        """
        mat = Material(name=name, restitution=restitution, static_friction=static_friction,
                       dynamic_friction=dynamic_friction, density=density)
        for key in ("restitution", "static_friction", "dynamic_friction", "density"):
            v = getattr(mat, key)
            if not (np.isfinite(v) and v >= 0):
                raise ModelError(f'materials "{name}": {key} must be non-negative, got {v!r}')
        self.materials[name] = mat
        return name

    def add_body(self, name: str, *, shapes: Iterable[Shape] = (), mass: Optional[float] = None,
                 inertia: Optional[Inertia] = None, com: Optional[Vec3] = None, density: Optional[float] = None,
                 position: Vec3 = (0.0, 0.0, 0.0), orientation: Quat = (1.0, 0.0, 0.0, 0.0),
                 velocity: Vec3 = (0.0, 0.0, 0.0), angular_velocity: Vec3 = (0.0, 0.0, 0.0),
                 static: bool = False, kinematic: bool = False, material: Optional[str] = None,
                 collision_group: int = 1, collision_mask: int = -1, point: bool = False,
                 where: str = "") -> str:
        """Add a rigid body whose user frame sits at ``position`` with ``orientation`` (world).

        Mass properties come from ``mass`` + ``inertia`` (3 principal moments or a 3×3 tensor about
        ``com``, user frame) or from the ``shapes`` at ``density`` [kg/m³]; giving ``mass`` with shapes
        scales the shapes' properties to that mass. ``velocity`` [m/s] is that of the user-frame origin,
        ``angular_velocity`` [rad/s] is in the world frame. Static and kinematic bodies (infinite mass)
        keep the user frame as their body frame. Two bodies' shapes may collide only if each one's
        ``collision_group`` bits meet the other's ``collision_mask``. ``point=True`` makes a point mass
        (``mass`` only: no inertia, shapes or angular velocity; see :meth:`add_point`).

        Args:
            name: the body's name (unique; ``"world"`` is taken).
            shapes: shapes (``Box``, ``Sphere``, …) placed in the user frame; they collide and are drawn.
            mass: mass [kg]. inertia: 3 principal moments or a 3×3 tensor [kg m²] about ``com``.
            com: centre of mass [m] in the user frame (with ``mass`` and ``inertia``).
            density: density [kg/m³] for mass from the shapes (default: the material's).
            position: user-frame origin [m], world. orientation: quaternion (w, x, y, z), user to world.
            velocity: of the user-frame origin [m/s], world. angular_velocity: [rad/s], world.
            static: never moves. kinematic: infinite mass, moves with its velocity only.
            material: name of a material from :meth:`add_material`.
            collision_group, collision_mask: bit masks (see above).
            point: a point mass (mass only; see :meth:`add_point`).
            where: source location for error messages (scene files set it).
        """
        label = f'bodies[{len(self.bodies)}] "{name}"'
        self.bodies.append(BodySpec(
            name=name, shapes=list(shapes), mass=mass, inertia=inertia, com=_vec(com, f"{label}: com"),
            density=density, position=_vec(position, f"{label}: position"),
            orientation=_vec(orientation, f"{label}: orientation", 4),
            velocity=_vec(velocity, f"{label}: velocity"),
            angular_velocity=_vec(angular_velocity, f"{label}: angular_velocity"),
            static=bool(static), kinematic=bool(kinematic), material=material,
            collision_group=int(collision_group), collision_mask=int(collision_mask), where=where,
            point=bool(point)))
        return name

    def add_point(self, name: str, *, mass: float, position: Vec3 = (0.0, 0.0, 0.0),
                  velocity: Vec3 = (0.0, 0.0, 0.0), where: str = "") -> str:
        """Add a point mass of ``mass`` [kg] at ``position`` [m] with ``velocity`` [m/s] (world frame).

        A point has no rotational inertia and no extent: joints attach at the point itself, and only
        methods that step point masses (``masspoint``) accept it.

        Args:
            name: the point's name (unique; ``"world"`` is taken).
            mass: mass [kg].
            position: where the point starts [m], world frame.
            velocity: its initial velocity [m/s], world frame.
            where: source location for error messages (scene files set it).
        """
        return self.add_body(name, mass=mass, position=position, velocity=velocity, point=True, where=where)

    def exclude_collision(self, body_a: str, body_b: str) -> None:
        """Never test the shapes of these two bodies against each other."""
        self.collision_rules.append((body_a, body_b, True))

    def allow_collision(self, body_a: str, body_b: str) -> None:
        """Test these bodies against each other even though a joint connects them, or both are hinged to a
        common body at one point (pairs left out by default)."""
        self.collision_rules.append((body_a, body_b, False))

    # joints ---------------------------------------------------------------------------------------
    def add_joint(self, kind: JointKind | str, name: str, body_a: str, body_b: str, *,
                  anchor: Optional[Vec3] = None, anchor_a: Optional[Vec3] = None,
                  anchor_b: Optional[Vec3] = None, axis: Optional[Vec3] = None, axis_a: Optional[Vec3] = None,
                  axis_b: Optional[Vec3] = None, length: Optional[float] = None,
                  velocity: Optional[Vec3] = None, angular_velocity: Optional[Vec3] = None,
                  where: str = "") -> str:
        """Add a joint of any kind between ``body_a`` and ``body_b`` (``"world"`` for the ground).

        The helpers below (:meth:`add_hinge`, …) are this method with their kind and only the parameters
        that kind uses; this one serves code that picks the kind at run time (scene files, loaders).
        Parameters left at None take the kind's defaults.

        Args:
            kind: a :class:`JointKind` or its name (``"hinge"``, ``"point_on_plane"``, …).
            name: the joint's name (unique).
            body_a, body_b: the two bodies' names; ``"world"`` for the ground.
            anchor: the joint point [m], world frame, at the initial pose.
            anchor_a, anchor_b: the joint point [m] in A's and in B's user frame (instead of ``anchor``).
            axis: the joint axis (any length, not zero), world frame, at the initial pose.
            axis_a, axis_b: the joint axis in A's and in B's user frame (instead of ``axis``).
            length: distance and thread joints: the distance [m] (default: the initial distance).
            velocity: velocity joints: prescribed velocity of B's point minus A's [m/s], world frame.
            angular_velocity: velocity joints: prescribed angular velocity of B minus A [rad/s], world.
            where: source location for error messages (scene files set it).

        Returns the name.
        """
        kind = _joint_kind(kind, name)
        label = f'joints[{len(self.joints)}] "{name}"'
        self.joints.append(JointSpec(
            name=name, kind=kind, body_a=body_a, body_b=body_b,
            anchor=_vec(anchor, f"{label}: anchor"), anchor_a=_vec(anchor_a, f"{label}: anchor_a"),
            anchor_b=_vec(anchor_b, f"{label}: anchor_b"), axis=_vec(axis, f"{label}: axis"),
            axis_a=_vec(axis_a, f"{label}: axis_a"), axis_b=_vec(axis_b, f"{label}: axis_b"),
            length=None if length is None else float(length), velocity=_vec(velocity, f"{label}: velocity"),
            angular_velocity=_vec(angular_velocity, f"{label}: angular_velocity"), where=where))
        return name

    # Each joint kind below takes its frame as keywords, either once in world coordinates at the initial
    # pose (anchor, axis) or per body in that body's user frame (anchor_a/anchor_b, axis_a/axis_b).

    def add_ball(self, name: str, body_a: str, body_b: str, *, anchor: Optional[Vec3] = None,
                 anchor_a: Optional[Vec3] = None, anchor_b: Optional[Vec3] = None, where: str = "") -> str:
        """Ball (spherical) joint: removes the three relative translations at the anchor.

        Args:
            name: the joint's name (unique).
            body_a, body_b: the two bodies' names; ``"world"`` for the ground.
            anchor: the joint point [m], world frame, at the initial pose.
            anchor_a, anchor_b: the joint point [m] in A's and in B's user frame (instead of ``anchor``).
            where: source location for error messages (scene files set it).

        Returns the name.
        """
        return self.add_joint(JointKind.BALL, name, body_a, body_b, where=where,
                              anchor=anchor, anchor_a=anchor_a, anchor_b=anchor_b)

    def add_distance(self, name: str, body_a: str, body_b: str, *, anchor_a: Optional[Vec3] = None,
                     anchor_b: Optional[Vec3] = None, anchor: Optional[Vec3] = None,
                     length: Optional[float] = None, where: str = "") -> str:
        """Distance joint: |b − a| = length between a point a on A and a point b on B.

        Args:
            anchor_a, anchor_b: the two points [m] in A's and B's user frames (default: the frames' origins).
            anchor: one world point [m] used for both (then the length is 0 unless given).
            length: the distance [m] to keep (default: the initial distance).
            where: source location for error messages.
        """
        return self.add_joint(JointKind.DISTANCE, name, body_a, body_b, where=where,
                              anchor=anchor, anchor_a=anchor_a, anchor_b=anchor_b, length=length)

    def add_hinge(self, name: str, body_a: str, body_b: str, *, anchor: Optional[Vec3] = None,
                  axis: Optional[Vec3] = None, anchor_a: Optional[Vec3] = None, anchor_b: Optional[Vec3] = None,
                  axis_a: Optional[Vec3] = None, axis_b: Optional[Vec3] = None, where: str = "") -> str:
        """Hinge (revolute): ball + direction; one rotation about ``axis`` remains.

        Args:
            anchor: a point on the hinge axis [m], world frame, at the initial pose.
            axis: the hinge axis (any length, not zero), world frame.
            anchor_a, anchor_b, axis_a, axis_b: the same per body, in A's and B's user frames.
            where: source location for error messages.

        The joint coordinate (``diagnostics.joint_coordinate``) is B's angle about the axis relative to A
        [rad], counted from the initial pose.
        """
        return self.add_joint(JointKind.HINGE, name, body_a, body_b, where=where,
                              anchor=anchor, axis=axis, anchor_a=anchor_a, anchor_b=anchor_b,
                              axis_a=axis_a, axis_b=axis_b)

    def add_slider(self, name: str, body_a: str, body_b: str, *, anchor: Optional[Vec3] = None,
                   axis: Optional[Vec3] = None, anchor_a: Optional[Vec3] = None,
                   anchor_b: Optional[Vec3] = None, axis_a: Optional[Vec3] = None,
                   axis_b: Optional[Vec3] = None, where: str = "") -> str:
        """Slider (prismatic): point-on-line + rotation lock; one translation along ``axis`` remains.

        Args:
            anchor: a point on the line [m], world frame, at the initial pose.
            axis: the direction of the line, world frame.
            anchor_a, anchor_b, axis_a, axis_b: the same per body, in A's and B's user frames.
            where: source location for error messages.

        The joint coordinate is B's displacement along the axis relative to A [m] from the initial pose.
        """
        return self.add_joint(JointKind.SLIDER, name, body_a, body_b, where=where,
                              anchor=anchor, axis=axis, anchor_a=anchor_a, anchor_b=anchor_b,
                              axis_a=axis_a, axis_b=axis_b)

    def add_cylindrical(self, name: str, body_a: str, body_b: str, *, anchor: Optional[Vec3] = None,
                        axis: Optional[Vec3] = None, anchor_a: Optional[Vec3] = None,
                        anchor_b: Optional[Vec3] = None, axis_a: Optional[Vec3] = None,
                        axis_b: Optional[Vec3] = None, where: str = "") -> str:
        """Cylindrical: point-on-line + direction; translation along and rotation about ``axis`` remain.

        Args:
            anchor: a point on the axis [m], world frame, at the initial pose.
            axis: the axis direction, world frame.
            anchor_a, anchor_b, axis_a, axis_b: the same per body, in A's and B's user frames.
            where: source location for error messages.

        Two joint coordinates: the angle [rad] and the position [m] along the axis.
        """
        return self.add_joint(JointKind.CYLINDRICAL, name, body_a, body_b, where=where,
                              anchor=anchor, axis=axis, anchor_a=anchor_a, anchor_b=anchor_b,
                              axis_a=axis_a, axis_b=axis_b)

    def add_universal(self, name: str, body_a: str, body_b: str, *, anchor: Optional[Vec3] = None,
                      axis_a: Optional[Vec3] = None, axis_b: Optional[Vec3] = None,
                      anchor_a: Optional[Vec3] = None, anchor_b: Optional[Vec3] = None,
                      axis: Optional[Vec3] = None, where: str = "") -> str:
        """Universal (cardan): ball + double rotation; rotations about ``axis_a`` and ``axis_b`` remain.

        Args:
            anchor: the centre of the cross [m], world frame, at the initial pose.
            axis_a: the first axis, fixed in A (A's user frame); axis_b: the second, fixed in B (B's frame).
            anchor_a, anchor_b: the centre per body, in A's and B's user frames.
            axis: one world axis for both (rarely what you want: the two axes should be perpendicular).
            where: source location for error messages.
        """
        return self.add_joint(JointKind.UNIVERSAL, name, body_a, body_b, where=where,
                              anchor=anchor, axis=axis, anchor_a=anchor_a, anchor_b=anchor_b,
                              axis_a=axis_a, axis_b=axis_b)

    def add_fixed(self, name: str, body_a: str, body_b: str, *, anchor: Optional[Vec3] = None,
                  anchor_a: Optional[Vec3] = None, anchor_b: Optional[Vec3] = None, where: str = "") -> str:
        """Fixed: ball + rotation lock; no relative motion (the relative pose of the start is kept).

        Args:
            anchor: the joint point [m], world frame, at the initial pose (default: B's frame origin).
            anchor_a, anchor_b: the joint point per body, in A's and B's user frames.
            where: source location for error messages.
        """
        return self.add_joint(JointKind.FIXED, name, body_a, body_b, where=where,
                              anchor=anchor, anchor_a=anchor_a, anchor_b=anchor_b)

    def add_thread(self, name: str, body_a: str, body_b: str, *, anchor_a: Optional[Vec3] = None,
                   anchor_b: Optional[Vec3] = None, anchor: Optional[Vec3] = None,
                   length: Optional[float] = None, where: str = "") -> str:
        """Thread: |b − a| ≤ length; massless and inextensible, it pulls only when taut.

        Args:
            anchor_a, anchor_b: the two points [m] in A's and B's user frames (default: the frames' origins).
            anchor: one world point [m] used for both.
            length: the thread's length [m] (default: the initial distance).
            where: source location for error messages.
        """
        return self.add_joint(JointKind.THREAD, name, body_a, body_b, where=where,
                              anchor=anchor, anchor_a=anchor_a, anchor_b=anchor_b, length=length)

    def add_velocity_joint(self, name: str, body_a: str, body_b: str, *, anchor: Optional[Vec3] = None,
                           anchor_a: Optional[Vec3] = None, anchor_b: Optional[Vec3] = None,
                           velocity: Optional[Vec3] = None, angular_velocity: Optional[Vec3] = None,
                           where: str = "") -> str:
        """Velocity-only joint: B's point (and/or rotation) moves with A's plus a prescribed velocity.

        Args:
            anchor, anchor_a, anchor_b: the joint point [m] (world at the initial pose, or per body).
            velocity: prescribed velocity of B's point minus A's [m/s], world frame (None: not held).
            angular_velocity: prescribed angular velocity of B minus A [rad/s], world (None: not held).
            where: source location for error messages.

        Only velocities are kept, never positions: the viewer's mouse grab is built from it.
        """
        return self.add_joint(JointKind.VELOCITY, name, body_a, body_b, where=where,
                              anchor=anchor, anchor_a=anchor_a, anchor_b=anchor_b, velocity=velocity,
                              angular_velocity=angular_velocity)

    # actuators ------------------------------------------------------------------------------------
    def add_motor(self, name: str, joint: str, effort: float = 0.0, coordinate: str = "auto",
                  where: str = "") -> str:
        """A motor applying ``effort`` (torque [N m] or force [N]) along the joint axis, + to B, − to A.

        Args:
            joint: the joint's name (hinge, slider or cylindrical).
            effort: the constant torque [N m] (rotations) or force [N] (translations).
            coordinate: "angle" or "position" for a cylindrical joint; "auto" picks the joint's only one.
            where: source location for error messages (scene files set it).
        """
        self.motors.append(MotorSpec(name, joint, _coordinate(coordinate), float(effort), where))
        return name

    def add_servo(self, name: str, joint: str, mode: str = "angle", *, kp: float, ki: float = 0.0,
                  kd: float = 0.0, limit: float = np.inf, setpoints: Setpoints = ((0.0, 0.0),),
                  interpolate: bool = False, where: str = "") -> str:
        """A PID servo on a joint's angle, position, angular_velocity or velocity.

        effort = kp e + ki ∫e dt + kd de/dt, clamped to ±limit; with Bender's form
        sg = K_r (e + (1/T_N) ∫e + T_V ė) use kp = K_r, ki = K_r/T_N, kd = K_r T_V.
        ``setpoints`` is a sequence of (time [s], value) pairs, held (or interpolated) over time, or one
        number: a constant set-point (as in scene files).

        Args:
            joint: the joint's name; mode: "angle" [rad], "position" [m], "angular_velocity" [rad/s] or
                "velocity" [m/s], the quantity the set-points give.
            kp, ki, kd: the gains, effort per error [N m/rad, N/m, …], per integrated error and per error
                rate.
            limit: the largest effort magnitude [N m or N].
            setpoints: (time [s], value) pairs, value in the unit of ``mode``, or one constant value.
            interpolate: interpolate linearly between set-points instead of holding each.
            where: source location for error messages (scene files set it).
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
        with restitution ``restitution`` (Newton's law on the coordinate's rate, 0 … 1).

        Args:
            joint: the joint's name; lower, upper: the bounds [rad or m] (±inf: none).
            restitution: 0 (the stop absorbs the impact) … 1 (elastic).
            coordinate: "angle" or "position" for cylindrical joints, "auto" otherwise.
            where: source location for error messages (scene files set it).
        """
        self.limits.append(LimitSpec(name, joint, _coordinate(coordinate), float(lower), float(upper),
                                     float(restitution), where))
        return name

    def add_spring(self, name: str, body_a: str, body_b: str, *, stiffness: float, damping: float = 0.0,
                   rest_length: Optional[float] = None, anchor_a: Optional[Vec3] = None,
                   anchor_b: Optional[Vec3] = None, where: str = "") -> str:
        """A spring-damper between body points (user frames; default: the centres of the user frames).

        Force on A: (D (|d| − l) + c ḋ) d̂ with d = b − a; the opposite force acts on B.

        Args:
            stiffness: D [N/m]; damping: c [N s/m].
            rest_length: l [m] (default: the initial distance).
            body_a, body_b: the two bodies' names; ``"world"`` for the ground.
            anchor_a, anchor_b: the attachment points [m] in A's and B's user frames.
            where: source location for error messages (scene files set it).
        """
        self.springs.append(SpringSpec(name, body_a, body_b, _vec(anchor_a, "spring anchor_a"),
                                       _vec(anchor_b, "spring anchor_b"), float(stiffness),
                                       float(damping), rest_length, where))
        return name

    def add_load(self, body: str, *, force: Vec3 = (0.0, 0.0, 0.0), torque: Vec3 = (0.0, 0.0, 0.0),
                 start: float = 0.0, end: float = np.inf, where: str = "") -> int:
        """A force [N] at the centre of mass and a torque [N m] (world frame) on ``body`` while
        start ≤ t < end [s]. A step applies the mean over its interval, so the impulse is exact even when
        the window does not line up with the steps.

        Args:
            body: the body's name.
            force: the force [N] at the body's centre of mass, world frame.
            torque: the torque [N m], world frame.
            start, end: the time window [s]; ``end`` may be inf (the load never stops).
            where: source location for error messages (scene files set it).

        Returns the load's index.
        """
        label = f"{where}: loads[{len(self.loads)}]" if where else f"loads[{len(self.loads)}]"
        t0, t1 = float(start), float(end)
        if not np.isfinite(t0):
            raise ModelError(f"{label}: start must be a finite time [s], got {start!r}")
        if not t1 > t0:
            raise ModelError(f"{label}: end must be later than start, got [{t0}, {t1}]")
        self.loads.append(LoadSpec(str(body), _vec(force, f"{label}: force"), _vec(torque, f"{label}: torque"),
                                   t0, t1, where))
        return len(self.loads) - 1

    @classmethod
    def from_urdf(cls, path, **options) -> "ModelBuilder":
        """A builder filled from a URDF file (see :mod:`impulsim.io.urdf`; needs the formats extra)."""
        from impulsim.io.urdf import load_urdf
        return load_urdf(path, **options)

    @classmethod
    def from_mjcf(cls, path, **options) -> "ModelBuilder":
        """A builder filled from an MJCF file compiled by MuJoCo (see :mod:`impulsim.io.mjcf`)."""
        from impulsim.io.mjcf import load_mjcf
        return load_mjcf(path, **options)

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
