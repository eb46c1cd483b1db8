"""The mass-point view of a shared Model (Schmitt & Thüring 2000): points, the constraint list L, rails.

A mass-point system is an ordinary :class:`~impulsim.model.Model` whose moving bodies are point masses
(``body_point``) and whose joints are distances (rigid links), threads (``|P_j − P_i| ≤ d``) and
point-on-line / point-on-plane joints against static bodies (frictionless rails). Static bodies are the
suspension points. :func:`point_system` turns such a model and its state into the flat arrays the
kernels step, and refuses, by name, every element the method cannot honour.

Points are the model's bodies in body order (static bodies are fixed points), followed by one fixed
point per joint end that sits on a static body away from the body's origin (e.g. ``bodies: [world,
bob]`` with ``anchor: [0, 0, 1]``). World frame, SI units, z up.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from impulsim.errors import ModelError, UnsupportedFeatureError
from impulsim.math import quat_rotate
from impulsim.methods.masspoint.kernels import DISTANCE, THREAD
from impulsim.model.kinds import JointKind, Prim

INITIAL_TOLERANCE = 1e-9
"""Largest violation [m] of a constraint (or a rail) at the start that the method accepts: it assumes a
consistent start (report §3), and anything larger is a modelling mistake, not rounding."""

LINKS = {int(Prim.DISTANCE): DISTANCE, int(Prim.THREAD): THREAD}
"""Basic constraint -> the kernels' constraint kind."""
RAILS = (int(Prim.LINE), int(Prim.PLANE))
JOINTS = (JointKind.DISTANCE, JointKind.THREAD, JointKind.POINT_ON_LINE, JointKind.POINT_ON_PLANE)
"""The joint kinds a mass-point system is made of."""


@dataclass(frozen=True, eq=False)
class PointSystem:
    """Flat arrays of one mass-point system; ``n_bodies`` first points are the model's bodies."""
    n_bodies: int
    point_names: tuple
    point_mass: np.ndarray
    """m_i [kg] of the point masses, 0 for fixed points, shape [n_points]."""
    point_inv_mass: np.ndarray
    """1/m_i [1/kg], 0 for fixed points, shape [n_points]."""
    point_proj: np.ndarray
    """A_i, the projector onto the directions point i may move in (world frame), shape [n_points, 3, 3]:
    E for free points, a aᵀ on a line of direction a, E − n nᵀ in a plane of normal n, 0 when fixed.
    The point's inverse mass matrix is W_i = A_i / m_i."""
    anchor_pos: np.ndarray
    """Positions [m] of the fixed anchor points after the bodies, world frame, shape [n_anchors, 3]."""
    con_names: tuple
    """Joint name of each constraint."""
    con_kind: np.ndarray
    """DISTANCE (|P_j − P_i| = d) or THREAD (|P_j − P_i| ≤ d) per constraint, int32."""
    con_i: np.ndarray
    con_j: np.ndarray
    con_length: np.ndarray
    """d [m] per constraint."""

    @property
    def n_points(self) -> int:
        return len(self.point_names)

    @property
    def n_constraints(self) -> int:
        return len(self.con_names)

    @property
    def movable(self) -> np.ndarray:
        """Mask of the points that can move, shape [n_points]."""
        return self.point_inv_mass > 0.0

    def positions(self, body_pos: np.ndarray) -> np.ndarray:
        """Point positions [..., n_points, 3] from body positions [..., n_bodies, 3] (anchors appended)."""
        body_pos = np.asarray(body_pos)
        anchors = np.broadcast_to(self.anchor_pos, body_pos.shape[:-2] + self.anchor_pos.shape)
        return np.concatenate([body_pos, anchors], axis=-2)


