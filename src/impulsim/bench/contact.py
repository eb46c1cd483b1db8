"""``impulsim bench contact``: Bender's contact experiments (Sec. 5.5) and further checks, each
printed beside the thesis's figures.

    impulsim bench contact [--quick] [--json FILE]

Every measurement is a function of its own (the tests and the example scripts call the same ones); the
scenes come from :mod:`impulsim.experiments.bender_contacts`. Times are wall-clock medians of the steps after the
first (the first step compiles or loads the Numba kernels and is reported apart). ``--quick`` runs the
cheap experiments in full and a short part of the expensive ones (funnel, wall), saying so in the record.
"""
from __future__ import annotations

import sys
import time

import numpy as np

from impulsim.experiments import bender_contacts as S
from impulsim.dynamics import diagnostics
from impulsim.methods.impulse.method import ContactImpulseMethod

# the thesis's figures ---------------------------------------------------------------------------------------
CRADLE_THESIS = {1: (1.106e-6, 1.054e-6), 2: (1.451e-6, 2.049e-6), 3: (1.691e-6, 3.273e-6),
                 4: (1.975e-6, 3.506e-6)}
"""Table 5.3: balls deflected -> (energy deviation [J], angular-velocity deviation [rad/s])."""
CRADLE_GOAL = 2e-6              # goal: both deviations
FUNNEL_THESIS = dict(max_collisions=332, max_contacts=2813, avg_collisions=38, avg_contacts=879,
                     max_collision_ms=61.02, max_contact_ms=69.87, avg_collision_ms=2.02, avg_contact_ms=10.02)
"""Table 5.1 (Pentium 4, 3.4 GHz; times without collision detection)."""
FUNNEL_GOAL_MS = 3.0            # goal: average step, detection included
MUJOCO_FUNNEL_BUDGET_S = 600.0
"""Wall-clock cap [s] on MuJoCo's funnel run: with its default options (Newton) a step takes ~0.3 s once the
cubes pile into the funnel, about an hour for the 8 s; the run reports how far it got. With the configuration
of PEER_CONFIGS it needs a few ms per step and finishes well within the cap."""
WALL_THESIS_S = dict(shock=91.0, plain=998.0)   # Sec. 5.5.1.2: wall-clock for 5 s [s]
WALL_GOAL_S = 9.0
REST_DRIFT_GOAL = 1e-3          # goal: stacks and the wall before the impact [m]
INCLINE_GOAL = 2e-3             # goal: braking distance deviation [m]
RATTLEBACK_THESIS_S = 2.854     # Sec. 5.5.3: time of the spin reversal


def make_method(model, settings, **extra):
    """The impulse method with contacts and the given options."""
    return ContactImpulseMethod(model, **{**settings, **extra})


def _ms(seconds) -> float:
    return 1e3 * float(seconds)


# 1. incline ---------------------------------------------------------------------------------------------------
def incline_distances():
    """(analytic, simulated) braking distances [m] of the ten cubes: 5 s frictionless, then 6 s with μ."""
    model, state = S.incline()
    zero = 0.0 * model.material_static_friction
    free = model.with_params(material_static_friction=zero, material_dynamic_friction=zero)
    _run(free, state, make_method(free, S.INCLINE_SETTINGS), S.INCLINE_H, 5.0)
    cubes = slice(2, None)
    start, speed = state.body_pos[cubes].copy(), np.linalg.norm(state.body_vel[cubes], axis=1)
    _run(model, state, make_method(model, S.INCLINE_SETTINGS), S.INCLINE_H, 6.0)
    # Coulomb: constant deceleration g (μ cos θ − sin θ) from the speed reached at 5 s (eq. 5.12)
    g = float(np.linalg.norm(model.gravity))
    analytic = speed ** 2 / (2 * g * (S.INCLINE_MUS * np.cos(S.INCLINE_SLOPE) - np.sin(S.INCLINE_SLOPE)))
    return analytic, np.linalg.norm(state.body_pos[cubes] - start, axis=1)


def _run(model, state, method, h, seconds):
    for _ in range(int(round(seconds / h))):
        method.step(state, h)


