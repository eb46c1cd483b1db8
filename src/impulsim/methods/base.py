"""What every method shares: the call shape, StepInfo, and the guard that keeps a failed step harmless.

Every method is constructed from a Model and its own options, and advanced with
``info = method.step(state, h)``. The state is changed in place only when the step succeeds.
"""
from __future__ import annotations

import math
import os
import time
import warnings
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

from impulsim.dynamics.checks import NOT_FINITE, OUT_OF_RANGE, TUNNELS, check_state
from impulsim.dynamics.loads import add_timed_loads
from impulsim.errors import SimulationError, UnsupportedFeatureError
from impulsim.model.kinds import JointKind
from impulsim.model.model import Model
from impulsim.model.state import State
from impulsim.methods.memory import snapshot


@dataclass
class StepInfo:
    """What one step did. Iterations and residuals per phase; timings per stage [s]."""
    iters_pos: int = 0
    """Sweeps (iterative) or solves (LGS) of the joint (position) correction."""
    iters_vel: int = 0
    """Sweeps or solves of the velocity correction."""
    residual_pos: float = 0.0
    """Largest position error [m or rad] seen in the last position sweep."""
    residual_vel: float = 0.0
    """Largest velocity error [m/s or rad/s] seen in the last velocity sweep."""
    converged_pos: bool = True
    converged_vel: bool = True
    clamped: int = 0
    """Corrections cut short by the per-step impulse clamp."""
    n_contacts: int = 0
    """Contact points detected at the start of the step (with sleeping, none between two bodies that are
    asleep or static: they are not detected)."""
    n_collisions: int = 0
    """Of those, contacts approaching faster than eps_rc (resolved as collisions)."""
    iters_collision: int = 0
    """Iterations of the collision resolution."""
    n_asleep: int = 0
    """Bodies asleep after the step (sleeping switched on)."""
    shock_sweeps: int = 0
    """Sweeps over single contact levels in the step's shock-propagation passes (0 without them)."""
    patch_visits: int = 0
    """Contact patches solved in the step's position and velocity sweeps (shock passes not counted): the
    unit of a sweep's cost, fewer with skip_resolved."""
    timings: dict = field(default_factory=dict)
    ignored: dict = field(default_factory=dict)
    """Model elements this step ran without because the user asked (``ignore=``): {feature: number}."""


@dataclass
class RunInfo(StepInfo):
    """What :meth:`Method.run` did over several steps: the StepInfo fields aggregated over them.

    Sums: ``iters_pos``, ``iters_vel`` (solves or sweeps of all steps), ``clamped``, ``n_collisions``,
    ``iters_collision``, ``shock_sweeps``, ``patch_visits`` and ``timings``. Maxima: ``residual_pos``,
    ``residual_vel`` and ``n_contacts``. ``converged_*`` hold when every step converged; ``n_asleep`` and
    ``ignored`` are those of the last step, which ``last`` holds whole.
    """
    steps: int = 0
    """Steps taken."""
    max_iters_pos: int = 0
    """Most position solves (or sweeps) of one step."""
    max_iters_vel: int = 0
    """Most velocity solves (or sweeps) of one step."""
    unconverged: int = 0
    """Steps whose position or velocity correction stopped above its tolerance."""
    last: Optional[StepInfo] = None
    """The StepInfo of the last step."""

    def add(self, info: StepInfo) -> None:
        """Aggregate one step's StepInfo, or another RunInfo (steps that followed these)."""
        many = isinstance(info, RunInfo)
        self.steps += info.steps if many else 1
        self.max_iters_pos = max(self.max_iters_pos, info.max_iters_pos if many else info.iters_pos)
        self.max_iters_vel = max(self.max_iters_vel, info.max_iters_vel if many else info.iters_vel)
        self.unconverged += info.unconverged if many else int(not (info.converged_pos and info.converged_vel))
        self.last = info.last if many else info
        for name in ("iters_pos", "iters_vel", "clamped", "n_collisions", "iters_collision", "shock_sweeps",
                     "patch_visits"):
            setattr(self, name, getattr(self, name) + getattr(info, name))
        self.residual_pos = max(self.residual_pos, info.residual_pos)
        self.residual_vel = max(self.residual_vel, info.residual_vel)
        self.n_contacts = max(self.n_contacts, info.n_contacts)
        self.converged_pos = self.converged_pos and info.converged_pos
        self.converged_vel = self.converged_vel and info.converged_vel
        self.n_asleep = info.n_asleep
        self.ignored = info.ignored
        for stage, seconds in info.timings.items():
            self.timings[stage] = self.timings.get(stage, 0.0) + seconds


