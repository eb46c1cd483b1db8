"""The grouped arguments of the Featherstone method's kernels: plain tuples of arrays in a fixed order.

The integration kernels (:mod:`.fused`) take the tree's structure, the model's parameters and the workspace
of a :class:`.articulated.TreeDynamics` as three groups (``tree``, ``mdl``, ``ws``), and
:func:`.aba.forward_dynamics` the parts of them it reads and writes (``structure``, ``aba_in``, ``aba_ws``).
The compiled run loop (:func:`.run_loop.run_steps`) adds the model's timed loads and joint primitives, the
motors, the step's settings, the state, the integrator's stages and its own workspace. The kernels of the
contact stage (:mod:`.impulses`, :mod:`.laws`) take the articulated trees, the motion the impulses change,
the impulse propagation's scratch, the contact rows, the limit rows and the contact patches. A kernel
unpacks a group in its first lines (``tree_root, tree_end, ... = art``); unpacking checks the number of
fields when it compiles.

Plain tuples, not named tuples: Numba types a plain tuple of arrays on its fast path (as it does separate
arrays), while a named tuple crosses from Python into compiled code through Python's typing, every call.
Inside compiled code a tuple costs what its arrays cost as separate arguments, with one catch in kernels
that keep reference counts (all but ``_nrt=False`` ones): a group a kernel still holds when it calls another
keeps every one of its arrays counted up and down around the call. So a kernel that has unpacked a large
group passes its callee a small group built from the unpacked arrays (as :func:`.fused.dynamics` does for
:func:`.aba.forward_dynamics`), not the large group again.

The functions below build the groups; they are cheap (a tuple of attribute reads and views), so callers build
them per call, for the rows in use. ``tree`` and ``ws`` are built once, with the buffers they hold (a
:class:`.articulated.TreeDynamics` allocates its buffers once).
"""
from __future__ import annotations

import numpy as np

TREE = ("kind", "body", "parent", "parent_body", "q_start", "v_start", "frame_p", "origin_p", "frame_c",
        "origin_c")
"""Fields of ``tree``: the tree's structure (see :class:`.tree.Tree`): each tree joint's kind, child body, parent
tree joint (−1: none) and parent body, first coordinate and first velocity index (with one entry more at the
end), and the joint frame's orientation and origin [m] in the parent's and in the child's principal frame."""

MODEL = ("mass", "inertia", "inv_mass", "spring_a", "spring_b", "spring_anchor_a", "spring_anchor_b",
         "spring_stiffness", "spring_damping", "spring_rest_length", "gravity")
"""Fields of ``mdl``: the model's parameters a step reads afresh (live parameters may change between steps):
the bodies' masses [kg], principal inertias [kg m²] and inverse masses, the springs (bodies, anchors in body
frames [m], stiffness [N/m], damping [N s/m], rest length [m]) and gravity [m/s²]."""

WORKSPACE = ("body_pos", "body_quat", "body_vel", "body_omega", "body_R", "joint_Rp", "joint_Rc", "joint_point",
             "S", "I", "IA", "U", "Dinv", "v", "vj", "c", "pA", "a", "f_ext", "u", "work", "tmp6", "a0", "tmp4",
             "tmp33", "force", "torque", "tau", "user_force", "user_torque", "tau_const")
"""Fields of ``ws``: the workspace of one evaluation (:class:`.articulated.TreeDynamics`): the bodies' poses
and velocities and rotation matrices, the joint frames and points, the motion subspaces S and spatial
inertias Î, the ABA's I^A, U, D⁻¹, v̂, S q̇, ĉ, p^A, â, f̂_ext, u and scratch, the base acceleration â_0,
the loads on the bodies [N, N m] and joints (τ), the held user loads and the held joint forces τ_const."""

STRUCTURE = ("kind", "parent", "v_start")
"""Fields of ``structure``: the part of ``tree`` the ABA reads: each tree joint's kind, parent tree joint (−1:
none) and first velocity index (with one entry more at the end)."""