def incline_records():
    analytic, simulated = incline_distances()
    dev = np.abs(simulated - analytic)
    thesis_dev = np.abs(S.INCLINE_THESIS_SIMULATED - S.INCLINE_THESIS_COMPUTED)
    return [dict(experiment="incline", case=f"mu={mu}", quantity="braking distance deviation [m]",
                 impulsim=float(d), thesis=float(t), goal=INCLINE_GOAL, met=bool(d <= INCLINE_GOAL),
                 note=f"analytic {a:.4f} m, simulated {s:.4f} m")
            for mu, d, t, a, s in zip(S.INCLINE_MUS, dev, thesis_dev, analytic, simulated)]


# 2. Newton's cradle ---------------------------------------------------------------------------------------
def cradle_impact(n_deflected: int, max_seconds: float = 2.0):
    """Run the cradle to its first impact. Returns (|ΔE| [J] over the impact step, |Δω| [rad/s] between
    the striking ball before and the innermost outgoing ball after it, time of the impact [s]).

    The thesis compares the energy before and after the impact and the angular velocity of the ball that
    strikes with that of the innermost ball that swings out (Sec. 5.5.3): ball n−1 (0-based) strikes,
    ball 5−n leaves. The impact is the step whose detection reports a collision.
    """
    model, state = S.cradle(n_deflected)
    method = make_method(model, S.CRADLE_SETTINGS)
    striker, leaver = n_deflected - 1, S.CRADLE_BALLS - n_deflected
    for _ in range(int(round(max_seconds / S.CRADLE_H))):
        e_before, w_before = diagnostics.total_energy(model, state), _swing_rate(state, striker)
        info = method.step(state, S.CRADLE_H)
        if info.n_collisions:
            e_after, w_after = diagnostics.total_energy(model, state), _swing_rate(state, leaver)
            return abs(e_after - e_before), abs(w_after - w_before), state.t
    raise RuntimeError(f"cradle {n_deflected}: no impact within {max_seconds} s")


def _swing_rate(state, ball):
    """Angular velocity [rad/s] of a cradle ball about its hinge axis (y); body 0 is the world."""
    return float(state.body_omega[ball + 1, 1])


def cradle_records():
    out = []
    for n, (e_t, w_t) in CRADLE_THESIS.items():
        de, dw, t = cradle_impact(n)
        out.append(dict(experiment="cradle", case=f"{n} deflected", quantity="energy deviation [J]", impulsim=de,
                        thesis=e_t, goal=CRADLE_GOAL, met=bool(de <= CRADLE_GOAL), note=f"impact at {t:.3f} s"))
        out.append(dict(experiment="cradle", case=f"{n} deflected", quantity="angular-velocity deviation [rad/s]",
                        impulsim=dw, thesis=w_t, goal=CRADLE_GOAL, met=bool(dw <= CRADLE_GOAL), note=""))
    return out


# 6. stacking ----------------------------------------------------------------------------------------------
def rest_drift(model, state, method, h, seconds):
    """Largest displacement [m] of any body from its start over ``seconds``, the median step time [s],
    and the StepInfo of the last step."""
    start = state.body_pos.copy()
    worst, times, info = 0.0, [], None
    for _ in range(int(round(seconds / h))):
        t = time.perf_counter()
        info = method.step(state, h)
        times.append(time.perf_counter() - t)
        worst = max(worst, float(np.linalg.norm(state.body_pos - start, axis=1).max()))
    return worst, float(np.median(times[1:] or times)), info


def stacking_records(quick):
    seconds = 1.0 if quick else 10.0
    out = []
    for name, build in (("tower of 20", S.tower), ("pyramid of 55", S.pyramid)):
        model, state = build()
        drift, step, info = rest_drift(model, state, make_method(model, S.STACK_SETTINGS), S.STACK_H, seconds)
        out.append(dict(experiment="stacking", case=name, quantity=f"largest drift over {seconds:g} s [m]",
                        impulsim=drift, thesis="", goal=REST_DRIFT_GOAL, met=bool(drift <= REST_DRIFT_GOAL),
                        note=f"{_ms(step):.1f} ms/step median, {info.n_contacts} contacts"))
    return out


# 3. funnel ------------------------------------------------------------------------------------------------
def jitter_positions(model, state, jitter: float, seed: int) -> None:
    """Move every dynamic body's centre by up to ``jitter`` [m] along each axis (uniform, from ``seed``), in
    place. A pile's path is chaotic: the funnel's step time and the wall's drift move with the path, and
    runs from slightly different starts show by how much (docs/contact_experiments.md)."""
    if jitter < 0.0:
        raise ValueError(f"jitter must be >= 0 m, got {jitter!r}")
    if jitter == 0.0:
        return
    dyn = model.body_inv_mass > 0.0
    state.body_pos[dyn] += np.random.default_rng(seed).uniform(-jitter, jitter, (int(dyn.sum()), 3))


