"""The mass-point step of Schmitt & Thüring (2000, §3): predict, fin correction, velocity correction."""
from __future__ import annotations

import math

import numpy as np

from impulsim.errors import SimulationError
from impulsim.methods.base import Method, StageTimer, StepInfo
from impulsim.methods.masspoint import kernels
from impulsim.methods.capabilities import Capabilities
from impulsim.methods.masspoint.system import PointSystem, point_system, refuse_unsupported

PRECISIONS = {"float64": np.float64, "float32": np.float32}

DIVERGED = 0.5
"""A capped fin loop whose worst link is off by more than this fraction of its length has diverged (the
linearised c_ij pushes along the old direction, which fails when a link turns by a large angle in one
step); the step then raises instead of returning a broken state."""


class MassPointMethod(Method):
    """Point masses held at fixed distances by impulses (Schmitt & Thüring 2000).

    Steps the shared ``Model``/``State`` when it is a mass-point system (see
    :mod:`impulsim.methods.masspoint.system`): point masses (``body_point``), static bodies as suspension
    points, point-on-line / point-on-plane joints against static bodies as frictionless rails, distance
    joints as rigid links ``|P_j − P_i| = d``, thread joints ``|P_j − P_i| ≤ d``, gravity, the held
    ``body_force`` and the model's timed loads. Orientations and angular velocities are never touched.
    Anything else (bodies with inertia, shapes, other joints, motors, servos, limits, springs) is refused
    with an UnsupportedFeatureError naming it. Each step

    1. predicts every point's free motion under gravity and Fex (held constant over the step),
    2. applies pair impulses fin along the OLD link directions (at t) until every link is met to ``eps``
       (the "iterative fin correction", §3.2),
    3. optionally corrects the velocities at t+h with pair impulses along the NEW directions so that no
       link stretches or shrinks (the "V-Korrektur", §3.3; positions do not depend on it).

    ``StepInfo`` reports per step: ``iters_pos`` passes through L of the fin loop, ``iters_vel`` passes of
    the velocity correction, the residuals [m, m/s] after them and whether each loop converged before
    its cap. A loop that hits its cap does not fail the step (the report lets it continue, §5.2, §5.6);
    ``converged_pos``/``converged_vel`` say so.

    Options
    -------
    eps : position tolerance of the fin loop [m] (report: 0.00001).
    weight : relaxation weight ("Gewicht"), 1.0; the report tried 1.4 (over-relaxation).
    max_iter_pos : cap on fin passes (report: 500).
    velocity_correction : apply step 3 (default True).
    eps_v : tolerance of the velocity correction [m/s] (not stated in the report; default 1e-5).
    max_iter_vel : cap on velocity-correction passes (report: 200).
    precision : "float64" (default) or "float32": all step arithmetic in single precision, to show the
        report's failure far from the origin (§5.2). The state keeps float64 arrays holding float32 values.
    """

    name = "masspoint"
    point_masses = True
    capabilities = Capabilities(joints=frozenset({"distance", "thread", "point_on_line", "point_on_plane"}),
                                loops=True, springs=False, motors=False, servos=False, point_masses=True)

    def __init__(self, model, *, eps: float = 1e-5, weight: float = 1.0, max_iter_pos: int = 500,
                 velocity_correction: bool = True, eps_v: float = 1e-5, max_iter_vel: int = 200,
                 precision: str = "float64"):
        super().__init__(model)
        refuse_unsupported(model)
        _check_positive("eps", eps)
        _check_positive("eps_v", eps_v)
        if not (math.isfinite(weight) and 0.0 < weight < 2.0):
            raise ValueError(f"weight must lie in (0, 2) for the sweeps to converge, got {weight!r}")
        for name, v in (("max_iter_pos", max_iter_pos), ("max_iter_vel", max_iter_vel)):
            if int(v) < 1:
                raise ValueError(f"{name} must be at least 1, got {v!r}")
        if precision not in PRECISIONS:
            raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, got {precision!r}")
        self.eps, self.eps_v, self.weight = float(eps), float(eps_v), float(weight)
        self.max_iter_pos, self.max_iter_vel = int(max_iter_pos), int(max_iter_vel)
        self.velocity_correction = bool(velocity_correction)
        self.precision = precision
        self.system: PointSystem | None = None
        """The points, links and rails, built from the first state stepped (static bodies' poses)."""

    def _alloc(self, m: PointSystem, dtype):
        """Workspace in the working dtype; the system's arrays are cast once."""
        self.dtype = dtype
        n, c = m.n_points, m.n_constraints
        self.inv_mass = m.point_inv_mass.astype(dtype)
        self.proj = m.point_proj.astype(dtype)
        self.length = m.con_length.astype(dtype)
        self._gravity_of = None
        self.force64 = np.zeros((n, 3))
        self.force = np.zeros((n, 3), dtype)
        self.acc = np.zeros((n, 3), dtype)
        self.pos = np.zeros((n, 3), dtype)
        self.vel = np.zeros((n, 3), dtype)
        self.con_dir = np.zeros((c, 3), dtype)
        self.con_resp_i = np.zeros((c, 3), dtype)
        self.con_resp_j = np.zeros((c, 3), dtype)
        self.con_k = np.zeros(c, dtype)
        self.con_dist = np.zeros(c, dtype)
        self.con_impulse = np.zeros(c, dtype)
        """Impulse strength w·Σc_ij [N s] each constraint applied in the last step (+ pulls together)."""

    def _prepare(self, s) -> None:
        """Build the point system at the first step (its start is checked when the run starts here)."""
        if self.system is None:
            self.system = point_system(self.model, s, check=s.step_count == 0)
            self._alloc(self.system, PRECISIONS[self.precision])

    def _step(self, s, h, info: StepInfo):
        self._prepare(s)
        self._step_number, self._t0 = s.step_count, s.t
        timer = StageTimer(info.timings)
        dt = self.dtype
        self._load(s)
        self._forces(s, h)
        timer.lap("forces")
        self._directions()
        kernels.predict(self.acc, dt(h), dt(0.5) * dt(h) * dt(h), self.pos, self.vel)
        timer.lap("predict")
        self._correct_positions(dt(h), info)
        timer.lap("fin_correction")
        if self.velocity_correction:
            self._directions()
            self._correct_velocities(info)
        timer.lap("velocity_correction")
        nb = self.system.n_bodies
        s.body_pos[...] = self.pos[:nb]
        s.body_vel[...] = self.vel[:nb]
        s.t += h
        s.step_count += 1

    def _load(self, s):
        nb = self.system.n_bodies
        self.pos[:nb] = s.body_pos
        self.vel[:nb] = s.body_vel
        if nb < self.pos.shape[0]:      # the fixed anchor points
            self.pos[nb:] = self.system.anchor_pos
            self.vel[nb:] = 0.0

    def _forces(self, s, h):
        """Held force plus the timed loads (already added to ``s.body_force`` by ``Method.step``)."""
        m = self.system
        self.force64[:m.n_bodies] = s.body_force
        self.force[...] = self.force64
        if self._gravity_of is not self.model.gravity:     # cast again only when set_params changed it
            self._gravity_of, self.gravity = self.model.gravity, self.model.gravity.astype(self.dtype)
        kernels.external_accelerations(self.inv_mass, self.proj, self.gravity, self.force, self.acc)
        bad = ~np.isfinite(self.acc).all(axis=1)
        if bad.any():
            k = int(np.argmax(bad))
            raise SimulationError(
                f"step {s.step_count} (t = {s.t:.6g} s): point \"{m.point_names[k]}\" has a non-finite "
                f"external force {self.force64[k].tolist()} N; the state was left at the last good step")

    def _directions(self):
        m = self.system
        kernels.constraint_directions(m.con_i, m.con_j, self.inv_mass, self.proj, self.pos, self.con_dir,
                                      self.con_resp_i, self.con_resp_j, self.con_k, self.con_dist)

    def _correct_positions(self, h, info):
        m = self.system
        dt = self.dtype
        passes, converged = kernels.correct_positions(
            m.con_kind, m.con_i, m.con_j, self.length, self.inv_mass, self.proj, h, dt(self.eps),
            dt(self.weight), self.max_iter_pos, self.pos, self.vel, self.con_dir, self.con_resp_i,
            self.con_resp_j, self.con_k, self.con_dist, self.con_impulse)
        info.iters_pos = int(passes)
        info.converged_pos = bool(converged)
        worst, where = kernels.largest_violation(m.con_kind, m.con_i, m.con_j, self.length, self.pos)
        info.residual_pos = float(worst)
        if not converged and where >= 0 and worst > DIVERGED * m.con_length[where]:
            raise SimulationError(
                f"step {self._step_number} (t = {self._t0:.6g} s): the fin correction diverged, constraint "
                f"\"{m.con_names[where]}\" is off by {worst:.3g} m after {passes} passes; its link turns too "
                "far in one step for the linearised correction (reduce h); the state was left at the last "
                "good step")

    def _correct_velocities(self, info):
        m = self.system
        dt = self.dtype
        passes, converged, residual = kernels.correct_velocities(
            m.con_kind, m.con_i, m.con_j, self.length, self.con_dir, self.con_resp_i, self.con_resp_j,
            self.con_k, self.con_dist, dt(self.eps_v), dt(self.eps), self.max_iter_vel, self.vel)
        info.iters_vel = int(passes)
        info.converged_vel = bool(converged)
        info.residual_vel = float(residual)

    def _check_input(self, s):
        """Refuse a non-finite time, point position, velocity or force before the step."""
        if not math.isfinite(s.t):
            raise SimulationError(f"step {s.step_count}: the time t = {s.t!r} s is not finite")
        for field, quantity in (("body_pos", "position"), ("body_vel", "velocity"),
                                ("body_force", "external force")):
            bad = ~np.isfinite(getattr(s, field)).all(axis=1)
            if bad.any():
                k = int(np.argmax(bad))
                raise SimulationError(
                    f"step {s.step_count} (t = {s.t:.6g} s): point \"{self.model.body_names[k]}\" has a "
                    f"non-finite {quantity} before the step; nothing was changed")

    def _check_finite(self, s, step_count):
        movable = self.model.body_point > 0
        for field, quantity in (("body_pos", "position"), ("body_vel", "velocity")):
            bad = ~np.isfinite(getattr(s, field)).all(axis=1)
            if bad.any():
                # name a movable point if one went bad: suspension points only inherit NaN from others
                k = int(np.argmax(bad & movable)) if (bad & movable).any() else int(np.argmax(bad))
                raise SimulationError(
                    f"step {step_count} (t = {s.t:.6g} s): point \"{self.model.body_names[k]}\" got a "
                    f"non-finite {quantity}; the state was left at the last good step")


def _check_positive(name, v):
    if not (isinstance(v, (int, float, np.floating)) and math.isfinite(v) and v > 0):
        raise ValueError(f"{name} must be positive and finite, got {v!r}")
