"""The scenes of Bender's LGS measurements (thesis Sec. 3.3.3), built with the public builder API.

* Chain (3.3.3.1, Table 3.1): links 1 m × 0.1 m × 0.1 m of 1 kg hang straight down on ball joints from a
  fixed point; every link's centre starts at 2 m/s in its own (seeded) direction. h = 10 ms.
* Tree (3.3.3.2, Tables 3.2–3.4): a binary tree of 2^L − 1 boxes 4 cm × 4 cm of length
  1.5^(max depth − depth) · 0.1 m, density 600 kg/m³, on ball joints; the root hangs from a fixed point and
  gets 10 N m for one step. h = 1/30 s. The thesis gives no initial pose: children lean ``spread_deg``
  from their parent (5° here, 15° in Wagner's measurements and the example file), alternately in the x-z and
  y-z planes, and the torque acts about x.
* Three loops (3.3.3.3, Table 3.6): three four-bar linkages of hinges hanging one below the other, each of
  four bodies of which one is longer than the other three (so that no loop can stretch into a line, where
  its system would be singular). The top loop's fixed link is the world; each lower loop hangs from the
  bottom bar of the one above. 12 hinges = 60 scalar constraints on 9 moving bodies. The thesis gives no
  dimensions; ours are listed in ``LOOP_*``.
"""
from __future__ import annotations

import math

import numpy as np
from scipy.integrate import solve_ivp

import impulsim as ims

CHAIN_LINK = (0.1, 0.1, 1.0)     # [m]
CHAIN_MASS = 1.0                 # [kg]
CHAIN_SPEED = 2.0                # [m/s]

TREE_SECTION = 0.04              # [m]
TREE_LEAF_LENGTH = 0.1           # [m]
TREE_GROWTH = 1.5
TREE_DENSITY = 600.0             # [kg/m³]
TREE_SPREAD_DEG = 5.0
TREE_TORQUE = (10.0, 0.0, 0.0)   # [N m] on the root for the first step

LOOP_LINK = 0.5                  # length of the three equal links of each loop [m]
LOOP_LONG = 0.65                 # length of the longer link [m]
LOOP_SECTION = 0.04              # [m]
LOOP_DENSITY = 1000.0            # [kg/m³]
LOOP_TILT_DEG = -12.0            # the top loop's left link starts this far from the vertical (gentle swing)


def chain(n_links: int, seed: int = 2007, gap: float = 0.0, speed: float = CHAIN_SPEED):
    """(model, state) of Bender's ball-joint chain of ``n_links`` links hanging straight down from the origin.

    Every link's centre starts at ``speed`` [m/s] in its own direction, drawn from ``seed``; ``gap`` [m]
    moves every link down so that each joint starts broken by that distance."""
    rng = np.random.default_rng(seed)
    b = ims.ModelBuilder(f"chain {n_links}")
    half = 0.5 * CHAIN_LINK[2]
    for i in range(n_links):
        d = rng.normal(size=3)
        b.add_body(f"link{i}", shapes=[ims.Box(size=CHAIN_LINK)], mass=CHAIN_MASS,
                   position=(0, 0, -(i + 0.5) * CHAIN_LINK[2] - (i + 1) * gap),
                   velocity=speed * d / np.linalg.norm(d))
        b.add_ball(f"ball{i}", "world" if i == 0 else f"link{i - 1}", f"link{i}",
                   anchor_a=(0, 0, 0 if i == 0 else -half), anchor_b=(0, 0, half))
    return b.build()


def quat_z_to(d):
    """Quaternion (w, x, y, z) of the shortest rotation taking the z axis to the unit vector d."""
    axis = np.cross((0.0, 0.0, 1.0), d)
    s = np.linalg.norm(axis)
    if s < 1e-12:
        return np.array([1.0, 0, 0, 0]) if d[2] > 0 else np.array([0.0, 1, 0, 0])
    angle = math.atan2(s, d[2])
    return np.concatenate([[math.cos(angle / 2)], math.sin(angle / 2) * axis / s])


