"""Validation and compilation of a :class:`ModelBuilder` into flat arrays (Model) and a State."""
from __future__ import annotations

import numpy as np

from impulsim import limits
from impulsim.errors import ModelError
from impulsim.geometry.mass import (MassProperties, combine_mass_properties, principal_frame,
                                    shape_mass_properties)
from impulsim.math import quat_mul, quat_conj, quat_rotate, quat_rotate_inv, basis_perpendicular, quat_to_matrix
from impulsim.math.plain import plain
from impulsim.model.kinds import JointKind, Prim, Coordinate, JOINT_COORDINATES, SERVO_COORDINATE
from impulsim.model.model import Model
from impulsim.model.state import State
from impulsim.model.lowering import lower_joint, JointFrame

# called once per body, joint or shape: run as Python (compiling them would cost seconds on an empty cache)
quat_mul, quat_conj, quat_rotate, quat_rotate_inv, basis_perpendicular, quat_to_matrix = map(
    plain, (quat_mul, quat_conj, quat_rotate, quat_rotate_inv, basis_perpendicular, quat_to_matrix))

WORLD = "world"


def _label(kind: str, index: int, name: str, where: str) -> str:
    prefix = f"{where}: " if where else ""
    return f'{prefix}{kind}[{index}] "{name}"'


class _Bodies:
    """Compiled body data plus name lookup, during compilation."""

    def __init__(self):
        self.names, self.mass, self.inertia = [WORLD], [0.0], [np.zeros(3)]
        self.static, self.kinematic, self.point = [1], [0], [0]
        self.group, self.mask = [1], [-1]
        self.offset, self.frame_quat = [np.zeros(3)], [np.array([1.0, 0, 0, 0])]
        self.pos, self.quat = [np.zeros(3)], [np.array([1.0, 0, 0, 0])]
        self.vel, self.omega = [np.zeros(3)], [np.zeros(3)]

    def index(self, name, label):
        try:
            return self.names.index(name)
        except ValueError:
            raise ModelError(f'{label}: body "{name}" does not exist') from None

    def world_to_local(self, k, p):
        return quat_rotate_inv(self.quat[k], np.asarray(p, float) - self.pos[k])

    def world_dir_to_local(self, k, v):
        return quat_rotate_inv(self.quat[k], np.asarray(v, float))

    def user_to_local(self, k, p):
        return quat_rotate_inv(self.frame_quat[k], np.asarray(p, float) - self.offset[k])

    def user_dir_to_local(self, k, v):
        return quat_rotate_inv(self.frame_quat[k], np.asarray(v, float))


def _mass_properties(spec, label, materials) -> MassProperties:
    """Mass, centre and inertia in the user frame, from explicit values or from the shapes."""
    if spec.mass is not None and not (np.isfinite(spec.mass) and spec.mass > 0):
        raise ModelError(f"{label}: mass must be positive, got {spec.mass!r}")
    if spec.inertia is not None:
        if spec.mass is None:
            raise ModelError(f"{label}: inertia given without mass")
        inertia = np.asarray(spec.inertia, float)
        inertia = np.diag(inertia) if inertia.shape == (3,) else inertia
        if inertia.shape != (3, 3) or not np.all(np.isfinite(inertia)):
            raise ModelError(f"{label}: inertia must be 3 principal moments or a 3x3 tensor")
        if np.any(np.linalg.eigvalsh(0.5 * (inertia + inertia.T)) <= 0):
            raise ModelError(f"{label}: inertia must be positive definite")
        com = spec.com if spec.com is not None else np.zeros(3)
        return MassProperties(float(spec.mass), com, inertia)
    if not spec.shapes:
        raise ModelError(f"{label}: give mass and inertia, or shapes to compute them from")
    density = spec.density
    if density is None:
        density = materials.get(spec.material or "default", materials["default"]).density
    if not (np.isfinite(density) and density > 0):
        raise ModelError(f"{label}: density must be positive, got {density!r}")
    try:
        with np.errstate(all="ignore"):
            parts = [shape_mass_properties(s, density) for s in spec.shapes]
            total = sum(p.mass for p in parts)
            lo, hi = (limits.MIN_MASS, limits.MAX_MASS) if spec.mass is None else (1e-300, 1e300)
            if not (np.isfinite(total) and lo <= total <= hi):
                raise ModelError(f"the shapes' mass {total:.3g} kg lies outside {limits.MIN_MASS:g} … "
                                 f"{limits.MAX_MASS:g} kg (a shape too small or too large for its density)")
            props = combine_mass_properties(parts)
        if not (np.isfinite(props.com).all() and np.isfinite(props.inertia).all()):
            raise ModelError("the shapes' inertia is not finite (shapes too large)")
    except ModelError as exc:
        raise ModelError(f"{label}: {exc}") from None
    if spec.mass is not None:
        scale = spec.mass / props.mass
        props = MassProperties(spec.mass, props.com, props.inertia * scale)
    if spec.com is not None:
        raise ModelError(f"{label}: com is computed from the shapes; give it only with mass and inertia")
    return props


