"""The tree's equations of motion: one evaluation q, q̇ → q̇_pos, q̈, with its workspace.

``TreeDynamics`` owns every buffer the kernels write (allocated once), so an evaluation allocates nothing
proportional to the model. Loads: gravity, user forces and torques, springs (re-evaluated at every
evaluation, from the poses and velocities of that evaluation), generalized joint forces τ (motors, servos)
and viscous joint damping τ = −d q̇ on every joint freedom (not on free bodies).
"""
from __future__ import annotations

import numpy as np

from impulsim.dynamics.forces import add_springs
from impulsim.errors import SimulationError
from impulsim.kernel import njit
from impulsim.methods.featherstone import aba, kinematics as kin
from impulsim.methods.featherstone.groups import aba_in_of, aba_work_of, structure_of
from impulsim.methods.featherstone.kinematics import FREE, SPHERICAL, quat_mul_into, quat_matrix_into


@njit(cache=True, _nrt=False)
def spatial_loads(tree_body, body_pos, force, torque, f_ext):
    """f̂ = [τ + c × F; F] about the origin for a force F [N] at the centre c and a torque τ [N m], world."""
    for i in range(tree_body.shape[0]):
        b = tree_body[i]
        c = body_pos[b]
        F = force[b]
        f_ext[i, 0] = torque[b, 0] + c[1] * F[2] - c[2] * F[1]
        f_ext[i, 1] = torque[b, 1] + c[2] * F[0] - c[0] * F[2]
        f_ext[i, 2] = torque[b, 2] + c[0] * F[1] - c[1] * F[0]
        f_ext[i, 3], f_ext[i, 4], f_ext[i, 5] = F[0], F[1], F[2]


@njit(cache=True, _nrt=False)
def position_rates(tree_kind, tree_q_start, tree_v_start, q, qd, qdot, tmp4, R):
    """dq/dt from q̇: equal for 1-DoF coordinates; ½ J ⊗ (0, ω) for quaternions with ω in the moving
    frame; ẋ = R v for a free body's centre (v in its principal frame). ``tmp4`` [4, 4], ``R`` [3, 3]."""
    for i in range(tree_kind.shape[0]):
        kind = tree_kind[i]
        q0 = tree_q_start[i]
        d0 = tree_v_start[i]
        if kind == SPHERICAL or kind == FREE:
            qq = q0 + (3 if kind == FREE else 0)
            tmp4[0, 0] = 0.0
            for k in range(3):
                tmp4[0, 1 + k] = 0.5 * qd[d0 + k]
            quat_mul_into(q[qq:qq + 4], tmp4[0], tmp4[1])
            for k in range(4):
                qdot[qq + k] = tmp4[1, k]
            if kind == FREE:
                quat_matrix_into(q[qq:qq + 4], R)
                for r in range(3):
                    qdot[q0 + r] = R[r, 0] * qd[d0 + 3] + R[r, 1] * qd[d0 + 4] + R[r, 2] * qd[d0 + 5]
        else:
            for k in range(tree_q_start[i + 1] - q0):
                qdot[q0 + k] = qd[d0 + k]


@njit(cache=True, _nrt=False)
def normalize_quaternions(tree_kind, tree_q_start, q):
    """Unit length for the quaternions in q (after an integration step)."""
    for i in range(tree_kind.shape[0]):
        kind = tree_kind[i]
        if kind == SPHERICAL or kind == FREE:
            qq = tree_q_start[i] + (3 if kind == FREE else 0)
            n = np.sqrt(q[qq] ** 2 + q[qq + 1] ** 2 + q[qq + 2] ** 2 + q[qq + 3] ** 2)
            for k in range(4):
                q[qq + k] /= n


@njit(cache=True, _nrt=False)
def damping_forces(tree_kind, tree_v_start, damping, qd, tau_in, tau_out):
    """τ = τ_in − d q̇ on every joint freedom except those of free bodies."""
    for i in range(tree_kind.shape[0]):
        for k in range(tree_v_start[i], tree_v_start[i + 1]):
            tau_out[k] = tau_in[k] - (0.0 if tree_kind[i] == FREE else damping * qd[k])


