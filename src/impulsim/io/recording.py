"""Recordings: one row per recorded step, written as a Parquet table that pandas and polars read.

Columns (all float64 unless noted; vectors in the world frame):

* ``step`` (int64), ``t`` [s]
* per moving body ``B`` (static bodies are left out): ``B.x B.y B.z`` centre of mass [m],
  ``B.qw B.qx B.qy B.qz`` orientation of the principal frame, ``B.vx B.vy B.vz`` velocity of the centre
  of mass [m/s], ``B.wx B.wy B.wz`` angular velocity [rad/s]
* per joint ``J`` with an axis coordinate: ``J.angle`` [rad] and/or ``J.position`` [m]
* per servo ``S``: ``S.effort`` [N m or N] applied in the last step
* ``energy_kinetic``, ``energy_potential`` (gravity and springs), ``energy`` [J]
* ``momentum.x/y/z`` [kg m/s], ``angular_momentum.x/y/z`` about the origin [kg m²/s]
* ``constraint_error`` largest position error of any primitive [m or rad], ``velocity_error``
  largest velocity error [m/s or rad/s], both measured on the recorded state
* from the step's :class:`~impulsim.methods.StepInfo` (zero in the row of the initial state):
  ``iters_pos``, ``iters_vel`` (int64) passes of the position and velocity corrections;
  ``residual_pos`` [m or rad], ``residual_vel`` [m/s or rad/s] the largest errors seen in the last
  sweeps; ``clamped`` (int64) corrections cut short by the per-step impulse clamp; ``n_contacts``
  (int64) contact points detected at the start of the step (0 without collision shapes);
  ``n_collisions`` (int64) of those, the points approaching faster than the collision threshold
  ``eps_rc`` and so resolved as collisions

The run's description (scene, method, options, h, …) is stored as JSON in the schema metadata under
``impulsim``; :func:`read_metadata` returns it. Its ``units`` entry maps every column to its unit
(:func:`column_units`; "" for counts and quaternion components). The model's ``body_frame_offset``/``body_frame_quat``
map the recorded principal frames back to the frames the scene defined the bodies in.
"""
from __future__ import annotations

import json
import os
from typing import Optional

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from impulsim.dynamics import diagnostics
from impulsim.model.kinds import JOINT_COORDINATES, Coordinate, JointKind

BODY_SUFFIXES = ("x", "y", "z", "qw", "qx", "qy", "qz", "vx", "vy", "vz", "wx", "wy", "wz")
INT_COLUMNS = ("step", "iters_pos", "iters_vel", "clamped", "n_contacts", "n_collisions")
METADATA_KEY = b"impulsim"


