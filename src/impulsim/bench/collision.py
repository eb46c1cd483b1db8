"""``impulsim bench collision``: Bender's heap of 1000 falling cubes (Sec. 4.6) and broad-phase scaling.

How the heap is made: impulsim's contact solver is not used. 1000 cubes (0.2 m) are dropped from a
10 × 10 × 10 grid (0.4 m apart, so no two overlap at the start; random orientations, lowest layer 0.5 m
up) onto a ground plane in MuJoCo (time step 5 ms, CG solver with sparse Jacobians, pyramidal cones:
about 10 ms per step for 1000 cubes), and the body poses are recorded every 10 steps for 4 s. The
recording is cached under ``$IMPULSIM_CACHE`` (default ``~/.cache/impulsim``) in a file named after a hash
of the recipe, so repeated runs reuse it and a changed recipe records anew.

Every recorded frame is then given to impulsim's detector (all three phases: poses and boxes, broad
phase, narrow phase with contact regions) and to MuJoCo's collision stage (``mj_collision``, after
``mj_kinematics``, which is not timed; so impulsim's figure includes the shape poses and MuJoCo's does
not) in the same process, each the median of several repetitions. For comparable contact settings the
MuJoCo model timed has ``margin = eps_c`` on every geom, so it also reports pairs up to eps_c apart.
After timing, the contacts are re-checked against MuJoCo's: the colliding body pairs of both, and the
smallest signed distance of each pair both report.

A "collision" is a colliding convex pair (cube–cube or cube–ground), as in the thesis.
"""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

CUBE = 0.2          # side length [m]
SPACING = 2.0       # start grid spacing [cube sides]: > √3, so randomly turned cubes never overlap
DT = 0.005          # MuJoCo time step [s]
RECORD_EVERY = 10   # steps between recorded frames
EPS_C = 1e-3        # contact tolerance [m]
THESIS_MS_PER_COLLISION = 0.047
THESIS_MS_FOR_500 = 25.0
RECORD_OPTIONS = 'timestep="{dt}" solver="CG" iterations="30" jacobian="sparse" cone="pyramidal"'
"""MuJoCo options of the recording run (the physics only has to make a plausible heap)."""
DEPTH_TOL = 1e-6
"""Penetration depths of pairs both engines report must agree within 1 µm (both compute box–box and
box–plane depths exactly; MuJoCo works in single steps of double precision too)."""


def _cache_dir() -> Path:
    d = Path(os.environ.get("IMPULSIM_CACHE", Path.home() / ".cache" / "impulsim"))
    d.mkdir(parents=True, exist_ok=True)
    return d


def _drop_positions(n: int, seed: int = 7):
    """Grid of n cubes SPACING sides apart, lowest layer 0.5 m up, random orientations."""
    rng = np.random.default_rng(seed)
    side = int(np.ceil(n ** (1 / 3)))
    idx = np.array([(i, j, k) for k in range(side) for j in range(side) for i in range(side)][:n], float)
    pos = (idx - (side - 1) / 2) * SPACING * CUBE
    pos[:, 2] = 0.5 + idx[:, 2] * SPACING * CUBE
    pos[:, :2] += rng.uniform(-0.02, 0.02, (n, 2))
    q = rng.normal(size=(n, 4))
    return pos, q / np.linalg.norm(q, axis=1, keepdims=True)


def heap_mjcf(pos: np.ndarray, quat: np.ndarray, options: str, margin: float = 0.0) -> str:
    """MJCF of a ground plane and one free box per row of pos/quat (MuJoCo quaternions are w, x, y, z);
    every geom gets the contact ``margin`` [m]."""
    h = CUBE / 2
    bodies = "\n".join(
        f'<body pos="{p[0]:.9g} {p[1]:.9g} {p[2]:.9g}" quat="{q[0]:.9g} {q[1]:.9g} {q[2]:.9g} {q[3]:.9g}">'
        f'<freejoint/><geom type="box" size="{h} {h} {h}" density="1000"/></body>' for p, q in zip(pos, quat))
    return (f'<mujoco><option {options}/><default><geom margin="{margin:g}"/></default>'
            f'<worldbody><geom type="plane" size="0 0 1"/>{bodies}</worldbody></mujoco>')