VELOCITY_MISMATCH = 1e-9
"""Largest difference [m/s, rad/s] between the state's velocities and those of the joint rates read from
it that counts as round-off; above it the state's velocities are projected onto the joints."""


class TreeDynamics:
    """Workspace and evaluation of the articulated-body equations of motion for one tree."""

    def __init__(self, model, tree, state):
        self.model, self.tree = model, tree
        n, nb = tree.n, model.n_bodies
        self.body_pos = state.body_pos.copy()
        self.body_quat = state.body_quat.copy()
        self.body_vel = np.zeros((nb, 3))
        self.body_omega = np.zeros((nb, 3))
        self.body_R = np.zeros((nb, 3, 3))
        self.joint_Rp, self.joint_Rc = np.zeros((n, 3, 3)), np.zeros((n, 3, 3))
        self.joint_point = np.zeros((n, 3))
        self.S, self.I, self.IA, self.U, self.Dinv = (np.zeros((n, 6, 6)) for _ in range(5))
        self.v, self.vj, self.c, self.pA, self.a, self.f_ext = (np.zeros((n, 6)) for _ in range(6))
        self.u = np.zeros((n, 12))
        self.work = np.zeros((3, 6, 6))
        self.tmp6, self.zero6, self.a0 = np.zeros(6), np.zeros(6), np.zeros(6)
        self.tmp4, self.tmp33, self.R3 = np.zeros((4, 4)), np.zeros((3, 3)), np.zeros((3, 3, 3))
        self.force, self.torque = np.zeros((nb, 3)), np.zeros((nb, 3))
        self.tau = np.zeros(tree.nv)
        self.user_force, self.user_torque = np.zeros((nb, 3)), np.zeros((nb, 3))
        self.tau_const = np.zeros(tree.nv)
        self.damping = 0.0

    # kinematics -------------------------------------------------------------------------------------
    def read(self, state, q, qd) -> float:
        """Joint coordinates of ``state`` into q, q̇ (static bodies' poses are taken from it too).

        If the state's velocities do not meet the joints (by more than ``VELOCITY_MISMATCH``), q̇ is the
        projection with the least change of kinetic energy: H q̇ = Jᵀ M v, i.e. the impulse response to
        the bodies' momenta. Returns the largest velocity mismatch found [m/s or rad/s].
        """
        t = self.tree
        self.body_pos[...] = state.body_pos
        self.body_quat[...] = state.body_quat
        kin.read_coordinates(t.kind, t.body, t.parent_body, t.q_start, t.v_start, t.frame_p, t.origin_p,
                             t.frame_c, t.origin_c, state.body_pos, state.body_quat, state.body_vel,
                             state.body_omega, q, qd, self.tmp4, self.R3)
        self.pose(q)
        self.velocities(qd)
        mismatch = kin.velocity_mismatch(t.body, self.body_vel, self.body_omega, state.body_vel, state.body_omega)
        if mismatch > VELOCITY_MISMATCH:
            self._project(state, qd)
        return float(mismatch)

    def _project(self, state, qd):
        """q̇ = H⁻¹ Jᵀ M v for the state's maximal velocities v (at the current pose)."""
        t = self.tree
        b = t.body
        w = state.body_omega[b]
        # spatial velocity about the origin: [ω; v_c + c × ω]; momentum = Î v̂
        vs = np.concatenate([w, state.body_vel[b] + np.cross(self.body_pos[b], w)], axis=1)
        momentum = np.einsum("irc,ic->ir", self.I, vs)
        self.articulated_inertias()
        self.impulse(momentum, np.zeros(t.nv), qd)
        self.velocities(qd)

    def pose(self, q):
        """Body poses, joint frames and motion subspaces at q; spatial inertias of the bodies."""
        t = self.tree
        kin.forward_kinematics(t.kind, t.body, t.parent, t.parent_body, t.q_start, t.frame_p, t.origin_p,
                               t.frame_c, t.origin_c, q, self.body_pos, self.body_quat, self.body_R, self.joint_Rp,
                               self.joint_Rc, self.joint_point, self.tmp4)
        kin.motion_subspaces(t.kind, t.body, t.q_start, q, self.body_pos, self.body_R, self.joint_Rp,
                             self.joint_Rc, self.joint_point, self.S)
        aba.body_inertias(t.body, self.model.body_mass, self.model.body_inertia, self.body_pos, self.body_R,
                          self.I, self.tmp33)

    def velocities(self, qd):
        """Spatial velocities v̂ and maximal body velocities at q̇ (after :meth:`pose`)."""
        t = self.tree
        kin.spatial_velocities(t.parent, t.v_start, self.S, qd, self.v, self.vj)
        kin.write_body_velocities(t.body, self.v, self.body_pos, self.body_vel, self.body_omega)

    def articulated_inertias(self):
        """I^A, U, D⁻¹ at the current pose (what impulse responses need)."""
        t = self.tree
        bad = aba.articulated_inertias(t.parent, t.v_start, self.S, self.I, self.IA, self.U, self.Dinv,
                                       self.work)
        self._check(bad)

    def write(self, state):
        """Poses and velocities of the tree bodies into ``state`` (after :meth:`pose`, :meth:`velocities`)."""
        kin.copy_bodies(self.tree.body, self.body_pos, self.body_quat, self.body_vel, self.body_omega,
                        state.body_pos, state.body_quat, state.body_vel, state.body_omega)

    # dynamics ---------------------------------------------------------------------------------------
    def accelerations(self, q, qd, qdd):
        """q̈ at (q, q̇) under gravity, the held user loads and τ_const, springs and damping."""
        m, t = self.model, self.tree
        self.pose(q)
        self.velocities(qd)
        self.force[...] = self.user_force
        self.torque[...] = self.user_torque
        if m.n_springs:
            add_springs(m.spring_body_a, m.spring_body_b, m.spring_anchor_a, m.spring_anchor_b,
                        m.spring_stiffness, m.spring_damping, m.spring_rest_length, self.body_pos,
                        self.body_quat, self.body_vel, self.body_omega, m.body_inv_mass, self.force,
                        self.torque)
        spatial_loads(t.body, self.body_pos, self.force, self.torque, self.f_ext)
        damping_forces(t.kind, t.v_start, self.damping, qd, self.tau_const, self.tau)
        self.a0[3:] = -m.gravity       # gravity as the fictitious base acceleration â_0 = −[0; g]
        bad = aba.forward_dynamics(structure_of(t), aba_in_of(self), qd, qdd, aba_work_of(self))
        self._check(bad)

    def rates(self, q, qd, qdot):
        """dq/dt for the joint positions."""
        t = self.tree
        position_rates(t.kind, t.q_start, t.v_start, q, qd, qdot, self.tmp4, self.tmp33)

    def impulse(self, y_body, y_joint, dqd):
        """Δq̇ for spatial body impulses ``y_body`` [n, 6] and joint impulses ``y_joint`` [n_v]; the bodies'
        spatial velocity changes are left in ``self.a``. Needs :meth:`articulated_inertias` first."""
        t = self.tree
        aba.impulse_response(0, t.n, t.parent, t.v_start, self.S, self.IA, self.U, self.Dinv, y_body, y_joint,
                             self.zero6, dqd, self.a, self.pA, self.c, self.u, self.tmp6)

    def _check(self, bad):
        if bad >= 0:
            b = int(self.tree.body[bad])
            raise SimulationError(f'featherstone: the articulated inertia at the inner joint of body '
                                  f'"{self.model.body_names[b]}" is singular (a massless subtree?)')
