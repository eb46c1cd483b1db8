"""The kinematic tree of a Model in reduced coordinates: which joint carries which body, in what order.

Every movable body gets exactly one inner joint ("tree joint"). Joints of the model become tree joints
(hinge → revolute, slider → prismatic, cylindrical, ball → spherical, universal, fixed); a movable body that no joint
connects to a static body becomes the root of a floating subtree through a free 6-DoF joint. Tree joints
are numbered depth-first in pre-order from the roots (Holck's prefix numbering): every parent comes before
its children and every subtree is a contiguous range, so an impulse's passes can stay within its tree.

Joint frames: each tree joint has a frame on its parent body (rotation Q_p, origin t_p, in the parent's
principal frame) and one on its child (Q_c, t_c). The child's joint frame is the parent's moved by the
joint motion J(q) (a rotation and a translation in the parent's joint frame), so

    R_c = R_p Q_p J_rot(q) Q_cᵀ,    x_c = x_p + R_p t_p + R_p Q_p J_trans(q) − R_c t_c.

For the 1-DoF joints the joint axis is the local x axis of both joint frames. A universal joint turns
about the parent's axis (x of the parent's joint frame) and the child's axis (y of the child's joint frame):
J_rot = Rx(q1) Ry(q2), so the two axes stay perpendicular.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass

import numpy as np

from impulsim.errors import UnsupportedFeatureError
from impulsim.math import quat_conj, quat_from_matrix, quat_identity
from impulsim.model.kinds import Coordinate, JointKind, Prim


class TreeJoint(enum.IntEnum):
    """Reduced-coordinate joint types."""
    FIXED = 0
    REVOLUTE = 1
    PRISMATIC = 2
    CYLINDRICAL = 3   # q = (angle, displacement)
    SPHERICAL = 4     # q = quaternion of the child joint frame in the parent's; q̇ = ω_rel in the child frame
    FREE = 5          # q = (x_c, quaternion), world; q̇ = (ω, v_c) in the child's principal frame
    UNIVERSAL = 6     # q = (angle about the parent's axis x_p, angle about the child's axis y_c): J = Rx Ry


# positions and velocities per tree joint type
NQ = {TreeJoint.FIXED: 0, TreeJoint.REVOLUTE: 1, TreeJoint.PRISMATIC: 1, TreeJoint.CYLINDRICAL: 2,
      TreeJoint.SPHERICAL: 4, TreeJoint.FREE: 7, TreeJoint.UNIVERSAL: 2}
NV = {TreeJoint.FIXED: 0, TreeJoint.REVOLUTE: 1, TreeJoint.PRISMATIC: 1, TreeJoint.CYLINDRICAL: 2,
      TreeJoint.SPHERICAL: 3, TreeJoint.FREE: 6, TreeJoint.UNIVERSAL: 2}

_FROM_MODEL = {JointKind.HINGE: TreeJoint.REVOLUTE, JointKind.SLIDER: TreeJoint.PRISMATIC,
               JointKind.CYLINDRICAL: TreeJoint.CYLINDRICAL, JointKind.BALL: TreeJoint.SPHERICAL,
               JointKind.FIXED: TreeJoint.FIXED, JointKind.UNIVERSAL: TreeJoint.UNIVERSAL}

UNIVERSAL_RIGHT_ANGLE_TOL = 1e-6
"""How far [rad] from 90° a universal joint's axes may be: the reduced form J = Rx(q1) Ry(q2) keeps them
perpendicular (a cardan joint); another angle between the axes is refused."""


@dataclass(frozen=True)
class Tree:
    """Flat arrays of the tree joints (index i = tree joint = position in depth-first pre-order)."""
    kind: np.ndarray
    """TreeJoint per tree joint, shape [n], int64."""
    body: np.ndarray
    """Child body (model index), shape [n], int64."""
    parent: np.ndarray
    """Tree joint of the parent body, or −1 when the parent is static (or the world), shape [n], int64."""
    parent_body: np.ndarray
    """Parent body (model index; 0 = world for free joints), shape [n], int64."""
    q_start: np.ndarray
    """Positions of tree joint i are q[q_start[i]:q_start[i+1]], shape [n + 1], int64."""
    v_start: np.ndarray
    """Velocities of tree joint i are q̇[v_start[i]:v_start[i+1]], shape [n + 1], int64."""
    frame_p: np.ndarray
    """Q_p as a quaternion (w, x, y, z) in the parent's principal frame, shape [n, 4]."""
    origin_p: np.ndarray
    """t_p [m], parent's principal frame, shape [n, 3]."""
    frame_c: np.ndarray
    """Q_c as a quaternion in the child's principal frame, shape [n, 4]."""
    origin_c: np.ndarray
    """t_c [m], child's principal frame, shape [n, 3]."""
    model_joint: np.ndarray
    """Model joint behind tree joint i, or −1 for free joints, shape [n], int64."""
    sign: np.ndarray
    """+1 if the child is the model joint's body B, −1 if it is A (coordinates and efforts flip), [n]."""
    joint_tree: np.ndarray
    """Tree joint of each model joint, shape [n_joints], int64."""
    root: np.ndarray
    """First tree joint of the tree (connected component) tree joint i belongs to, shape [n], int64."""
    end: np.ndarray
    """The subtree of tree joint i is i .. end[i]−1 (pre-order), shape [n], int64."""

    @property
    def n(self) -> int:
        return int(self.kind.shape[0])

    @property
    def nq(self) -> int:
        return int(self.q_start[-1])

    @property
    def nv(self) -> int:
        return int(self.v_start[-1])

    def dof(self, model_joint: int, coord: int) -> int:
        """Index in q̇ of a model joint's coordinate (Coordinate.ANGLE or POSITION)."""
        i = int(self.joint_tree[model_joint])
        offset = 1 if (self.kind[i] == TreeJoint.CYLINDRICAL and coord == Coordinate.POSITION) else 0
        return int(self.v_start[i]) + offset