def _point_mass_properties(spec, label) -> MassProperties:
    """A point mass: its mass at the user frame's origin, no inertia; refuses what a point cannot have."""
    for what, given in (("static", spec.static), ("kinematic", spec.kinematic), ("shapes", spec.shapes),
                        ("inertia", spec.inertia is not None), ("com", spec.com is not None),
                        ("density", spec.density is not None),
                        ("angular_velocity", np.any(spec.angular_velocity != 0.0))):
        if given:
            raise ModelError(f"{label}: a point mass takes no {what} (it has mass only)")
    if spec.mass is None or not (np.isfinite(spec.mass) and spec.mass > 0):
        raise ModelError(f"{label}: a point mass needs a positive mass [kg], got {spec.mass!r}")
    return MassProperties(float(spec.mass), np.zeros(3), np.zeros((3, 3)))


def _add_body(bodies: _Bodies, spec, index, materials):
    label = _label("bodies", index, spec.name, spec.where)
    if spec.name in bodies.names:
        raise ModelError(f"{label}: the name is already used" + (" (reserved for the ground)"
                                                                 if spec.name == WORLD else ""))
    q_user = spec.orientation / np.linalg.norm(spec.orientation)
    fixed = spec.static or spec.kinematic
    if spec.point:      # no principal axes: the user frame is the body frame, orientation unused
        props = _point_mass_properties(spec, label)
        q_user = np.array([1.0, 0.0, 0.0, 0.0])
    elif fixed:
        # infinite mass: the user frame is the body frame, and mass properties are never used
        props = MassProperties(1.0, np.zeros(3), np.eye(3))
    else:
        props = _mass_properties(spec, label, materials)
    if spec.material is not None and spec.material not in materials:
        raise ModelError(f'{label}: material "{spec.material}" does not exist')
    for i, shape in enumerate(spec.shapes):
        if shape.material is not None and shape.material not in materials:
            raise ModelError(f'{label}: shapes[{i}]: material "{shape.material}" does not exist')
    moments, q_axes = ((np.zeros(3), np.array([1.0, 0.0, 0.0, 0.0])) if spec.point
                       else principal_frame(props.inertia))
    if not fixed and not spec.point and np.any(moments <= 0):
        raise ModelError(f"{label}: inertia must be positive definite")
    com_world = spec.position + quat_rotate(q_user, props.com)
    bodies.names.append(spec.name)
    bodies.mass.append(props.mass)
    bodies.inertia.append(moments)
    bodies.static.append(int(spec.static))
    bodies.kinematic.append(int(spec.kinematic))
    bodies.point.append(int(spec.point))
    bodies.group.append(int(spec.collision_group))
    bodies.mask.append(int(spec.collision_mask))
    bodies.offset.append(props.com)
    bodies.frame_quat.append(q_axes)
    bodies.pos.append(com_world)
    bodies.quat.append(quat_mul(q_user, q_axes))
    omega = np.zeros(3) if spec.static else spec.angular_velocity
    vel = np.zeros(3) if spec.static else spec.velocity + np.cross(omega, com_world - spec.position)
    bodies.vel.append(vel)
    bodies.omega.append(omega)