ABA_IN = ("S", "I", "v", "vj", "f_ext", "tau", "a0")
"""Fields of ``aba_in``: the ABA's inputs from ``ws``: the motion subspaces S and spatial inertias Î (world,
about the origin), the spatial velocities v̂ and S q̇, the external loads f̂_ext, the joint forces τ and the
base acceleration â_0."""

ABA_WORK = ("IA", "U", "Dinv", "pA", "c", "u", "a", "work", "tmp6")
"""Fields of ``aba_ws``: the ABA's arrays in ``ws`` it writes: I^A, U, D⁻¹, p^A, ĉ, u, â and scratch."""

LOADS = ("body", "force", "torque", "start", "end")
"""Fields of ``loads``: the model's timed loads: body, force [N] and torque [N m] (world), start and end [s]."""

PRIMS = ("kind", "body_a", "body_b", "anchor_a", "anchor_b", "axis_a", "axis_b", "target", "qrel")
"""Fields of ``prims``: the model's joint primitives (kinds, bodies, anchors and axes in body frames, targets,
relative rotations), for the joint error the run loop measures."""

MOTORS = ("dof", "sign")
"""Fields of ``motors``: each motor's velocity index and the sign of its effort on it."""

SETTINGS = ("damping", "euler", "measure", "eps_d")
"""Fields of ``settings`` (scalars): the joint damping [N m s/rad or N s/m], semi-implicit Euler instead of
RK4, whether to measure the joint error, and the joint error counted as converged [m or rad]."""

STATE = ("pos", "quat", "vel", "omega", "force", "torque", "motor_effort")
"""Fields of ``state``: the state's motion (world; advanced in place), its held user forces [N] and torques
[N m] and the motors' efforts [N m or N]."""

STAGES = ("kq", "kv", "q_stage", "v_stage")
"""Fields of ``stages``: the integrator's stage slopes of q and q̇ and its stage inputs."""

RUN_WORK = ("R3", "backup", "stats")
"""Fields of ``run_ws``: the run loop's workspace: the rotation scratch of reading the coordinates, the
state's motion before the current step (restored when a step fails) and the loop's statistics (out)."""

ART = ("tree_root", "tree_end", "tree_parent", "tree_v_start", "joint_S", "IA", "U", "Dinv", "zero6")
"""Fields of ``art``: the trees' structure (each link's tree root, end, parent and first velocity index), the
joints' motion subspaces, the articulated inertias and the ABA's U and D⁻¹ at the current poses, and a zero
spatial vector."""

SCRATCH = ("y_body", "y_joint", "dqd", "dv", "pA", "c", "u", "tmp6")
"""Fields of ``scratch``: the impulse propagation's workspace: the test impulses on links and joints, the
responses Δq̇ and Δv̂, and the ABA's bias and temporaries."""

MOTION = ("qd", "v")
"""Fields of ``motion``: the joint rates q̇ and the links' spatial velocities v̂, changed in place."""

CONTACTS = ("c_ta", "c_tb", "c_pa", "c_pb", "c_n", "c_t1", "c_t2", "c_K")
"""Fields of ``contacts``: the contact rows in use: the links of both sides (−1: static), the contact points
[m, world], the normal and tangents, and the collision matrices K (Δu = K p) [1/kg]."""

LIMITS = ("l_dof", "l_joint", "l_dir", "l_K", "l_target")
"""Fields of ``limits``: the joint-limit rows in use: coordinate, tree joint, direction, (H⁻¹)_dd and target
rate."""

PATCHES = ("c_patch", "patch_size", "patch_Pn")
"""Fields of ``patches``: each contact's patch (contacts of one body pair), each patch's contact count and
its accumulated normal impulse [N s]."""


def tree_of(t) -> tuple:
    """``tree`` of the method's tree ``t`` (a :class:`.tree.Tree`)."""
    return (t.kind, t.body, t.parent, t.parent_body, t.q_start, t.v_start, t.frame_p, t.origin_p, t.frame_c,
            t.origin_c)


