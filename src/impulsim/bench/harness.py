"""Timing and physics re-check of one benchmark case, for our method and for MuJoCo on the same model.

A case runs twice from the same initial state. The timed run measures every step after the first (wall
clock and this thread's CPU time; medians), the iterations per phase and the time per stage. The check run
repeats the identical simulation with diagnostics after every step (largest joint error, energy) and must
end in exactly the same state, so the figures belong to a run whose physics was verified; diagnostics
never run inside the timed loop. The first step (compilation or cache loading on first use) is reported
apart.

MuJoCo starts from our state after the first step (which carries the tree's torque kick and projects the
chain's initial velocities), so both engines simulate the same motion. When it reports an instability at
the benchmark's step, the largest stable step is searched among h/2, h/4, …
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

import impulsim as ims
from impulsim.dynamics import diagnostics
from impulsim.errors import SimulationError

STABLE_DRIFT = 1.0
"""A run counts as stable if its energy changes by less than the largest kinetic energy of the motion
(a blow-up changes it by orders of magnitude; a stable but dissipative integrator stays below)."""
LADDER = 6
"""Steps tried when a run is unstable: h/2 … h/2^LADDER."""
MAX_SOLVES = 200
"""Anytime cap on LGS solves per phase in the benchmark runs (converging steps need fewer than 10), so a
diverging run is detected in bounded time. Not for the hybrid loop treatment, whose iterations are sweeps
(several hundred per step at 1e-6)."""


@dataclass
class Case:
    """One benchmark run: a scene at a size, a method with its options, a tolerance and a step."""
    scene: str
    n_bodies: int
    method: str
    tol: float
    h: float
    steps: int
    build: Callable
    options: dict
    torque: Optional[tuple] = None      # on body 1 during the first step [N m]
    capped: bool = False                # anytime run: convergence is not required
    thesis_ms: Optional[float] = None
    extra: dict = field(default_factory=dict)


def _method(case, model):
    opts = dict(eps_d=case.tol, eps_v=case.tol)
    if case.options.get("solver") == "lgs" and case.options.get("loops", "drop") == "drop":
        opts.update(max_iter_pos=MAX_SOLVES, max_iter_vel=MAX_SOLVES)
    opts.update(case.options)
    return ims.make_method("impulse", model, **opts)


def _first_step(case, model, state, method):
    st = state.copy()
    if case.torque is not None:
        st.body_torque[1] = case.torque
    t = time.perf_counter()
    method.step(st, case.h)
    first = time.perf_counter() - t
    st.body_torque[:] = 0.0
    return st, first


def timed_run(case, model, state) -> dict:
    """Step times and solver statistics of one run (no diagnostics inside the loop)."""
    method = _method(case, model)
    st, first = _first_step(case, model, state, method)
    state1 = st.copy()
    walls, cpus, iters, stages = [], [], [], {}
    failed_at = None
    for i in range(1, case.steps):
        t, c = time.perf_counter(), time.thread_time()
        try:
            info = method.step(st, case.h)
        except SimulationError:
            failed_at = i + 1
            break
        walls.append(time.perf_counter() - t)
        cpus.append(time.thread_time() - c)
        iters.append((info.iters_pos, info.iters_vel))
        for k, v in info.timings.items():
            stages.setdefault(k, []).append(v)
        if not case.capped and not (info.converged_pos and info.converged_vel):
            failed_at = i + 1
            break
    return dict(first=first, walls=np.array(walls), cpus=np.array(cpus), iters=np.array(iters).reshape(-1, 2),
                stages={k: float(np.median(v)) for k, v in stages.items()}, final=st, state1=state1,
                failed_at=failed_at, steps_done=len(walls) + 1, dropped=method.dropped_rows)


def check_run(case, model, state, steps) -> dict:
    """The same run with the largest joint error and the energy after every step, and its final state."""
    method = _method(case, model)
    st, _ = _first_step(case, model, state, method)
    e1 = diagnostics.total_energy(model, st)
    worst, kinetic = diagnostics.constraint_errors(model, st).max(initial=0.0), diagnostics.kinetic_energy(model, st)
    for _ in range(1, steps):
        try:
            method.step(st, case.h)
        except SimulationError:
            break
        worst = max(worst, diagnostics.constraint_errors(model, st).max(initial=0.0))
        kinetic = max(kinetic, diagnostics.kinetic_energy(model, st))
    return dict(max_error=float(worst), energy_change=diagnostics.total_energy(model, st) - e1,
                kinetic=max(kinetic, 1e-12), final=st)


def _same(a, b) -> bool:
    return all(np.array_equal(getattr(a, f), getattr(b, f)) for f in ("body_pos", "body_quat", "body_vel", "body_omega"))


def measure(case: Case) -> dict:
    """Record of our run: median ms per step, iterations, largest joint error, energy drift, re-check."""
    model, state = case.build()
    t = timed_run(case, model, state)
    c = check_run(case, model, state, t["steps_done"])
    drift = c["energy_change"] / c["kinetic"]
    converged = t["failed_at"] is None
    if case.capped:
        # an anytime run may lose energy (unresolved corrections act as damping) but must not gain it
        physics = drift <= STABLE_DRIFT
    else:
        physics = converged and c["max_error"] <= case.tol and abs(drift) <= STABLE_DRIFT
    ok = _same(t["final"], c["final"]) and bool(np.isfinite(drift)) and physics
    rec = dict(scene=case.scene, method=f"impulse {case.method}", n_bodies=case.n_bodies, tol=case.tol, h=case.h,
               steps=t["steps_done"], ms_per_step=_ms(t["walls"]), cpu_ms_per_step=_ms(t["cpus"]),
               iters_pos=_mean(t["iters"][:, 0]), iters_vel=_mean(t["iters"][:, 1]), max_pos_error=c["max_error"],
               energy_drift=float(drift), first_step_ms=1e3 * t["first"], thesis_ms=case.thesis_ms,
               status="ok" if converged else f"diverged at step {t['failed_at']}", physics_ok=bool(ok),
               stages_us=_stages(t["stages"]), dropped_rows=t["dropped"])
    rec.update(case.extra)
    rec["_state1"], rec["_model"], rec["_kinetic"] = t["state1"], model, c["kinetic"]
    return rec


def _ms(v):
    return float(1e3 * np.median(v)) if len(v) else None


def _mean(v):
    return float(np.mean(v)) if len(v) else None


def _stages(stages: dict) -> str:
    return " ".join(f"{k}={1e6 * v:.0f}" for k, v in stages.items())


def ours_stable_step(case: Case, ladder=LADDER) -> Optional[float]:
    """Largest h/2^k (k = 1 … ladder) at which our run over the same simulated time converges throughout."""
    for k in range(1, ladder + 1):
        sub = Case(**{**case.__dict__, "h": case.h / 2 ** k, "steps": case.steps * 2 ** k, "extra": {}})
        model, state = sub.build()
        if timed_run(sub, model, state)["failed_at"] is None:
            return sub.h
    return None


# MuJoCo --------------------------------------------------------------------------------------------
def measure_peer(rec: dict, integrator: str = "Euler", ladder: int = LADDER) -> dict:
    """MuJoCo on the model and from the state of our record: ms per step, status, drift, stable step."""
    from impulsim.bench import mujoco_peer
    model, state1, kinetic = rec["_model"], rec["_state1"], rec["_kinetic"]
    h, steps = rec["h"], rec["steps"] - 1
    peer = mujoco_peer.build(model, state1, h, integrator)
    mujoco_peer.run(peer, model, state1, min(steps, 20), kinetic)       # warm-up
    times, failed, drift, loop_error = mujoco_peer.run(peer, model, state1, steps, kinetic)
    stable = failed is None and abs(drift) <= STABLE_DRIFT
    out = dict(peer=f"mujoco {integrator}", peer_ms_per_step=_ms(times), peer_drift=drift,
               peer_status="ok" if stable else (f"unstable at step {failed + 1} (MuJoCo resets)" if failed
                                                else f"energy drift {drift:.3g}"),
               peer_max_pos_error=loop_error if peer.connect_points else None)
    out["peer_stable_h"] = h if stable else None
    out["peer_ms_per_sim_s"] = _ms(times) / h if stable else None
    if not stable:
        for k in range(1, ladder + 1):
            hk = h / 2 ** k
            pk = mujoco_peer.build(model, state1, hk, integrator)
            tk, fk, dk, _ = mujoco_peer.run(pk, model, state1, steps * 2 ** k, kinetic)
            if fk is None and abs(dk) <= STABLE_DRIFT:
                out.update(peer_stable_h=hk, peer_ms_per_sim_s=_ms(tk) / hk, peer_stable_drift=dk)
                break
    return out


def paired_ratio(case: Case, rec: dict, blocks: int = 12, per_block: int = 20) -> dict:
    """Ours against MuJoCo (Euler) in alternating blocks of steps, so that a change of machine load hits
    both alike: median ms per step of each and their ratio (ours / MuJoCo)."""
    import mujoco
    from impulsim.bench import mujoco_peer
    model, state1 = rec["_model"], rec["_state1"]
    method = _method(case, model)
    st = state1.copy()
    method.step(st, case.h)                       # warm-up (compiled already)
    peer = mujoco_peer.build(model, state1, case.h)
    d = mujoco_peer.initial_data(peer, model, state1)
    ours, theirs = [], []
    for _ in range(blocks):
        for _ in range(per_block):
            t = time.perf_counter()
            method.step(st, case.h)
            ours.append(time.perf_counter() - t)
        for _ in range(per_block):
            t = time.perf_counter()
            mujoco.mj_step(peer.mj_model, d)
            theirs.append(time.perf_counter() - t)
    return dict(paired_ms_per_step=_ms(ours), paired_peer_ms_per_step=_ms(theirs),
                paired_ratio=float(np.median(ours) / np.median(theirs)))


def finish(rec: dict) -> dict:
    """Drop the private fields and add ours-to-peer ratios."""
    for k in [k for k in rec if k.startswith("_")]:
        del rec[k]
    if rec.get("peer_ms_per_step") and rec.get("ms_per_step"):
        rec["ratio_to_peer"] = rec["ms_per_step"] / rec["peer_ms_per_step"]
    if rec.get("ms_per_step") and rec.get("status") == "ok":
        rec["ms_per_sim_s"] = rec["ms_per_step"] / rec["h"]
    return rec