def funnel_stats(seconds: float, n_cubes: int = S.FUNNEL_CUBES, jitter: float = 0.0, seed: int = 0) -> dict:
    """Run the funnel for ``seconds``: per-step collision and contact counts, the step time (detection
    included) and the thesis's two parts of it (collision resolution; contact handling = joint correction
    plus velocity correction), as averages and maxima over the steps after the first [ms]. ``jitter`` [m] and
    ``seed``: start from cubes moved slightly (jitter_positions)."""
    model, state = S.funnel(n_cubes)
    jitter_positions(model, state, jitter, seed)
    method = make_method(model, S.FUNNEL_SETTINGS, **S.FUNNEL_SOLVER)
    rows = []
    for _ in range(int(round(seconds / S.FUNNEL_H))):
        t = time.perf_counter()
        info = method.step(state, S.FUNNEL_H)
        total = time.perf_counter() - t
        tm = info.timings
        rows.append((info.n_collisions, info.n_contacts, total, tm.get("collisions", 0.0),
                     tm.get("joint_correction", 0.0) + tm.get("velocity_correction", 0.0), tm.get("detect", 0.0)))
    a = np.array(rows[1:] or rows)
    names = ("collisions", "contacts", "step_ms", "collision_ms", "contact_ms", "detect_ms")
    scale = (1.0, 1.0, 1e3, 1e3, 1e3, 1e3)
    out = {f"avg_{k}": float(a[:, i].mean() * s) for i, (k, s) in enumerate(zip(names, scale))}
    out.update({f"max_{k}": float(a[:, i].max() * s) for i, (k, s) in enumerate(zip(names, scale))})
    out.update(first_step_s=rows[0][2], steps=len(rows), below_rim=_count_below(model, state, S.FUNNEL_OUTLET_Z))
    return out


def _count_below(model, state, z):
    """Moving bodies whose centre is below height ``z`` [m] (cubes through the funnel)."""
    return int((state.body_pos[model.body_inv_mass > 0, 2] < z).sum())


def _fmt(v) -> str:
    return " ".join(f"{x:.12g}" for x in v)


def _mjcf(name, h, friction, geoms, bodies, memory) -> str:
    """An MJCF scene: ground plane, static ``geoms`` and ``bodies`` (lines), one friction coefficient μ for
    every contact (MuJoCo takes the larger of two geoms' values; its torsional and rolling friction are off
    with the default condim 3). Solver options are left at MuJoCo's defaults: :mod:`mujoco_configs` sets
    them on the compiled model. ``memory``: MuJoCo's arena (``<size memory>``), large enough for the dense
    Jacobian and PGS's dense matrix of the scene's fullest step (the arena MuJoCo sizes by itself overflows
    there); its size does not change the time of a step."""
    return "\n".join([f'<mujoco model="{name}">', f'<size memory="{memory}"/>', f'<option timestep="{h}"/>',
                      f'<default><geom friction="{friction:g} 0.005 0.0001"/></default>', "<worldbody>",
                      '<geom type="plane" size="0 0 1"/>', *geoms, *bodies, "</worldbody>", "</mujoco>"])


def _box_body(centre, size, mass) -> str:
    return (f'<body pos="{_fmt(centre)}"><freejoint/><geom type="box" size="{_fmt(0.5 * np.asarray(size))}" '
            f'mass="{mass:g}"/></body>')


def funnel_mjcf(n_cubes: int = S.FUNNEL_CUBES) -> str:
    """The funnel scene for MuJoCo: same geometry, masses, friction (μ = 0.05) and step; MuJoCo's soft
    contacts have no coefficient of restitution (ours: e = 0.8). Body i + 1 is cube i."""
    plates = []
    for side in range(4):
        pos, quat = S.funnel_plate_pose(side)
        plates.append(f'<geom type="box" size="{_fmt(0.5 * S.funnel_plate_size())}" pos="{_fmt(pos)}" '
                      f'quat="{_fmt(quat)}"/>')
    cubes = [_box_body(c, [S.FUNNEL_CUBE] * 3, S.FUNNEL_CUBE_MASS) for c in S.drop_grid(n_cubes)]
    return _mjcf("funnel", S.FUNNEL_H, S.FUNNEL_MU, plates, cubes, "3G")


