"""Wagner's extra constraints (PointToFunction, PointToPath, VelocityToFunction, EqualVelocity) as bilateral
rows of Moreau's step, solved in the same prox iteration as the joints and contacts.

The constraint objects are those of :mod:`impulsim.methods.extra_constraints`, passed as
``MoreauMethod(model, constraints=[...])``. Each gives three rows (world x, y, z) of one body point P:

* velocity constraints hold the end velocity: VelocityToFunction Ṗ_E = f(t_E), EqualVelocity
  Ṗ_b,E − Ṗ_a,E = 0 (law γ^E = 0, like the model's velocity joints);
* point constraints (PointToFunction, PointToPath) are velocity rows too, with a position term:

      Ṗ_E = ḟ(t_E) + 2β (f(t_E) − h/2 ḟ(t_E) − P_M) / h,

  P_M the point at the step's midpoint q_M. Since the step ends at P_E = P_M + h/2 Ṗ_E (to first order in
  the rotation), β = 1 ends the step on f(t_E); the velocity projection that follows the step
  (``project=True``) then sets Ṗ_E = ḟ(t_E) with the joints, so a start error is gone after one step.
  Without the projection β = 1/2: an error x = P_M − (f(t_E) − h/2 ḟ(t_E)) is halved in position and
  turned into a velocity error −x/h, which the next step removes (deadbeat in two steps; β = 1 alone
  would reflect a velocity error from step to step for ever). A point on its target with the target's
  velocity stays on it up to the trapezoid rule's error of f, h³ |f‴| / 12 per step. What stays is the
  rotation's nonlinearity, the chord h² |ω|² |r| / 8 of a lever r turning at ω over the half step, which
  the next step corrects again, so it does not add up.

At the end of the step (``project=True``) the rows are written again at the end state for the velocity
projection, with the targets ḟ(t_E) (points), f(t_E) (VelocityToFunction) and 0 (EqualVelocity).

PointToPath advances its curve parameter at the start of each step (``begin_step`` on the start state); the
objects are attributes of the method, so a failed step puts the parameter back with the rest of its memory.
"""
from __future__ import annotations

import numpy as np

from impulsim.kernel import njit
from impulsim.math.vec import v3, q4, qrot
from impulsim.methods.extra_constraints import POINT_FUNCTION, VELOCITY_FUNCTION, validated_extras
from impulsim.methods.moreau.groups import blocks_of, extras_of, rows_of
from impulsim.methods.moreau.rows import BILATERAL, NO_LAW, put_body_row, row_velocity


