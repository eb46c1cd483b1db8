"""Recording of driven runs: the 100 Hz trace of ``run.py`` plus where each runner touches the ice, and
reading a recorded run back."""
from __future__ import annotations

import json
import math

import numpy as np

from impulsim.apps.bobsleigh.run import RunResult, _Recorder


class DriveRecorder(_Recorder):
    """The run recorder with, per row, each runner contact point [m] (world; NaN while the runner is off the
    ice): the runner traces drawn on the ice in a replay."""

    def __init__(self, n_contacts, nq, runners):
        super().__init__(n_contacts, nq)
        self.runners = np.asarray(runners, int)
        self.points = []

    def add(self, sim, *args):
        super().add(sim, *args)
        c = sim.system.contacts
        p = c.point[self.runners].copy()
        p[c.closed[self.runners] == 0] = np.nan
        self.points.append(p.ravel())

    def arrays(self, bob):
        out = super().arrays(bob)
        pts = np.array(self.points) if self.points else np.zeros((0, 3 * len(self.runners)))
        for j, k in enumerate(self.runners):
            for a, ax in enumerate("xyz"):
                out[f"trace{k:02d}_{ax}"] = pts[:, 3 * j + a].copy()
        return out


def load_run(path) -> RunResult:
    """A run written by :meth:`RunResult.to_parquet` (trace, outcome, stations, splits, setup)."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    try:
        table = pq.read_table(path)
    except (OSError, pa.ArrowException) as e:
        raise ValueError(f"{path}:1: run file: cannot read ({e})") from None
    meta = (table.schema.metadata or {}).get(b"impulsim.bob_run")
    if meta is None:
        raise ValueError(f"{path}:1: run file: no impulsim.bob_run metadata (not a recorded run)")
    m = json.loads(meta)
    trace = {name: table.column(name).to_numpy() for name in table.column_names}
    splits = np.array([math.nan if x is None else x for x in m["splits"]], float)
    return RunResult(m["outcome"], np.asarray(m["stations"], float), splits, trace, m.get("setup", {}))


def runner_traces(trace) -> np.ndarray:
    """All runner contact points of a trace [N, 3] (float32, world), NaN rows removed."""
    keys = sorted({k[:-2] for k in trace if k.startswith("trace")})
    if not keys:
        return np.zeros((0, 3), np.float32)
    pts = np.concatenate([np.column_stack([trace[k + "_x"], trace[k + "_y"], trace[k + "_z"]]) for k in keys])
    return pts[np.isfinite(pts).all(axis=1)].astype(np.float32)
