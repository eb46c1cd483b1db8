"""Recording a mass-point run: every state of a :class:`~impulsim.simulation.Simulation` with each step's
fin and velocity-correction report, for the experiments, tests, examples and benchmarks."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class Trajectory:
    """A recorded run: the initial state and the state after every step, with each step's report."""
    t: np.ndarray
    """Times [s], shape [n_steps + 1]."""
    pos: np.ndarray
    """Body positions [m] (the points; static bodies stay put), shape [n_steps + 1, n_bodies, 3]."""
    vel: np.ndarray
    """Body velocities [m/s], shape [n_steps + 1, n_bodies, 3]."""
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
    system: object = None
    """The stepped :class:`~impulsim.methods.masspoint.system.PointSystem` (links, rails, anchors)."""

    @property
    def n_steps(self) -> int:
        return int(self.fin_passes.shape[0])


def record(sim, n_steps: int) -> Trajectory:
    """Run ``n_steps`` steps of ``sim`` (a Simulation) and return the trajectory including the start."""
    n = sim.model.n_bodies
    pos = np.empty((n_steps + 1, n, 3))
    vel = np.empty((n_steps + 1, n, 3))
    t = np.empty(n_steps + 1)
    ints = np.zeros((2, n_steps), dtype=np.int64)
    flags = np.ones((2, n_steps), dtype=bool)
    res = np.zeros((2, n_steps))
    pos[0], vel[0], t[0] = sim.state.body_pos, sim.state.body_vel, sim.state.t
    for k in range(n_steps):
        info = sim.step()
        pos[k + 1], vel[k + 1], t[k + 1] = sim.state.body_pos, sim.state.body_vel, sim.state.t
        ints[:, k] = info.iters_pos, info.iters_vel
        flags[:, k] = info.converged_pos, info.converged_vel
        res[:, k] = info.residual_pos, info.residual_vel
    return Trajectory(t, pos, vel, ints[0], ints[1], flags[0], flags[1], res[0], res[1],
                      getattr(sim.method, "system", None))