def _label(model, j) -> str:
    return f'joint "{model.joint_names[j]}" ({JointKind(int(model.joint_kind[j])).name.lower()})'


def _check_supported(model):
    for j in range(model.n_joints):
        if int(model.joint_kind[j]) not in _FROM_MODEL:
            raise UnsupportedFeatureError(
                f"method 'featherstone': {_label(model, j)} has no reduced-coordinate form here (supported: "
                f"hinge, slider, cylindrical, ball, universal, fixed joints and free bodies)")
        if int(model.joint_kind[j]) == JointKind.UNIVERSAL:
            _check_right_angle(model, j)
    for k in np.nonzero(model.body_kinematic)[0]:
        raise UnsupportedFeatureError(f'method \'featherstone\': kinematic body "{model.body_names[k]}" '
                                      f"(prescribed motion) is not supported")


def _check_right_angle(model, j):
    """A universal joint's axes must be perpendicular (the double rotation's kept angle is 90°)."""
    for p in range(model.joint_prim_start[j], model.joint_prim_start[j + 1]):
        if model.prim_kind[p] == Prim.DOUBLE_ROTATION:
            off = abs(float(model.prim_target[p]) - 0.5 * np.pi)
            if off > UNIVERSAL_RIGHT_ANGLE_TOL:
                raise UnsupportedFeatureError(
                    f"method 'featherstone': {_label(model, j)} keeps its axes at "
                    f"{np.degrees(model.prim_target[p]):.6g}°; the reduced form needs perpendicular axes")


def _perpendicular(axis, ref):
    """A unit vector ⟂ ``axis``: ``ref`` made perpendicular, or any one if ``ref`` is (nearly) parallel."""
    x = axis / np.linalg.norm(axis)
    for v in (np.asarray(ref, float), np.eye(3)[int(np.argmin(np.abs(x)))]):
        y = v - (v @ x) * x
        if np.linalg.norm(y) > 1e-6:
            return y / np.linalg.norm(y)
    raise AssertionError("unreachable: a unit axis has a perpendicular basis vector")


def _universal_frames(axis_p, ref_p, axis_c, ref_c):
    """(Q_p, Q_c) of a universal joint: the parent's axis as x of its joint frame, the child's as y of its."""
    qp = quat_from_matrix(_orthonormal_frame(axis_p, _perpendicular(axis_p, ref_p)))
    y = axis_c / np.linalg.norm(axis_c)
    x = _perpendicular(y, ref_c)
    qc = quat_from_matrix(np.column_stack([x, y, np.cross(x, y)]))
    return qp, qc


def _orthonormal_frame(axis, ref):
    """Rotation matrix with columns (axis, ref, axis × ref), re-orthogonalized."""
    x = axis / np.linalg.norm(axis)
    y = ref - (ref @ x) * x
    y /= np.linalg.norm(y)
    return np.column_stack([x, y, np.cross(x, y)])


def _joint_frames(model, j, child_is_b: bool):
    """(Q_p, t_p, Q_c, t_c) of model joint j, as quaternions and vectors in principal frames."""
    kind = int(model.joint_kind[j])
    anchors = (model.joint_anchor_a[j], model.joint_anchor_b[j])
    if kind in (JointKind.HINGE, JointKind.SLIDER, JointKind.CYLINDRICAL):
        fa = quat_from_matrix(_orthonormal_frame(model.joint_axis_a[j], model.joint_ref_a[j]))
        fb = quat_from_matrix(_orthonormal_frame(model.joint_axis_b[j], model.joint_ref_b[j]))
        frames = (fa, fb)
    elif kind == JointKind.FIXED:
        # the rotation lock of the lowered joint holds R_b = R_a qrel, so Q_c = qrel⁻¹ when B is the child
        # and Q_c = qrel when A is the child (R_a = R_b qrel⁻¹)
        p = [p for p in range(model.joint_prim_start[j], model.joint_prim_start[j + 1])
             if model.prim_kind[p] == Prim.ROTATION_LOCK][0]
        qrel = model.prim_qrel[p]
        frames = (quat_identity(), quat_conj(qrel)) if child_is_b else (qrel, quat_identity())
    elif kind == JointKind.UNIVERSAL:
        ends = [(model.joint_axis_a[j], model.joint_ref_a[j]), (model.joint_axis_b[j], model.joint_ref_b[j])]
        parent, child = (ends[0], ends[1]) if child_is_b else (ends[1], ends[0])
        qp, qc = _universal_frames(parent[0], parent[1], child[0], child[1])
        frames = (qp, qc) if child_is_b else (qc, qp)
    else:
        frames = (quat_identity(), quat_identity())
    if child_is_b:
        return frames[0], anchors[0], frames[1], anchors[1]
    return frames[1], anchors[1], frames[0], anchors[0]