class Recorder:
    """Collects rows of a model's state and step diagnostics; :meth:`table` makes the Arrow table."""

    def __init__(self, model, metadata: Optional[dict] = None):
        self.model = model
        self.metadata = dict(metadata or {})
        self.bodies = np.array([k for k in range(model.n_bodies) if not model.body_static[k]], np.int64)
        self.coordinates = [(j, c) for j in range(model.n_joints)
                            for c in JOINT_COORDINATES.get(JointKind(int(model.joint_kind[j])), ())]
        self.columns = self._column_names()
        self.metadata.setdefault("units", column_units(self.columns))
        self._rows: list[np.ndarray] = []

    def _column_names(self) -> list[str]:
        m = self.model
        cols = ["step", "t"]
        cols += [f"{m.body_names[k]}.{s}" for k in self.bodies for s in BODY_SUFFIXES]
        cols += [f"{m.joint_names[j]}.{Coordinate(c).name.lower()}" for j, c in self.coordinates]
        cols += [f"{name}.effort" for name in m.servo_names]
        cols += ["energy_kinetic", "energy_potential", "energy"]
        cols += [f"momentum.{a}" for a in "xyz"] + [f"angular_momentum.{a}" for a in "xyz"]
        cols += ["constraint_error", "velocity_error", "iters_pos", "iters_vel", "residual_pos",
                 "residual_vel", "clamped", "n_contacts", "n_collisions"]
        if len(set(cols)) != len(cols):
            dup = sorted({c for c in cols if cols.count(c) > 1})
            raise ValueError(f"recording columns are not unique: {', '.join(dup)} (rename the elements)")
        return cols

    def __len__(self) -> int:
        return len(self._rows)

    def record(self, state, info=None) -> None:
        """Append one row for ``state`` and the :class:`StepInfo` of the step that produced it.

        ``state`` may also be a :class:`~impulsim.Simulation` (its current state is recorded), so that
        ``sim.run(duration, observer=recorder.record)`` records every step. A state on its way to
        overflow is recorded as it is (inf), without numpy warnings.
        """
        if hasattr(state, "state") and hasattr(state, "step"):     # a Simulation, as observers get it
            state = state.state
        with np.errstate(all="ignore"):
            self._rows.append(self._row(state, info))

    def _row(self, state, info) -> np.ndarray:
        m, k = self.model, self.bodies
        bodies = np.concatenate([state.body_pos[k], state.body_quat[k], state.body_vel[k],
                                 state.body_omega[k]], axis=1).ravel()
        coords = [diagnostics.joint_coordinate(m, state, j, Coordinate(c).name.lower())
                  for j, c in self.coordinates]
        kinetic = diagnostics.kinetic_energy(m, state)
        potential = diagnostics.potential_energy(m, state)
        c_err = diagnostics.constraint_errors(m, state)
        v_err = diagnostics.velocity_errors(m, state)
        step_info = [0, 0, 0.0, 0.0, 0, 0, 0] if info is None else [
            info.iters_pos, info.iters_vel, info.residual_pos, info.residual_vel, info.clamped, info.n_contacts,
            info.n_collisions]
        row = np.concatenate([
            [state.step_count, state.t], bodies, coords, state.servo_effort,
            [kinetic, potential, kinetic + potential], diagnostics.linear_momentum(m, state),
            diagnostics.angular_momentum(m, state),
            [c_err.max(initial=0.0), v_err.max(initial=0.0)], step_info])
        return row.astype(np.float64)

    def last_step(self) -> int:
        """Step count of the last recorded row (−1 if none)."""
        return int(self._rows[-1][0]) if self._rows else -1

    def table(self) -> pa.Table:
        """The rows as an Arrow table with the run's metadata attached."""
        data = np.array(self._rows, dtype=np.float64).reshape(len(self._rows), len(self.columns))
        arrays = {}
        for i, name in enumerate(self.columns):
            col = data[:, i]
            arrays[name] = col.astype(np.int64) if name in INT_COLUMNS else col
        table = pa.table(arrays)
        return table.replace_schema_metadata({METADATA_KEY: json.dumps(self.metadata).encode()})

    def write(self, path: str | os.PathLike) -> None:
        """Write the recording as a Parquet file."""
        pq.write_table(self.table(), path)


UNITS = {"step": "", "t": "s", "x": "m", "y": "m", "z": "m", "qw": "", "qx": "", "qy": "", "qz": "",
         "vx": "m/s", "vy": "m/s", "vz": "m/s", "wx": "rad/s", "wy": "rad/s", "wz": "rad/s",
         "angle": "rad", "position": "m", "effort": "N m or N", "energy_kinetic": "J",
         "energy_potential": "J", "energy": "J", "momentum": "kg m/s", "angular_momentum": "kg m^2/s",
         "constraint_error": "m or rad", "velocity_error": "m/s or rad/s", "iters_pos": "",
         "iters_vel": "", "residual_pos": "m or rad", "residual_vel": "m/s or rad/s", "clamped": "",
         "n_contacts": "", "n_collisions": ""}
"""Unit of each column kind: by the full name, else by what follows the last dot ("link1.vx")."""


def column_units(columns) -> dict:
    """``{column: unit}`` for recording columns (SI; "" for counts and quaternion components)."""
    out = {}
    for name in columns:
        head, _, tail = name.rpartition(".")
        if head in ("momentum", "angular_momentum"):       # vector columns: the unit of the vector
            out[name] = UNITS[head]
        else:                                             # B.x, J.angle, S.effort or a plain column
            out[name] = UNITS.get(name, UNITS.get(tail, ""))
    return out


def read_recording(path: str | os.PathLike) -> pa.Table:
    """A recording written by :meth:`Recorder.write` as an Arrow table."""
    return pq.read_table(path)


def read_metadata(path_or_table) -> dict:
    """The run description stored with a recording (empty if there is none)."""
    table = path_or_table if isinstance(path_or_table, pa.Table) else pq.read_schema(path_or_table)
    raw = (table.schema.metadata if isinstance(table, pa.Table) else table.metadata) or {}
    return json.loads(raw[METADATA_KEY]) if METADATA_KEY in raw else {}