def _joint_frame(bodies: _Bodies, spec, label) -> JointFrame:
    """Anchors and axes of one joint in both principal frames."""
    a = bodies.index(spec.body_a, label)
    b = bodies.index(spec.body_b, label)
    if a == b:
        raise ModelError(f'{label}: joins body "{spec.body_a}" to itself')
    if bodies.static[a] and bodies.static[b]:
        raise ModelError(f"{label}: both bodies are static")

    def point(world, local, k):
        if local is not None:
            return bodies.user_to_local(k, local)
        if world is not None:
            return bodies.world_to_local(k, world)
        return None

    def direction(world, local, k, which):
        v = bodies.user_dir_to_local(k, local) if local is not None else (
            bodies.world_dir_to_local(k, world) if world is not None else None)
        if v is None:
            return None
        n = np.linalg.norm(v)
        if n < 1e-12:
            raise ModelError(f"{label}: {which} has zero length")
        return v / n

    if bodies.point[a] or bodies.point[b]:
        anchor_a, anchor_b = _point_joint_anchors(bodies, spec, a, b, label)
    else:
        anchor_a = point(spec.anchor, spec.anchor_a, a)
        anchor_b = point(spec.anchor if spec.anchor_b is None else None, spec.anchor_b, b)
    if anchor_a is None and anchor_b is not None:   # only B's point given: A's point coincides
        anchor_a = bodies.world_to_local(a, bodies.pos[b] + quat_rotate(bodies.quat[b], anchor_b))
    if anchor_b is None and anchor_a is not None:
        anchor_b = bodies.world_to_local(b, bodies.pos[a] + quat_rotate(bodies.quat[a], anchor_a))
    axis_a = direction(spec.axis, spec.axis_a, a, "axis_a" if spec.axis_a is not None else "axis")
    axis_b = direction(spec.axis if spec.axis_b is None else None, spec.axis_b, b,
                       "axis_b" if spec.axis_b is not None else "axis")
    if axis_a is not None and axis_b is None and spec.kind != JointKind.UNIVERSAL:
        axis_b = bodies.world_dir_to_local(b, quat_rotate(bodies.quat[a], axis_a))
    if axis_b is not None and axis_a is None and spec.kind != JointKind.UNIVERSAL:
        axis_a = bodies.world_dir_to_local(a, quat_rotate(bodies.quat[b], axis_b))
    return JointFrame(a=a, b=b, anchor_a=anchor_a, anchor_b=anchor_b, axis_a=axis_a, axis_b=axis_b,
                      quat_a=bodies.quat[a], quat_b=bodies.quat[b], pos_a=bodies.pos[a],
                      pos_b=bodies.pos[b], length=spec.length, velocity=spec.velocity,
                      angular_velocity=spec.angular_velocity)


_RAILS = (JointKind.POINT_ON_LINE, JointKind.POINT_ON_PLANE)


def _point_joint_anchors(bodies: _Bodies, spec, a, b, label):
    """Anchors of a joint on a point mass: on the point, the point itself (a point has no extent); on the
    other body, ``anchor_a``/``anchor_b`` in its user frame, else ``anchor`` (world), else its user frame's
    origin (a suspension point) -- or, for a rail (point on line or plane), the point's initial place."""
    ends = []
    for k, local, which in ((a, spec.anchor_a, "anchor_a"), (b, spec.anchor_b, "anchor_b")):
        if bodies.point[k]:
            if local is not None and np.any(local != 0.0):
                raise ModelError(f'{label}: {which} must be [0, 0, 0] on point mass "{bodies.names[k]}" '
                                 "(a joint acts at the point itself)")
            ends.append(np.zeros(3))
        elif local is not None:
            ends.append(bodies.user_to_local(k, local))
        elif spec.anchor is not None:
            ends.append(bodies.world_to_local(k, spec.anchor))
        elif spec.kind in _RAILS:
            ends.append(None)       # filled in by the caller: where the point starts
        else:
            ends.append(bodies.user_to_local(k, np.zeros(3)))
    if spec.anchor is not None and bodies.point[a] and bodies.point[b]:
        raise ModelError(f"{label}: anchor does not apply between two point masses (they join at the points)")
    return ends[0], ends[1]


def _reference_vectors(frame: JointFrame):
    """Perpendicular reference vectors on A and B (equal at the initial pose) for the joint angle."""
    if frame.axis_a is None:
        return np.zeros(3), np.zeros(3)
    ref_a, _ = basis_perpendicular(frame.axis_a)
    ref_world = quat_rotate(frame.quat_a, ref_a)
    return ref_a, quat_rotate_inv(frame.quat_b, ref_world)


