"""Fast-motion start states: every ball joint of a tree or chain spinning at a random relative angular velocity.

Used by ``benchmarks/fast_motion.py`` and the fast-motion tests of the LGS joint correction: a joint correction
that converges in few solves in gentle motion can need many when the joints turn by a sizeable angle in one step.
"""
from __future__ import annotations

import numpy as np

from impulsim.math import quat_rotate
from impulsim.model.kinds import Prim


def spin_joints(model, state, sigma: float, seed: int) -> None:
    """Set the velocities of ``state`` so that every ball joint turns at a random relative angular velocity
    (each component normal with standard deviation ``sigma`` [rad/s], drawn from ``seed``) and every joint's
    point moves alike on both bodies (a consistent start: no velocity correction needed).

    The joints' parents are their bodies A (as Bender's trees and chains are built); a body whose parent is
    static starts from rest. Raises ValueError for a model with other joint kinds or bodies not reached.
    """
    rng = np.random.default_rng(seed)
    known = np.asarray(model.body_static, bool).copy()
    state.body_vel[known] = 0.0
    state.body_omega[known] = 0.0
    todo = list(range(len(model.prim_kind)))
    for i in todo:
        if Prim(model.prim_kind[i]) != Prim.BALL:
            raise ValueError(f"spin_joints: primitive {i} is not a ball joint")
    while todo:
        rest = []
        for i in todo:
            a, b = int(model.prim_body_a[i]), int(model.prim_body_b[i])
            if not known[a]:
                rest.append(i)
                continue
            point = state.body_pos[b] + quat_rotate(state.body_quat[b], model.prim_anchor_b[i])
            v_point = state.body_vel[a] + np.cross(state.body_omega[a], point - state.body_pos[a])
            state.body_omega[b] = state.body_omega[a] + sigma * rng.normal(size=3)
            state.body_vel[b] = v_point + np.cross(state.body_omega[b], state.body_pos[b] - point)
            known[b] = True
        if len(rest) == len(todo):
            raise ValueError("spin_joints: some joints do not hang from a body reached from a static one")
        todo = rest