def wall_mjcf(rows: int = S.WALL_ROWS, long_row: int = S.WALL_LONG_ROW) -> str:
    """The wall for MuJoCo: the same stones, masses and step, and the 10 kg ball on a massless 6 m rod hinged
    at the same pivot (the last body). One friction coefficient: the thesis's static μ = 0.2 (ours has
    μ_s = 0.2, μ_d = 0.1); no restitution (ours: e = 0.1). Bodies 1 … n are the stones."""
    stones = [_box_body((x, 0.0, (row + 0.5) * S.WALL_STONE[2]), S.WALL_STONE, S.WALL_STONE_MASS)
              for x, row in S.wall_rows(rows, long_row)]
    pivot = np.array([0.0, -(0.5 * S.WALL_STONE[1] + S.WALL_BALL_RADIUS) + S.WALL_REACH, S.WALL_PIVOT_Z])
    centre = pivot + S.WALL_ROPE * np.array([0.0, -np.sin(S.WALL_RELEASE), -np.cos(S.WALL_RELEASE)])
    ball = (f'<body pos="{_fmt(centre)}"><joint type="hinge" axis="1 0 0" pos="{_fmt(pivot - centre)}"/>'
            f'<geom type="sphere" size="{S.WALL_BALL_RADIUS:g}" mass="{S.WALL_BALL_MASS:g}"/></body>')
    return _mjcf("wall", S.WALL_H, S.WALL_MU_S, [], stones + [ball], "1500M")


def heap_mjcf(n_base: int = 10) -> str:
    """The resting heap (the stacking benchmark's pyramid of 55 unit cubes, 1 kg, μ = 0.5, h = 10 ms) for
    MuJoCo. Body i + 1 is box i."""
    boxes = []
    for row in range(n_base):
        for i in range(n_base - row):
            x = (i - 0.5 * (n_base - row - 1)) * S.STACK_BOX
            boxes.append(_box_body((x, 0.0, (row + 0.5) * S.STACK_BOX), [S.STACK_BOX] * 3, S.STACK_MASS))
    return _mjcf("heap", S.STACK_H, 2 * S.STACK_FRICTION, [], boxes, "256M")


def _peer(name):
    """The MuJoCo configuration chosen for a scene by the scan (docs/peers.md)."""
    from impulsim.bench import mujoco_configs as MC
    return MC.Config(*PEER_CONFIGS[name])


PEER_CONFIGS = dict(funnel=("CG", 30, "pyramidal", "sparse", True), wall=("Newton", 30, "elliptic", "auto", True),
                    heap=("Newton", 100, "pyramidal", "auto", False))
"""MuJoCo's options per scene (solver, iterations, cone, Jacobian, islands): the "best reasonable"
configuration of ``benchmarks/honest_peers.py`` (a scan of the options over a window, checked over the whole
run): the fastest whose penetration and rest drift stay within twice the defaults' (docs/peers.md). Pass
``config=mujoco_configs.DEFAULT`` for MuJoCo's defaults."""


def funnel_mujoco(seconds: float, n_cubes: int = S.FUNNEL_CUBES, budget_s: float = MUJOCO_FUNNEL_BUDGET_S,
                  config=None) -> dict:
    """MuJoCo on the same funnel in this process, with ``config`` (default: the scan's choice for the
    funnel, PEER_CONFIGS): average and largest step time [ms], contact counts, largest penetration [m],
    cubes below the outlet, the simulated time it reached [s] (less than ``seconds`` if it ran out of its
    wall-clock budget) and the configuration's label."""
    import mujoco
    from impulsim.bench import mujoco_configs as MC
    config = config or _peer("funnel")
    m, d = MC.load(funnel_mjcf(n_cubes), config)
    times, ncon, pen = [], [], 0.0
    start = time.perf_counter()
    for _ in range(int(round(seconds / S.FUNNEL_H))):
        t = time.perf_counter()
        mujoco.mj_step(m, d)
        times.append(time.perf_counter() - t)
        ncon.append(d.ncon)
        pen = max(pen, MC.penetration(d))
        if t - start > budget_s:
            break
    z = d.xpos[1:, 2]
    return dict(avg_step_ms=_ms(np.mean(times)), max_step_ms=_ms(np.max(times)), avg_contacts=float(np.mean(ncon)),
                max_contacts=int(np.max(ncon)), below_rim=int((z < S.FUNNEL_OUTLET_Z).sum()),
                reached_s=float(d.time), max_penetration=pen, config=config.label,
                stable=not MC.warning_counts(d) and bool(np.isfinite(d.qpos).all()))


