"""Wagner's measurements on Bender's binary tree of ball joints (thesis Sec. 3.3.3.2, Tables 3.2–3.7).

The tree is :func:`impulsim.experiments.bender.tree` (2^levels − 1 boxes 4 cm × 4 cm of length
1.5^(max_depth − depth) · 0.1 m, density 600 kg/m³, the root hung from a fixed point by a ball joint) with
each child leaning 15° from its parent, as in ``examples/ball_tree.yaml``; the 10 N m torque on the root for
the first step acts about the horizontal x axis.
"""
from __future__ import annotations

from impulsim.experiments import bender

SPREAD_DEG = 15.0
TORQUE = (10.0, 0.0, 0.0)   # [N m] on the root for the first step
H = 1.0 / 30.0              # [s]


def tree_layout(levels: int):
    """(name, parent, top point [m], unit direction, length [m]) of every body, root first."""
    return [(name, parent, top, d, length)
            for name, parent, _, top, d, length in bender.tree_bodies(levels, SPREAD_DEG)]


def ball_tree(levels: int = 7):
    """(model, state) of the tree with ``levels`` levels (31, 63, 127, 255 bodies for 5 … 8)."""
    return bender.tree(levels, SPREAD_DEG, name="ball tree")