def compile_model(builder) -> tuple[Model, State]:
    """Turn a builder into (Model, State); raises ModelError naming the first bad element."""
    _check_unique(builder)
    bodies = _Bodies()
    for i, spec in enumerate(builder.bodies):
        _add_body(bodies, spec, i, builder.materials)
    joints = _compile_joints(builder, bodies)
    motors = _compile_motors(builder, joints)
    limits = _compile_limits(builder)
    servos = _compile_servos(builder, joints)
    springs = _compile_springs(builder, bodies)
    material_index = list(builder.materials)
    shapes = _compile_shapes(builder, bodies, material_index)
    materials = _compile_materials(builder)
    collision = _compile_filter(builder, bodies, joints)
    n = len(bodies.names)
    mass = np.array(bodies.mass)
    inertia = np.array(bodies.inertia)
    fixed = (np.array(bodies.static) + np.array(bodies.kinematic)) > 0
    point = np.array(bodies.point, np.int8)
    inv_mass = np.where(fixed, 0.0, 1.0 / np.where(mass > 0, mass, 1.0))
    inv_inertia = np.where((fixed | (point > 0))[:, None], 0.0, 1.0 / np.where(inertia > 0, inertia, 1.0))
    loads = _compile_loads(builder, bodies)
    source = {f'bodies "{s.name}"': s.where for s in builder.bodies if s.where}
    source.update({f'joints "{s.name}"': s.where for s in builder.joints if s.where})
    model = Model(
        name=builder.name, gravity=np.array(builder.gravity, float), body_names=tuple(bodies.names),
        body_mass=mass, body_inv_mass=inv_mass, body_inertia=inertia, body_inv_inertia=inv_inertia,
        body_static=np.array(bodies.static, np.int8), body_kinematic=np.array(bodies.kinematic, np.int8),
        body_point=point, **loads,
        body_frame_offset=np.array(bodies.offset), body_frame_quat=np.array(bodies.frame_quat),
        **joints, **motors, **limits, **servos, **springs, **shapes, **materials, **collision,
        body_group=np.array(bodies.group, np.int64), body_mask=np.array(bodies.mask, np.int64), source=source)
    state = State(
        t=0.0, step_count=0, body_pos=np.array(bodies.pos), body_quat=np.array(bodies.quat),
        body_vel=np.array(bodies.vel), body_omega=np.array(bodies.omega),
        body_force=np.zeros((n, 3)), body_torque=np.zeros((n, 3)),
        motor_effort=model.motor_effort.copy(), servo_integral=np.zeros(model.n_servos),
        servo_prev_error=np.full(model.n_servos, np.nan), servo_effort=np.zeros(model.n_servos))
    return model, state


def _check_unique(builder):
    for kind, items in (("joints", builder.joints), ("motors", builder.motors), ("limits", builder.limits),
                        ("servos", builder.servos), ("springs", builder.springs)):
        seen = set()
        for i, item in enumerate(items):
            if item.name in seen:
                raise ModelError(f"{_label(kind, i, item.name, item.where)}: the name is already used")
            seen.add(item.name)


def _compile_joints(builder, bodies: _Bodies) -> dict:
    rows = {k: [] for k in ("kind", "a", "b", "anchor_a", "anchor_b", "axis_a", "axis_b",
                            "ref_a", "ref_b")}
    prims = []
    starts = [0]
    for i, spec in enumerate(builder.joints):
        label = _label("joints", i, spec.name, spec.where)
        frame = _joint_frame(bodies, spec, label)
        new = lower_joint(spec.kind, frame, label)
        for p in new:
            p["joint"] = i
        prims.extend(new)
        starts.append(len(prims))
        ref_a, ref_b = _reference_vectors(frame)
        zero = np.zeros(3)
        for key, value in (("kind", int(spec.kind)), ("a", frame.a), ("b", frame.b),
                           ("anchor_a", _or(frame.anchor_a, zero)), ("anchor_b", _or(frame.anchor_b, zero)),
                           ("axis_a", _or(frame.axis_a, zero)), ("axis_b", _or(frame.axis_b, zero)),
                           ("ref_a", ref_a), ("ref_b", ref_b)):
            rows[key].append(value)
    nj = len(builder.joints)

    def arr(key, dtype=float, width=3):
        return np.array(rows[key], dtype).reshape((nj, width) if width else (nj,))

    def parr(key, dtype=float, width=3):
        return np.array([p[key] for p in prims], dtype).reshape((len(prims), width) if width else
                                                                  (len(prims),))

    return dict(
        joint_names=tuple(s.name for s in builder.joints), joint_kind=arr("kind", np.int32, 0),
        joint_body_a=arr("a", np.int32, 0), joint_body_b=arr("b", np.int32, 0),
        joint_anchor_a=arr("anchor_a"), joint_anchor_b=arr("anchor_b"), joint_axis_a=arr("axis_a"),
        joint_axis_b=arr("axis_b"), joint_ref_a=arr("ref_a"), joint_ref_b=arr("ref_b"),
        joint_prim_start=np.array(starts, np.int32),
        prim_kind=parr("kind", np.int32, 0), prim_joint=parr("joint", np.int32, 0),
        prim_body_a=parr("a", np.int32, 0), prim_body_b=parr("b", np.int32, 0),
        prim_anchor_a=parr("anchor_a"), prim_anchor_b=parr("anchor_b"), prim_axis_a=parr("axis_a"),
        prim_axis_b=parr("axis_b"), prim_target=parr("target", float, 0), prim_qrel=parr("qrel", float, 4),
        prim_vel_target=parr("vel_target"))


