"""Seeded random multibody models for the LGS tests: trees of mixed joint kinds, loops added on top."""
import numpy as np

import impulsim as ims
from impulsim.math import quat_rotate_inv

# joint kinds with the frame parameters they need; all are built from one world anchor and axis
TREE_KINDS = ("ball", "hinge", "universal", "slider", "cylindrical", "fixed", "point_on_line",
              "point_on_plane", "distance")


def _unit(rng):
    v = rng.normal(size=3)
    return v / np.linalg.norm(v)


def _quat(rng):
    q = rng.normal(size=4)
    return q / np.linalg.norm(q)


def _perpendicular(rng, axis):
    v = np.cross(axis, _unit(rng))
    return v / np.linalg.norm(v)


def _joint(b, rng, kind, name, parent, child, anchor, q_parent, q_child):
    """One joint of ``kind`` at the world point ``anchor`` with a random axis (universal: two perpendicular
    world axes, given in the bodies' own frames as the builder expects)."""
    axis = _unit(rng)
    if kind in ("ball", "fixed"):
        b.add_joint(kind, name, parent, child, anchor=anchor)
    elif kind == "universal":
        other = _perpendicular(rng, axis)
        b.add_joint(kind, name, parent, child, anchor=anchor, axis_a=quat_rotate_inv(q_parent, axis),
                    axis_b=quat_rotate_inv(q_child, other))
    elif kind == "distance":
        b.add_joint(kind, name, parent, child, anchor_a=0.1 * rng.normal(size=3), anchor_b=0.1 * rng.normal(size=3))
    else:
        b.add_joint(kind, name, parent, child, anchor=anchor, axis=axis)


def random_model(seed, n_bodies, kinds=TREE_KINDS, loops=0, loop_kind="ball", gravity=(0.0, 0.0, -9.81)):
    """A random tree of ``n_bodies`` boxes hanging from the world, plus ``loops`` loop-closing joints of
    ``loop_kind`` between random pairs of bodies. Velocities are random (they violate the joints)."""
    rng = np.random.default_rng(seed)
    b = ims.ModelBuilder(f"random {seed}", gravity=gravity)
    centres = [np.zeros(3)]
    quats = [np.array([1.0, 0.0, 0.0, 0.0])]
    for k in range(n_bodies):
        parent = int(rng.integers(0, k + 1))            # 0 is the world
        centre = centres[parent] + 0.6 * _unit(rng)
        centres.append(centre)
        quats.append(_quat(rng))
        b.add_body(f"b{k}", shapes=[ims.Box(size=rng.uniform(0.1, 0.5, 3))], density=rng.uniform(300, 3000),
                   position=centre, orientation=quats[-1], velocity=rng.normal(size=3),
                   angular_velocity=rng.normal(size=3))
        pname = "world" if parent == 0 else f"b{parent - 1}"
        _joint(b, rng, str(rng.choice(kinds)), f"j{k}", pname, f"b{k}", 0.5 * (centre + centres[parent]),
               quats[parent], quats[-1])
    for l in range(loops):
        i, j = sorted(int(v) for v in rng.choice(n_bodies, size=2, replace=False))
        _joint(b, rng, loop_kind, f"loop{l}", f"b{i}", f"b{j}", 0.5 * (centres[i + 1] + centres[j + 1]),
               quats[i + 1], quats[j + 1])
    return b.build()


def four_bar(tilt=0.3, seed=0):
    """A planar four-bar linkage of hinges (axes along x) whose fixed link is the world; one link is
    longer, so the loop cannot stretch into a line. Its 20 rows have rank 17 (3 redundant rows)."""
    rng = np.random.default_rng(seed)
    b = ims.ModelBuilder("four bar")
    q1, q2 = np.zeros(3), np.array([0.0, 1.0, 0.0])
    p1 = q1 + np.array([0.0, np.sin(tilt), -np.cos(tilt)])
    # p2: |p2 - p1| = 1, |p2 - q2| = 1.3, below
    d = np.linalg.norm(q2 - p1)
    a = (1.0 - 1.3 ** 2 + d * d) / (2 * d)
    e = (q2 - p1) / d
    perp = np.array([0.0, -e[2], e[1]])
    perp = perp if perp[2] < 0 else -perp
    p2 = p1 + a * e + np.sqrt(1.0 - a * a) * perp
    x = (1.0, 0.0, 0.0)
    for name, (p, q) in (("left", (q1, p1)), ("bottom", (p1, p2)), ("right", (p2, q2))):
        b.add_body(name, shapes=[ims.Box(size=(0.05, 0.05, float(np.linalg.norm(q - p))))], density=1000,
                   position=0.5 * (p + q), velocity=0.1 * rng.normal(size=3))
    # the boxes above are axis-aligned, not along their links; that changes only their inertia
    b.add_hinge("top_left", "world", "left", anchor=q1, axis=x)
    b.add_hinge("left_bottom", "left", "bottom", anchor=p1, axis=x)
    b.add_hinge("bottom_right", "bottom", "right", anchor=p2, axis=x)
    b.add_hinge("right_top", "right", "world", anchor=q2, axis=x)
    return b.build()
