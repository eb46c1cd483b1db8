"""Time integration of the reduced state (q, q̇): classical Runge–Kutta 4 and semi-implicit Euler.

Holck's Multi integrates with RK4 (Holck §2.6); the semi-implicit (symplectic) Euler step is the cheap
alternative he suggests for games. Quaternions in q are renormalized after each step (and at RK4's stages).
The step runs in one compiled call (:mod:`.fused`).
"""
from __future__ import annotations

import numpy as np

from impulsim.methods.featherstone.articulated import TreeDynamics
from impulsim.methods.featherstone.fused import euler_step, rk4_step
from impulsim.methods.featherstone.groups import model_of, tree_of, workspace_of

INTEGRATORS = ("rk4", "euler")


class Integrator:
    """Advances (q, q̇) by h with the workspace of a :class:`TreeDynamics`; buffers allocated once."""

    def __init__(self, scheme: str, dyn: TreeDynamics):
        if scheme not in INTEGRATORS:
            raise ValueError(f"unknown integrator {scheme!r} (use {', '.join(INTEGRATORS)})")
        self.scheme, self.dyn = scheme, dyn
        self.kernel = rk4_step if scheme == "rk4" else euler_step
        t = dyn.tree
        self.tree, self.ws = tree_of(t), workspace_of(dyn)       # the buffers are allocated once
        self.kq = np.zeros((4, t.nq))
        self.kv = np.zeros((4, t.nv))
        self.q_stage, self.v_stage = np.zeros(t.nq), np.zeros(t.nv)

    def step(self, q, qd, h):
        """q, q̇ ← their values after a step of h [s] (in place)."""
        mdl = model_of(self.dyn.model)          # read afresh: live parameters may change between steps
        bad = self.kernel(self.tree, mdl, self.ws, float(self.dyn.damping), float(h), q, qd, self.kq, self.kv,
                          self.q_stage, self.v_stage, False)
        self.dyn._check(bad)
