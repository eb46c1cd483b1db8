"""The grouped arguments of the Featherstone method's impulse kernels: plain tuples of arrays in a fixed order.

The kernels of the contact stage (:mod:`.impulses`, :mod:`.laws`) take their arrays in a few groups instead
of one by one: the articulated trees, the motion the impulses change, the impulse propagation's scratch, the
contact rows, the limit rows and the contact patches. A kernel unpacks a group in its first lines
(``tree_root, tree_end, ... = art``); unpacking checks the number of fields when it compiles.

Plain tuples, not named tuples: Numba types a plain tuple of arrays on its fast path (as it does separate
arrays), while a named tuple crosses from Python into compiled code through Python's typing, every call.
Inside compiled code a tuple costs the same as separate arguments.

The functions below build the groups; they are cheap (a tuple of attribute reads and views), so callers build
them per call, for the rows in use.
"""
from __future__ import annotations

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