def _or(v, default):
    return default if v is None else v


def _joint_of(builder, name, label, want: Coordinate | None, what: str):
    for j, spec in enumerate(builder.joints):
        if spec.name == name:
            allowed = JOINT_COORDINATES.get(spec.kind, ())
            if not allowed:
                raise ModelError(f'{label}: joint "{name}" ({spec.kind.name.lower()}) has no axis '
                                 f"coordinate to {what}")
            coord = allowed[0] if want is None else want
            if coord not in allowed:
                raise ModelError(f'{label}: joint "{name}" ({spec.kind.name.lower()}) has no '
                                 f"{coord.name.lower()} coordinate")
            return j, coord
    raise ModelError(f'{label}: joint "{name}" does not exist')


def _compile_motors(builder, joints) -> dict:
    idx, coords, effort = [], [], []
    for i, m in enumerate(builder.motors):
        label = _label("motors", i, m.name, m.where)
        if not np.isfinite(m.effort):
            raise ModelError(f"{label}: effort must be finite")
        j, c = _joint_of(builder, m.joint, label, m.coordinate, "drive")
        idx.append(j)
        coords.append(int(c))
        effort.append(m.effort)
    return dict(motor_names=tuple(m.name for m in builder.motors), motor_joint=np.array(idx, np.int32),
                motor_coord=np.array(coords, np.int32), motor_effort=np.array(effort, float))


def _compile_limits(builder) -> dict:
    idx, coords, bounds, restitution = [], [], [], []
    for i, lim in enumerate(builder.limits):
        label = _label("limits", i, lim.name, lim.where)
        j, c = _joint_of(builder, lim.joint, label, lim.coordinate, "limit")
        lo, hi = lim.lower, lim.upper
        if np.isnan(lo) or np.isnan(hi) or not lo < hi:
            raise ModelError(f"{label}: needs lower < upper, got [{lo}, {hi}]")
        if np.isinf(lo) and np.isinf(hi):
            raise ModelError(f"{label}: both bounds are infinite; give lower, upper or both")
        if c == Coordinate.ANGLE and any(np.isfinite(v) and not -np.pi < v < np.pi for v in (lo, hi)):
            raise ModelError(f"{label}: angle bounds must lie inside (-pi, pi) rad, got [{lo}, {hi}]")
        if not 0.0 <= lim.restitution <= 1.0:
            raise ModelError(f"{label}: restitution must be within [0, 1], got {lim.restitution}")
        idx.append(j)
        coords.append(int(c))
        bounds.append((lo, hi))
        restitution.append(lim.restitution)
    b = np.array(bounds, float).reshape(-1, 2)
    return dict(limit_names=tuple(lim.name for lim in builder.limits), limit_joint=np.array(idx, np.int32),
                limit_coord=np.array(coords, np.int32), limit_lower=b[:, 0].copy(), limit_upper=b[:, 1].copy(),
                limit_restitution=np.array(restitution, float))