def _record_mjcf(n: int) -> str:
    return heap_mjcf(*_drop_positions(n), RECORD_OPTIONS.format(dt=DT))


def record_heap(n: int, seconds: float) -> np.ndarray:
    """Frames of body poses [frames, n, 7] (x, y, z, qw, qx, qy, qz) of n cubes dropped in MuJoCo."""
    steps = int(round(seconds / DT))
    recipe = f"{_record_mjcf(n)}|{steps}|{RECORD_EVERY}|{_mujoco().__version__}"
    path = _cache_dir() / f"heap_{n}_{hashlib.sha1(recipe.encode()).hexdigest()[:12]}.npz"
    if path.exists():
        return np.load(path)["frames"]
    mujoco = _mujoco()
    m = mujoco.MjModel.from_xml_string(_record_mjcf(n))
    d = mujoco.MjData(m)
    frames = []
    for step in range(steps):
        mujoco.mj_step(m, d)
        if (step + 1) % RECORD_EVERY == 0:
            frames.append(d.qpos.reshape(n, 7).copy())
    frames = np.array(frames)
    tmp = path.with_suffix(".tmp.npz")
    np.savez(tmp, frames=frames)
    tmp.replace(path)                     # atomic: a killed run leaves no half-written cache
    return frames


def _mujoco():
    try:
        import mujoco
    except ImportError:
        raise RuntimeError("the collision benchmark compares with MuJoCo: pip install 'impulsim[bench]'") \
            from None
    return mujoco


def heap_model(n: int):
    """impulsim model of the same scene: a static half-space ground and n free cubes."""
    import impulsim as ims
    from impulsim.geometry import HalfSpace
    b = ims.ModelBuilder("heap", gravity=(0, 0, -9.81))
    b.add_body("ground", shapes=[HalfSpace()], static=True)
    for i in range(n):
        b.add_body(f"cube{i}", shapes=[ims.Box(size=(CUBE, CUBE, CUBE))], position=(0, 0, 1.0 + i))
    return b.build()


def _set_frame(state, frame):
    state.body_pos[2:] = frame[:, :3]
    q = frame[:, 3:7]
    state.body_quat[2:] = q / np.linalg.norm(q, axis=1, keepdims=True)


