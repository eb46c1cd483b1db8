"""The mass-point model and state (Schmitt & Thüring 2000): a model type of its own.

A mass-point system is not a set of rigid bodies with orientations and inertia tensors: it is a cloud of
point masses whose only relations are the distances in the constraint list L. It therefore has its own
immutable :class:`MassPointModel` (flat arrays with entity prefixes ``point_*``, ``con_*``, ``kick_*``) and
its own mutable :class:`MassPointState`, built by
:class:`~impulsim.methods.masspoint.builder.MassPointBuilder` and stepped by
:class:`~impulsim.methods.masspoint.method.MassPointMethod` with the same ``step(state, h)`` call shape as
the rigid-body methods. World frame, SI units, z up as everywhere in impulsim.
"""
from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np


@dataclass(frozen=True, eq=False)
class MassPointModel:
    """Everything about a mass-point system that does not change during a run."""
    name: str
    gravity: np.ndarray
    """Gravitational acceleration g [m/s²], world frame, shape [3]."""

    point_names: tuple
    point_kind: np.ndarray
    """PointKind per point (free, fixed, line, plane), shape [n_points], int8."""
    point_mass: np.ndarray
    """Mass m_i [kg], shape [n_points]; the value of a fixed point is kept but never used."""
    point_inv_mass: np.ndarray
    """1/m_i [1/kg], shape [n_points]; 0 for fixed (suspension) points."""
    point_proj: np.ndarray
    """Projector A_i onto the directions point i may move in, world frame, shape [n_points, 3, 3]:
    E for free points, a aᵀ on a line of direction a, E − n nᵀ in a plane of normal n, 0 when fixed.
    The point's inverse mass matrix is W_i = A_i / m_i."""
    point_axis: np.ndarray
    """Line direction or plane normal (unit), world frame, shape [n_points, 3]; zero otherwise."""

    con_names: tuple
    con_kind: np.ndarray
    """ConstraintKind per constraint, shape [n_constraints], int32."""
    con_i: np.ndarray
    """First point of each constraint, shape [n_constraints], int64."""
    con_j: np.ndarray
    """Second point of each constraint, shape [n_constraints], int64."""
    con_length: np.ndarray
    """Target distance d [m] (exact for DISTANCE, upper bound for THREAD), shape [n_constraints]."""

    kick_point: np.ndarray
    """Point each external force Fex acts on, shape [n_kicks], int64."""
    kick_force: np.ndarray
    """Force Fex [N], world frame, shape [n_kicks, 3]."""
    kick_start: np.ndarray
    """Time the force is switched on [s], shape [n_kicks]."""
    kick_end: np.ndarray
    """Time the force is switched off [s] (may be inf), shape [n_kicks]."""

    def __post_init__(self):
        for f in fields(self):
            v = getattr(self, f.name)
            if isinstance(v, np.ndarray):
                v.setflags(write=False)

    @property
    def n_points(self) -> int:
        return len(self.point_names)

    @property
    def n_constraints(self) -> int:
        return len(self.con_names)

    @property
    def n_kicks(self) -> int:
        return int(self.kick_point.shape[0])

    @property
    def movable(self) -> np.ndarray:
        """Boolean mask of the points that can move (finite mass), shape [n_points]."""
        return self.point_inv_mass > 0.0

    def point(self, name: str) -> int:
        """Index of the point called ``name``."""
        return _lookup(self.point_names, name, "point")

    def constraint(self, name: str) -> int:
        """Index of the constraint called ``name``."""
        return _lookup(self.con_names, name, "constraint")


@dataclass(eq=False)
class MassPointState:
    """What changes during a run; copyable and savable for exact restarts."""
    t: float
    """Simulation time [s]."""
    step_count: int
    point_pos: np.ndarray
    """Positions P_i [m], world frame, shape [n_points, 3]."""
    point_vel: np.ndarray
    """Velocities V_i [m/s], world frame, shape [n_points, 3]."""
    point_force: np.ndarray
    """User force [N] on each point, world frame, held until changed (added to the model's kicks),
    shape [n_points, 3]."""

    def copy(self) -> "MassPointState":
        """A deep copy."""
        return MassPointState(**{f.name: _copy(getattr(self, f.name)) for f in fields(self)})

    def assign(self, other: "MassPointState") -> None:
        """Overwrite this state's values with ``other``'s in place (arrays keep their identity)."""
        for f in fields(self):
            v = getattr(other, f.name)
            if isinstance(v, np.ndarray):
                getattr(self, f.name)[...] = v
            else:
                setattr(self, f.name, v)

    assign_motion = assign
    """A step's commit (:meth:`impulsim.model.State.assign_motion`): here the whole state."""

    def arrays(self) -> dict:
        """Name -> array (or scalar) of every field, for saving."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def save(self, path) -> None:
        """Write an exact (bit-for-bit) checkpoint as .npz."""
        np.savez(path, **{k: np.asarray(v) for k, v in self.arrays().items()})

    @classmethod
    def load(cls, path) -> "MassPointState":
        """Read a checkpoint written by :meth:`save`."""
        with np.load(path) as data:
            return cls(**{f.name: (data[f.name].copy() if data[f.name].ndim else data[f.name].item())
                          for f in fields(cls)})


def _copy(v):
    return v.copy() if isinstance(v, np.ndarray) else v


def _lookup(names, name, what):
    try:
        return names.index(name)
    except ValueError:
        raise KeyError(f"no {what} called {name!r}") from None
