"""Moreau's midpoint scheme in minimal coordinates as a method of the library: any tree of hinge, slider and
fixed joints with free-floating bases (``make("moreau_minimal", model)``).

The model's joints become the coordinates of a tree (the Featherstone tree of this library); each step reads
the joint coordinates from the State, takes one midpoint step with M(q) and h(q, u) assembled from the tree
(Rempfler 2015, ch. 2) and writes the bodies' poses and velocities back. Contacts here are segment contacts
against a static mesh (the bobsleigh's); shape-against-shape contacts of a model are refused.
"""
from __future__ import annotations

import numpy as np

from impulsim.contact.default import model_has_contacts
from impulsim.errors import UnsupportedFeatureError
from impulsim.math.quaternion import quat_to_matrix
from impulsim.methods.base import Method, StageTimer, StepInfo
from impulsim.methods.capabilities import Capabilities
from impulsim.methods.featherstone.articulated import TreeDynamics
from impulsim.methods.featherstone.tree import TreeJoint, build_tree
from impulsim.methods.moreau_minimal.segments import Segments
from impulsim.methods.moreau_minimal.system import MinimalSystem
from impulsim.methods.moreau_minimal.tree import TreeArrays, counts
from impulsim.model.model import Model

_KINDS = (TreeJoint.FIXED, TreeJoint.REVOLUTE, TreeJoint.PRISMATIC, TreeJoint.FREE)


def _refuse(model, contacts):
    name = "method 'moreau_minimal'"
    if contacts is None:
        contacts = model_has_contacts(model)
    if contacts:
        raise UnsupportedFeatureError(f"{name}: contacts between the model's shapes are not supported (its "
                                      f"contacts are segments against a static mesh; pass contacts=False to "
                                      f"simulate the tree without them)")
    for what, count in (("motors", model.n_motors), ("servos", model.n_servos), ("springs", model.n_springs),
                        ("joint limits", model.n_limits)):
        if count:
            raise UnsupportedFeatureError(f"{name}: the model has {count} {what}, which this method does not "
                                          f"model")


class MoreauMinimalMethod(Method):
    """Rempfler's midpoint time-stepping over the model's joint tree in minimal coordinates.

    Supports gravity, user forces and torques (held over the step), hinge, slider and fixed joints and
    free-floating bases. Refuses (naming the element): ball and cylindrical joints, loops, kinematic bodies,
    motors, servos, springs, joint limits and shape contacts.

    Options: e_r, e_a (prox stop rule, default 1e-6 and 1e-4 N s), max_iter, contacts (must be falsy).
    """

    name = "moreau_minimal"
    capabilities = Capabilities(joints=frozenset({"hinge", "slider", "fixed"}), springs=False, motors=False,
                                servos=False)
    unsupported = ((lambda m: not isinstance(m, Model), "models other than the rigid-body Model"),)

    def __init__(self, model, *, contacts=None, e_r=1e-6, e_a=1e-4, max_iter=500):
        super().__init__(model)
        _refuse(model, contacts)
        self.tree = tree = build_tree(model)
        for i in range(tree.n):
            kind = TreeJoint(int(tree.kind[i]))
            if kind not in _KINDS:
                j = int(tree.model_joint[i])
                raise UnsupportedFeatureError(f"method 'moreau_minimal': joint \"{model.joint_names[j]}\" is "
                                              f"{kind.name.lower()}; supported: hinge, slider, fixed, free bases")
        self._options = dict(e_r=e_r, e_a=e_a, max_iter=max_iter)
        self.system = None

    def _prepare(self, state):
        t, m = self.tree, self.model
        n = t.n
        kinds = t.kind.astype(np.int64)
        inputs = np.full(n, -1, np.int64)
        nq, nu, q0, u0 = counts(kinds, inputs)
        root_R = np.array([quat_to_matrix(state.body_quat[p]) for p in t.parent_body])
        root_x = np.array([state.body_pos[p] for p in t.parent_body])
        T = TreeArrays(kinds, t.parent.astype(np.int64), q0, u0, inputs,
                       np.array([quat_to_matrix(f) for f in t.frame_p]), t.origin_p.copy(),
                       np.array([quat_to_matrix(f) for f in t.frame_c]), t.origin_c.copy(), root_R, root_x,
                       m.body_mass[t.body].astype(float), np.array([np.diag(m.body_inertia[b]) for b in t.body]),
                       np.zeros(n, np.int64), np.zeros((n, 5)), np.asarray(m.gravity, float), np.zeros(n))
        empty = Segments(np.zeros(0, np.int64), np.zeros((0, 3)), np.zeros((0, 3)), np.zeros(0, np.int64),
                         np.zeros((0, 5)), np.zeros((0, 2)), np.zeros((0, 3)))
        self.system = MinimalSystem(T, empty, None, nq, nu, 0, [m.body_names[b] for b in t.body], [],
                                    **self._options)
        self.dyn = TreeDynamics(m, t, state)
        self.qd = np.zeros(t.nv)

    def coordinates(self, state):
        """(q, u) of ``state``: joint coordinates, free bases as (x, quaternion) and u = (v, ω) world."""
        if self.system is None:
            self._prepare(state)
        q, qd = np.zeros(self.tree.nq), np.zeros(self.tree.nv)
        self.dyn.read(state, q, qd)
        u = qd.copy()
        for i in np.nonzero(self.tree.kind == TreeJoint.FREE)[0]:
            q0, v0 = self.tree.q_start[i], self.tree.v_start[i]
            R = quat_to_matrix(q[q0 + 3:q0 + 7])
            u[v0:v0 + 3] = R @ qd[v0 + 3:v0 + 6]
            u[v0 + 3:v0 + 6] = R @ qd[v0:v0 + 3]
        return q, u

    def _write(self, state, q, u):
        qd = u.copy()
        for i in np.nonzero(self.tree.kind == TreeJoint.FREE)[0]:
            q0, v0 = self.tree.q_start[i], self.tree.v_start[i]
            R = quat_to_matrix(q[q0 + 3:q0 + 7])
            qd[v0:v0 + 3] = R.T @ u[v0 + 3:v0 + 6]
            qd[v0 + 3:v0 + 6] = R.T @ u[v0:v0 + 3]
        self.dyn.pose(q)
        self.dyn.velocities(qd)
        self.dyn.write(state)

    def _step(self, s, h, info: StepInfo):
        timer = StageTimer(info.timings)
        q, u = self.coordinates(s)
        sysm = self.system
        sysm.q[:], sysm.u[:] = q, u
        sysm.work.force[...] = s.body_force[self.tree.body]
        sysm.work.torque[...] = s.body_torque[self.tree.body]
        timer.lap("coordinates")
        sysm.reset_accumulators()
        sysm.step(h, 1)
        timer.lap("step")
        self._write(s, sysm.q, sysm.u)
        s.t += h
        s.step_count += 1
        info.iters_vel = int(sysm.acc.stats[2])
        timer.lap("write back")


__all__ = ["MoreauMinimalMethod"]
