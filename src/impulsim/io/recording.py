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

Crash safety: a recorder given a ``path`` streams its rows to a journal beside it (``PATH.journal``, an
Arrow IPC stream) in batches, flushed to the disk every ``flush_rows`` rows or ``flush_seconds`` seconds,
whichever comes first, and holds no more than one batch in memory. :meth:`Recorder.close` turns the journal
into the Parquet file. A run killed before that (SIGKILL, power loss) leaves the journal: every flushed
row is in it, and :func:`read_recording` reads it when the Parquet file is missing (at most one flush
interval is lost); :func:`recover_recording` writes the Parquet file from it.
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Optional

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from impulsim.dynamics import diagnostics
from impulsim.model.kinds import JOINT_COORDINATES, Coordinate, JointKind

BODY_SUFFIXES = ("x", "y", "z", "qw", "qx", "qy", "qz", "vx", "vy", "vz", "wx", "wy", "wz")
INT_COLUMNS = ("step", "iters_pos", "iters_vel", "clamped", "n_contacts", "n_collisions")
METADATA_KEY = b"impulsim"
JOURNAL_SUFFIX = ".journal"
FLUSH_ROWS = 4096
"""Default rows per journal batch."""
FLUSH_SECONDS = 1.0
"""Default longest time [s] between two flushes of the journal (the most a crash loses)."""


class Recorder:
    """Collects rows of a model's state and step diagnostics; :meth:`table` makes the Arrow table."""

    def __init__(self, model, metadata: Optional[dict] = None, path: str | os.PathLike | None = None,
                 flush_rows: int = FLUSH_ROWS, flush_seconds: float = FLUSH_SECONDS):
        """``path``: stream the rows to ``path`` (a Parquet file after :meth:`close`, a journal beside it
        until then); None keeps them in memory until :meth:`write`."""
        self.model = model
        self.metadata = dict(metadata or {})
        self.bodies = np.array([k for k in range(model.n_bodies) if not model.body_static[k]], np.int64)
        self.coordinates = [(j, c) for j in range(model.n_joints)
                            for c in JOINT_COORDINATES.get(JointKind(int(model.joint_kind[j])), ())]
        self.columns = self._column_names()
        self.metadata.setdefault("units", column_units(self.columns))
        self._rows: list[np.ndarray] = []
        self.path = None if path is None else Path(path)
        self.flush_rows, self.flush_seconds = max(1, int(flush_rows)), float(flush_seconds)
        self._journal = self._sink = None
        self._n_flushed = 0
        self._last_flushed_step = -1
        self._last_flush = time.monotonic()
        self.closed = False
        if self.path is not None:
            self._open_journal()

    @property
    def journal_path(self) -> Optional[Path]:
        return None if self.path is None else journal_path(self.path)

    def _schema(self) -> pa.Schema:
        fields_ = [pa.field(c, pa.int64() if c in INT_COLUMNS else pa.float64()) for c in self.columns]
        return pa.schema(fields_, metadata={METADATA_KEY: json.dumps(self.metadata).encode()})

    def _open_journal(self):
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._sink = open(self.journal_path, "wb")
        self._journal = pa.ipc.new_stream(self._sink, self._schema())
        self._sync()

    def _sync(self):
        self._sink.flush()
        os.fsync(self._sink.fileno())

    def flush(self) -> None:
        """Write the rows held in memory to the journal and make the disk hold them (fsync)."""
        if self._journal is None or not self._rows:
            return
        with _signals_held():            # Ctrl-C or SIGTERM in the middle would leave half a batch
            self._journal.write_batch(self._batch(self._rows))
            self._n_flushed += len(self._rows)
            self._last_flushed_step = int(self._rows[-1][0])
            self._rows = []
            self._sync()
        self._last_flush = time.monotonic()

    def close(self) -> Optional[Path]:
        """Flush, end the journal and write the Parquet file from it (then the journal is removed).
        Returns the Parquet path (None for an in-memory recorder). Safe to call twice."""
        if self.path is None or self.closed:
            return self.path
        self.flush()
        self._journal.close()
        self._sink.close()
        _journal_to_parquet(self.journal_path, self.path)
        self.closed = True
        return self.path

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
        return self._n_flushed + len(self._rows)

    def record(self, state, info=None) -> None:
        """Append one row for ``state`` and the :class:`StepInfo` of the step that produced it.

        ``state`` may also be a :class:`~impulsim.Simulation` (its current state is recorded), so that
        ``sim.run(duration, observer=recorder.record)`` records every step. A state on its way to
        overflow is recorded as it is (inf), without numpy warnings.
        """
        if self.closed:
            raise ValueError("the recording is closed")
        if hasattr(state, "state") and hasattr(state, "step"):     # a Simulation, as observers get it
            state = state.state
        with np.errstate(all="ignore"):
            row = self._row(state, info)
        self._rows.append(row)       # one operation: a Ctrl-C lands before or after it, never half-way
        if self._journal is not None and (len(self._rows) >= self.flush_rows
                                          or time.monotonic() - self._last_flush >= self.flush_seconds):
            self.flush()

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
        """Step count of the last recorded row (−1 if none), read from the row itself, so that a Ctrl-C
        arriving right after a row was added cannot make a run record that step twice."""
        return int(self._rows[-1][0]) if self._rows else self._last_flushed_step

    def _batch(self, rows) -> pa.RecordBatch:
        data = np.array(rows, dtype=np.float64).reshape(len(rows), len(self.columns))
        arrays = [data[:, i].astype(np.int64) if name in INT_COLUMNS else data[:, i]
                  for i, name in enumerate(self.columns)]
        return pa.RecordBatch.from_arrays(arrays, schema=self._schema())

    def table(self) -> pa.Table:
        """The rows as an Arrow table with the run's metadata attached (for a streaming recorder: the
        rows on disk and those not yet flushed)."""
        if self.path is None:
            return pa.Table.from_batches([self._batch(self._rows)], schema=self._schema())
        if self.closed:
            return pq.read_table(self.path)
        self.flush()
        return _read_journal(self.journal_path, self._schema())

    def write(self, path: str | os.PathLike) -> None:
        """Write the recording as a Parquet file (a streaming recorder is closed, then copied if ``path``
        is not its own)."""
        if self.path is not None:
            self.close()
            if Path(path).resolve() != self.path.resolve():
                pq.write_table(pq.read_table(self.path), path)
            return
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