def _median_time(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def _pair_distances(body_a, body_b, dist) -> dict:
    """Smallest signed distance per unordered body pair."""
    out: dict = {}
    for a, b, d in zip(body_a, body_b, dist):
        key = (min(a, b), max(a, b))
        out[key] = min(out.get(key, np.inf), float(d))
    return out


def _support(frame, body, u) -> float:
    """h(u) = max x·u over a cube (impulsim body ≥ 2) or the ground half-space z <= 0 (body 1)."""
    if body == 1:
        return 0.0 if np.allclose(u[:2], 0.0) and u[2] > 0 else np.inf
    from impulsim.math import quat_to_matrix
    pose = frame[body - 2]
    R = quat_to_matrix(pose[3:7] / np.linalg.norm(pose[3:7]))
    return float(pose[:3] @ u + 0.5 * CUBE * np.abs(R.T @ u).sum())


def _separation(frame, ba, bb, u) -> float:
    """Separation of bodies ba and bb along unit u (from bb towards ba): −h_A(−u) − h_B(u). It is a lower
    bound of their signed distance for every u, and equals it along the true normal."""
    return -_support(frame, ba, -u) - _support(frame, bb, u)


def _depth_disputes(frame, c, theirs: dict, ours: dict) -> list:
    """For pairs where MuJoCo's depth differs from impulsim's by more than DEPTH_TOL: impulsim's separation
    along its own normal minus its reported distance (0 means the depth is attained: the true signed
    distance is at least impulsim's, so a deeper figure is too deep)."""
    out = []
    for i in range(c.count):
        key = (min(c.body_a[i], c.body_b[i]), max(c.body_a[i], c.body_b[i]))
        if key in theirs and ours[key] < 0 and abs(theirs[key] - ours[key]) > DEPTH_TOL \
                and c.distance[i] == ours[key]:
            out.append(_separation(frame, c.body_a[i], c.body_b[i], c.normal[i]) - ours[key])
    return out


def _mj_pair_distances(m, d) -> dict:
    """MuJoCo's contacts per body pair, in impulsim numbering (ground 1, cube i -> i + 2)."""
    n = d.ncon
    ba = m.geom_bodyid[d.contact.geom1[:n]]
    bb = m.geom_bodyid[d.contact.geom2[:n]]
    ours = lambda b: np.where(b > 0, b + 1, 1)  # noqa: E731
    return _pair_distances(ours(ba).tolist(), ours(bb).tolist(), d.contact.dist[:n])


def _compare(ours: dict, theirs: dict) -> dict:
    """Pairs of both, of one only (with the distance the one that has them gives), and depth agreement."""
    both = ours.keys() & theirs.keys()
    only_ours = [ours[k] for k in ours.keys() - both]
    only_mj_keys = sorted(theirs.keys() - both)
    diff = [abs(ours[k] - theirs[k]) for k in both if ours[k] < 0 and theirs[k] < 0]
    return dict(both=len(both), only_ours=only_ours, only_mj=[theirs[k] for k in only_mj_keys],
                only_mj_keys=only_mj_keys, depth_diff=max(diff, default=0.0), deeper_mj=sum(
                    theirs[k] < ours[k] - DEPTH_TOL for k in both if ours[k] < 0),
                shallower_mj=sum(theirs[k] > ours[k] + DEPTH_TOL for k in both if ours[k] < 0))


def time_heap(n: int, frames: np.ndarray, repeats: int):
    """Per frame: impulsim's detect time, pairs and points; MuJoCo's mj_collision time and contacts;
    then (after all timing) the comparison of both engines' pairs and depths."""
    from impulsim.collision import Detector
    mujoco = _mujoco()
    model, state = heap_model(n)
    det = Detector(model, eps_c=EPS_C)
    t0 = time.perf_counter()
    _set_frame(state, frames[-1])
    det.detect(state)
    cold = time.perf_counter() - t0
    m = mujoco.MjModel.from_xml_string(heap_mjcf(*_drop_positions(n), f'timestep="{DT}"', margin=EPS_C))
    d = mujoco.MjData(m)
    rows = []
    for frame in frames:
        _set_frame(state, frame)
        t_all = _median_time(lambda: det.detect(state), repeats)
        t_broad = _median_time(lambda: det.broad_phase(state), repeats)
        t_narrow = _median_time(lambda: det.narrow_phase(), repeats)
        t_point = _median_time(lambda: det.detect(state, region=False), repeats)
        d.qpos[:] = frame.reshape(-1)
        mujoco.mj_kinematics(m, d)
        t_mj = _median_time(lambda: mujoco.mj_collision(m, d), repeats)
        rows.append(dict(t=t_all, broad=t_broad, narrow=t_narrow, t_closest=t_point, t_mj=t_mj))
    for frame, row in zip(frames, rows):          # re-check, apart from the timing
        _set_frame(state, frame)
        c = det.detect(state)
        d.qpos[:] = frame.reshape(-1)
        mujoco.mj_kinematics(m, d)
        mujoco.mj_collision(m, d)
        ours, theirs = _pair_distances(c.body_a, c.body_b, c.distance), _mj_pair_distances(m, d)
        check = _compare(ours, theirs)
        check["disputes"] = _depth_disputes(frame, c, theirs, ours)
        check["only_mj_exact"] = [det.distance(state, a - 1, b - 1).distance for a, b in check.pop("only_mj_keys")]
        row.update(pairs=c.n_pairs, points=c.count, ncon_mj=int(d.ncon), max_dist=float(c.distance.max(initial=0)),
                   check=check)
    return rows, cold


def _heap_records(n: int, rows, cold: float, how: str) -> list[dict]:
    busy = [r for r in rows if r["pairs"] > 0]
    t = np.array([r["t"] for r in busy])
    pairs = np.array([r["pairs"] for r in busy])
    t_mj = np.array([r["t_mj"] for r in busy])
    recs = [dict(benchmark="heap", quantity="how the heap was made", impulsim=how),
            dict(benchmark="heap", quantity="ms per detected collision (all phases; mean over frames)",
                 impulsim=1e3 * t.sum() / pairs.sum(), thesis=THESIS_MS_PER_COLLISION,
                 mujoco=1e3 * t_mj.sum() / pairs.sum(), target="<= 0.005", frames=len(busy), cubes=n)]
    near = min(busy, key=lambda r: abs(r["pairs"] - 500))
    recs.append(dict(benchmark="heap", quantity=f"ms for {near['pairs']} collisions / {near['points']} "
                     "points", impulsim=1e3 * near["t"], thesis=THESIS_MS_FOR_500, mujoco=1e3 * near["t_mj"],
                     mujoco_contacts=near["ncon_mj"]))
    last = busy[-1]
    recs.append(dict(benchmark="heap", quantity=f"ms, settled heap ({last['pairs']} collisions / "
                     f"{last['points']} points)", impulsim=1e3 * last["t"], mujoco=1e3 * last["t_mj"],
                     mujoco_contacts=last["ncon_mj"]))
    ratios = t / t_mj
    recs.append(dict(benchmark="heap", quantity="time ratio impulsim / mj_collision (median over frames; "
                     "sum over frames)", impulsim=f"{np.median(ratios):.3f}; {t.sum() / t_mj.sum():.3f}",
                     target="<= 1"))
    recs.append(dict(benchmark="heap", quantity="phases of the settled heap [ms]: broad / narrow+region / "
                     "closest points only", impulsim=f"{1e3 * last['broad']:.3f} / {1e3 * last['narrow']:.3f}"
                     f" / {1e3 * last['t_closest']:.3f}"))
    recs.extend(_check_records(busy))
    recs.append(dict(benchmark="heap", quantity="cold start: first detect incl. JIT load/compile [s]",
                     impulsim=cold))
    return recs


def _check_records(busy) -> list[dict]:
    both = sum(r["check"]["both"] for r in busy)
    only_ours = [d for r in busy for d in r["check"]["only_ours"]]
    only_mj = [d for r in busy for d in r["check"]["only_mj"]]
    depth = max(r["check"]["depth_diff"] for r in busy)
    worst = max(r["max_dist"] for r in busy)
    exact = [d for r in busy for d in r["check"]["only_mj_exact"]]
    missed = sum(d <= EPS_C for d in exact)
    deeper = sum(r["check"]["deeper_mj"] for r in busy)
    shallower = sum(r["check"]["shallower_mj"] for r in busy)
    disputes = [abs(x) for r in busy for x in r["check"]["disputes"]]
    near = lambda ds: f"{len(ds)} (distance {min(ds, default=0):.2e} .. {max(ds, default=0):.2e} m)"  # noqa: E731
    return [dict(benchmark="heap", quantity="check: colliding body pairs found by both / by impulsim only / "
                 "by MuJoCo only", impulsim=f"{both} / {near(only_ours)} / {near(only_mj)}",
                 target="one-sided pairs only near eps_c"),
            dict(benchmark="heap", quantity="check: MuJoCo-only pairs, impulsim's exact distance (Detector."
                 "distance); of them within eps_c (missed)", impulsim=f"{near(exact)}; {missed}", target="0 missed"),
            dict(benchmark="heap", quantity="check: penetrating pairs both find: largest depth difference [m]; "
                 f"MuJoCo deeper / shallower by > {DEPTH_TOL:g} m; largest contact distance [m]",
                 impulsim=f"{depth:.2e}; {deeper} / {shallower}; {worst:.2e}",
                 target=f"<= {DEPTH_TOL:g}; <= eps_c = {EPS_C}"),
            dict(benchmark="heap", quantity="check: pairs whose depths differ: impulsim's depth attained along "
                 "its normal (independent support functions), largest miss [m]",
                 impulsim=f"{len(disputes)} pairs; {max(disputes, default=0):.1e}",
                 target="~1e-15: then the true depth is at most impulsim's")]


def cold_compile_seconds(timeout: float = 900.0) -> float:
    """Seconds for a fresh process to build a detector and run its first detect with an empty Numba
    cache (compilation of every kernel the heap needs, import included)."""
    import tempfile
    code = ("import time; t=time.perf_counter(); from impulsim.bench import collision as b, Detector; "
            "m, s = b.heap_model(8); Detector(m).detect(s); print(time.perf_counter()-t)")
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                             timeout=timeout, check=True)
    return float(out.stdout.strip().splitlines()[-1])


