"""A tree of rigid bodies in joint (minimal) coordinates, as flat arrays (Rempfler 2015, ch. 2.1).

Body i hangs on joint i; joints are numbered parents first (depth-first pre-order), so one pass from 0 to
n−1 propagates positions, velocities and accelerations from the root outwards. Joint kinds (``JointKind``):

    FIXED      no coordinate
    REVOLUTE   angle θ [rad] about the joint axis
    PRISMATIC  displacement s [m] along the joint axis
    FREE       q = (x [m], quaternion (w, x, y, z)) of the body in the world; u = (v, ω) both in the world

A revolute or prismatic joint is *kinematically actuated* when ``joint_input[i] ≥ 0``: its coordinate is
the input k[joint_input[i]] (thesis: k, velocity m, acceleration ṁ), not a free coordinate in q.

Joint frames follow the Featherstone tree of this library: a frame on the parent (rotation Q_p, origin
t_p in the parent's principal frame) and one on the child (Q_c, t_c); the joint axis is the frame's x axis,

    R_c = R_p Q_p J(θ) Q_cᵀ,   x_c = x_p + R_p t_p + R_p Q_p (s, 0, 0) − R_c t_c.

A joint without a moving parent (``joint_parent[i] = −1``) attaches to a fixed frame (``root_R``,
``root_x``, world); a FREE joint must be such a root.
"""
from __future__ import annotations

import enum
from typing import NamedTuple

import numpy as np


class JointKind(enum.IntEnum):
    """Joint kinds of the minimal-coordinate tree (codes shared with the Featherstone tree)."""
    FIXED = 0
    REVOLUTE = 1
    PRISMATIC = 2
    FREE = 5


class SpringKind(enum.IntEnum):
    """Force element on a revolute or prismatic joint coordinate (acts on parent and child, equal and
    opposite): none, linear spring, or the preloaded double spring of Rempfler eq. 4.2-4.4."""
    NONE = 0
    LINEAR = 1
    DOUBLE = 2


class TreeArrays(NamedTuple):
    """Constant arrays of a tree (one row per body/joint, parents first)."""
    joint_kind: np.ndarray
    """JointKind per joint, shape [n], int64."""
    joint_parent: np.ndarray
    """Parent body, or −1 for a joint on a fixed frame, shape [n], int64."""
    joint_q: np.ndarray
    """Start of the joint's coordinates in q (or −1), shape [n], int64."""
    joint_u: np.ndarray
    """Start of the joint's velocities in u (or −1), shape [n], int64."""
    joint_input: np.ndarray
    """Index in k of an actuated joint's input, or −1, shape [n], int64."""
    frame_p: np.ndarray
    """Q_p, rotation of the parent's joint frame in the parent's principal frame, shape [n, 3, 3]."""
    origin_p: np.ndarray
    """t_p [m], parent's principal frame, shape [n, 3]."""
    frame_c: np.ndarray
    """Q_c, rotation of the child's joint frame in the child's principal frame, shape [n, 3, 3]."""
    origin_c: np.ndarray
    """t_c [m], child's principal frame, shape [n, 3]."""
    root_R: np.ndarray
    """World rotation of the fixed frame a root joint sits on, shape [n, 3, 3] (unused otherwise)."""
    root_x: np.ndarray
    """World origin [m] of that fixed frame, shape [n, 3]."""
    mass: np.ndarray
    """Body mass [kg], shape [n]."""
    inertia: np.ndarray
    """Inertia tensor about the centre of mass in the body's principal frame [kg m²], shape [n, 3, 3]."""
    spring_kind: np.ndarray
    """SpringKind on the joint coordinate, shape [n], int64."""
    spring_par: np.ndarray
    """(k1 [N m/rad], k2, knee [rad], damping [N m s/rad], rest [rad]) per joint, shape [n, 5]:
    LINEAR uses k1 and rest; DOUBLE has stiffness k1 inside |θ − rest| ≤ knee and k2 beyond."""
    gravity: np.ndarray
    """Gravitational acceleration [m/s²], world, shape [3]."""
    drag: np.ndarray
    """Quadratic drag F = −c |v| v at the centre of mass: c [kg/m] per body, shape [n]."""


def counts(kind, input_index):
    """(n_q, n_u, start of q, start of u) for joint kinds and actuation flags."""
    nq = nu = 0
    q0, u0 = [], []
    for k, a in zip(kind, input_index):
        if k == JointKind.FREE:
            q0.append(nq); u0.append(nu); nq += 7; nu += 6
        elif k in (JointKind.REVOLUTE, JointKind.PRISMATIC) and a < 0:
            q0.append(nq); u0.append(nu); nq += 1; nu += 1
        else:
            q0.append(-1); u0.append(-1)
    return nq, nu, np.array(q0, np.int64), np.array(u0, np.int64)