def _compile_servos(builder, joints) -> dict:
    idx, modes, gains, limits, starts, times, values, linear = [], [], [], [], [0], [], [], []
    for i, s in enumerate(builder.servos):
        label = _label("servos", i, s.name, s.where)
        j, _ = _joint_of(builder, s.joint, label, SERVO_COORDINATE[s.mode], "control")
        if not all(np.isfinite([s.kp, s.ki, s.kd])):
            raise ModelError(f"{label}: gains must be finite")
        if not s.limit > 0:
            raise ModelError(f"{label}: limit must be positive, got {s.limit}")
        if not s.setpoints:
            raise ModelError(f"{label}: needs at least one set-point")
        ts = [p[0] for p in s.setpoints]
        if any(t1 < t0 for t0, t1 in zip(ts, ts[1:])):
            raise ModelError(f"{label}: set-point times must not decrease")
        idx.append(j)
        modes.append(int(s.mode))
        gains.append((s.kp, s.ki, s.kd))
        limits.append(s.limit)
        times.extend(ts)
        values.extend(p[1] for p in s.setpoints)
        starts.append(len(times))
        linear.append(int(s.interpolate))
    return dict(servo_names=tuple(s.name for s in builder.servos), servo_joint=np.array(idx, np.int32),
                servo_mode=np.array(modes, np.int32), servo_gains=np.array(gains, float).reshape(-1, 3),
                servo_limit=np.array(limits, float), servo_sp_start=np.array(starts, np.int32),
                servo_sp_time=np.array(times, float), servo_sp_value=np.array(values, float),
                servo_sp_linear=np.array(linear, np.int8))


def _compile_springs(builder, bodies: _Bodies) -> dict:
    rows = {k: [] for k in ("a", "b", "anchor_a", "anchor_b", "k", "c", "l")}
    for i, s in enumerate(builder.springs):
        label = _label("springs", i, s.name, s.where)
        a, b = bodies.index(s.body_a, label), bodies.index(s.body_b, label)
        if a == b:
            raise ModelError(f"{label}: both ends are on body {s.body_a!r}")
        if not (np.isfinite(s.stiffness) and s.stiffness >= 0):
            raise ModelError(f"{label}: stiffness must be non-negative, got {s.stiffness}")
        if not (np.isfinite(s.damping) and s.damping >= 0):
            raise ModelError(f"{label}: damping must be non-negative, got {s.damping}")
        pa = bodies.user_to_local(a, s.anchor_a if s.anchor_a is not None else np.zeros(3))
        pb = bodies.user_to_local(b, s.anchor_b if s.anchor_b is not None else np.zeros(3))
        wa = bodies.pos[a] + quat_rotate(bodies.quat[a], pa)
        wb = bodies.pos[b] + quat_rotate(bodies.quat[b], pb)
        rest = float(np.linalg.norm(wb - wa)) if s.rest_length is None else float(s.rest_length)
        if not (np.isfinite(rest) and rest >= 0):
            raise ModelError(f"{label}: rest_length must be non-negative")
        for key, v in (("a", a), ("b", b), ("anchor_a", pa), ("anchor_b", pb), ("k", s.stiffness),
                       ("c", s.damping), ("l", rest)):
            rows[key].append(v)
    n = len(builder.springs)
    return dict(spring_names=tuple(s.name for s in builder.springs),
                spring_body_a=np.array(rows["a"], np.int32), spring_body_b=np.array(rows["b"], np.int32),
                spring_anchor_a=np.array(rows["anchor_a"], float).reshape(n, 3),
                spring_anchor_b=np.array(rows["anchor_b"], float).reshape(n, 3),
                spring_stiffness=np.array(rows["k"], float), spring_damping=np.array(rows["c"], float),
                spring_rest_length=np.array(rows["l"], float))


def _compile_loads(builder, bodies: _Bodies) -> dict:
    """Timed loads: on moving bodies only, and no torque on a point mass."""
    index = []
    for i, load in enumerate(builder.loads):
        label = f"{load.where}: loads[{i}]" if load.where else f"loads[{i}]"
        k = bodies.index(load.body, label)
        if bodies.static[k] or bodies.kinematic[k]:
            raise ModelError(f'{label}: body "{load.body}" is static or kinematic and takes no loads')
        if bodies.point[k] and np.any(load.torque != 0.0):
            raise ModelError(f'{label}: point mass "{load.body}" takes no torque')
        index.append(k)
    n = len(index)
    return dict(load_body=np.array(index, np.int32),
                load_force=np.array([x.force for x in builder.loads], float).reshape(n, 3),
                load_torque=np.array([x.torque for x in builder.loads], float).reshape(n, 3),
                load_start=np.array([x.start for x in builder.loads], float),
                load_end=np.array([x.end for x in builder.loads], float))


