"""The driving simulator's real-time loop: a pilot steers the bob through a steering lever, the simulation
keeps up with wall time, every run is recorded, and runs can be replayed with a ghost.

Real-time loop (one pass per rendered frame, 60 Hz by default): the frame time Δt_F measured since the
previous pass is split into n = round(Δt_F / h) sub-steps of h = 0.2 ms (83 at 60 Hz), so simulated time
follows wall time. When a pass takes longer than the frame, the next one simulates more; a frame is capped
at ``max_frame`` [s] of simulated time, and beyond that the simulation falls behind wall time, which the
snapshot reports (``behind`` [s]). Recording, timing, the crash check and the force-feedback samples happen
every 10 ms of simulated time, inside the frame's sub-steps.
"""
from __future__ import annotations

import math
import statistics
import threading
import time
from collections import deque
from pathlib import Path

import numpy as np

from impulsim.apps.bobsleigh.bob import load_bob
from impulsim.apps.bobsleigh.bob.sim import BobSim
from impulsim.apps.bobsleigh.drive.record import DriveRecorder, load_run, runner_traces
from impulsim.apps.bobsleigh.drive.setup import DriveSetup
from impulsim.apps.bobsleigh.pilot import Pilot
from impulsim.apps.bobsleigh.run import (
    NOSE,
    OFF_TRACK,
    RECORD_PERIOD,
    RunResult,
    _start_pose,
    _take_splits,
    run,
)
from impulsim.apps.bobsleigh.view import TrackView
from impulsim.methods.moreau_minimal.segments import make_mesh

LEVER_ARM = 0.1
"""Lever [m] on which the force-feedback device renders the steering moment: F_soll = M_soll / 0.1 m."""


class Lever:
    """The steering lever: the input i moves towards the target (−1, 0 or 1 from the keys, or a game
    controller's axis) at most ``rate`` per second, so a key press behaves like pushing a lever."""

    def __init__(self, rate: float = 2.5):
        self.rate = rate
        self.target = 0.0
        self.value = 0.0
        self.seq = 0

    def set(self, target: float, seq: int = 0):
        self.target = min(max(float(target), -1.0), 1.0)
        self.seq = max(self.seq, int(seq))

    def advance(self, dt: float) -> float:
        d = self.target - self.value
        step = self.rate * dt
        self.value += min(max(d, -step), step)
        return self.value


class Posture:
    """Body poses of the bob from a recorded row (q and β), through a scratch copy of the bob's system."""

    def __init__(self, bob, mesh):
        self.system = bob.build(mesh)
        self.q_names = None

    def bodies(self, q, beta) -> np.ndarray:
        s = self.system
        s.q[:] = q
        s.u[:] = 0.0
        s.k[:] = beta
        s.m[:] = 0.0
        s.mdot[:] = 0.0
        W = s.update_kinematics()
        return np.concatenate([W.x, W.R.reshape(-1, 9)], axis=1)


def trace_q(trace, names) -> np.ndarray:
    """Rows of generalized coordinates [N, nq] of a recorded trace (pose then joint angles)."""
    return np.column_stack([trace[n] for n in names])


class Ghost:
    """A recorded run replayed by time: pose of every body at time t (held at the run's end)."""

    def __init__(self, result: RunResult, posture: Posture, q_names):
        self.result = result
        self.t = result.trace["t"]
        self.q = trace_q(result.trace, q_names)
        self.beta = result.trace["beta"]
        self.posture = posture

    def bodies(self, t):
        if len(self.t) == 0:
            return None
        j = int(np.clip(np.searchsorted(self.t, t), 0, len(self.t) - 1))
        q = self.q[j].copy()
        q[3:7] /= np.linalg.norm(q[3:7])
        return self.posture.bodies(q, self.beta[j])


def time_at_station(trace, s, ss=None) -> float:
    """Time [s] at which a trace's nose passed station s (linear; NaN outside the trace); ``ss``: the
    trace's furthest station so far per row (np.maximum.accumulate of its s), when already known."""
    ss = np.maximum.accumulate(trace["s"]) if ss is None else ss
    if len(ss) == 0 or s < ss[0] or s > ss[-1]:
        return math.nan
    return float(np.interp(s, ss, trace["t"]))


