"""Bender's binary tree of ball joints (thesis Sec. 3.3.3.2, Tables 3.2–3.7), built with the builder API.

2^levels − 1 boxes of 4 cm × 4 cm cross-section and length 1.5^(max_depth − depth) · 0.1 m, density
600 kg/m³; the root hangs from a fixed point by a ball joint and each body's two children hang from its
lower end. The thesis gives no initial pose and no torque axis; as in ``examples/generate_ball_tree.py``
each child leans 15° from its parent, to one side and the other, in a plane alternating between x-z and
y-z with depth, and the 10 N m torque on the root for the first step acts about the horizontal x axis.
"""
from __future__ import annotations

import math

import numpy as np

import impulsim as ims

SECTION = 0.04
BASE_LENGTH = 0.1
GROWTH = 1.5
DENSITY = 600.0
SPREAD_DEG = 15.0
TORQUE = (10.0, 0.0, 0.0)
H = 1.0 / 30.0


def _quat_z_to(d):
    """Quaternion of the shortest rotation taking the z axis onto the unit vector d."""
    axis = np.cross([0.0, 0.0, 1.0], d)
    s = np.linalg.norm(axis)
    if s < 1e-12:
        return np.array([1.0, 0, 0, 0]) if d[2] > 0 else np.array([0.0, 1, 0, 0])
    angle = math.atan2(s, d[2])
    return np.concatenate([[math.cos(angle / 2)], math.sin(angle / 2) * axis / s])


def tree_layout(levels: int):
    """(name, parent, top point [m], unit direction, length [m]) of every body, root first."""
    max_depth = levels - 1
    spread = math.radians(SPREAD_DEG)
    out = [("d0_0", "world", np.zeros(3), np.array([0.0, 0.0, -1.0]), GROWTH ** max_depth * BASE_LENGTH, 0)]
    for depth in range(1, levels):
        side = np.array([1.0, 0, 0]) if depth % 2 else np.array([0.0, 1, 0])
        parents = [b for b in out if b[5] == depth - 1]
        for i, (pname, _, top, direction, length, _) in enumerate(parents):
            for sign in (-1.0, 1.0):
                d = math.cos(spread) * direction + sign * math.sin(spread) * side
                d /= np.linalg.norm(d)
                out.append((f"d{depth}_{2 * i + (sign > 0)}", pname, top + length * direction, d,
                            GROWTH ** (max_depth - depth) * BASE_LENGTH, depth))
    return [b[:5] for b in out]


def ball_tree(levels: int = 7):
    """(model, state) of the tree with ``levels`` levels (31, 63, 127, 255 bodies for 5 … 8)."""
    b = ims.ModelBuilder(f"ball tree {2 ** levels - 1}")
    for name, parent, top, d, length in tree_layout(levels):
        b.add_body(name, shapes=[ims.Box(size=(SECTION, SECTION, length))], density=DENSITY,
                   position=top + 0.5 * length * d, orientation=_quat_z_to(d))
        b.add_ball(f"j_{name}", parent, name, anchor=top)
    return b.build()