SCALING_SIZES = (1000, 4000, 16000)
SCALING_SCENES = 4
"""Scattered scenes per size, timed in rotation (one step of each in turn). Inside a simulation step the
broad phase runs after the narrow phase and the solver, so it finds neither its data in the caches nor its
branches in the predictor; timing one small scene over and over lets the processor learn the sweep's
branches: measured on the grid's sweep, 0.027 µs per body at 1k bodies repeated on one scene against
0.097 in rotation over 8 scenes, while at 16k both gave 0.12."""
SCALING_WARMUP = 3
"""Untimed steps per scene before timing (compilation, and the sweep-and-prune's first full sort)."""


def scattered_scene(n: int, seed: int = 3):
    """n cubes at random positions, at 1/20 of close packing (few overlaps), no ground."""
    import impulsim as ims
    rng = np.random.default_rng(seed)
    b = ims.ModelBuilder("scattered", gravity=(0, 0, 0))
    for i in range(n):
        b.add_body(f"c{i}", shapes=[ims.Box(size=(CUBE, CUBE, CUBE))], position=rng.uniform(0, _side(n), 3))
    model, state = b.build()
    q = rng.normal(size=(n, 4))
    state.body_quat[1:] = q / np.linalg.norm(q, axis=1, keepdims=True)
    return model, state


