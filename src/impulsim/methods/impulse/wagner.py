"""Wagner's extra constraints (PointToFunction, PointToPath, VelocityToFunction, EqualVelocity) kept by
impulses, as time-dependent joints of Bender's method.

The constraint objects are those the Lagrange method takes too (:mod:`impulsim.methods.extra_constraints`),
passed as ``ImpulseMethod(model, constraints=[...])``. In the impulse method they act like joints whose
target moves with time:

* PointToFunction and PointToPath are a ball joint between a body point P and a world point f(t). The
  joint correction predicts P at the end of the step, t1 = t0 + h, from the current velocities (the free
  step), and applies at t0 the impulse p = −K⁻¹ (P(t1) − f(t1)) / h at the point (K: the point's
  inverse mass matrix, 1/m E − [r]× I⁻¹ [r]×), repeated until |P(t1) − f(t1)| ≤ eps_d. The velocity
  correction at t1 brings Ṗ to ḟ(t1) within eps_v.
* VelocityToFunction (Ṗ = f(t)) and EqualVelocity (Ṗ_a = Ṗ_b) are velocity joints: only the velocity
  correction at t1 acts on them, with the impulse −(K_a + K_b)⁻¹ (Ṗ_b − Ṗ_a − target).

Both corrections alternate with the model's own joints (whatever their solver; with contacts or limits,
the whole correction of joints, contacts and limits) until the joints and the extra constraints are within
tolerance together; the model's joints always take the last pass, so a
constraint the joints cannot follow leaves its own residual instead of breaking the joints. The rounds
stop when the extra constraints' error no longer shrinks by ``PROGRESS`` per round (conflicting
demands); the step then reports the larger residual and converged False.

Cost: each round of the alternation is a whole joint correction of the model plus one Python pass over
the extra constraints (about 30 µs per constraint and sweep), and the compiled run loop is not used: a
model with extra constraints runs as calls of ``step``.
"""
from __future__ import annotations

import numpy as np

from impulsim.dynamics.integrate import predict_body, rotation_scheme
from impulsim.math import quat_rotate
from impulsim.methods.base import StepInfo
from impulsim.methods.extra_constraints import POINT_FUNCTION, VELOCITY_FUNCTION, validated_extras

PROGRESS = 0.95
"""The alternation of joints and extra constraints goes on while each round leaves at most this fraction
of the extra constraints' error (compatible constraints converge linearly, conflicting ones stall)."""

POSITION, VELOCITY = 0, 1