def funnel_records(quick):
    seconds = 0.5 if quick else S.FUNNEL_DURATION
    part = f"first {seconds:g} s" if quick else f"{seconds:g} s"
    ours = funnel_stats(seconds)
    peer = _mujoco_or_none(funnel_mujoco, seconds)
    out = []
    for key in ("avg_collisions", "max_collisions", "avg_contacts", "max_contacts"):
        out.append(dict(experiment="funnel", case=part, quantity=key.replace("_", " "), impulsim=ours[key],
                        thesis=FUNNEL_THESIS[key], goal="", met="", note=""))
    for key, thesis in (("collision_ms", "avg_collision_ms"), ("contact_ms", "avg_contact_ms")):
        for agg in ("avg", "max"):
            out.append(dict(experiment="funnel", case=part, quantity=f"{agg} {key.replace('_', ' ')}",
                            impulsim=ours[f"{agg}_{key}"], thesis=FUNNEL_THESIS[f"{agg}_{key}"], goal="", met="",
                            note="without detection, as the thesis"))
    note = "detection included; "
    note += (f"MuJoCo ({peer['config']}) {peer['avg_step_ms']:.3g} ms/step on the same scene"
             f"{_reached(peer, seconds)}, ratio "
             f"impulsim/MuJoCo {ours['avg_step_ms'] / peer['avg_step_ms']:.3g}" if peer else "MuJoCo not installed")
    out.append(dict(experiment="funnel", case=part, quantity="avg step ms", impulsim=ours["avg_step_ms"],
                    thesis=FUNNEL_THESIS["avg_collision_ms"] + FUNNEL_THESIS["avg_contact_ms"], goal=FUNNEL_GOAL_MS,
                    # a part of the run says nothing about the goal, which is on the 8 s average
                    met=bool(ours["avg_step_ms"] <= FUNNEL_GOAL_MS) if not quick else "", note=note))
    out.append(dict(experiment="funnel", case=part, quantity="cubes below the outlet at the end",
                    impulsim=ours["below_rim"], thesis="", goal="", met="",
                    note=f"MuJoCo {peer['below_rim']}" if peer else ""))
    return out


def _reached(peer, seconds) -> str:
    """' (first X s only)' when MuJoCo's run stopped at its budget: its average then covers less."""
    return f" (first {peer['reached_s']:.2f} s only: wall-clock budget)" if peer["reached_s"] < seconds - 1e-9 else ""


def _mujoco_or_none(fn, *args):
    try:
        import mujoco  # noqa: F401
    except ImportError:
        return None
    return fn(*args)


# 4. wall --------------------------------------------------------------------------------------------------
def wall_run(seconds: float, shock: bool = True, jitter: float = 0.0, seed: int = 0, **options) -> dict:
    """Simulate the wall for ``seconds``: wall-clock time [s], the largest drift of any stone before the
    ball first touches the wall [m], the time of that touch [s] (None if not reached), contact counts and
    the most bodies asleep at once. With ``shock`` the collision loop stops after WALL_SHOCK_ITERATIONS and
    makes the shock pass; ``jitter`` [m] and ``seed``: start from stones (and ball) moved slightly
    (jitter_positions); ``options`` go to the method over WALL_SOLVER (e.g. sleep=True; skip_resolved=False and
    skip_resolved_positions=False for the thesis's sweeps)."""
    model, state = S.wall()
    jitter_positions(model, state, jitter, seed)
    extra = dict(shock_propagation=S.WALL_SHOCK_ITERATIONS) if shock else {}
    method = make_method(model, S.WALL_SETTINGS, **{**S.WALL_SOLVER, **extra, **options})
    stones = model.body_inv_mass > 0
    stones[model.n_bodies - 1] = False                     # the ball is the last body
    start = state.body_pos.copy()
    drift, impact, counts, steps, asleep = 0.0, None, [], int(round(seconds / S.WALL_H)), 0
    t0 = time.perf_counter()
    for _ in range(steps):
        info = method.step(state, S.WALL_H)
        counts.append(info.n_contacts)
        asleep = max(asleep, info.n_asleep)
        if impact is None and _ball_touches_wall(state):
            impact = state.t
        if impact is None:
            drift = max(drift, float(np.linalg.norm(state.body_pos[stones] - start[stones], axis=1).max()))
    return dict(wall_s=time.perf_counter() - t0, drift=drift, impact=impact, steps=steps,
                avg_contacts=float(np.mean(counts)), max_contacts=int(np.max(counts)), max_asleep=asleep)