class _signals_held:
    """Hold SIGINT and SIGTERM back while a batch is written (they arrive right after); a no-op where the
    process mask cannot be set."""

    def __enter__(self):
        import signal
        try:
            self._old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
        except (AttributeError, OSError, ValueError):
            self._old = None

    def __exit__(self, *exc):
        if self._old is not None:
            import signal
            signal.pthread_sigmask(signal.SIG_SETMASK, self._old)
        return False


def journal_path(path: str | os.PathLike) -> Path:
    """The journal a streaming recording keeps beside ``path`` until it is closed."""
    path = Path(path)
    return path.with_name(path.name + JOURNAL_SUFFIX)


def read_recording(path: str | os.PathLike) -> pa.Table:
    """A recording written by :meth:`Recorder.write` or :meth:`Recorder.close` as an Arrow table. When the
    Parquet file is missing but its journal is there (the run was killed), the journal's flushed rows."""
    path = Path(path)
    if not path.exists() and journal_path(path).exists():
        return _read_journal(journal_path(path))
    return pq.read_table(path)


def recover_recording(path: str | os.PathLike) -> int:
    """Write the Parquet file of a killed run from its journal (then remove the journal); returns the rows
    recovered."""
    path = Path(path)
    return _journal_to_parquet(journal_path(path), path)


def _read_journal(journal: Path, schema: Optional[pa.Schema] = None) -> pa.Table:
    """Every complete batch of a journal; a batch cut short by a crash, and what follows, are left out."""
    batches = []
    with open(journal, "rb") as f:
        try:
            reader = pa.ipc.open_stream(f)
        except (pa.ArrowInvalid, OSError):
            if schema is None:
                raise ValueError(f"{journal}: the journal has no readable header") from None
            return schema.empty_table()
        schema = reader.schema
        while True:
            try:
                batches.append(reader.read_next_batch())
            except StopIteration:
                break
            except (pa.ArrowInvalid, OSError):
                break
    return pa.Table.from_batches(batches, schema=schema)


def _journal_to_parquet(journal: Path, path: Path) -> int:
    table = _read_journal(journal)
    tmp = path.with_name(path.name + ".tmp")
    pq.write_table(table, tmp)
    os.replace(tmp, path)
    journal.unlink()
    return table.num_rows


def read_metadata(path_or_table) -> dict:
    """The run description stored with a recording (empty if there is none)."""
    table = path_or_table if isinstance(path_or_table, pa.Table) else pq.read_schema(path_or_table)
    raw = (table.schema.metadata if isinstance(table, pa.Table) else table.metadata) or {}
    return json.loads(raw[METADATA_KEY]) if METADATA_KEY in raw else {}
