"""The mutable simulation state: positions, orientations, velocities and controller memory."""
from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np


@dataclass(eq=False)
class State:
    """Everything that changes during a run; copyable and savable for exact restarts.

    Positions and orientations are those of each body's principal frame (centre of mass), world frame.
    """
    t: float
    """Simulation time [s]."""
    step_count: int
    body_pos: np.ndarray
    """Centre of mass [m], world frame, shape [n_bodies, 3]."""
    body_quat: np.ndarray
    """Orientation of the principal frame (w, x, y, z), shape [n_bodies, 4]."""
    body_vel: np.ndarray
    """Velocity of the centre of mass [m/s], world frame, shape [n_bodies, 3]."""
    body_omega: np.ndarray
    """Angular velocity [rad/s], world frame, shape [n_bodies, 3]."""
    body_force: np.ndarray
    """User force [N] at the centre of mass, world frame, held until changed, shape [n_bodies, 3]."""
    body_torque: np.ndarray
    """User torque [N m], world frame, held until changed, shape [n_bodies, 3]."""
    motor_effort: np.ndarray
    """Current motor torque [N m] or force [N], shape [n_motors]."""
    servo_integral: np.ndarray
    """Time integral of the servo error [unit·s], shape [n_servos]."""
    servo_prev_error: np.ndarray
    """Servo error at the previous step (NaN before the first step), shape [n_servos]."""
    servo_effort: np.ndarray
    """Effort the servo applied in the last step [N m or N], shape [n_servos]."""

    def copy(self) -> "State":
        """A deep copy."""
        return State(**{name: _copy(getattr(self, name)) for name in _FIELDS})

    def assign(self, other: "State") -> None:
        """Overwrite this state's values with ``other``'s in place (arrays keep their identity)."""
        self.assign_motion(other)
        self.body_force[...] = other.body_force
        self.body_torque[...] = other.body_torque
        if self.motor_effort.size:
            self.motor_effort[...] = other.motor_effort

    def assign_motion(self, other: "State") -> None:
        """Overwrite what a step changes (time, poses, velocities, controller memory) with ``other``'s;
        the user's inputs (forces, torques, motor efforts) stay. This is a step's commit.

        Written out field by field: every step calls this twice (Method.step), and on a small model the
        calls, not the copies, are its cost (a loop over the field names with np.copyto took ~3 times as
        long)."""
        self.body_pos[...] = other.body_pos
        self.body_quat[...] = other.body_quat
        self.body_vel[...] = other.body_vel
        self.body_omega[...] = other.body_omega
        if self.servo_integral.size:
            self.servo_integral[...] = other.servo_integral
            self.servo_prev_error[...] = other.servo_prev_error
            self.servo_effort[...] = other.servo_effort
        self.t = other.t
        self.step_count = other.step_count

    def arrays(self) -> dict:
        """Name -> array (or scalar) of every field, for saving."""
        return {name: getattr(self, name) for name in _FIELDS}

    def save(self, path) -> None:
        """Write an exact (bit-for-bit) checkpoint as .npz."""
        np.savez(path, **{k: np.asarray(v) for k, v in self.arrays().items()})

    @classmethod
    def load(cls, path) -> "State":
        """Read a checkpoint written by :meth:`save`."""
        with np.load(path) as data:
            kw = {}
            for f in fields(cls):
                v = data[f.name]
                kw[f.name] = v.copy() if v.ndim else v.item()
            return cls(**kw)


_FIELDS = tuple(f.name for f in fields(State))
_ARRAY_FIELDS = tuple(name for name in _FIELDS if name not in ("t", "step_count"))
_INPUT_FIELDS = ("body_force", "body_torque", "motor_effort")
"""Fields the user sets and a step only reads (State.assign_motion leaves them)."""


def _copy(v):
    return v.copy() if isinstance(v, np.ndarray) else v