def tree_bodies(levels: int, spread_deg: float = TREE_SPREAD_DEG, lengths_of: int | None = None):
    """(name, parent, depth, top point [m], unit direction, length [m]) of every tree body, root first.

    Each child leans ``spread_deg`` from its parent's direction, to one side and the other, in a plane that
    alternates between x-z (odd depths) and y-z (even depths). Lengths are the thesis's
    1.5^(maxDepth − depth) · 0.1 m with maxDepth = levels − 1, or, with ``lengths_of``, those of the tree
    of that many levels (the top ``levels`` levels of the larger tree)."""
    max_depth = (lengths_of or levels) - 1
    spread = math.radians(spread_deg)
    out = [("d0_0", "world", 0, np.zeros(3), np.array([0.0, 0.0, -1.0]),
            TREE_GROWTH ** max_depth * TREE_LEAF_LENGTH)]
    for depth in range(1, levels):
        side = np.array([1.0, 0, 0]) if depth % 2 else np.array([0.0, 1, 0])
        parents = [x for x in out if x[2] == depth - 1]
        for i, (pname, _, _, top, direction, length) in enumerate(parents):
            for sign in (-1.0, 1.0):
                d = math.cos(spread) * direction + sign * math.sin(spread) * side
                d /= np.linalg.norm(d)
                out.append((f"d{depth}_{2 * i + (sign > 0)}", pname, depth, top + length * direction, d,
                            TREE_GROWTH ** (max_depth - depth) * TREE_LEAF_LENGTH))
    return out


def tree(levels: int, spread_deg: float = TREE_SPREAD_DEG, name: str = "tree", lengths_of: int | None = None):
    """(model, state) of Bender's binary tree with ``levels`` levels (2^levels − 1 bodies), no torque yet;
    ``lengths_of``: see :func:`tree_bodies`."""
    b = ims.ModelBuilder(f"{name} {2 ** levels - 1}")
    for name, parent, _, top, d, length in tree_bodies(levels, spread_deg, lengths_of):
        b.add_body(name, shapes=[ims.Box(size=(TREE_SECTION, TREE_SECTION, length))], density=TREE_DENSITY,
                   position=top + 0.5 * length * d, orientation=quat_z_to(d))
        b.add_ball(f"j_{name}", parent, name, anchor=top)
    return b.build()


def tree_size_levels(n_bodies: int) -> int:
    """Levels of the binary tree with ``n_bodies`` = 2^levels − 1 bodies."""
    levels = int(round(math.log2(n_bodies + 1)))
    if 2 ** levels - 1 != n_bodies:
        raise ValueError(f"a binary tree has 2^L - 1 bodies, not {n_bodies}")
    return levels


def _four_bar_points(q1, q2, down):
    """Lower corners (p1, p2) of a loop hanging from the bar q1–q2: left link along ``down``, of LOOP_LINK,
    bottom bar of LOOP_LINK, right (longer) link of LOOP_LONG back up to q2; all in the y-z plane."""
    along = (q2 - q1) / np.linalg.norm(q2 - q1)
    p1 = q1 + LOOP_LINK * down
    # p2 on the circle of radius LOOP_LINK around p1 and of radius LOOP_LONG around q2, the lower solution
    d = np.linalg.norm(q2 - p1)
    a = (LOOP_LINK ** 2 - LOOP_LONG ** 2 + d ** 2) / (2 * d)
    e = (q2 - p1) / d
    perp = np.array([0.0, -e[2], e[1]])
    if np.dot(perp, down) < 0:
        perp = -perp
    p2 = p1 + a * e + math.sqrt(LOOP_LINK ** 2 - a ** 2) * perp
    return p1, p2, along


def _bar(b, name, p, q):
    """A box bar from point p to point q (y-z plane)."""
    d = (q - p) / np.linalg.norm(q - p)
    b.add_body(name, shapes=[ims.Box(size=(LOOP_SECTION, LOOP_SECTION, float(np.linalg.norm(q - p))))],
               density=LOOP_DENSITY, position=0.5 * (p + q), orientation=quat_z_to(d))


