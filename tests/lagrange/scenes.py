"""Small scenes for the Lagrange tests (public builder API only)."""
import numpy as np

import impulsim as ims
from tests.verification.test_joints import JOINTS as VERIFICATION_JOINTS, ANCHOR, X, Y, Z  # noqa: F401

# the joint table of the physical-law tests, plus a velocity joint
JOINTS = {**VERIFICATION_JOINTS,
          "velocity": dict(anchor=ANCHOR, velocity=(0.1, -0.2, 0.3), angular_velocity=(0.5, 0.0, -0.4))}


def two_bodies(kind, seed=1, gravity=(0.0, 0.0, 0.0)):
    """Two free boxes joined by one joint of ``kind``, with seeded random velocities."""
    rng = np.random.default_rng(seed)
    b = ims.ModelBuilder(kind, gravity=gravity)
    b.add_body("A", shapes=[ims.Box(size=(0.3, 0.2, 0.1))], density=500, velocity=rng.normal(size=3),
               angular_velocity=2 * rng.normal(size=3))
    b.add_body("B", shapes=[ims.Box(size=(0.2, 0.3, 0.15))], density=500, position=(0.5, 0, 0),
               velocity=rng.normal(size=3), angular_velocity=2 * rng.normal(size=3))
    b.add_joint(kind, "j", "A", "B", **JOINTS[kind])
    return b.build()


def free_box(mass=2.0, gravity=(0.0, 0.0, 0.0), position=(0.0, 0.0, 0.0), velocity=(0.0, 0.0, 0.0)):
    """One box (0.4 × 0.3 × 0.2 m) of the given mass."""
    b = ims.ModelBuilder("box", gravity=gravity)
    b.add_body("box", shapes=[ims.Box(size=(0.4, 0.3, 0.2))], mass=mass, position=position, velocity=velocity)
    return b.build()


def pinned_cylinder(gap=0.2, length=1.0, radius=0.05, offset=0.15):
    """A horizontal cylinder (axis x) whose end caps are pinned by ball joints to two world points that are
    ``gap`` [m] further apart than the cylinder is long (Wagner Fig. 6.10); it starts ``offset`` [m] off
    the middle, towards the first pin."""
    b = ims.ModelBuilder("pinned cylinder")
    half = 0.5 * length
    pin = 0.5 * (length + gap)
    b.add_body("cyl", shapes=[ims.Cylinder(radius=radius, length=length)], density=1000,
               position=(-offset, 0, 0), orientation=(np.cos(np.pi / 4), 0, np.sin(np.pi / 4), 0))
    # the cylinder's own axis is z; the orientation turns it onto x, so its +z cap points to +x
    b.add_ball("left", "world", "cyl", anchor_a=(-pin, 0, 0), anchor_b=(0, 0, -half))
    b.add_ball("right", "world", "cyl", anchor_a=(pin, 0, 0), anchor_b=(0, 0, half))
    return b.build()


def four_bar(crank_speed=2.0):
    """A planar four-bar linkage in the x-z plane: ground pivots at (0,0,0) and (1,0,0), crank 0.3 m,
    coupler 1 m, rocker 0.6 m, all on hinges about y (4 hinges = 20 rows for 3 bodies = 18 freedoms:
    the loop is closed without a cut, so 3 rows are redundant)."""
    b = ims.ModelBuilder("four-bar")
    A, D = np.array([0.0, 0, 0]), np.array([1.0, 0, 0])
    B = A + 0.3 * np.array([0.0, 0, 1])
    # C: |C − B| = 1, |C − D| = 0.6, in the x-z plane, above the ground
    d = np.linalg.norm(D - B)
    a = (1.0 ** 2 - 0.6 ** 2 + d ** 2) / (2 * d)
    h = np.sqrt(1.0 - a * a)
    e = (D - B) / d
    n = np.array([-e[2], 0.0, e[0]])
    C = B + a * e + h * n
    for name, p, q in (("crank", A, B), ("coupler", B, C), ("rocker", D, C)):
        axis = (q - p) / np.linalg.norm(q - p)
        rot = np.cross([0, 0, 1.0], axis)
        s = np.linalg.norm(rot)
        ang = np.arctan2(s, axis[2])
        quat = np.concatenate([[np.cos(ang / 2)], np.sin(ang / 2) * (rot / s if s > 1e-12 else rot)])
        b.add_body(name, shapes=[ims.Box(size=(0.04, 0.04, np.linalg.norm(q - p)))], density=800,
                   position=0.5 * (p + q), orientation=quat)
    b.add_hinge("A", "world", "crank", anchor=A, axis=Y)
    b.add_hinge("B", "crank", "coupler", anchor=B, axis=Y)
    b.add_hinge("C", "coupler", "rocker", anchor=C, axis=Y)
    b.add_hinge("D", "world", "rocker", anchor=D, axis=Y)
    model, state = b.build()
    return model, state, (A, B, C, D)


Y = (0.0, 1.0, 0.0)