def point_system(model, state, check: bool = True) -> PointSystem:
    """The mass-point system of ``model`` with the static bodies where ``state`` has them.

    Raises UnsupportedFeatureError naming the first element the method cannot honour, and (with ``check``,
    for a starting state) ModelError naming a joint whose start is inconsistent (link length, point off
    its rail or leaving it) or that cannot be corrected.
    """
    refuse_unsupported(model)
    if not model.body_point.any():
        raise ModelError(f'mass-point system "{model.name}": has no point masses')
    n = model.n_bodies
    fixed = model.body_point == 0
    inv_mass = np.where(fixed, 0.0, model.body_inv_mass)
    mass = np.where(fixed, 0.0, model.body_mass)
    proj = np.where(fixed[:, None, None], 0.0, np.eye(3))
    anchors, names = [], list(model.body_names)
    kind, ci, cj, length, con_names, seen = [], [], [], [], [], {}
    railed = {}
    for p in range(model.n_prims):
        label = _label(model, int(model.prim_joint[p]))
        if int(model.prim_kind[p]) in RAILS:
            _add_rail(model, state, p, label, proj, railed, check)
            continue
        ends = []
        for body, anchor in ((model.prim_body_a[p], model.prim_anchor_a[p]),
                             (model.prim_body_b[p], model.prim_anchor_b[p])):
            if model.body_point[body] or not anchor.any():
                ends.append(int(body))
            else:       # a suspension point on a static body, away from its origin
                anchors.append(state.body_pos[body] + quat_rotate(state.body_quat[body], anchor))
                names.append(f"{model.joint_names[model.prim_joint[p]]}:{'ab'[len(ends)]}")
                ends.append(n + len(anchors) - 1)
        pair = (min(ends), max(ends))
        if pair in seen:
            raise ModelError(f"{label}: its points are already linked by {seen[pair]} (link each pair once)")
        seen[pair] = label
        kind.append(LINKS[int(model.prim_kind[p])])
        ci.append(ends[0])
        cj.append(ends[1])
        length.append(float(model.prim_target[p]))
        con_names.append(model.joint_names[model.prim_joint[p]])
    m = len(anchors)
    system = PointSystem(
        n_bodies=n, point_names=tuple(names), point_mass=np.concatenate([mass, np.zeros(m)]),
        point_inv_mass=np.concatenate([inv_mass, np.zeros(m)]),
        point_proj=np.concatenate([proj, np.zeros((m, 3, 3))]), anchor_pos=np.array(anchors, float).reshape(m, 3),
        con_names=tuple(con_names), con_kind=np.array(kind, np.int32), con_i=np.array(ci, np.int64),
        con_j=np.array(cj, np.int64), con_length=np.array(length, float))
    if check:
        _check_start(system, state, model)
    return system


def _label(model, joint: int) -> str:
    where = model.source.get(f'joints "{model.joint_names[joint]}"', "")
    return f'{where + ": " if where else ""}joints[{joint}] "{model.joint_names[joint]}"'


def refuse_unsupported(model) -> None:
    """UnsupportedFeatureError naming the first element that is not part of a mass-point system."""
    def refuse(what):
        raise UnsupportedFeatureError(f"method 'masspoint' does not support {what}")

    for k in range(model.n_bodies):
        if model.body_kinematic[k]:
            refuse(f'kinematic bodies: body "{model.body_names[k]}"')
        if not (model.body_static[k] or model.body_point[k]):
            refuse(f'bodies with rotational inertia: body "{model.body_names[k]}" (make it a point mass, '
                   "point: true, or static)")
    if len(model.shape_kind):
        refuse(f'shapes and contacts: body "{model.body_names[model.shape_body[0]]}" has shapes')
    for j in range(model.n_joints):
        if JointKind(int(model.joint_kind[j])) not in JOINTS:
            refuse(f'{JointKind(int(model.joint_kind[j])).name.lower()} joints: joint "{model.joint_names[j]}" '
                   "(a mass-point system has distance, thread, point_on_line and point_on_plane joints)")
    for p in range(model.n_prims):
        if int(model.prim_kind[p]) not in LINKS and int(model.prim_kind[p]) not in RAILS:
            refuse(f'a zero-length distance: joint "{model.joint_names[model.prim_joint[p]]}" '
                   "(join the points into one)")
    for what, names in (("motors", model.motor_names), ("servos", model.servo_names),
                        ("limits", model.limit_names), ("springs", model.spring_names)):
        if names:
            refuse(f'{what}: "{names[0]}"')