def three_loops():
    """(model, state) of three four-bar hinge loops hanging one below the other (hinge axes along x)."""
    b = ims.ModelBuilder("three loops")
    tilt = math.radians(LOOP_TILT_DEG)
    q1, q2 = np.zeros(3), np.array([0.0, LOOP_LINK, 0.0])
    down = np.array([0.0, math.sin(tilt), -math.cos(tilt)])
    top = "world"
    x = (1.0, 0.0, 0.0)
    for k in range(3):
        p1, p2, _ = _four_bar_points(q1, q2, down)
        left, bottom, right = f"left{k}", f"bottom{k}", f"right{k}"
        _bar(b, left, q1, p1)
        _bar(b, bottom, p1, p2)
        _bar(b, right, p2, q2)
        b.add_hinge(f"h{k}_top_left", top, left, anchor=q1, axis=x)
        b.add_hinge(f"h{k}_left_bottom", left, bottom, anchor=p1, axis=x)
        b.add_hinge(f"h{k}_bottom_right", bottom, right, anchor=p2, axis=x)
        b.add_hinge(f"h{k}_right_top", right, top, anchor=q2, axis=x)
        bar = (p2 - p1) / np.linalg.norm(p2 - p1)
        down = np.array([0.0, bar[2], -bar[1]])
        if down[2] > 0:
            down = -down
        q1, q2, top = p1, p2, bottom
    return b.build()


def double_pendulum(theta1=math.pi / 2, theta2=math.pi / 2, length=1.0, side=0.05, density=1000.0):
    """Two uniform rods on parallel hinges about x; angles from the downward vertical [rad]."""
    b = ims.ModelBuilder("double pendulum")
    e1 = np.array([0.0, math.sin(theta1), -math.cos(theta1)])
    e2 = np.array([0.0, math.sin(theta2), -math.cos(theta2)])
    for name, centre, th in (("upper", 0.5 * length * e1, theta1), ("lower", length * e1 + 0.5 * length * e2, theta2)):
        b.add_body(name, shapes=[ims.Box(size=(side, side, length))], density=density, position=centre,
                   orientation=(math.cos(th / 2), math.sin(th / 2), 0.0, 0.0))
    b.add_hinge("shoulder", "world", "upper", anchor=(0, 0, 0), axis=(1, 0, 0))
    b.add_hinge("elbow", "upper", "lower", anchor=length * e1, axis=(1, 0, 0))
    return b.build()


def double_pendulum_reference(model, t_end, theta0=(math.pi / 2, math.pi / 2), g=9.81):
    """Absolute angles (θ1, θ2) [rad] of :func:`double_pendulum` (released at rest) at t_end [s] from its
    reduced-coordinate ODE, integrated by SciPy's DOP853 at tolerances 1e-12.

    M(θ) θ'' = f(θ, θ'): M11 = I1 + m1 d1² + m2 L1², M12 = m2 L1 d2 cos(θ1−θ2), M22 = I2 + m2 d2²,
    f1 = −m2 L1 d2 sin(θ1−θ2) θ2'² − (m1 d1 + m2 L1) g sin θ1, f2 = m2 L1 d2 sin(θ1−θ2) θ1'² − m2 d2 g sin θ2.
    """
    k1, k2 = model.body("upper"), model.body("lower")
    m1, m2 = model.body_mass[k1], model.body_mass[k2]
    i1, i2 = model.body_inertia[k1, 0], model.body_inertia[k2, 0]
    L1, d1, d2 = 1.0, 0.5, 0.5

    def rhs(_, y):
        t1, t2, w1, w2 = y
        c, s = math.cos(t1 - t2), math.sin(t1 - t2)
        M = np.array([[i1 + m1 * d1 ** 2 + m2 * L1 ** 2, m2 * L1 * d2 * c], [m2 * L1 * d2 * c, i2 + m2 * d2 ** 2]])
        f = np.array([-m2 * L1 * d2 * s * w2 ** 2 - (m1 * d1 + m2 * L1) * g * math.sin(t1),
                      m2 * L1 * d2 * s * w1 ** 2 - m2 * d2 * g * math.sin(t2)])
        return [w1, w2, *np.linalg.solve(M, f)]

    sol = solve_ivp(rhs, (0.0, t_end), [*theta0, 0.0, 0.0], method="DOP853", rtol=1e-12, atol=1e-12)
    return sol.y[0, -1], sol.y[1, -1]
