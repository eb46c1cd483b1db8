"""A run: the bob starts at the start line with a start speed, the pilot steers every 10 ms, the clock
takes the time at every timing station (the bob's nose crossing it), and the run ends at the finish, in a
crash (a rollover point touches the ice), off the track (the nose more than ``OFF_TRACK`` below or beside
the channel: the bob flew over a wall or through the ice, and no later split would mean anything) or when
the bob stops.

    from impulsim.apps.bobsleigh.run import run
    result = run("test_chute")                 # track name or Track, default bob and pilot
    result.splits, result.run_time; result.to_parquet("run.parquet")

Recorded every 10 ms (100 Hz, as the thesis's recorder), each row at the end of its 10 ms: time, station
s, lateral offset b, height h, speed, pose of the rear hull and joint coordinates at that time, the
steering input i and angle β, the steering moment M_soll (the moment the contacts induce in the steering
joint, averaged over the 10 ms, eq. 2.48) and every contact's mean force (n, t, b) over the 10 ms. A run
that finishes ends with the first row past the finish line, so the times at which a trace passes a station
(linear between rows) are its split times.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from impulsim.apps.bobsleigh.bob import load_bob
from impulsim.apps.bobsleigh.bob.sim import BobSim
from impulsim.apps.bobsleigh.pilot import Pilot
from impulsim.apps.bobsleigh.view import TrackView

NOSE = np.array([1.35, 0.0, 0.0])
"""The bob's nose in the bob frame [m] (half the 2.70 m length ahead of the origin): the timing point."""
RECORD_PERIOD = 0.01
"""Recorder and pilot period [s]."""
OFF_TRACK = (-1.0, 4.0)
"""The nose is off the track when its height h above the centre line is below the first value [m] (under
the floor, whose lowest point is at h ≈ 0) or its lateral offset |b| exceeds the second [m] (channels are
at most about 3 m wide at the top)."""


@dataclass
class RunResult:
    """Outcome ("finish", "crash", "off track", "stopped", "time limit"), split times at the track's timing
    stations [s] (NaN where not reached), and the 100 Hz trace (column name → array).

    ``stats``: closed contacts per step (``closed_per_step`` mean over the run, ``closed_per_step_max`` the
    largest 10 ms mean), the time per step of the solver alone as the median over the 10 ms chunks of
    50 steps (``step_us_median`` wall clock, ``step_cpu_us_median`` process CPU time) [µs], and the
    process CPU time of the whole loop ``cpu_time`` [s] (pilot, projection and recorder included)."""
    outcome: str
    stations: np.ndarray
    splits: np.ndarray
    trace: dict
    setup: dict = field(default_factory=dict)
    wall_time: float = 0.0
    steps: int = 0
    stats: dict = field(default_factory=dict)

    @property
    def run_time(self) -> float:
        return float(self.splits[-1])

    def summary(self) -> str:
        rows = [f"outcome: {self.outcome} after {self.trace['t'][-1]:.2f} s simulated "
                f"({self.steps} steps in {self.wall_time:.1f} s wall, {self.stats.get('cpu_time', float('nan')):.1f} s "
                f"CPU, {self.trace['t'][-1] / max(self.wall_time, 1e-9):.1f}x real time; per step median "
                f"{self.stats.get('step_us_median', float('nan')):.0f} µs wall, "
                f"{self.stats.get('step_cpu_us_median', float('nan')):.0f} µs CPU)"]
        for s, t in zip(self.stations, self.splits):
            rows.append(f"  s = {s:7.1f} m   t = {t:7.3f} s")
        v = self.trace["speed"]
        rows.append(f"  top speed {v.max():.2f} m/s ({3.6 * v.max():.1f} km/h), "
                    f"closed contacts per step {self.stats.get('closed_per_step', float('nan')):.2f} on average "
                f"(at most {self.stats.get('closed_per_step_max', float('nan')):.1f} over 10 ms)")
        return "\n".join(rows)

    def to_parquet(self, path):
        """Write the trace, with the setup and splits as file metadata, to a Parquet file."""
        import json
        import pyarrow as pa
        import pyarrow.parquet as pq
        table = pa.table({k: np.asarray(v) for k, v in self.trace.items()})
        meta = {"outcome": self.outcome, "stations": self.stations.tolist(),
                "splits": [None if math.isnan(x) else x for x in self.splits.tolist()], "setup": self.setup}
        table = table.replace_schema_metadata({"impulsim.bob_run": json.dumps(meta)})
        pq.write_table(table, path)


def _start_pose(view, track, sim, start_at=None):
    """Bob frame origin such that the nose is on the start line (or at station ``start_at`` [m]), heading
    along the track."""
    s0 = float(track.start_s if start_at is None else start_at) - NOSE[0]
    view.seek(s0)
    origin, tangent, lateral = view.frame(s0)
    return origin, tangent, lateral