def _side(n: int) -> float:
    """Edge [m] of the cube that holds n cubes at 1/20 of close packing (fixed density)."""
    return (20 * n * CUBE ** 3) ** (1 / 3)


ROW_WIDTH = 1.5
"""Width and height [m] of the channel of the row scene (cubes at the scattered scene's density, spread
along x): the scene for which sweep-and-prune is made."""


def rescattered(state, n: int, seed: int, row: bool = False):
    """A copy of a scattered scene's state with new random positions and orientations (same density), in
    the cube of the scattered scene or (``row``) in a channel ROW_WIDTH wide and high along x."""
    rng = np.random.default_rng(seed)
    out = state.copy()
    if row:
        extent = np.array([20 * n * CUBE ** 3 / ROW_WIDTH ** 2, ROW_WIDTH, ROW_WIDTH])
    else:
        extent = np.full(3, _side(n))
    out.body_pos[1:] = rng.uniform(0, 1, (n, 3)) * extent
    q = rng.normal(size=(n, 4))
    out.body_quat[1:] = q / np.linalg.norm(q, axis=1, keepdims=True)
    return out


def time_broad_phase(model, state, method: str, steps: int, scenes: int = SCALING_SCENES, row: bool = False) -> dict:
    """Broad-phase step (poses, boxes, pairs) of ``method`` on ``scenes`` scattered scenes of the model's
    cubes, each moving 1 cm per step (random walk), timed in rotation after SCALING_WARMUP steps: median and
    minimum over all timed steps of the thread's CPU time, per body [µs]. CPU time, not wall time: on a
    shared machine the wall clock also counts other processes' time slices. ``row``: the cubes in the row
    scene's channel instead."""
    from impulsim.collision import Detector
    n = model.n_bodies - 1
    first = [rescattered(state, n, 0, row)] if row else [state.copy()]
    states = first + [rescattered(state, n, seed, row) for seed in range(1, scenes)]
    dets = [Detector(model, eps_c=EPS_C, broad_phase=method) for _ in states]
    rng = np.random.default_rng(0)
    times, pairs = [], 0
    for step in range(SCALING_WARMUP + steps):
        for det, st in zip(dets, states):
            st.body_pos[1:] += rng.normal(scale=0.01, size=(n, 3))
            t0 = time.thread_time()
            pairs = det.broad_phase(st)
            if step >= SCALING_WARMUP:
                times.append(time.thread_time() - t0)
    return dict(benchmark=f"broad phase ({'row' if row else 'scattered'}), {method}",
                quantity=f"{n} bodies, {scenes} scene(s) in rotation: CPU µs per body (median)",
                impulsim=1e6 * float(np.median(times)) / n, min_us_per_body=1e6 * float(np.min(times)) / n,
                pairs_per_body=pairs / n)


