"""Seeded random trees of hinge, slider, cylindrical, ball and fixed joints (optionally floating),
moved to random joint positions and rates through the method's own forward kinematics."""
import numpy as np

import impulsim as ims
from impulsim.methods.featherstone.articulated import TreeDynamics
from impulsim.methods.featherstone.tree import build_tree, TreeJoint

KINDS = ("hinge", "slider", "ball", "cylindrical", "fixed")


def _unit(rng):
    v = rng.normal(size=3)
    return v / np.linalg.norm(v)


def random_tree_model(seed, n_bodies=6, floating=False, kinds=KINDS, gravity=(0.0, 0.0, -9.81)):
    """Bodies with random masses and inertias, each joined to a random earlier body (or the world).

    With ``floating`` the first body has no joint: it is the free-floating base of the tree."""
    rng = np.random.default_rng(seed)
    b = ims.ModelBuilder(f"random tree {seed}", gravity=gravity)
    names = []
    for i in range(n_bodies):
        moments = np.sort(rng.uniform(0.05, 1.0, 3))
        moments[2] = min(moments[2], moments[0] + moments[1])      # triangle inequality of a real body
        name = f"link{i}"
        q = rng.normal(size=4)
        b.add_body(name, mass=rng.uniform(0.5, 3.0), inertia=tuple(moments), position=rng.normal(size=3),
                   orientation=q / np.linalg.norm(q))
        if not (floating and i == 0):
            parent = "world" if (i == 0 or rng.random() < 0.15) and not floating else \
                names[rng.integers(len(names))]
            kind = kinds[rng.integers(len(kinds))]
            b.add_joint(kind, f"j{i}", parent, name, anchor=rng.normal(size=3), axis=_unit(rng))
        names.append(name)
    return b.build()


def random_state(model, state, seed, speed=1.0):
    """``state`` moved to random joint positions (angles, displacements, ball rotations, free poses)
    and random joint rates, consistent with every joint."""
    rng = np.random.default_rng(seed + 1000)
    tree = build_tree(model)
    dyn = TreeDynamics(model, tree, state)
    q, qd = np.zeros(tree.nq), np.zeros(tree.nv)
    dyn.read(state, q, qd)
    for i in range(tree.n):
        q0 = tree.q_start[i]
        kind = TreeJoint(int(tree.kind[i]))
        if kind in (TreeJoint.REVOLUTE, TreeJoint.PRISMATIC):
            q[q0] = rng.uniform(-1.0, 1.0)
        elif kind == TreeJoint.CYLINDRICAL:
            q[q0:q0 + 2] = rng.uniform(-1.0, 1.0, 2)
        elif kind == TreeJoint.SPHERICAL:
            r = rng.normal(size=4)
            q[q0:q0 + 4] = r / np.linalg.norm(r)
        elif kind == TreeJoint.FREE:
            r = rng.normal(size=4)
            q[q0 + 3:q0 + 7] = r / np.linalg.norm(r)
    qd[:] = speed * rng.normal(size=tree.nv)
    dyn.pose(q)
    dyn.velocities(qd)
    out = state.copy()
    dyn.write(out)
    return out, q, qd