def _ball_touches_wall(state) -> bool:
    """The ball (last body) within the contact tolerance of the wall's face plane y = −width/2."""
    face = -0.5 * S.WALL_STONE[1]
    return state.body_pos[-1, 1] + S.WALL_BALL_RADIUS >= face - S.WALL_SETTINGS["eps_c"]


def wall_records(quick):
    seconds = 0.05 if quick else S.WALL_DURATION
    r = wall_run(seconds)
    part = f"first {seconds:g} s" if quick else f"{seconds:g} s"
    met = bool(r["wall_s"] <= WALL_GOAL_S) if not quick else ""
    before = "before the impact" if r["impact"] is not None else "(no impact in this part)"
    return [dict(experiment="wall", case=part, quantity="wall-clock with shock propagation [s]",
                 impulsim=r["wall_s"], thesis=WALL_THESIS_S["shock"] if not quick else "", goal=WALL_GOAL_S,
                 met=met, note=f"{r['avg_contacts']:.0f} contacts per step on average, {r['max_contacts']} at most; "
                               f"no warm start (as the thesis), sweeps passing over resolved patches, at most "
                               f"{S.WALL_SOLVER['shock_level_iterations']} sweeps "
                               f"per shock level (WALL_SOLVER); "
                               f"thesis {WALL_THESIS_S['plain']:g} s without shock propagation"),
            dict(experiment="wall", case=part, quantity=f"largest stone drift {before} [m]", impulsim=r["drift"],
                 thesis="", goal=REST_DRIFT_GOAL, met=bool(r["drift"] <= REST_DRIFT_GOAL),
                 note=f"impact at {r['impact']:.3f} s" if r["impact"] is not None else "")]


# 5. tippe top and rattleback --------------------------------------------------------------------------------
def tippe_top_axis(seconds: float, every: float = 0.01):
    """Times [s] and the vertical component of the top's axis (body z, peg side; +1: peg up) every
    ``every`` seconds."""
    model, state = S.tippe_top()
    method = make_method(model, S.TOP_SETTINGS)
    top = model.n_bodies - 1
    times, up = [], []
    stride = max(1, int(round(every / S.TOP_H)))
    for i in range(int(round(seconds / S.TOP_H))):
        method.step(state, S.TOP_H)
        if (i + 1) % stride == 0:
            _, q = diagnostics.body_user_pose(model, state, top)
            times.append(state.t)
            up.append(_z_of_body_z(q))
    return np.array(times), np.array(up)


def _z_of_body_z(q) -> float:
    """World z component of a frame's z axis, for the quaternion q = (w, x, y, z): 1 − 2(x² + y²)."""
    return float(1.0 - 2.0 * (q[1] ** 2 + q[2] ** 2))


INVERTED = -0.5
"""Axis z component below which the top counts as flipped: more than 120° from up, a pose the top reaches
only leaning on its peg (on the ball alone its centre of mass would be far above the ball's centre)."""


def inversion_time(times, up, threshold=INVERTED):
    """First time [s] the axis points down (its z component below ``threshold``), or None."""
    below = np.nonzero(up < threshold)[0]
    return float(times[below[0]]) if len(below) else None


def rattleback_spin(spin: float, seconds: float, every: float = 0.01):
    """Times [s] and the rattleback's angular velocity about the vertical [rad/s] every ``every`` s."""
    model, state = S.rattleback(spin)
    method = make_method(model, S.RATTLE_SETTINGS)
    body = model.n_bodies - 1
    times, wz = [], []
    stride = max(1, int(round(every / S.RATTLE_H)))
    for i in range(int(round(seconds / S.RATTLE_H))):
        method.step(state, S.RATTLE_H)
        if (i + 1) % stride == 0:
            times.append(state.t)
            wz.append(float(state.body_omega[body, 2]))
    return np.array(times), np.array(wz)


def reversal_time(times, wz, start_sign, settle=0.2):
    """First time [s] after which the spin about the vertical keeps the sign opposite to ``start_sign``
    for ``settle`` seconds (a rocking body's ω_z wobbles about zero before it turns), or None."""
    opposite = np.sign(wz) == -np.sign(start_sign)
    dt = times[1] - times[0] if len(times) > 1 else 1.0
    need = max(1, int(round(settle / dt)))
    for i in range(len(opposite) - need + 1):
        if opposite[i:i + need].all():
            return float(times[i])
    return None


