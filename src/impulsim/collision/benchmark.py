"""``impulsim bench collision``: Bender's heap of 1000 falling cubes (Sec. 4.6) and broad-phase scaling.

How the heap is made: impulsim's contact solver is not used. The cubes (0.2 m) are dropped from a
10 × 10 × 10 grid with random orientations in MuJoCo and its body poses are recorded every 10 steps
(cached under ``$IMPULSIM_CACHE``, default ``~/.cache/impulsim``). Every recorded frame is then given to
impulsim's detector (all three phases: broad, narrow, contact region) and to MuJoCo's collision stage
(``mj_collision``, after ``mj_kinematics``, which is not timed) in the same process.

Records: per-collision time beside the thesis's 0.047 ms (V-Clip) and its < 25 ms for 500 collisions
with almost 1000 contact points; the ratio to MuJoCo on the same frames; time per phase; and the broad
phase on scattered scenes of 1k/4k/16k cubes (time per step should grow linearly). A "collision" is a
colliding convex pair (here: cube–cube or cube–ground), as in the thesis.
"""
from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np

CUBE = 0.2          # side length [m]
DT = 0.005          # MuJoCo time step [s]
RECORD_EVERY = 10   # steps between recorded frames
EPS_C = 1e-3        # contact tolerance [m]
THESIS_MS_PER_COLLISION = 0.047
THESIS_MS_FOR_500 = 25.0


def _cache_dir() -> Path:
    d = Path(os.environ.get("IMPULSIM_CACHE", Path.home() / ".cache" / "impulsim"))
    d.mkdir(parents=True, exist_ok=True)
    return d


def _drop_positions(n: int, seed: int = 7):
    """Grid of n cubes, 1.5 side lengths apart, lowest layer 0.5 m up, random orientations."""
    rng = np.random.default_rng(seed)
    side = int(np.ceil(n ** (1 / 3)))
    idx = np.array([(i, j, k) for k in range(side) for j in range(side) for i in range(side)][:n], float)
    pos = (idx - (side - 1) / 2) * 1.5 * CUBE
    pos[:, 2] = 0.5 + idx[:, 2] * 1.5 * CUBE
    pos[:, :2] += rng.uniform(-0.02, 0.02, (n, 2))
    q = rng.normal(size=(n, 4))
    return pos, q / np.linalg.norm(q, axis=1, keepdims=True)


def heap_mjcf(pos: np.ndarray, quat: np.ndarray) -> str:
    """MJCF of a ground plane and one free box per row of pos/quat (MuJoCo quaternions are w, x, y, z)."""
    h = CUBE / 2
    bodies = "\n".join(
        f'<body pos="{p[0]:.9g} {p[1]:.9g} {p[2]:.9g}" quat="{q[0]:.9g} {q[1]:.9g} {q[2]:.9g} {q[3]:.9g}">'
        f'<freejoint/><geom type="box" size="{h} {h} {h}" density="1000"/></body>' for p, q in zip(pos, quat))
    return (f'<mujoco><option timestep="{DT}"/><worldbody><geom type="plane" size="0 0 1"/>'
            f"{bodies}</worldbody></mujoco>")


def record_heap(n: int, seconds: float):
    """Frames of body poses [frames, n, 7] (x, y, z, qw, qx, qy, qz) of n cubes dropped in MuJoCo."""
    path = _cache_dir() / f"heap_{n}_{seconds:g}s.npz"
    if path.exists():
        return np.load(path)["frames"]
    mujoco = _mujoco()
    m = mujoco.MjModel.from_xml_string(heap_mjcf(*_drop_positions(n)))
    d = mujoco.MjData(m)
    frames = []
    for step in range(int(round(seconds / DT))):
        mujoco.mj_step(m, d)
        if (step + 1) % RECORD_EVERY == 0:
            frames.append(d.qpos.reshape(n, 7).copy())
    frames = np.array(frames)
    np.savez(path, frames=frames)
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


def _mj_pairs(d, m, n_con):
    """Set of colliding body pairs (sorted, impulsim numbering: ground 1, cube i -> i + 2)."""
    pairs = set()
    for c in d.contact[:n_con]:
        bodies = sorted((int(m.geom_bodyid[c.geom1]), int(m.geom_bodyid[c.geom2])))
        pairs.add(tuple(b + 1 if b > 0 else 1 for b in bodies))
    return pairs


def time_heap(n: int, frames: np.ndarray, repeats: int):
    """Per frame: impulsim's detect time, pairs and points; MuJoCo's mj_collision time and contacts."""
    from impulsim.collision import Detector
    mujoco = _mujoco()
    model, state = heap_model(n)
    det = Detector(model, eps_c=EPS_C)
    t0 = time.perf_counter()
    _set_frame(state, frames[-1])
    det.detect(state)
    cold = time.perf_counter() - t0
    m = mujoco.MjModel.from_xml_string(heap_mjcf(*_drop_positions(n)))
    d = mujoco.MjData(m)
    rows = []
    for frame in frames:
        _set_frame(state, frame)
        t_all = _median_time(lambda: det.detect(state), repeats)
        c = det.detect(state)
        phases = dict(det.timings)
        t_point = _median_time(lambda: det.detect(state, region=False), repeats)
        ours = {(min(a, b), max(a, b)) for a, b in zip(c.body_a, c.body_b)}
        d.qpos[:] = frame.reshape(-1)
        mujoco.mj_kinematics(m, d)
        t_mj = _median_time(lambda: mujoco.mj_collision(m, d), repeats)
        theirs = _mj_pairs(d, m, d.ncon)
        rows.append(dict(t=t_all, broad=phases["broad"], narrow=phases["narrow"], t_closest=t_point,
                         pairs=c.n_pairs, points=c.count, t_mj=t_mj, ncon_mj=int(d.ncon),
                         mj_pairs_found=len(theirs & ours), mj_pairs=len(theirs),
                         max_dist=float(c.distance.max()) if c.count else 0.0))
    return rows, cold


