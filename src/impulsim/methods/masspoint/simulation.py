"""Running a mass-point system: the runner (same API as ``impulsim.Simulation``) and a recorder."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np

from impulsim.methods.base import StepInfo
from impulsim.methods.masspoint.method import MassPointMethod
from impulsim.methods.masspoint.model import MassPointModel, MassPointState


class MassPointSimulation:
    """Steps a mass-point system at a fixed step size h [s]; the counterpart of ``impulsim.Simulation``.

    ``method_options`` go to :class:`MassPointMethod` (eps, weight, velocity_correction, ...), or pass a
    ready ``method``. ``before_step`` holds callbacks ``fn(sim)``, ``after_step`` callbacks
    ``fn(sim, info)``; they may read and change the state (e.g. ``state.point_force``) between steps.
    """

    def __init__(self, model: MassPointModel, state: MassPointState, h: float,
                 method: Optional[MassPointMethod] = None, **method_options):
        if method is not None and method_options:
            raise ValueError("give either a method or method options, not both")
        self.model = model
        self.state = state
        self.method = method if method is not None else MassPointMethod(model, **method_options)
        self.h = float(h)
        self.before_step: list[Callable] = []
        self.after_step: list[Callable] = []
        self.last_info: Optional[StepInfo] = None

    @property
    def t(self) -> float:
        return self.state.t

    def step(self) -> StepInfo:
        """One step of size h; hooks run around it."""
        for fn in self.before_step:
            fn(self)
        info = self.method.step(self.state, self.h)
        self.last_info = info
        for fn in self.after_step:
            fn(self, info)
        return info

    def run(self, duration: float, *, every: int = 1, observer: Optional[Callable] = None) -> int:
        """Advance by ``duration`` [s] rounded to whole steps; returns the number of steps taken.

        ``observer(sim, info)`` is called every ``every`` steps (e.g. :class:`Recorder`).
        """
        n = max(0, int(math.floor(duration / self.h + 0.5)))
        for k in range(n):
            info = self.step()
            if observer is not None and (k + 1) % every == 0:
                observer(self, info)
        return n


@dataclass
class Trajectory:
    """A recorded run: the initial state and the state after every step, with each step's report."""
    t: np.ndarray
    """Times [s], shape [n_steps + 1]."""
    pos: np.ndarray
    """Positions [m], shape [n_steps + 1, n_points, 3]."""
    vel: np.ndarray
    """Velocities [m/s], shape [n_steps + 1, n_points, 3]."""
    fin_passes: np.ndarray
    """Passes of the fin loop in each step, shape [n_steps]."""
    vel_passes: np.ndarray
    """Passes of the velocity correction in each step (0 when it is off), shape [n_steps]."""
    fin_converged: np.ndarray
    vel_converged: np.ndarray
    residual_pos: np.ndarray
    """Largest link error after the fin loop [m], shape [n_steps]."""
    residual_vel: np.ndarray
    """Largest relative link speed after the velocity correction [m/s], shape [n_steps]."""

    @property
    def n_steps(self) -> int:
        return int(self.fin_passes.shape[0])


def record(sim: MassPointSimulation, n_steps: int) -> Trajectory:
    """Run ``n_steps`` steps and return the trajectory including the starting state."""
    n = sim.model.n_points
    pos = np.empty((n_steps + 1, n, 3))
    vel = np.empty((n_steps + 1, n, 3))
    t = np.empty(n_steps + 1)
    ints = np.zeros((2, n_steps), dtype=np.int64)
    flags = np.ones((2, n_steps), dtype=bool)
    res = np.zeros((2, n_steps))
    pos[0], vel[0], t[0] = sim.state.point_pos, sim.state.point_vel, sim.state.t
    for k in range(n_steps):
        info = sim.step()
        pos[k + 1], vel[k + 1], t[k + 1] = sim.state.point_pos, sim.state.point_vel, sim.state.t
        ints[:, k] = info.iters_pos, info.iters_vel
        flags[:, k] = info.converged_pos, info.converged_vel
        res[:, k] = info.residual_pos, info.residual_vel
    return Trajectory(t, pos, vel, ints[0], ints[1], flags[0], flags[1], res[0], res[1])
