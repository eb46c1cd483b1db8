"""Grabbing a body with the mouse through a velocity-only joint (Bender 3.2.6, his environment §1.4).

While a body is grabbed, the simulation runs on a copy of the scene with one more body — a kinematic
"mouse" body at the grabbed point — joined to the grabbed body by a velocity joint with zero relative
velocity. Before every step the mouse body gets the velocity that carries it to the pointer in
TRACK_TIME; the joint solver then moves the grabbed point with it only as far as the body's other
joints allow. On release the simulation returns to the scene's own model, keeping the state.
"""
from __future__ import annotations

import copy

import numpy as np

from impulsim.dynamics.diagnostics import body_user_pose
from impulsim.math.quaternion import quat_conj, quat_mul, quat_rotate_inv, quat_to_rotvec
from impulsim.methods import make
from impulsim.model.state import State
from impulsim.simulation import Simulation

MOUSE, JOINT = "__mouse", "__grab"
TRACK_TIME = 0.1
"""The mouse body closes the gap to the pointer in this time [s] (a first-order follower)."""
MAX_SPEED = 5.0
"""Largest speed [m/s] of the mouse body, so a jump of the pointer cannot fling the body."""
MAX_TURN_RATE = 10.0
"""Largest angular speed [rad/s] a rotate manipulator gives the held body."""


class Grab:
    """An active grab: the extended simulation and the pointer target [m, world]."""

    def __init__(self, sim: Simulation, builder, body: int, point, method: str, options: dict,
                 rotate: bool = False):
        self.base_model = sim.model
        self.body = body
        self.target = np.asarray(point, float).copy()
        self.target_quat = sim.state.body_quat[body].copy() if rotate else None
        self.method, self.options = method, options
        self.sim = self._extended(sim, builder, body, self.target)
        self.mouse = self.sim.model.body(MOUSE)

    def _extended(self, sim: Simulation, builder, body: int, point: np.ndarray) -> Simulation:
        """The simulation of the scene plus the mouse body and the velocity joint, from sim's state."""
        m = sim.model
        pos, quat = body_user_pose(m, sim.state, body)
        b = copy.deepcopy(builder)
        b.add_body(MOUSE, kinematic=True, position=tuple(point))
        angular = {} if self.target_quat is None else {"angular_velocity": (0.0, 0.0, 0.0)}
        b.add_velocity_joint(JOINT, MOUSE, m.body_names[body], anchor_a=(0.0, 0.0, 0.0),
                             anchor_b=tuple(quat_rotate_inv(quat, point - pos)), velocity=(0.0, 0.0, 0.0),
                             **angular)
        model, initial = b.build()
        if model.body_names[:m.n_bodies] != m.body_names:
            raise ValueError("grab: the extended model reorders the bodies")
        state = _extend_state(sim.state, initial, m.n_bodies)
        ext = Simulation(model, state, method=make(self.method, model, **self.options), h=sim.h)
        ext.before_step = [self._follow] + list(sim.before_step)
        ext.after_step, ext.events = sim.after_step, sim.events
        return ext

    def _follow(self, sim: Simulation) -> None:
        """Give the mouse body the velocity that carries it to the pointer."""
        v = (self.target - sim.state.body_pos[self.mouse]) / max(TRACK_TIME, sim.h)
        speed = np.linalg.norm(v)
        sim.state.body_vel[self.mouse] = v if speed <= MAX_SPEED else v * (MAX_SPEED / speed)
        if self.target_quat is not None:   # turn the body towards the target orientation, same time scale
            dq = quat_mul(self.target_quat, quat_conj(sim.state.body_quat[self.body]))
            w = np.asarray(quat_to_rotvec(dq)) / max(TRACK_TIME, sim.h)
            rate = np.linalg.norm(w)
            sim.state.body_omega[self.mouse] = w if rate <= MAX_TURN_RATE else w * (MAX_TURN_RATE / rate)

    def release(self) -> Simulation:
        """The simulation of the scene's own model, continuing from the current state."""
        model, n = self.base_model, self.base_model.n_bodies
        state = _shrink_state(self.sim.state, n)
        out = Simulation(model, state, method=make(self.method, model, **self.options), h=self.sim.h)
        out.before_step = self.sim.before_step[1:]
        out.after_step, out.events = self.sim.after_step, self.sim.events
        return out


def _extend_state(state: State, initial: State, n: int) -> State:
    """``initial`` (the extended model's) with the first n bodies and all other fields from ``state``."""
    out = initial.copy()
    for name, value in state.arrays().items():
        if isinstance(value, np.ndarray) and value.ndim >= 1 and name.startswith("body_"):
            getattr(out, name)[:n] = value
        elif isinstance(value, np.ndarray):
            getattr(out, name)[...] = value
        else:
            setattr(out, name, value)
    return out


def _shrink_state(state: State, n: int) -> State:
    """A copy of ``state`` without the bodies from index n on."""
    kw = {name: (value[:n].copy() if name.startswith("body_") else
                 value.copy() if isinstance(value, np.ndarray) else value)
          for name, value in state.arrays().items()}
    return State(**kw)