def _heap_records(n: int, rows, cold: float) -> list[dict]:
    busy = [r for r in rows if r["pairs"] > 0]
    t = np.array([r["t"] for r in busy])
    pairs = np.array([r["pairs"] for r in busy])
    t_mj = np.array([r["t_mj"] for r in busy])
    per_coll = 1e3 * t.sum() / pairs.sum()
    recs = [dict(benchmark="heap", quantity="ms per detected collision (all phases)", impulsim=per_coll,
                 thesis=THESIS_MS_PER_COLLISION, mujoco=1e3 * t_mj.sum() / pairs.sum(),
                 target="<= 0.005", frames=len(busy), cubes=n)]
    near = min(busy, key=lambda r: abs(r["pairs"] - 500))
    recs.append(dict(benchmark="heap", quantity=f"ms for {near['pairs']} collisions / {near['points']} "
                     "points", impulsim=1e3 * near["t"], thesis=THESIS_MS_FOR_500, mujoco=1e3 * near["t_mj"],
                     mujoco_contacts=near["ncon_mj"]))
    last = busy[-1]
    recs.append(dict(benchmark="heap", quantity=f"ms, settled heap ({last['pairs']} collisions / "
                     f"{last['points']} points)", impulsim=1e3 * last["t"], mujoco=1e3 * last["t_mj"],
                     mujoco_contacts=last["ncon_mj"]))
    recs.append(dict(benchmark="heap", quantity="time ratio impulsim / mj_collision (sum over frames)",
                     impulsim=float(t.sum() / t_mj.sum()), target="<= 1"))
    recs.append(dict(benchmark="heap", quantity="phases of the settled heap [ms]: broad / narrow+region / "
                     "closest points only", impulsim=f"{1e3 * last['broad']:.3f} / {1e3 * last['narrow']:.3f}"
                     f" / {1e3 * last['t_closest']:.3f}"))
    found = sum(r["mj_pairs_found"] for r in busy) / max(1, sum(r["mj_pairs"] for r in busy))
    worst = max(r["max_dist"] for r in busy)
    recs.append(dict(benchmark="heap", quantity="check: share of MuJoCo's colliding pairs also found; "
                     "largest contact distance [m]", impulsim=f"{found:.4f}; {worst:.2e}",
                     target=f"1.0; <= eps_c = {EPS_C}"))
    recs.append(dict(benchmark="heap", quantity="cold start: first detect incl. JIT load/compile [s]",
                     impulsim=cold))
    return recs


def scattered_scene(n: int, seed: int = 3):
    """n cubes at random positions, at 1/20 of close packing (few overlaps), no ground."""
    import impulsim as ims
    rng = np.random.default_rng(seed)
    side = (20 * n * CUBE ** 3) ** (1 / 3)
    b = ims.ModelBuilder("scattered", gravity=(0, 0, 0))
    for i in range(n):
        b.add_body(f"c{i}", shapes=[ims.Box(size=(CUBE, CUBE, CUBE))], position=rng.uniform(0, side, 3))
    model, state = b.build()
    q = rng.normal(size=(n, 4))
    state.body_quat[1:] = q / np.linalg.norm(q, axis=1, keepdims=True)
    return model, state


def time_broad_phase(n: int, steps: int) -> dict:
    """Median time of one broad-phase step (poses, boxes, insertion sort, sweep) with small motions."""
    from impulsim.collision import Detector
    model, state = scattered_scene(n)
    det = Detector(model, eps_c=EPS_C)
    det.broad_phase(state)
    rng = np.random.default_rng(0)
    times, pairs = [], 0
    for _ in range(steps):
        state.body_pos[1:] += rng.normal(scale=0.01, size=(n, 3))     # 1 cm per step
        t0 = time.perf_counter()
        pairs = det.broad_phase(state)
        times.append(time.perf_counter() - t0)
    t = float(np.median(times))
    return dict(benchmark="broad phase (scattered)", quantity=f"{n} bodies: ms per step", impulsim=1e3 * t,
                us_per_body=1e6 * t / n, pairs=pairs)


def run(quick: bool = False) -> list[dict]:
    """All collision records (``quick``: 300 cubes and fewer repeats)."""
    n = 300 if quick else 1000
    seconds = 2.0 if quick else 4.0
    frames = record_heap(n, seconds)
    rows, cold = time_heap(n, frames[:: (4 if quick else 2)], repeats=3 if quick else 7)
    records = _heap_records(n, rows, cold)
    for size in ((1000, 4000) if quick else (1000, 4000, 16000)):
        records.append(time_broad_phase(size, steps=5 if quick else 15))
    base = [r for r in records if r["benchmark"].startswith("broad")]
    for r in base:
        r["ratio_to_1k_per_body"] = r["us_per_body"] / base[0]["us_per_body"]
    return records