class StageTimer:
    """Accumulates wall time per named stage into a dict."""

    def __init__(self, timings: dict):
        self.timings = timings
        self._t = time.perf_counter()

    def lap(self, stage: str):
        now = time.perf_counter()
        self.timings[stage] = self.timings.get(stage, 0.0) + now - self._t
        self._t = now


_STATE_CHECKS = ("body_pos", "body_quat", "body_vel", "body_omega")
MAX_DISTANCE = 1e8
"""[m] A body farther from the origin than this has left any scene (scene files are limited to 1e6 m)."""
MAX_SPEED = 1e5
"""[m/s] A rigid body faster than this (100 km/s) is taken as a diverged integration."""
TUNNEL_FACTOR = 100.0
"""With contacts, a free body that moves more than this many times its own size in one step is refused
(it passes through anything in its way: a body shot at 1e6 m/s went 2 km through the ground and was thrown
back). Below this it is let through and may pass through obstacles thinner than its travel: Holck's
complex pendulum at h = 1/10 s shows a ball falling through a bar so, up to 10 times its size a step."""
_NO_THICKNESS = np.zeros(0)
"""The thickness handed to check_state where contacts are not detected (no tunnelling test)."""


class Method:
    """Base class of the solver methods. Subclasses implement ``_step(state, h, info)``."""

    name = "method"
    #: model features this method rejects: (predicate(model) -> bool, feature description)
    unsupported: tuple = ()
    #: whether the method steps point masses and threads (bodies without inertia, |b − a| ≤ length)
    point_masses: bool = False

    def __init__(self, model: Model, *, ignore=(), **requested):
        """Refuse what the class does not honour (``unsupported`` predicates, then the ``capabilities``
        declaration checked against the model and the ``requested`` options: contacts, constraints,
        forces, scheme, restitution); features named in ``ignore`` are dropped with one warning."""
        from impulsim.methods.capabilities import refusals
        self.model = model
        for predicate, feature in self.unsupported:
            if predicate(model):
                raise UnsupportedFeatureError(f"method {self.name!r} does not support {feature}")
        if not self.point_masses:
            _refuse_point_masses(self.name, model)
        self.ignored = refusals(type(self), model, requested, ignore)
        if self.ignored:
            what = ", ".join(f"{n} {f}" for f, n in self.ignored.items())
            warnings.warn(f"method {self.name!r} runs without {what} of model {model.name!r} (ignore=)",
                          stacklevel=3)
        self._scratch: State | None = None

    side_compile = None
    """The second process that compiled the first contact step's kernels beside this one (an empty cache,
    impulsim.forked_compile), once waited for: its ``ok`` and ``kernels``; None if there was none."""
    _first_step_prepared = False
    _compiles_before_detecting = False
    """Whether the first step's second process is waited for at the step's first detection, after this
    method has compiled its own share of the step (the impulse method's head start), instead of at once."""

    def contact_detector(self):
        """The collision Detector this method's steps call, or None (a model without contacts)."""
        return None

    def _prepare_first_step(self, s: State, h: float) -> None:
        """Before the first step: with contacts on an empty kernel cache, compile on two cores (see
        impulsim.contact.rehearsal.compile_side_by_side). The step's results are unchanged."""
        self._first_step_prepared = True
        detector = self.contact_detector()
        if detector is not None:
            from impulsim.contact.rehearsal import compile_side_by_side
            self.side_compile = compile_side_by_side(self, detector, s, h, self._compiles_before_detecting)

    def step(self, state: State, h: float) -> StepInfo:
        """Advance ``state`` by h [s] in place; on failure raise and leave ``state`` and the method's own
        memory (warm start, anchors, sleep clocks, caches) as they were before the call."""
        _valid_step(h)
        self._check_input(state)
        idle = self._idle_step(state)
        if idle is not None:
            state.t += float(h)
            state.step_count += 1
            return idle
        before = snapshot(self)
        try:
            if self._scratch is None:
                self._scratch = state.copy()
            else:
                self._scratch.assign(state)
            info = StepInfo()
            if self.model.n_loads:      # on the scratch copy: the user's held force stays as it was
                m, s = self.model, self._scratch
                add_timed_loads(m.load_body, m.load_force, m.load_torque, m.load_start, m.load_end, s.t,
                                float(h), s.body_force, s.body_torque)
            if self.ignored:
                info.ignored = dict(self.ignored)
            if not self._first_step_prepared:
                self._prepare_first_step(self._scratch, float(h))
            self._step(self._scratch, float(h), info)
            self._check_divergence(self._scratch, state, float(h), info)     # finiteness first
        except BaseException:
            before.restore()
            raise
        state.assign_motion(self._scratch)       # the user's inputs are unchanged by a step
        return info

    def _idle_step(self, state: State) -> StepInfo | None:
        """The StepInfo of a step from ``state`` that would change no body, only the time and the step count, or
        None (always, unless a method knows better: a model asleep whole, see ImpulseMethod). For such a step
        :meth:`step` only advances the time; the method has already put its memory where the full step would
        leave it. Nothing in it can fail, so it takes no snapshot."""
        return None

    def run(self, state: State, h: float, n: int, *, every: int = 0,
            callback: Optional[Callable[[RunInfo], None]] = None, iters: Optional[np.ndarray] = None) -> RunInfo:
        """Advance ``state`` by ``n`` steps of h [s] in place; the same results, bit for bit, as ``n`` calls
        of :meth:`step`, returned as one :class:`RunInfo`.

        Methods that can (see their ``run_path``) take the steps inside compiled code, without the per-step
        cost of :meth:`step` in Python; the others call :meth:`step` ``n`` times. ``callback(info)`` is
        called after every ``every`` steps (the compiled loop returns to Python that often) with the
        RunInfo of those steps (``info.last`` is the StepInfo of the latest). ``iters``, an integer array
        of shape (n, 2), receives every step's position and velocity solves (or sweeps).

        A failed step raises as :meth:`step` does (SimulationError naming the step and the cause); the
        steps before it stay done, and ``state`` and the method's memory are those after the last good
        step, i.e. as they were before the failing step.
        """
        h = _valid_step(h)
        n, every = int(n), int(every)
        if n < 0 or every < 0:
            raise ValueError(f"run: the number of steps and 'every' must not be negative, got {n} and {every}")
        if iters is not None and (iters.ndim != 2 or iters.shape[0] < n or iters.shape[1] != 2):
            raise ValueError(f"run: iters must have shape ({n}, 2), got {iters.shape}")
        chunk = every if (every and callback is not None) else max(n, 1)
        total = RunInfo()
        done = 0
        while done < n:
            k = min(chunk, n - done)
            info = self._run_steps(state, h, k, None if iters is None else iters[done:done + k])
            total.add(info)
            done += k
            if callback is not None and every and done % every == 0:
                callback(info)
        return total

    @property
    def run_path(self) -> str:
        """How :meth:`run` takes its steps for this model and these options: "python" (calls of
        :meth:`step`) unless the method has a compiled loop for them."""
        return "python"

    def _run_steps(self, state: State, h: float, n: int, iters) -> RunInfo:
        """``n`` calls of :meth:`step`, aggregated (methods with a compiled loop override this)."""
        total = RunInfo()
        for i in range(n):
            info = self.step(state, h)
            total.add(info)
            if iters is not None:
                iters[i, 0], iters[i, 1] = info.iters_pos, info.iters_vel
        return total

    def _check_input(self, s: State):
        """Refuse a state that cannot be stepped: non-finite time, poses, velocities or user inputs
        (a method would otherwise carry them into its solvers and fail there, or replace them)."""
        if not math.isfinite(s.t):
            raise SimulationError(f"step {s.step_count}: the time t = {s.t!r} s is not finite")
        if (_finite(s.body_pos, s.body_quat, s.body_vel, s.body_omega)
                and _finite(s.body_force, s.body_quat, s.body_torque, s.body_torque)
                and (not s.motor_effort.size or np.isfinite(s.motor_effort).all())):
            return
        for name in _STATE_CHECKS + ("body_force", "body_torque"):
            bad = ~np.isfinite(getattr(s, name)).all(axis=1)
            if bad.any():
                k = int(np.argmax(bad))
                raise SimulationError(
                    f"step {s.step_count} (t = {s.t:.6g} s): body \"{self.model.body_names[k]}\" has a "
                    f"non-finite {name.removeprefix('body_')} before the step; nothing was changed")
        k = int(np.argmax(~np.isfinite(s.motor_effort)))
        raise SimulationError(f"step {s.step_count}: motor \"{self.model.motor_names[k]}\" has a non-finite "
                              f"effort before the step; nothing was changed")

    def _step(self, state: State, h: float, info: StepInfo) -> None:
        raise NotImplementedError

    def _check_divergence(self, s: State, before: State, h: float, info: StepInfo) -> None:
        """Check a step's result ``s`` (from ``before``) and name what went wrong: a pose or velocity that is
        not finite (first, as :meth:`_check_finite`); then, as divergence rather than a solver failure,
        residuals that are no longer finite, bodies farther than MAX_DISTANCE or faster than MAX_SPEED, and,
        where contacts are detected, a free body that moves farther in one step than TUNNEL_FACTOR times its
        own size (it would pass through what it should hit: the step is too large for the model). One
        compiled pass (check_state) in the common case."""
        found, thickness = None, None
        if hasattr(s, "body_pos"):
            thickness = self._thickness()
            found = check_state(s.body_pos, s.body_quat, s.body_vel, s.body_omega, before.body_pos,
                                _NO_THICKNESS if thickness is None else thickness, MAX_DISTANCE, MAX_SPEED,
                                TUNNEL_FACTOR)
            if found == NOT_FINITE:
                self._check_finite(s, before.step_count)      # raises, unless a method accepts what is not finite
                found = _range_ignoring_orientations(s, before, thickness)   # (the mass-point method's)
        if not (math.isfinite(info.residual_pos) and math.isfinite(info.residual_vel)):
            what, value = (("position", info.residual_pos) if not math.isfinite(info.residual_pos)
                           else ("velocity", info.residual_vel))
            raise SimulationError(f"{_place(before)}: the simulation diverged: the {what} residual is {value} "
                                  f"(the step h = {h:g} s is too large for the model, or its forces blew up)")
        if found == OUT_OF_RANGE:
            self._refuse_out_of_range(s, _place(before))
        if found == TUNNELS:
            self._refuse_tunnelling(s, before, thickness, _place(before))

    def _refuse_out_of_range(self, s: State, where: str):
        """Raise naming the body farthest beyond MAX_DISTANCE or MAX_SPEED (relative to the limit)."""
        k = int(np.argmax(np.maximum(np.abs(s.body_pos).max(axis=1) / MAX_DISTANCE,
                                     np.abs(s.body_vel).max(axis=1) / MAX_SPEED)))
        raise SimulationError(
            f"{where}: the simulation diverged: body \"{self.model.body_names[k]}\" is at "
            f"{np.linalg.norm(s.body_pos[k]):.3g} m moving at {np.linalg.norm(s.body_vel[k]):.3g} m/s "
            f"(limits {MAX_DISTANCE:g} m, {MAX_SPEED:g} m/s); the state was left at the last good step")

    def _refuse_tunnelling(self, s: State, before: State, thickness, where: str):
        """Raise naming the body that moved farthest in the step relative to its thickness."""
        travel = np.linalg.norm(s.body_pos - before.body_pos, axis=1)
        k = int(np.argmax(travel / thickness))
        raise SimulationError(
            f"{where}: step too large for the model: body \"{self.model.body_names[k]}\" moves "
            f"{travel[k]:.3g} m in one step, more than {TUNNEL_FACTOR:g} times its size "
            f"{thickness[k]:.3g} m, and would pass through what it should hit (reduce h); the state was left "
            "at the last good step")

    def _thickness(self):
        """Per body, its size [m] when contacts are detected (None otherwise): 2 sqrt(J_max / m), 0.82 of a
        cube's edge, 1.26 of a sphere's radius, 0.58 of a thin rod's length; inf for bodies without shapes,
        static ones and jointed ones (their joints bound their motion; a pendulum at a coarse step swings
        farther than a small weight's size without passing through anything). (A body that moves more than this in a step has passed through anything as
        thick as itself; thinner obstacles need a smaller step, which is the user's choice.)"""
        cached = self.__dict__.get("_thickness_cache", False)
        if cached is not False:
            return cached
        from impulsim.contact.default import model_has_contacts
        m = self.model
        out = None
        if getattr(m, "shape_body", None) is not None and model_has_contacts(m):
            with np.errstate(divide="ignore", invalid="ignore"):
                out = 2.0 * np.sqrt(np.max(m.body_inertia, axis=1) / m.body_mass)
            shaped = np.zeros(m.n_bodies, bool)
            shaped[np.asarray(m.shape_body, np.int64)] = True
            jointed = np.zeros(m.n_bodies, bool)
            jointed[np.asarray(m.joint_body_a, np.int64)] = True
            jointed[np.asarray(m.joint_body_b, np.int64)] = True
            out = np.where(shaped & ~jointed & (m.body_static == 0) & np.isfinite(out) & (out > 0), out, np.inf)
        self.__dict__["_thickness_cache"] = out
        return out

    def _check_finite(self, s: State, step_count: int):
        """Raise SimulationError naming the first body and quantity that is not finite (a compiled check
        first: the common case costs ~2 µs on 255 bodies instead of ~35 µs of NumPy temporaries)."""
        if _finite(s.body_pos, s.body_quat, s.body_vel, s.body_omega):
            return
        for name in _STATE_CHECKS:
            arr = getattr(s, name)
            bad = ~np.isfinite(arr).all(axis=1)
            if bad.any():
                k = int(np.argmax(bad))
                raise SimulationError(
                    f"step {step_count} (t = {s.t:.6g} s): body \"{self.model.body_names[k]}\" got a "
                    f"non-finite {name.removeprefix('body_')}; the state was left at the last good step")