def build_tree(model) -> Tree:
    """Map the model's joints to a tree; raises on loops and joints without a reduced form."""
    _check_supported(model)
    static = (model.body_static + model.body_kinematic) > 0
    edges = [[] for _ in range(model.n_bodies)]
    for j in range(model.n_joints):
        a, b = int(model.joint_body_a[j]), int(model.joint_body_b[j])
        edges[a].append((j, b))
        edges[b].append((j, a))
    rows = []
    reached = np.array(static, bool)
    used = np.zeros(model.n_joints, bool)
    for k in range(model.n_bodies):
        if static[k]:
            _grow(model, k, edges, reached, used, rows, static)
    for k in range(model.n_bodies):
        if not reached[k]:
            rows.append((TreeJoint.FREE, k, 0, -1, True))
            reached[k] = True
            _grow(model, k, edges, reached, used, rows, static)
    return _pack(model, rows)


def _grow(model, start, edges, reached, used, rows, static):
    """Depth-first search from body ``start``, appending (kind, child, parent, joint, is_b) in pre-order,
    so that every subtree occupies a contiguous range of tree joints (Holck's prefix numbering)."""
    stack = [(start, iter(edges[start]))]
    while stack:
        p, todo = stack[-1]
        step = next(todo, None)
        if step is None:
            stack.pop()
            continue
        j, c = step
        if used[j]:
            continue
        used[j] = True
        if reached[c]:
            what = "connects two static bodies" if static[c] and static[p] else \
                f'closes a loop (body "{model.body_names[c]}" is reached twice)'
            raise UnsupportedFeatureError(
                f"method 'featherstone': {_label(model, j)} {what}; reduced coordinates need a tree")
        reached[c] = True
        rows.append((_FROM_MODEL[int(model.joint_kind[j])], c, p, j, c == int(model.joint_body_b[j])))
        stack.append((c, iter(edges[c])))


def _pack(model, rows) -> Tree:
    n = len(rows)
    tree_of_body = {}
    kind, body, parent, parent_body, frame_p, origin_p, frame_c, origin_c, mj, sign = ([] for _ in range(10))
    q_start, v_start = [0], [0]
    for i, (k, c, p, j, is_b) in enumerate(rows):
        tree_of_body[c] = i
        kind.append(int(k))
        body.append(c)
        parent_body.append(p)
        parent.append(tree_of_body.get(p, -1))
        if j >= 0:
            qp, tp, qc, tc = _joint_frames(model, j, is_b)
        else:
            qp, tp, qc, tc = quat_identity(), np.zeros(3), quat_identity(), np.zeros(3)
        frame_p.append(qp)
        origin_p.append(tp)
        frame_c.append(qc)
        origin_c.append(tc)
        mj.append(j)
        sign.append(1.0 if is_b else -1.0)
        q_start.append(q_start[-1] + NQ[k])
        v_start.append(v_start[-1] + NV[k])
    joint_tree = np.full(model.n_joints, -1, np.int64)
    for i, j in enumerate(mj):
        if j >= 0:
            joint_tree[j] = i
    parent_arr = np.array(parent, np.int64)
    root, end = np.arange(n, dtype=np.int64), np.arange(1, n + 1, dtype=np.int64)
    for i in range(n):
        if parent_arr[i] >= 0:
            root[i] = root[parent_arr[i]]
    for i in range(n - 1, -1, -1):
        if parent_arr[i] >= 0:
            end[parent_arr[i]] = max(end[parent_arr[i]], end[i])
    f3 = lambda x: np.array(x, float).reshape(n, 3)
    return Tree(kind=np.array(kind, np.int64), body=np.array(body, np.int64), parent=np.array(parent, np.int64),
                parent_body=np.array(parent_body, np.int64), q_start=np.array(q_start, np.int64),
                v_start=np.array(v_start, np.int64), frame_p=np.array(frame_p, float).reshape(n, 4),
                origin_p=f3(origin_p), frame_c=np.array(frame_c, float).reshape(n, 4), origin_c=f3(origin_c),
                model_joint=np.array(mj, np.int64), sign=np.array(sign, float), joint_tree=joint_tree,
                root=root, end=end)