def tops_records(quick):
    seconds = 5.0
    t, up = tippe_top_axis(seconds)
    flip = inversion_time(t, up)
    out = [dict(experiment="tippe top", case=f"{seconds:g} s", quantity=f"flip time (axis z < {INVERTED:g}) [s]",
                impulsim=flip if flip is not None else "none", thesis="inverts (no time given)", goal="inverts",
                met=flip is not None, note=f"axis z component at the end {up[-1]:.3f}")]
    for spin in (S.RATTLE_SPIN, -S.RATTLE_SPIN):
        t, wz = rattleback_spin(spin, seconds)
        rev = reversal_time(t, wz, spin)
        out.append(dict(experiment="rattleback", case=f"spin {spin:+g} rad/s", quantity="spin reversal [s]",
                        impulsim=rev if rev is not None else "none", thesis=RATTLEBACK_THESIS_S,
                        goal="one direction reverses within 5 s", met="",
                        note=f"ω_z at the end {wz[-1]:+.3f} rad/s"))
    reversed_ = [r["impulsim"] != "none" for r in out[1:]]
    for r in out[1:]:
        r["met"] = reversed_.count(True) == 1
    return out


# 7. joint limits ----------------------------------------------------------------------------------------------
def limit_hits(restitution: float, seconds: float = 8.0):
    """Swing the limited hinge for ``seconds``; returns the hinge rate's magnitude [rad/s] before and after
    each hit (a hit: the rate changes sign between two steps)."""
    model, state = S.limited_hinge(restitution)
    method = make_method(model, S.LIMIT_SETTINGS)
    rate = lambda: diagnostics.joint_coordinate(model, state, "pivot", rate=True)   # noqa: E731
    hits, before = [], rate()
    for _ in range(int(round(seconds / S.LIMIT_H))):
        method.step(state, S.LIMIT_H)
        after = rate()
        if after * before < 0.0:
            hits.append((abs(before), abs(after)))
        before = after
    return np.array(hits).reshape(-1, 2)


def limit_records():
    out = []
    for e in (1.0, 0.5):
        hits = limit_hits(e)
        ratios = hits[:, 1] / hits[:, 0] if len(hits) else np.array([np.nan])
        worst = float(np.abs(ratios - e).max())
        out.append(dict(experiment="joint limits", case=f"e={e:g}", quantity="largest |rate after/before − e|",
                        impulsim=worst, thesis="0 (Holck test 8)", goal=1e-6, met=bool(worst <= 1e-6),
                        note=f"{len(hits)} hits, ratios {np.round(ratios, 6).tolist()}"))
    return out


# the benchmark ----------------------------------------------------------------------------------------------
EXPERIMENTS = (("incline", lambda quick: incline_records()), ("cradle", lambda quick: cradle_records()),
               ("stacking", stacking_records), ("funnel", funnel_records), ("wall", wall_records),
               ("tops", tops_records), ("limits", lambda quick: limit_records()))


def run(quick: bool = False, only=None) -> list[dict]:
    """All experiments (or those named in ``only``) as records beside the thesis's figures. An experiment
    that raises is reported as a record naming the error, so one failure does not hide the others."""
    records = []
    chosen = [(name, fn) for name, fn in EXPERIMENTS if not only or name in only]
    for k, (name, fn) in enumerate(chosen, 1):
        _say(f"contact bench {k}/{len(chosen)}: {name} ...")
        t = time.perf_counter()
        try:
            rows = fn(quick)
        except Exception as exc:      # reported in the table, not swallowed
            rows = [dict(experiment=name, case="", quantity="error", impulsim=f"{type(exc).__name__}: {exc}")]
        seconds = time.perf_counter() - t
        _say(f"contact bench {k}/{len(chosen)}: {name} done in {seconds:.0f} s")
        for r in rows:
            r.setdefault("note", "")
        rows[-1]["note"] = (rows[-1]["note"] + f" [{name}: {seconds:.0f} s]").strip()
        records += rows
    return records


def _say(line: str) -> None:
    """Progress of the experiments (some run for minutes) on stderr, so stdout keeps only the tables."""
    print(line, file=sys.stderr, flush=True)
