"""Build time of a shipped track's mesh and time per nearest-point query, re-checked after timing.

    python benchmarks/bobsleigh_track.py [--track whistler] [--points 100000] [--repeat 5]

Prints the mesh size and the median build time (mesh; TriangleMesh check; model build with the
bounding-volume tree), then the median time per point of `Track.project` in one batch call and for
single points, for both modes. After timing, the projected points are checked against where they were
made (s, b, h to 1e-6 m), so a fast wrong projection cannot pass.
"""
import argparse
import time

import numpy as np

import impulsim as ims
from impulsim.apps.bobsleigh.track import load_track

CHECK_TOL = 1e-6


def time_mesh(name: str, repeat: int) -> None:
    times = []
    for _ in range(repeat):
        track = load_track(name)
        t0 = time.perf_counter()
        v, t = track.mesh()
        times.append(time.perf_counter() - t0)
    t0 = time.perf_counter()
    shape = track.triangle_mesh()
    t1 = time.perf_counter()
    b = ims.ModelBuilder("track")
    b.add_body("track", shapes=[shape], static=True)
    b.build()
    t2 = time.perf_counter()
    print(f"{name}: {len(v)} vertices, {len(t)} triangles; mesh {np.median(times):.2f} s (median of {repeat}), "
          f"TriangleMesh {t1 - t0:.2f} s, model build with BVH {t2 - t1:.2f} s")


def time_queries(name: str, n: int, repeat: int) -> None:
    track = load_track(name)
    rng = np.random.default_rng(0)
    s = rng.uniform(track.s_min + 1, track.s_max - 1, n)
    b, h = rng.uniform(-1, 1, n), rng.uniform(0, 2, n)
    origin, _, lat, up = track.frame(s)
    q = origin + b[:, None] * lat + h[:, None] * up
    track.project(q[:10])
    for mode in ("section", "perpendicular"):
        batch = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            out = track.project(q, mode)
            batch.append(time.perf_counter() - t0)
        single = []
        for i in range(min(n, 300)):
            t0 = time.perf_counter()
            track.project(q[i], mode)
            single.append(time.perf_counter() - t0)
        print(f"project ({mode}): {np.median(batch) / n * 1e6:.2f} us per point in a batch of {n}, "
              f"{np.median(single) * 1e6:.0f} us for one point per call")
        if mode == "section":
            err = max(np.abs(out[0] - s).max(), np.abs(out[1] - b).max(), np.abs(out[2] - h).max())
            assert err < CHECK_TOL, f"projection error {err:g} m"
            print(f"  re-checked: largest error in (s, b, h) {err:.1e} m")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--track", default="whistler")
    p.add_argument("--points", type=int, default=100_000)
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args()
    time_mesh(args.track, args.repeat)
    time_queries(args.track, args.points, args.repeat)


if __name__ == "__main__":
    main()