def _compile_shapes(builder, bodies: _Bodies, materials: dict) -> dict:
    """Shape table in the bodies' principal frames, with point-set data (hulls, meshes) flattened."""
    cols = {k: [] for k in ("kind", "body", "pos", "quat", "params", "material")}
    verts, tris, vert_start, tri_start = [], [], [0], [0]
    for spec in builder.bodies:
        k = bodies.names.index(spec.name)
        for s in spec.shapes:
            q_local = quat_mul(quat_conj(bodies.frame_quat[k]), s.orientation)
            pos_local = bodies.user_to_local(k, s.position)
            for key, v in (("kind", int(s.kind)), ("body", k), ("pos", pos_local), ("quat", q_local),
                           ("params", s.params()),
                           ("material", materials.index(s.material or spec.material or "default"))):
                cols[key].append(v)
            data = s.mesh_data()
            if data is not None:
                v, t = data
                verts.extend(pos_local + np.asarray(v, float) @ quat_to_matrix(q_local).T)
                if t is not None:
                    tris.extend(np.asarray(t, np.int64))
            vert_start.append(len(verts))
            tri_start.append(len(tris))
    n = len(cols["kind"])
    return dict(shape_kind=np.array(cols["kind"], np.int32), shape_body=np.array(cols["body"], np.int32),
                shape_pos=np.array(cols["pos"], float).reshape(n, 3),
                shape_quat=np.array(cols["quat"], float).reshape(n, 4),
                shape_params=np.array(cols["params"], float).reshape(n, 3),
                shape_material=np.array(cols["material"], np.int32),
                shape_vert_start=np.array(vert_start, np.int64),
                shape_verts=np.array(verts, float).reshape(len(verts), 3),
                shape_tri_start=np.array(tri_start, np.int64),
                shape_tris=np.array(tris, np.int64).reshape(len(tris), 3))


def _compile_materials(builder) -> dict:
    mats = list(builder.materials.values())
    return dict(material_names=tuple(m.name for m in mats),
                material_restitution=np.array([m.restitution for m in mats], float),
                material_static_friction=np.array([m.static_friction for m in mats], float),
                material_dynamic_friction=np.array([m.dynamic_friction for m in mats], float))


_PIVOTS = (JointKind.BALL, JointKind.HINGE, JointKind.UNIVERSAL)
SHARED_PIVOT_TOL = 1e-6
"""Two pivots on one body closer than this [m] are one point (see :func:`_shared_pivot_pairs`)."""


def _shared_pivot_pairs(joints: dict) -> set:
    """Pairs of bodies hinged to a common body at one point (siblings in a tree, links on one pin).

    Their shapes meet at the shared pivot whatever the joints do, so a contact there could only push the
    joints apart; these pairs are left out of collision detection like jointed pairs (``allow_collision``
    brings one back). Pivots are ball, hinge and universal joints; the point is compared in the common
    body's frame, within :data:`SHARED_PIVOT_TOL`.
    """
    ends: dict[int, list] = {}
    for kind, a, b, pa, pb in zip(joints["joint_kind"], joints["joint_body_a"], joints["joint_body_b"],
                                  joints["joint_anchor_a"], joints["joint_anchor_b"]):
        if JointKind(int(kind)) in _PIVOTS:
            ends.setdefault(int(a), []).append((pa, int(b)))
            ends.setdefault(int(b), []).append((pb, int(a)))
    pairs = set()
    for pivots in ends.values():
        for i, (p, x) in enumerate(pivots):
            for q, y in pivots[i + 1:]:
                if x != y and np.linalg.norm(p - q) <= SHARED_PIVOT_TOL:
                    pairs.add((min(x, y), max(x, y)))
    return pairs


def _compile_filter(builder, bodies: _Bodies, joints: dict) -> dict:
    """Body pairs that never collide: jointed pairs and pairs sharing a pivot (unless allowed), and
    explicit exclusions."""
    pairs = _shared_pivot_pairs(joints)
    for a, b in zip(joints["joint_body_a"], joints["joint_body_b"]):
        pairs.add((min(a, b), max(a, b)))
    for i, (na, nb, exclude) in enumerate(builder.collision_rules):
        label = f"collision_rules[{i}]"
        a, b = bodies.index(na, label), bodies.index(nb, label)
        key = (min(a, b), max(a, b))
        if exclude:
            pairs.add(key)
        else:
            pairs.discard(key)
    arr = np.array(sorted(pairs), np.int32).reshape(len(pairs), 2)
    return dict(collision_exclude=arr)
