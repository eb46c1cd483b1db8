"""Time integration of the reduced state (q, q̇): semi-implicit Euler and classical Runge–Kutta 4.

Holck's Multi integrates with RK4 (digest §2.6); the semi-implicit (symplectic) Euler step is the cheap
alternative he suggests for games. Quaternions in q are renormalized after each step.
"""
from __future__ import annotations

import numpy as np

from impulsim.methods.featherstone.articulated import TreeDynamics, normalize_quaternions

INTEGRATORS = ("rk4", "euler")


class Integrator:
    """Advances (q, q̇) by h with a :class:`TreeDynamics`; buffers allocated once."""

    def __init__(self, scheme: str, dyn: TreeDynamics):
        if scheme not in INTEGRATORS:
            raise ValueError(f"unknown integrator {scheme!r} (use {', '.join(INTEGRATORS)})")
        self.scheme, self.dyn = scheme, dyn
        nq, nv = dyn.tree.nq, dyn.tree.nv
        self.kq = np.zeros((4, nq))
        self.kv = np.zeros((4, nv))
        self.q_stage, self.v_stage = np.zeros(nq), np.zeros(nv)

    def step(self, q, qd, h):
        """q, q̇ ← their values after a step of h [s] (in place)."""
        if self.scheme == "euler":
            self._euler(q, qd, h)
        else:
            self._rk4(q, qd, h)
        t = self.dyn.tree
        normalize_quaternions(t.kind, t.q_start, q)

    def _euler(self, q, qd, h):
        """q̇ ← q̇ + h q̈(q, q̇);  q ← q + h dq/dt(q, q̇_new)."""
        dyn = self.dyn
        dyn.accelerations(q, qd, self.kv[0])
        qd += h * self.kv[0]
        dyn.rates(q, qd, self.kq[0])
        q += h * self.kq[0]

    def _rk4(self, q, qd, h):
        """y ← y + h/6 (k1 + 2 k2 + 2 k3 + k4) for y = (q, q̇) (Holck's Multi, Burden & Faires)."""
        dyn, kq, kv = self.dyn, self.kq, self.kv
        qs, vs = self.q_stage, self.v_stage
        weights = (0.5, 0.5, 1.0)
        qs[...] = q
        vs[...] = qd
        for s in range(4):
            if s > 0:
                np.multiply(kq[s - 1], h * weights[s - 1], out=qs)
                qs += q
                np.multiply(kv[s - 1], h * weights[s - 1], out=vs)
                vs += qd
                t = dyn.tree
                normalize_quaternions(t.kind, t.q_start, qs)
            dyn.rates(qs, vs, kq[s])
            dyn.accelerations(qs, vs, kv[s])
        q += (h / 6.0) * (kq[0] + 2.0 * kq[1] + 2.0 * kq[2] + kq[3])
        qd += (h / 6.0) * (kv[0] + 2.0 * kv[1] + 2.0 * kv[2] + kv[3])