class MoreauExtras:
    """The extra constraints of one MoreauMethod: bodies, anchors and the targets of the current step."""

    def __init__(self, model, constraints, gain: float = 1.0):
        extras = validated_extras(model, constraints)
        n = len(extras)
        self.extras = extras
        self.names = [c.name for c in extras]
        self.kind = np.zeros(n, np.int64)
        self.body_a = np.zeros(n, np.int64)
        self.body_b = np.zeros(n, np.int64)
        self.anchor_a = np.zeros((n, 3))
        self.anchor_b = np.zeros((n, 3))
        self.with_a = np.zeros(n, np.int64)
        """1 for EqualVelocity (a second body point), 0 for a world target f(t)."""
        for i, c in enumerate(extras):
            block = c.block(model)
            self.kind[i] = int(block["kind"])
            self.body_a[i], self.body_b[i] = block["a"], block["b"]
            self.anchor_b[i] = block["anchor_b"]
            if self.kind[i] not in (POINT_FUNCTION, VELOCITY_FUNCTION):
                self.anchor_a[i] = block["anchor_a"]
                self.with_a[i] = 1
        self.n_rows = 3 * n
        self.target = np.zeros((n, 3))
        """Velocity [m/s] each constraint's point (relative to A's point) must have at the step's end."""
        self.position = np.zeros(n, np.int64)
        """1 for a point constraint (its target has the position term), 0 for a velocity constraint."""
        self.position[:] = self.kind == POINT_FUNCTION
        self.gain = float(gain)
        """β of the position term: 1 when the velocity projection follows the step, else 1/2 (module)."""
        self._no_position = np.zeros(n, np.int64)
        self.t_end = 0.0
        """End time [s] of the current step (the velocity projection's targets are taken then)."""
        self.fval = np.zeros((n, 3))
        self.frate = np.zeros((n, 3))

    def begin_step(self, model, s, h: float) -> None:
        """Before every step, on the start state: path constraints find their curve point."""
        for c in self.extras:
            c.begin_step(model, s, h)
        self.t_end = s.t + h

    def fill(self, mid, h: float, u_b, row0: int, blk0: int, buf) -> int:
        """Write the rows at the midpoint state ``mid`` (time t_M) from row0/blk0; returns the rows (= blocks)."""
        t_end = mid.t + 0.5 * h
        for i, c in enumerate(self.extras):
            if self.kind[i] in (POINT_FUNCTION, VELOCITY_FUNCTION):
                f = c.function(t_end)
                self.fval[i] = np.asarray(f[0], float).reshape(3)
                self.frate[i] = np.asarray(f[1], float).reshape(3)
        extra_rows(extras_of(self), self.position, h, self.gain, mid.body_pos, mid.body_quat, u_b, row0, blk0,
                   self.target, rows_of(buf), blocks_of(buf))
        return self.n_rows

    def fill_end(self, s, u, row0: int, blk0: int, buf) -> int:
        """Rows at the end state s (time ``t_end``) for the velocity projection: every point's velocity at its
        target's, ḟ(t) for point constraints, f(t) for VelocityToFunction, Ṗ_a for EqualVelocity."""
        for i, c in enumerate(self.extras):
            if self.kind[i] in (POINT_FUNCTION, VELOCITY_FUNCTION):
                f = c.function(self.t_end)
                self.fval[i] = np.asarray(f[1] if self.position[i] else f[0], float).reshape(3)
        extra_rows(extras_of(self), self._no_position, 1.0, 0.0, s.body_pos, s.body_quat, u, row0, blk0,
                   self.target, rows_of(buf), blocks_of(buf))
        return self.n_rows


@njit(cache=True)
def extra_rows(extras, position, h, gain, body_pos, body_quat, u_b, row0, blk0,
               # outputs
               target, rows, blocks):
    """Three bilateral rows per extra constraint (world x, y, z), each its own block with law γ^E = 0:
    γ = w_b · u_b (− w_a · u_a) + χ with χ = −target, the target being the end velocity of the point (see
    the module). Rows without a second body carry w_a = 0 on body b itself. ``target`` receives the
    targets [m/s]. Returns the rows written. The groups are those of :mod:`.groups`."""
    kind, with_a, body_a, body_b, anchor_a, anchor_b, fval, frate = extras
    row_a, row_b, row_wa, row_wb, row_chi, row_gamma_b = rows
    blk_start, blk_kind, blk_law, blk_e, blk_e_t = blocks[:5]
    i = row0
    blk = blk0
    for c in range(kind.shape[0]):
        b = body_b[c]
        qb = q4(body_quat[b])
        rb = qrot(qb, v3(anchor_b[c]))
        a = body_a[c] if with_a[c] else b
        qa = q4(body_quat[a])
        ra = qrot(qa, v3(anchor_a[c]))
        for k in range(3):
            if position[c]:
                p_mid = body_pos[b, k] + rb[k]
                target[c, k] = frate[c, k] + 2.0 * gain * (fval[c, k] - 0.5 * h * frate[c, k] - p_mid) / h
            elif with_a[c]:
                target[c, k] = 0.0
            else:
                target[c, k] = fval[c, k]
        for k in range(3):
            d = (1.0 if k == 0 else 0.0, 1.0 if k == 1 else 0.0, 1.0 if k == 2 else 0.0)
            row_a[i], row_b[i] = a, b
            put_body_row(i, d, rb, qb, 1.0, row_wb)
            if with_a[c]:
                put_body_row(i, d, ra, qa, -1.0, row_wa)
            else:
                for j in range(6):
                    row_wa[i, j] = 0.0
            row_chi[i] = -target[c, k]
            row_gamma_b[i] = row_velocity(i, row_a, row_b, row_wa, row_wb, row_chi, u_b)
            blk_start[blk] = i
            blk_kind[blk], blk_law[blk], blk_e[blk], blk_e_t[blk] = BILATERAL, NO_LAW, 0.0, 0.0
            i += 1
            blk += 1
            blk_start[blk] = i
    return i - row0