class WagnerConstraints:
    """The extra constraints of one ImpulseMethod: their bodies, anchors, targets and impulses."""

    def __init__(self, model, constraints):
        extras = validated_extras(model, constraints)
        n = len(extras)
        self.extras = extras
        self.names = [c.name for c in extras]
        self.level = np.zeros(n, np.int64)
        """POSITION (a point at f(t)) or VELOCITY (a velocity row) per constraint."""
        self.kind = np.zeros(n, np.int64)
        self.body_a = np.zeros(n, np.int64)
        self.body_b = np.zeros(n, np.int64)
        self.anchor_a = np.zeros((n, 3))
        self.anchor_b = np.zeros((n, 3))
        for i, c in enumerate(extras):
            block = c.block(model)
            kind = int(block["kind"])
            self.kind[i] = kind
            self.level[i] = POSITION if kind == POINT_FUNCTION else VELOCITY
            self.body_a[i], self.body_b[i] = block["a"], block["b"]
            if kind in (POINT_FUNCTION, VELOCITY_FUNCTION):
                self.body_a[i] = -1                      # the other end is the world point or velocity f(t)
            else:
                self.anchor_a[i] = block["anchor_a"]
            self.anchor_b[i] = block["anchor_b"]
        self.positions = np.nonzero(self.level == POSITION)[0]
        self.target = np.zeros((n, 3))
        """Target of the current correction: f(t1) (position) or the velocity the row asks for at t1."""
        self.step_tol = np.zeros(n)
        self.impulse = np.zeros((n, 3))
        """World impulse [N s] each constraint applied to its body B during the last step (joint and
        velocity correction; on A it is the opposite)."""
        n_bodies = model.n_bodies
        self.pred_pos = np.zeros((n_bodies, 3))
        self.pred_quat = np.zeros((n_bodies, 4))
        self.t_end = 0.0
        """End time [s] of the (sub-)step being corrected: the time the targets are taken at."""

    # the step ------------------------------------------------------------------------------------------
    def begin_step(self, model, s, h: float) -> None:
        """Before every step: path constraints find their curve point; the impulse sums start at zero."""
        for c in self.extras:
            c.begin_step(model, s, h)
        self.impulse[:] = 0.0

    def correct_positions(self, method, s, h: float, info: StepInfo, joints=None) -> None:
        """Joint correction of the model's joints and the point constraints together (see the module).
        ``joints(s, h, info)`` is the correction of everything else (default: the model's joints; with
        contacts, joints, contacts and limits together)."""
        joints = method._correct_joint_positions if joints is None else joints
        if self.positions.size == 0:
            joints(s, h, info)
            return
        for i in self.positions:
            self.target[i] = np.asarray(self.extras[i].function(self.t_end)[0], float).reshape(3)
        part = StepInfo()
        joints(s, h, part)
        iters, clamped = part.iters_pos, part.clamped
        err = self._position_excess(method, s, h, first=True)
        for _ in range(method.max_iter_pos):
            if err <= 0.0:
                break
            iters += self._position_sweeps(method, s, h)
            part = StepInfo()
            joints(s, h, part)
            iters, clamped = iters + part.iters_pos, clamped + part.clamped
            new = self._position_excess(method, s, h)
            if new > PROGRESS * err:
                err = new
                break
            err = new
        own = self._position_residual(method, s, h)
        info.iters_pos += iters
        info.clamped += clamped + int(np.count_nonzero(self.step_tol[self.positions] > method.eps_d))
        info.residual_pos = max(info.residual_pos, part.residual_pos, own)
        info.converged_pos = info.converged_pos and part.converged_pos and own <= method.eps_d   # clamped: False

    def correct_velocities(self, method, s, info: StepInfo, joints=None) -> None:
        """Velocity correction at t1 of the model's joints (``joints(s, info)``, as for positions) and the
        extra constraints together."""
        joints = method._correct_joint_velocities if joints is None else joints
        for i, c in enumerate(self.extras):
            kind = self.kind[i]
            if kind == POINT_FUNCTION:
                self.target[i] = np.asarray(c.function(self.t_end)[1], float).reshape(3)
            elif kind == VELOCITY_FUNCTION:
                self.target[i] = np.asarray(c.function(self.t_end)[0], float).reshape(3)
            else:
                self.target[i] = 0.0
        iters = 0
        last = np.inf
        part = StepInfo()
        for _ in range(method.max_iter_vel):
            if self._velocity_error(method, s) > method.eps_v:
                iters += self._velocity_sweeps(method, s)
            part = StepInfo()
            joints(s, part)
            iters += part.iters_vel
            err = self._velocity_error(method, s)
            if err <= method.eps_v or err > PROGRESS * last:
                break
            last = err
        info.iters_vel += iters
        info.residual_vel = max(info.residual_vel, part.residual_vel, err)
        info.converged_vel = info.converged_vel and part.converged_vel and err <= method.eps_v

    # position level ------------------------------------------------------------------------------------
    def _predicted_error(self, method, s, h, i) -> np.ndarray:
        """P(t1) − f(t1) of point constraint i, P predicted by the free step from the current velocities."""
        m = method.model
        b = self.body_b[i]
        predict_body(b, s.body_pos, s.body_quat, s.body_vel, s.body_omega, method.acc, method.tau, m.body_inertia,
                     m.body_inv_inertia, m.body_inv_mass, m.body_static, h, rotation_scheme(method.integrator),
                     self.pred_pos, self.pred_quat)
        return self.pred_pos[b] + quat_rotate(self.pred_quat[b], self.anchor_b[i]) - self.target[i]

    def _position_excess(self, method, s, h, first=False) -> float:
        """Largest amount by which a point constraint's predicted error exceeds its tolerance this step
        (≤ 0: all within). On the first call of a step the tolerances are set: eps_d, or relaxed so that a
        point far off its target is brought only max_correction_speed·h closer in this step (Bender's
        clamp)."""
        worst = -np.inf
        for i in self.positions:
            err = float(np.linalg.norm(self._predicted_error(method, s, h, i)))
            if first:
                self.step_tol[i] = max(method.eps_d, err - method.max_correction_speed * h)
            worst = max(worst, err - self.step_tol[i])
        return worst

    def _position_residual(self, method, s, h) -> float:
        return max(float(np.linalg.norm(self._predicted_error(method, s, h, i))) for i in self.positions)

    def _position_sweeps(self, method, s, h) -> int:
        """Sweeps over the point constraints, one impulse at t0 for each outside its tolerance, until none is
        (or max_iter_pos sweeps). Returns the sweeps."""
        sweeps = 0
        for sweeps in range(1, method.max_iter_pos + 1):
            corrected = False
            for i in self.positions:
                d = self._predicted_error(method, s, h, i)
                err = float(np.linalg.norm(d))
                if err <= self.step_tol[i]:
                    continue
                shrink = 1.0 - (self.step_tol[i] - method.eps_d) / err if self.step_tol[i] > method.eps_d else 1.0
                b = self.body_b[i]
                r = quat_rotate(s.body_quat[b], self.anchor_b[i])
                K = _point_matrix(method, b, r)
                p = -np.linalg.solve(K, d * (shrink / h))
                self._apply(method, s, i, -1, b, None, r, p)
                corrected = True
            if not corrected:
                break
        return sweeps

    # velocity level ------------------------------------------------------------------------------------
    def _velocity_row(self, s, i):
        """(Ṗ_b − Ṗ_a − target, r_a, r_b) of constraint i at the current poses and velocities."""
        a, b = self.body_a[i], self.body_b[i]
        rb = quat_rotate(s.body_quat[b], self.anchor_b[i])
        e = s.body_vel[b] + np.cross(s.body_omega[b], rb) - self.target[i]
        ra = None
        if a >= 0:
            ra = quat_rotate(s.body_quat[a], self.anchor_a[i])
            e = e - (s.body_vel[a] + np.cross(s.body_omega[a], ra))
        return e, ra, rb

    def _velocity_error(self, method, s) -> float:
        return max((float(np.linalg.norm(self._velocity_row(s, i)[0])) for i in range(len(self.extras))),
                   default=0.0)

    def _velocity_sweeps(self, method, s) -> int:
        """Sweeps over all extra constraints' velocity rows at t1 until each is within eps_v."""
        sweeps = 0
        for sweeps in range(1, method.max_iter_vel + 1):
            corrected = False
            for i in range(len(self.extras)):
                e, ra, rb = self._velocity_row(s, i)
                if float(np.linalg.norm(e)) <= method.eps_v:
                    continue
                a, b = self.body_a[i], self.body_b[i]
                K = _point_matrix(method, b, rb)
                if a >= 0:
                    K = K + _point_matrix(method, a, ra)
                p = -np.linalg.solve(K, e)
                self._apply(method, s, i, a, b, ra, rb, p)
                corrected = True
            if not corrected:
                break
        return sweeps

    def _apply(self, method, s, i, a, b, ra, rb, p):
        """Impulse p [N s] at the point of B (and −p at that of A), recorded for constraint i."""
        m = method.model
        for k, r, sign in ((b, rb, 1.0), (a, ra, -1.0)):
            if k < 0 or m.body_inv_mass[k] == 0.0:
                continue
            s.body_vel[k] += sign * m.body_inv_mass[k] * p
            s.body_omega[k] += sign * (method.Iinv[k] @ np.cross(r, p))
            method.pred_valid[k] = 0             # a joint solver's prediction no longer holds
            method.dirty[k] = 1
        self.impulse[i] += p

    def has_velocity_rows(self) -> bool:
        """Whether a constraint acts at the velocity level only (VelocityToFunction, EqualVelocity)."""
        return bool(np.any(self.level == VELOCITY))

    def impulses(self) -> dict:
        """{constraint name: world impulse [N s] on its body B in the last step}."""
        return {name: self.impulse[i].copy() for i, name in enumerate(self.names)}


def _point_matrix(method, k, r) -> np.ndarray:
    """K = 1/m E − [r]× I⁻¹ [r]× of body k at the world offset r [1/kg]: Δv of the point per impulse there."""
    m = method.model
    if m.body_inv_mass[k] == 0.0:
        return np.zeros((3, 3))
    rx = np.array([[0.0, -r[2], r[1]], [r[2], 0.0, -r[0]], [-r[1], r[0], 0.0]])
    return m.body_inv_mass[k] * np.eye(3) - rx @ method.Iinv[k] @ rx