class DriveSession:
    """One driving session on a track for one pilot: runs, the reference run of the pilot model, replay."""

    def __init__(self, track, *, bob="two_man", pilot_name="pilot", runs_dir="out/drive", setup=None,
                 h: float = 2e-4, frame: float = 1 / 60, max_frame: float = 0.05, reference: bool = True):
        if isinstance(track, str):
            from impulsim.apps.bobsleigh.track import load_track
            track = load_track(track)
        self.track = track
        self.base_bob = load_bob(bob) if isinstance(bob, str) else bob
        self.pilot_name = pilot_name
        self.runs_dir = Path(runs_dir) / pilot_name
        self.setup = setup or DriveSetup()
        self.h, self.frame, self.max_frame = h, frame, max_frame
        self.view = TrackView(track)
        self.mesh = make_mesh(*track.mesh())
        self.bob = self.setup.apply(self.base_bob)
        self.posture = Posture(self.base_bob, self.mesh)
        self.lever = Lever()
        self.lock = threading.RLock()
        # Held only for a few reads or writes, never while the bob steps: the server takes it (steering
        # commands, force-feedback samples, the run list) without waiting for a frame of the simulation.
        self.io_lock = threading.Lock()
        self._runs_view = []
        self.state = "idle"          # idle | driving | finish | crash | off track | stopped | replay
        self.message = "press Start (Enter)"
        self.sim = None
        self.runs: list[dict] = []   # {"name", "path", "result"}
        self.reference: RunResult | None = None
        self.ghost: Ghost | None = None
        self.replay = None
        self.ff = deque(maxlen=2000)  # (t, M_soll) at 100 Hz for the force-feedback socket
        self.snapshot = {}
        self.on_snapshot = []        # called (without arguments, in the loop's thread) after each new snapshot
        self.stats = {"frames": 0, "frame_ms": deque(maxlen=120), "rtf": deque(maxlen=120)}
        self.applied_seq = 0
        self.received = {}           # steering command number → time it reached the server [s]
        self.steer_latency = deque(maxlen=200)   # command received → its steering angle reached the joint [s]
        self.impact = 0.0
        self._stop = threading.Event()
        self._thread = None
        self._load_existing_runs()
        self._publish_runs()
        self.want_reference = reference
        if reference:
            threading.Thread(target=self._reference_run, daemon=True).start()

    # --- runs on disk ------------------------------------------------------------------------------
    def _load_existing_runs(self):
        if self.runs_dir.exists():
            for p in sorted(self.runs_dir.glob("run_*.parquet")):
                try:
                    self.runs.append({"name": p.stem, "path": str(p), "result": load_run(p)})
                except ValueError:
                    pass

    def _reference_run(self):
        """The pilot model's run with the present setup: the reference for Δt and the default ghost."""
        res = run(self.track, bob=self.bob, pilot=Pilot(), start_speed=self.setup.start_speed, h=self.h)
        self.runs_dir.mkdir(parents=True, exist_ok=True)
        path = self.runs_dir / "pilot_model.parquet"
        res.to_parquet(path)
        with self.lock:
            old, self.reference = self.reference, res
            entry = {"name": "pilot model", "path": str(path), "result": res}
            if self.runs and self.runs[0]["name"] == "pilot model":
                self.runs[0] = entry            # a new setup: the model's run with it replaces the old one
            else:
                self.runs.insert(0, entry)
            if self.ghost is None or self.ghost.result is old:
                self.ghost = Ghost(res, self.posture, self.q_names())
            self._ref_s = np.maximum.accumulate(res.trace["s"])
            self._publish_runs()

    def q_names(self):
        joints = [b["name"] for b in self.bob.bodies[1:] if not b.get("actuated")]
        return ["x", "y", "z", "qw", "qx", "qy", "qz"] + [f"angle_{j}" for j in joints]

    def run_list(self):
        """The runs as the page lists them (without waiting for the simulation)."""
        with self.io_lock:
            return self._runs_view

    def _publish_runs(self):
        out = []
        for k, r in enumerate(self.runs):
            res = r["result"]
            out.append({"id": k, "name": r["name"], "outcome": res.outcome,
                        "splits": [None if math.isnan(x) else round(x, 3) for x in res.splits]})
        with self.io_lock:
            self._runs_view = out

    def ff_samples(self, after: float):
        """Force-feedback samples (t, M_soll) later than ``after`` [s], and whether a new run began (its
        clock is behind ``after``)."""
        with self.io_lock:
            if self.ff and self.ff[-1][0] < after:
                return list(self.ff), True
            return [x for x in self.ff if x[0] > after], False

    # --- commands from the page --------------------------------------------------------------------
    def set_setup(self, setup: DriveSetup):
        with self.lock:
            if self.state == "driving":
                raise ValueError("setup: not while driving")
            changed = setup != self.setup
            self.setup = setup
            self.bob = setup.apply(self.base_bob)
        if changed and self.want_reference:
            threading.Thread(target=self._reference_run, daemon=True).start()

    def steer(self, target, seq=0):
        received = time.perf_counter()
        with self.io_lock:
            self.lever.set(target, seq)
            self.received[int(seq)] = received

    def set_ghost(self, run_id):
        with self.lock:
            if run_id is None or run_id < 0:
                self.ghost = None
            else:
                self.ghost = Ghost(self.runs[run_id]["result"], self.posture, self.q_names())

    def start(self):
        """A new run from the start line with the present setup."""
        with self.lock:
            sim = BobSim(self.bob, self.mesh)
            origin, tangent, lateral = _start_pose(self.view, self.track, sim)
            sim.place(origin, tangent, lateral, speed=self.setup.start_speed)
            self.sim = sim
            self.stations = np.asarray(self.track.timing_stations, float)
            self.splits = np.full(len(self.stations), np.nan)
            self.rec = DriveRecorder(len(self.bob.contacts), sim.system.nq, sim.runners)
            self.s_prev, self.t_prev = float(self.track.start_s), 0.0
            self.slow = 0.0
            self.lever.value = 0.0      # the target stays: a key held or a controller axis at the start
            with self.io_lock:
                self.ff.clear()
            self.steps_in_period = 0
            self.period_steps = max(1, int(round(RECORD_PERIOD / self.h)))
            self.wall0 = time.perf_counter()
            self.view.seek(float(self.track.start_s))
            self._measure(sim)
            self.state, self.message = "driving", ""
            self.replay = None

    def start_replay(self, run_id):
        with self.lock:
            if self.state == "driving":
                raise ValueError("replay: not while driving")
            res = self.runs[run_id]["result"]
            self.replay = {"ghost": Ghost(res, self.posture, self.q_names()), "t0": time.perf_counter(),
                           "name": self.runs[run_id]["name"], "end": float(res.trace["t"][-1])}
            self.state, self.message = "replay", f"replay of {self.runs[run_id]['name']}"
            return runner_traces(res.trace)

    # --- the loop ------------------------------------------------------------------------------------
    def start_loop(self):
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def stop_loop(self):
        self._stop.set()
        if self._thread:
            self._thread.join(timeout=5)

    def _loop(self):
        last = time.perf_counter()
        while not self._stop.is_set():
            now = time.perf_counter()
            frame_dt, last = now - last, now
            self.tick(frame_dt)
            rest = self.frame - (time.perf_counter() - now)
            if rest > 0:
                time.sleep(rest)

    def tick(self, frame_dt: float):
        """One frame: advance the lever and the simulation by the measured frame time, then take a
        snapshot for the page."""
        with self.lock:
            c0 = time.perf_counter()
            if self.state == "driving":
                sim_dt = min(frame_dt, self.max_frame)
                n = max(1, int(round(sim_dt / self.h)))
                with self.io_lock:
                    self.lever.advance(n * self.h)
                    self.applied_seq = self.lever.seq
                self._advance(n)
                done = time.perf_counter()
                with self.io_lock:
                    for k in [k for k in self.received if k <= self.applied_seq]:
                        self.steer_latency.append(done - self.received.pop(k))
                self.stats["rtf"].append(n * self.h / max(frame_dt, 1e-9))
            cost = time.perf_counter() - c0
            self.stats["frames"] += 1
            self.stats["frame_ms"].append(1e3 * frame_dt)
            self.snapshot = self._snapshot(cost)
        for notify in self.on_snapshot:
            notify()

    def _advance(self, n):
        sim, h = self.sim, self.h
        beta_end = self.bob.steering(self.lever.value)
        was_closed = sim.system.contacts.closed[sim.bumpers].copy()
        while n > 0 and self.state == "driving":
            k = min(n, self.period_steps - self.steps_in_period)
            k0 = sim.system.k[0]
            sim.run(h, k, k0 + (beta_end - k0) * min(1.0, k / n))
            n -= k
            self.steps_in_period += k
            closed = sim.system.contacts.closed[sim.bumpers]
            for j in np.flatnonzero(closed & ~was_closed.astype(bool)):
                kk = sim.bumpers[j]
                vn = abs(float(sim.velocity @ sim.system.contacts.normal[kk]))
                self.impact = max(self.impact, vn)
            was_closed = closed.copy()
            if self.steps_in_period >= self.period_steps:
                self._record_period()

    def _measure(self, sim):
        R = sim.rotation()
        nose = sim.position + R @ (NOSE - sim.com0)
        s, b, hh = self.view.project(nose)
        self.meas = (s, b, hh, float(np.linalg.norm(sim.velocity)), R)

    def _record_period(self):
        sim = self.sim
        period = self.steps_in_period * self.h
        self._measure(sim)      # station, offset, height and speed at the end of the period, with its time
        s1, b, hh, speed, _ = self.meas
        self.rec.add(sim, sim.system.t, s1, b, hh, speed, self.lever.value, float(sim.system.k[0]), period)
        m_soll = float(sim.system.acc.i_sum[0]) / period
        with self.io_lock:
            self.ff.append((round(sim.system.t, 4), m_soll))
        sim.system.reset_accumulators()
        self.steps_in_period = 0
        if hh < OFF_TRACK[0] or abs(b) > OFF_TRACK[1]:
            self._end("off track", "off the track: the bob left the channel; the run ends (recorded)")
            return
        _take_splits(self.stations, self.splits, self.s_prev, s1, self.t_prev, sim.system.t)
        self.s_prev, self.t_prev = s1, sim.system.t
        if not np.isnan(self.splits[-1]):
            self._end("finish", f"finish: {self.splits[-1]:.3f} s")
        elif sim.crashed():
            self._end("crash", "rollover: the run ends (recorded)")
        else:
            self.slow = self.slow + period if self.meas[3] < 0.5 else 0.0
            if self.slow > 2.0:
                self._end("stopped", "the bob stopped")

    def _end(self, outcome, message):
        trace = self.rec.arrays(self.bob)
        trace.pop("_closed_per_step")
        setup_info = {"bob": self.bob.name, "pilot": self.pilot_name, "driven": True,
                      "drive_setup": self.setup.__dict__, "start_speed": self.setup.start_speed,
                      "h": self.h, "track": getattr(self.track, "name", "")}
        res = RunResult(outcome, self.stations, self.splits.copy(), trace, setup_info)
        self.runs_dir.mkdir(parents=True, exist_ok=True)
        k = 1 + max([int(r["name"][4:]) for r in self.runs if r["name"].startswith("run_")] or [0])
        path = self.runs_dir / f"run_{k:03d}.parquet"
        res.to_parquet(path)
        self.runs.append({"name": path.stem, "path": str(path), "result": res})
        self._publish_runs()
        self.state, self.message = outcome, message
        self.last_result = res

    # --- what the page shows ---------------------------------------------------------------------------
    def _snapshot(self, cost):
        frame_ms = statistics.median(self.stats["frame_ms"]) if self.stats["frame_ms"] else 0.0
        self.snap_id = getattr(self, "snap_id", 0) + 1
        snap = {"id": self.snap_id, "state": self.state, "message": self.message, "frame_ms": round(frame_ms, 2),
                "cost_ms": round(1e3 * cost, 2), "seq": self.applied_seq, "lever": round(self.lever.value, 4)}
        ghost_t = None
        if self.state in ("driving", "finish", "crash", "off track", "stopped") and self.sim is not None:
            sim = self.sim
            t = sim.system.t
            s, b, hh, speed, R = self.meas
            v = sim.velocity
            fwd, up = R[:, 0], R[:, 2]
            v_plane = v - (v @ up) * up
            slip = math.atan2(float(np.cross(fwd, v_plane) @ up), float(fwd @ v_plane)) if speed > 0.5 else 0.0
            wall = time.perf_counter() - self.wall0
            snap.update(t=round(t, 3), s=round(s, 2), b=round(b, 3), h=round(hh, 3), speed=round(speed, 3),
                        beta=float(sim.system.k[0]), slip=round(slip, 4), impact=round(self.impact, 3),
                        behind=round(max(0.0, wall - t), 3) if self.state == "driving" else 0.0,
                        rtf=round(statistics.median(self.stats["rtf"]), 3) if self.stats["rtf"] else 0.0,
                        splits=[None if math.isnan(x) else round(x, 3) for x in self.splits],
                        M_soll=self.ff[-1][1] if self.ff else 0.0,
                        bodies=self.posture_of_sim().round(4).tolist())
            snap["F_soll"] = snap["M_soll"] / LEVER_ARM
            self.impact = 0.0
            if self.reference is not None:
                tr = time_at_station(self.reference.trace, s, self._ref_s)
                snap["delta"] = None if math.isnan(tr) else round(t - tr, 3)
                snap["ref_splits"] = [None if math.isnan(x) else round(x, 3) for x in self.reference.splits]
            ghost_t = t
        elif self.state == "replay" and self.replay is not None:
            t = min(time.perf_counter() - self.replay["t0"], self.replay["end"])
            g = self.replay["ghost"]
            j = int(np.clip(np.searchsorted(g.t, t), 0, len(g.t) - 1))
            tr = g.result.trace
            snap.update(t=round(t, 3), speed=round(float(tr["speed"][j]), 3), s=round(float(tr["s"][j]), 2),
                        M_soll=float(tr["M_soll"][j]), bodies=g.bodies(t).round(4).tolist(),
                        splits=[None if math.isnan(x) else round(x, 3) for x in g.result.splits if x <= t],
                        replay_done=bool(t >= self.replay["end"]))
            snap["F_soll"] = snap["M_soll"] / LEVER_ARM
            ghost_t = t
        if ghost_t is not None and self.ghost is not None:
            gb = self.ghost.bodies(ghost_t)
            if gb is not None:
                snap["ghost"] = gb.round(4).tolist()
        return snap

    def posture_of_sim(self):
        W = self.sim.system.update_kinematics()
        return np.concatenate([W.x, W.R.reshape(-1, 9)], axis=1)