def _place(before: State) -> str:
    """"step N (t = T s)" of the step that starts from ``before``, for an error message."""
    return f"step {before.step_count} (t = {before.t:.6g} s)"


def _range_ignoring_orientations(s: State, before: State, thickness) -> int:
    """check_state's range and tunnelling tests of ``s`` with what is not finite in its orientations and
    angular velocities set aside (for a method whose _check_finite accepts that; positions and velocities
    are finite by then)."""
    return check_state(s.body_pos, np.nan_to_num(s.body_quat), s.body_vel, np.nan_to_num(s.body_omega),
                       before.body_pos, _NO_THICKNESS if thickness is None else thickness, MAX_DISTANCE,
                       MAX_SPEED, TUNNEL_FACTOR)


def _finite(a, b, c, d) -> bool:
    """Whether every entry of the four arrays (shapes [n, 3], [n, 4], [n, 3], [n, 3]) is finite (check_state
    with infinite limits: the same compiled kernel as the step's range checks)."""
    return check_state(a, b, c, d, a, _NO_THICKNESS, math.inf, math.inf, math.inf) != NOT_FINITE


def _valid_step(h) -> float:
    """h as a float; a step size that is not a positive finite number of seconds is refused."""
    if not (isinstance(h, (int, float, np.floating)) and math.isfinite(h) and h > 0):
        raise ValueError(f"step size h must be a positive finite number of seconds, got {h!r}")
    return float(h)


def _refuse_point_masses(method: str, model: Model) -> None:
    """A method without point masses refuses them by name: a point has no inertia to rotate with."""
    points = np.nonzero(model.body_point)[0]
    if points.size:
        raise UnsupportedFeatureError(
            f'method {method!r} does not support point masses: body "{model.body_names[points[0]]}" has no '
            "rotational inertia (use method 'masspoint')")
    threads = np.nonzero(model.joint_kind == JointKind.THREAD)[0]
    if threads.size:
        raise UnsupportedFeatureError(
            f'method {method!r} does not support threads: joint "{model.joint_names[threads[0]]}" '
            "(use method 'masspoint')")


def loop_compiled(kernel) -> bool:
    """Whether the compiled run loop ``kernel`` is ready without compiling: compiled in this process or found
    in Numba's on-disk cache (compiled by an earlier process). A method's ``run`` takes its loop for a short
    run only then, as the compile costs seconds that only a long run pays back."""
    if kernel.overloads:
        return True
    try:
        return os.path.exists(kernel._cache._cache_file._index_path)
    except AttributeError:            # another Numba's internals: compile as asked
        return True