def _add_rail(model, state, p, label, proj, railed, check) -> None:
    """Point-on-line / point-on-plane against a static body: the point's projector A = a aᵀ or E − n nᵀ."""
    a, b = int(model.prim_body_a[p]), int(model.prim_body_b[p])
    if not (model.body_static[a] and model.body_point[b]):
        raise UnsupportedFeatureError(
            f"method 'masspoint' does not support {label}: a rail must hold a point mass (second body) "
            "on a line or plane of a static body (first body)")
    if b in railed:
        raise UnsupportedFeatureError(f"method 'masspoint' does not support {label}: point "
                                      f'"{model.body_names[b]}" is already on the rail {railed[b]}')
    railed[b] = label
    axis = quat_rotate(state.body_quat[a], model.prim_axis_a[p])
    axis = axis / np.linalg.norm(axis)
    origin = state.body_pos[a] + quat_rotate(state.body_quat[a], model.prim_anchor_a[p])
    off = state.body_pos[b] - origin
    vel = state.body_vel[b]
    if int(model.prim_kind[p]) == int(Prim.LINE):
        proj[b] = np.outer(axis, axis)
        miss, leave = off - axis * (off @ axis), vel - axis * (vel @ axis)
    else:
        proj[b] = np.eye(3) - np.outer(axis, axis)
        miss, leave = axis * (off @ axis), axis * (vel @ axis)
    if not check:
        return
    if np.linalg.norm(miss) > INITIAL_TOLERANCE:
        raise ModelError(f'{label}: point "{model.body_names[b]}" starts {np.linalg.norm(miss):.3g} m off its '
                         "rail (the method needs a consistent start)")
    if np.linalg.norm(leave) > INITIAL_TOLERANCE * max(1.0, float(np.linalg.norm(vel))):
        raise ModelError(f'{label}: the velocity {vel.tolist()} of point "{model.body_names[b]}" leaves its '
                         f"rail (off-rail part {np.linalg.norm(leave):.3g} m/s)")


def _check_start(system: PointSystem, state, model) -> None:
    """Each link starts at its length (a thread at most at it) and can be corrected along its direction."""
    pos = system.positions(state.body_pos)
    for c in range(system.n_constraints):
        i, j = system.con_i[c], system.con_j[c]
        label = _label(model, model.joint(system.con_names[c]))
        d0, d = float(np.linalg.norm(pos[j] - pos[i])), float(system.con_length[c])
        if d0 == 0.0:
            raise ModelError(f"{label}: its two points coincide at the start, so the link has no direction")
        if system.con_kind[c] == DISTANCE and abs(d0 - d) > INITIAL_TOLERANCE:
            raise ModelError(f"{label}: initial distance {d0:.12g} m differs from the length {d:.12g} m by more "
                             f"than {INITIAL_TOLERANCE:g} m (the method needs a consistent start)")
        if system.con_kind[c] == THREAD and d0 > d + INITIAL_TOLERANCE:
            raise ModelError(f"{label}: initial distance {d0:.12g} m exceeds the thread length {d:.12g} m")
        e = (pos[j] - pos[i]) / d0
        k = sum(system.point_inv_mass[p] * float(e @ system.point_proj[p] @ e) for p in (i, j))
        if k <= 1e-12 * max(system.point_inv_mass[i], system.point_inv_mass[j], 1.0):
            raise ModelError(f"{label}: neither of its points can move along the link (both fixed, or rails "
                             "perpendicular to it)")
