"""A running simulation: model + state + method + step size, with hooks, events and a run loop."""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np

from impulsim.methods import make, Method, RunInfo, StepInfo
from impulsim.model.model import Model
from impulsim.model.state import State

LIVE_PARAMETERS = ("gravity", "spring_stiffness", "spring_damping", "spring_rest_length", "servo_gains",
                   "servo_limit", "servo_sp_time", "servo_sp_value")
"""Model arrays every method reads afresh in each step, so :meth:`Simulation.set_params` may change them."""


class Simulation:
    """Steps a model with one method at a fixed step size h [s].

    ``before_step`` / ``after_step`` hold callbacks ``fn(sim)`` (after-step ones get ``fn(sim, info)``);
    they may read and change the state, the method's options and the model's live parameters
    (:meth:`set_params`) between steps. Events (:meth:`on_time`, :meth:`on_joint_error`,
    :meth:`on_contact_begin`) call ``fn(sim, event)`` after the step in which they happen.
    """

    def __init__(self, model: Model, state: Optional[State] = None, method: str | Method = "impulse",
                 h: float = 1e-3, **method_options):
        self.model = model
        if state is None:
            raise ValueError("Simulation needs the initial State returned by ModelBuilder.build()")
        self.state = state
        if isinstance(method, Method) and method_options:
            raise ValueError("give either a method or method options, not both")
        self.method = method if isinstance(method, Method) else make(method, model, **method_options)
        self.h = float(h)
        self.before_step: list[Callable] = []
        self.after_step: list[Callable] = []
        self.last_info: Optional[StepInfo] = None
        self.events = EventHooks()
        self.warn_open_joints = True
        """Warn (once) when a step ends with its joints open by more than OPEN_JOINTS; an editing session,
        which opens joints on purpose, turns it off."""
        self._warned_open = False

    @property
    def t(self) -> float:
        return self.state.t

    def step(self) -> StepInfo:
        """One step of size h; hooks run around it."""
        for fn in self.before_step:
            fn(self)
        info = self.method.step(self.state, self.h)
        self.last_info = info
        self._warn_if_joints_open(info)
        for fn in self.after_step:
            fn(self, info)
        self.events.dispatch(self, info)
        return info

    # events ---------------------------------------------------------------------------------------
    def on_time(self, t: float, fn: Callable[["Simulation", SimEvent], None]):
        """Call ``fn(sim, event)`` once, after the first step that reaches time ``t`` [s]."""
        return self.events.add_time(t, fn, self.h)

    def on_joint_error(self, threshold: float, fn: Callable, joint: Optional[str] = None):
        """Call ``fn(sim, event)`` each time the largest position error of ``joint``'s primitives (of all
        joints if None) rises above ``threshold`` [m or rad]; re-armed once it falls back below."""
        j = None if joint is None else self.model.joint(joint)
        return self.events.add_joint_error(threshold, fn, j)

    def on_contact_begin(self, fn: Callable):
        """Call ``fn(sim, event)`` after a step that reports contacts when the step before reported none."""
        return self.events.add_contact_begin(fn)

    def remove_hook(self, hook) -> None:
        """Remove an event hook returned by one of the ``on_*`` methods."""
        self.events.remove(hook)

    # parameters -----------------------------------------------------------------------------------
    def set_params(self, **arrays) -> None:
        """Replace live model parameters between steps, e.g. ``set_params(spring_stiffness=[200.0])``.

        Only the parameters the methods read afresh in every step are accepted (``LIVE_PARAMETERS``);
        the new model replaces ``sim.model`` and the model the method and its parts (attributes that
        held the old model) use.
        """
        unknown = sorted(set(arrays) - set(LIVE_PARAMETERS))
        if unknown:
            raise ValueError(f"set_params: {', '.join(unknown)} cannot change during a run "
                             f"(live parameters: {', '.join(LIVE_PARAMETERS)})")
        old, self.model = self.model, self.model.with_params(**arrays)
        _replace_model(self.method, old, self.model)

    def run(self, duration: float, *, progress: bool = False, every: int = 1,
            observer: Optional[Callable] = None) -> int:
        """Advance by ``duration`` [s] (rounded to whole steps); returns the number of steps taken.

        ``observer(sim, info)`` is called every ``every`` steps, e.g. ``observer=recorder.record`` with an
        :class:`impulsim.io.recording.Recorder` (record the initial state first: ``recorder.record(sim)``).

        Without ``before_step``/``after_step`` callbacks and event hooks the steps go through
        :meth:`Method.run`, which takes them in compiled code where the method can (the same results, bit
        for bit); ``info`` is then the StepInfo of the observed step and ``last_info`` that of the last.
        A failed step raises as :meth:`step` does, with the state at the last good step.
        """
        n = max(0, int(math.floor(duration / self.h + 0.5)))
        if observer is not None and every < 1:
            raise ValueError(f"run: every must be at least 1, got {every!r}")
        bar = _progress(n, progress, self.model.name)
        try:
            self._run_batched(n, every, observer, bar)
        finally:
            if bar is not None:
                bar.close()
        return n

    def run_steps(self, n: int, iters: Optional[np.ndarray] = None) -> RunInfo:
        """``n`` steps in one call of :meth:`Method.run` (compiled where the method can), for loops that
        observe the simulation every so many steps; ``iters`` (shape (n, 2), integers) receives each
        step's position and velocity solves. Only without ``before_step``/``after_step`` callbacks and
        event hooks (``batchable``), which need every step."""
        if self._hooked():
            raise ValueError("run_steps: callbacks or event hooks are set; they need single steps (use run)")
        info = self.method.run(self.state, self.h, n, iters=iters)
        self._warn_if_joints_open(info)
        if info.last is not None:
            self.last_info = info.last
            self.events.note_contacts(info.last)
        return info

    def _warn_if_joints_open(self, info: StepInfo) -> None:
        """Warn once when a step ends unconverged with an error above OPEN_JOINTS [m or rad], which the run would
        otherwise only show in ``info.converged_pos``: the joint correction stopped at its cap with the joints
        open (the motion is too fast for h) or, with contacts, stopped because the contacts contradict the
        joints (contact_step.STALL_PASSES)."""
        if (self._warned_open or not self.warn_open_joints or info.converged_pos
                or not info.residual_pos > OPEN_JOINTS):
            return
        self._warned_open = True
        if info.n_contacts:
            warnings.warn(f"{self.model.name}: by t = {self.t:.4g} s a step left {info.residual_pos:.3g} (m or rad) "
                          f"uncorrected with {info.n_contacts} contact(s) acting: contacts that push against the "
                          "joints cannot be separated (do bodies start inside each other, or does a contact press a "
                          f"straight chain along its axis?), else the motion is too fast for h = {self.h:g} s",
                          RuntimeWarning, stacklevel=3)
            return
        warnings.warn(f"{self.model.name}: by t = {self.t:.4g} s a step ended with its joints open by "
                      f"{info.residual_pos:.3g} (m or rad): the joint correction stopped at its cap. If the joints "
                      f"did not start open, the motion is too fast for h = {self.h:g} s (take a smaller h; the "
                      "impulse method's step halving is in docs/lgs.md)", RuntimeWarning, stacklevel=3)

    @property
    def batchable(self) -> bool:
        """Whether :meth:`run_steps` may be used: no callbacks or event hooks are set."""
        return not self._hooked()

    def _hooked(self) -> bool:
        return bool(self.before_step or self.after_step or self.events.hooks)

    def _run_stepwise(self, start, n, every, observer, bar):
        """Steps start … n−1 one by one, with the callbacks and event hooks around each."""
        for i in range(start, n):
            info = self.step()
            if observer is not None and (i + 1) % every == 0:
                observer(self, info)
            if bar is not None:
                bar.update(1)

    def _run_batched(self, n, every, observer, bar):
        """Without callbacks and hooks: chunks of ``every`` steps with an observer (else up to RUN_CHUNK, or
        a hundredth of the run with a progress bar) through Method.run; Ctrl-C is seen between chunks."""
        if observer is not None:
            chunk = every
        else:
            chunk = RUN_CHUNK if bar is None else max(1, min(RUN_CHUNK, n // 100))
        done = 0
        while done < n:
            if self._hooked():      # callbacks (also ones an observer added) need the steps one by one
                self._run_stepwise(done, n, every, observer, bar)
                return
            k = min(chunk, n - done)
            info = self.run_steps(k)
            done += k
            if observer is not None and done % every == 0:
                observer(self, info.last)
            if bar is not None:
                bar.update(k)


OPEN_JOINTS = 1e-3
"""Joint error [m or rad] after a step above which :class:`Simulation` warns (once) that the joints are
open: far beyond any tolerance a method is given, a sign that the step could not close them."""

RUN_CHUNK = 1000
"""Most steps :meth:`Simulation.run` hands to one call of Method.run (its compiled loop cannot be
interrupted; 1000 steps of a small model take a few milliseconds)."""


def _progress(n, enabled, name):
    from impulsim.progress import progress_bar
    return progress_bar(n, name) if enabled else None


def _replace_model(method, old: Model, new: Model) -> None:
    """Point the method, and each of its attributes that held ``old`` as ``.model``, at ``new``."""
    method.model = new
    for part in vars(method).values():
        if getattr(part, "model", None) is old:
            part.model = new


# ------------------------------------------------------------------------------------------ events


@dataclass
class SimEvent:
    """What happened: ``kind`` ("time", "joint_error", "contact_begin") after the step ending at ``t``."""
    kind: str
    t: float
    step: int
    value: float = 0.0
    """The time reached [s], the joint error [m or rad], or the number of contacts."""
    joint: Optional[str] = None


@dataclass(eq=False)
class _Hook:
    kind: str
    fn: Callable
    threshold: float = 0.0
    joint: Optional[int] = None
    armed: bool = True


class EventHooks:
    """The event hooks of one simulation; :meth:`dispatch` checks them after every step."""

    def __init__(self):
        self.hooks: list[_Hook] = []
        self._had_contacts = False

    def add_time(self, t: float, fn: Callable, h: float) -> _Hook:
        """A one-shot hook at time ``t`` (reached when the step's end is within h/2 of it or past it)."""
        if not math.isfinite(t):
            raise ValueError(f"on_time: time must be a finite number of seconds, got {t!r}")
        return self._add(_Hook("time", fn, threshold=float(t) - 0.5 * h))

    def add_joint_error(self, threshold: float, fn: Callable, joint: Optional[int]) -> _Hook:
        """An edge-triggered hook on the largest position error of one joint (or of all)."""
        if not threshold > 0:
            raise ValueError(f"on_joint_error: threshold must be positive, got {threshold!r}")
        return self._add(_Hook("joint_error", fn, threshold=float(threshold), joint=joint))

    def add_contact_begin(self, fn: Callable) -> _Hook:
        """A hook on the step where contacts appear after a step without any."""
        return self._add(_Hook("contact_begin", fn))

    def _add(self, hook: _Hook) -> _Hook:
        if not callable(hook.fn):
            raise TypeError(f"on_{hook.kind}: the callback must be callable, got {hook.fn!r}")
        self.hooks.append(hook)
        return hook

    def remove(self, hook) -> None:
        """Remove ``hook``; a hook that is not registered is an error."""
        try:
            self.hooks.remove(hook)
        except ValueError:
            raise ValueError("remove_hook: this hook is not registered with the simulation") from None

    def note_contacts(self, info: StepInfo) -> None:
        """Remember whether the step of ``info`` had contacts (for a later contact_begin hook)."""
        self._had_contacts = int(getattr(info, "n_contacts", 0)) > 0

    def dispatch(self, sim: "Simulation", info: StepInfo) -> None:
        """Fire the hooks whose condition became true in the step just taken."""
        contacts = int(getattr(info, "n_contacts", 0))
        began = contacts > 0 and not self._had_contacts
        self._had_contacts = contacts > 0
        if not self.hooks:
            return
        errors = None
        for hook in list(self.hooks):
            if hook.kind == "time" and sim.state.t >= hook.threshold:
                self.hooks.remove(hook)
                hook.fn(sim, _event(sim, "time", hook.threshold))
            elif hook.kind == "contact_begin" and began:
                hook.fn(sim, _event(sim, "contact_begin", contacts))
            elif hook.kind == "joint_error":
                errors = _prim_errors(sim) if errors is None else errors
                self._check_error(sim, hook, errors)

    @staticmethod
    def _check_error(sim, hook: _Hook, errors: np.ndarray) -> None:
        """Fire once when the error crosses the threshold upwards; re-arm when it falls below."""
        m = sim.model
        if hook.joint is not None:
            errors = errors[m.joint_prim_start[hook.joint]:m.joint_prim_start[hook.joint + 1]]
        err = float(errors.max(initial=0.0))
        if err > hook.threshold and hook.armed:
            hook.armed = False
            name = None if hook.joint is None else m.joint_names[hook.joint]
            hook.fn(sim, _event(sim, "joint_error", err, name))
        elif err <= hook.threshold:
            hook.armed = True


def _event(sim, kind: str, value: float, joint: Optional[str] = None) -> SimEvent:
    return SimEvent(kind, sim.state.t, sim.state.step_count, float(value), joint)


def _prim_errors(sim) -> np.ndarray:
    """Position error of every primitive [m or rad] on the current state."""
    from impulsim.dynamics import diagnostics
    return np.asarray(diagnostics.constraint_errors(sim.model, sim.state))