def broad_phase_scaling(steps: int, sizes=SCALING_SIZES, one_scene: bool = True, row_sizes=(1000, 4000)) \
        -> list[dict]:
    """Both broad phases on scattered scenes of each size (SCALING_SCENES in rotation, and with
    ``one_scene`` a single scene timed over and over) and on row scenes of ``row_sizes`` (in rotation),
    with the per-body ratios of successive sizes."""
    from impulsim.collision.detector import BROAD_PHASES
    modes = [(SCALING_SCENES, False)] + ([(1, False)] if one_scene else []) + [(SCALING_SCENES, True)]
    out = {(m, k, row): [] for m in BROAD_PHASES for k, row in modes}
    for n in sorted(set(sizes) | set(row_sizes)):
        model, state = scattered_scene(n)
        for (method, scenes, row), recs in out.items():
            if n in (row_sizes if row else sizes):
                recs.append(time_broad_phase(model, state, method, steps, scenes, row))
    records = []
    for recs in out.values():
        for prev, rec in zip([None] + recs[:-1], recs):
            if prev is not None:
                rec["per_body_ratio_to_previous"] = rec["impulsim"] / prev["impulsim"]
        records.extend(recs)
    return records


def heap_broad_phases(n: int, frames: np.ndarray, passes: int) -> list[dict]:
    """Both broad phases on the heap: each pass detects the frames in recorded order (so sweep-and-prune
    sees the motion between frames, not one frame repeated); thread CPU time of all phases and of the
    broad phase, per-frame medians over the passes. Both must report the same collisions and points on
    every frame."""
    from impulsim.collision import Detector
    from impulsim.collision.detector import BROAD_PHASES
    model, state = heap_model(n)
    dets = {m: Detector(model, eps_c=EPS_C, broad_phase=m) for m in BROAD_PHASES}
    t_all = {m: np.zeros((passes, len(frames))) for m in dets}
    t_broad = {m: np.zeros((passes, len(frames))) for m in dets}
    found = {m: [] for m in dets}
    for p in range(passes):
        for m, det in dets.items():
            for i, frame in enumerate(frames):
                _set_frame(state, frame)
                t0 = time.thread_time()
                det.broad_phase(state)
                t1 = time.thread_time()
                c = det.narrow_phase()
                t_all[m][p, i], t_broad[m][p, i] = time.thread_time() - t0, t1 - t0
                if p == 0:
                    found[m].append((c.n_pairs, c.count))
    pairs = np.array([f[0] for f in found["grid"]])
    busy = pairs > 0
    recs = []
    for m in dets:
        t, tb = np.median(t_all[m], axis=0), np.median(t_broad[m], axis=0)
        per_collision = 1e3 * t[busy].sum() / pairs[busy].sum()
        recs.append(dict(benchmark=f"heap, {m}", quantity="CPU ms per detected collision (all phases); broad "
                         "phase of the settled heap [CPU ms]", impulsim=f"{per_collision:.5f}; {1e3 * tb[-1]:.3f}",
                         same_contacts_as_grid=found[m] == found["grid"]))
    return recs


def run(quick: bool = False) -> list[dict]:
    """All collision records (``quick``: 300 cubes for 2 s, fewer repeats, no cold-compile run)."""
    n = 300 if quick else 1000
    seconds = 2.0 if quick else 4.0
    t0 = time.perf_counter()
    frames = record_heap(n, seconds)
    how = (f"{n} cubes dropped in MuJoCo {_mujoco().__version__} ({RECORD_OPTIONS.format(dt=DT)}), "
           f"{len(frames)} frames over {seconds:g} s; recording or cache load took "
           f"{time.perf_counter() - t0:.1f} s")
    rows, cold = time_heap(n, frames[:: (4 if quick else 2)], repeats=5 if quick else 9)
    records = _heap_records(n, rows, cold, how)
    if not quick:
        records.append(dict(benchmark="heap", quantity="cold compile: fresh process, empty Numba cache, "
                            "first detect [s]", impulsim=cold_compile_seconds()))
    records.extend(heap_broad_phases(n, frames[:: (4 if quick else 2)], passes=5 if quick else 9))
    records.extend(broad_phase_scaling(steps=(8 if quick else 31), one_scene=not quick))
    return records