def run(track, *, bob=None, pilot: Pilot | None = None, start_speed: float = 10.0, h: float = 2e-4,
        max_time: float = 120.0, setup: dict | None = None, start_at: float | None = None,
        **options) -> RunResult:
    """Simulate one run on ``track`` (a Track or a name/path for load_track); see the module docstring.

    bob: a Bob or a bob file (default the shipped two-man bob); setup: changes to the bob's parameters
    (e.g. ``{"directness": 0.7, "runner": {"mu_t": 5e-3}}``); h: time step [s]; start_at: station [m] at
    which the nose starts, on the centre line heading along the track at ``start_speed`` (default the start
    line; timing stations at or before it are not taken, their splits stay NaN, and the clock starts at
    0 there); options go to the solver (e_r, e_a, max_iter)."""
    if not (start_speed >= 0 and h > 0 and max_time > 0):
        raise ValueError("run: need start_speed ≥ 0, h > 0 and max_time > 0")
    if isinstance(track, str):
        from impulsim.apps.bobsleigh.track import load_track
        track = load_track(track)
    if bob is None or isinstance(bob, str):
        bob = load_bob(bob or "two_man")
    if setup:
        bob = bob.with_setup(**setup)
    pilot = pilot or Pilot()
    view = TrackView(track)
    sim = BobSim(bob, track.mesh(), **options)
    if start_at is not None and not float(track.s_min) + NOSE[0] + 1.0 <= start_at < float(track.finish_s):
        raise ValueError(f"run: start_at {start_at:g} m lies outside the track")
    origin, tangent, lateral = _start_pose(view, track, sim, start_at)
    sim.place(origin, tangent, lateral, speed=start_speed)
    n_chunk = max(1, int(round(RECORD_PERIOD / h)))
    stations = np.asarray(track.timing_stations, float)
    splits = np.full(len(stations), np.nan)
    rec = _Recorder(len(bob.contacts), sim.system.nq)
    s_prev, t_prev, slow = float(track.start_s if start_at is None else start_at), 0.0, 0.0
    outcome, steps = "time limit", 0
    chunk_us = []
    wall0, cpu0 = time.perf_counter(), time.process_time()
    R, nose, (s, b, hh), speed = _where(sim, view)
    while sim.system.t < max_time:
        yaw_rate = float(sim.system.u[3:6] @ R[:, 2])
        i = pilot.steer(view, s, b, hh, nose, R, speed, yaw_rate)
        beta = bob.steering(i)
        t = sim.system.t
        if hh < OFF_TRACK[0] or abs(b) > OFF_TRACK[1]:
            outcome = "off track"
            break
        _take_splits(stations, splits, s_prev, s, t_prev, t)
        if not np.isnan(splits[-1]):
            outcome = "finish"
            break
        if sim.crashed():
            outcome = "crash"
            break
        slow = slow + RECORD_PERIOD if speed < 0.5 else 0.0
        if slow > 2.0:
            outcome = "stopped"
            break
        s_prev, t_prev = s, t
        sim.system.reset_accumulators()
        c0, p0 = time.perf_counter(), time.process_time()
        steps += sim.run(h, n_chunk, beta)
        chunk_us.append((1e6 * (time.perf_counter() - c0) / n_chunk, 1e6 * (time.process_time() - p0) / n_chunk))
        R, nose, (s, b, hh), speed = _where(sim, view)      # at the row's time, the end of its 10 ms
        rec.add(sim, t + n_chunk * h, s, b, hh, speed, i, beta, n_chunk * h)
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    trace = rec.arrays(bob)
    closed = trace.pop("_closed_per_step")
    stats = {"closed_per_step": float(np.mean(closed)) if len(closed) else float("nan"),
             "closed_per_step_max": float(np.max(closed)) if len(closed) else float("nan"),
             "step_us_median": float(np.median([c[0] for c in chunk_us])) if chunk_us else float("nan"),
             "step_cpu_us_median": float(np.median([c[1] for c in chunk_us])) if chunk_us else float("nan"),
             "cpu_time": cpu}
    setup_info = {"bob": bob.name, "bob_file": bob.source, "pilot": pilot.__dict__, "start_speed": start_speed,
                  "h": h, "track": getattr(track, "name", "")}
    return RunResult(outcome, stations, splits, trace, setup_info, wall, steps, stats)


def _where(sim, view):
    """Rotation of the rear hull, the nose [m, world], its (s, b, h) on the track [m] and the speed [m/s]."""
    R = sim.rotation()
    nose = sim.position + R @ (NOSE - sim.com0)
    return R, nose, view.project(nose), float(np.linalg.norm(sim.velocity))


def _take_splits(stations, splits, s0, s1, t0, t1):
    """Times [s] at which the nose crossed each station between (t0, s0) and (t1, s1), linearly."""
    for k, st in enumerate(stations):
        if np.isnan(splits[k]) and s0 < st <= s1:
            splits[k] = t0 + (t1 - t0) * (st - s0) / (s1 - s0)


class _Recorder:
    """Rows of the 100 Hz trace."""

    def __init__(self, n_contacts, nq):
        self.rows = []
        self.n_contacts = n_contacts

    def add(self, sim, t, s, b, h, speed, i, beta, period):
        sysm = sim.system
        acc = sysm.acc
        st = acc.stats
        self.rows.append((t, s, b, h, speed, *sysm.q, i, beta, float(acc.i_sum[0]) / period,
                          *(acc.P_local.ravel() / period), st[1] / max(st[0], 1), st[2] / max(st[0], 1)))

    def arrays(self, bob):
        names = ["t", "s", "b", "h", "speed", "x", "y", "z", "qw", "qx", "qy", "qz"]
        joints = [b["name"] for b in bob.bodies[1:] if not b.get("actuated")]
        names += [f"angle_{j}" for j in joints]
        names += ["steer_input", "beta", "M_soll"]
        for k, c in enumerate(bob.contacts):
            names += [f"contact{k:02d}_{c['kind']}_{d}" for d in ("n", "t", "b")]
        names += ["_closed_per_step", "sweeps_per_step"]
        data = np.array(self.rows) if self.rows else np.zeros((0, len(names)))
        return {n: data[:, j].copy() for j, n in enumerate(names)}