def model_of(m) -> tuple:
    """``mdl`` of model ``m``, read now (gravity as a float array)."""
    return (m.body_mass, m.body_inertia, m.body_inv_mass, m.spring_body_a, m.spring_body_b, m.spring_anchor_a,
            m.spring_anchor_b, m.spring_stiffness, m.spring_damping, m.spring_rest_length,
            np.asarray(m.gravity, float))


def workspace_of(d) -> tuple:
    """``ws`` of the tree dynamics ``d``."""
    return (d.body_pos, d.body_quat, d.body_vel, d.body_omega, d.body_R, d.joint_Rp, d.joint_Rc, d.joint_point,
            d.S, d.I, d.IA, d.U, d.Dinv, d.v, d.vj, d.c, d.pA, d.a, d.f_ext, d.u, d.work, d.tmp6, d.a0, d.tmp4,
            d.tmp33, d.force, d.torque, d.tau, d.user_force, d.user_torque, d.tau_const)


def structure_of(t) -> tuple:
    """``structure`` of the method's tree ``t``."""
    return (t.kind, t.parent, t.v_start)


def aba_in_of(d) -> tuple:
    """``aba_in`` of the tree dynamics ``d``."""
    return (d.S, d.I, d.v, d.vj, d.f_ext, d.tau, d.a0)


def aba_work_of(d) -> tuple:
    """``aba_ws`` of the tree dynamics ``d``."""
    return (d.IA, d.U, d.Dinv, d.pA, d.c, d.u, d.a, d.work, d.tmp6)


def loads_of(m) -> tuple:
    """``loads`` of model ``m``."""
    return (m.load_body, m.load_force, m.load_torque, m.load_start, m.load_end)


def prims_of(m) -> tuple:
    """``prims`` of model ``m``."""
    return (m.prim_kind, m.prim_body_a, m.prim_body_b, m.prim_anchor_a, m.prim_anchor_b, m.prim_axis_a,
            m.prim_axis_b, m.prim_target, m.prim_qrel)


def state_of(s) -> tuple:
    """``state`` of state ``s``."""
    return (s.body_pos, s.body_quat, s.body_vel, s.body_omega, s.body_force, s.body_torque, s.motor_effort)


def stages_of(integ) -> tuple:
    """``stages`` of the integrator ``integ``."""
    return (integ.kq, integ.kv, integ.q_stage, integ.v_stage)


def art_of(tree, dyn, zero6) -> tuple:
    """``art`` of the method's ``tree`` and articulated dynamics ``dyn``."""
    return (tree.root, tree.end, tree.parent, tree.v_start, dyn.S, dyn.IA, dyn.U, dyn.Dinv, zero6)


def scratch_of(c) -> tuple:
    """``scratch`` of the contact stage ``c``."""
    return (c.y_body, c.y_joint, c.dqd, c.dv, c.pA, c.c, c.u, c.tmp6)


def contacts_of(r, n_c: int) -> tuple:
    """``contacts`` of the first ``n_c`` contact rows of ``r``."""
    return (r.c_ta[:n_c], r.c_tb[:n_c], r.c_pa[:n_c], r.c_pb[:n_c], r.c_n[:n_c], r.c_t1[:n_c], r.c_t2[:n_c],
            r.c_K[:n_c])


def friction_of(r, n_c: int) -> tuple:
    """``friction`` of the first ``n_c`` contact rows of ``r``: static and dynamic coefficients and the unit
    slip direction of the contacts that arrived sliding (zero for the others)."""
    return r.c_mus[:n_c], r.c_mud[:n_c], r.c_slide[:n_c]


def limits_of(r, n_l: int) -> tuple:
    """``limits`` of the first ``n_l`` limit rows of ``r``."""
    return (r.l_dof[:n_l], r.l_joint[:n_l], r.l_dir[:n_l], r.l_K[:n_l], r.l_target[:n_l])


def patches_of(r, n_c: int, n_p: int) -> tuple:
    """``patches`` of the first ``n_c`` contacts and ``n_p`` patches of ``r``."""
    return (r.c_patch[:n_c], r.patch_size[:n_p], r.patch_Pn[:n_p])
