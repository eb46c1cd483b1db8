"""Cost of the bob's steps: median µs per step at Δt = 0.2 ms over chunks of 50 steps (the pilot's 10 ms),
the real-time factor, contacts closed and Gauss–Seidel sweeps per step; and optionally a whole run.

    PYTHONPATH=src python benchmarks/bob_speed.py [--track whistler] [--seconds 10] [--run]

Wall time (perf_counter) and process CPU time (process_time) are both printed: on a shared machine the CPU
time is the one that does not count the time other processes hold the cores.
"""
import argparse
import time

import numpy as np

from impulsim.apps.bobsleigh.bob import load_bob
from impulsim.apps.bobsleigh.bob.sim import BobSim
from impulsim.apps.bobsleigh.pilot import Pilot
from impulsim.apps.bobsleigh.run import NOSE, run
from impulsim.apps.bobsleigh.track import load_track
from impulsim.apps.bobsleigh.view import TrackView

H, CHUNK = 2e-4, 50


def solver_only(track, seconds):
    """The bob with the pilot's steering, chunk by chunk; the pilot runs outside the timed region."""
    view = TrackView(track)
    sim = BobSim(load_bob(), track.mesh())
    view.seek(track.start_s - NOSE[0])
    o, t, l = view.frame(track.start_s - NOSE[0])
    sim.place(o, t, l, speed=10.0)
    pilot = Pilot()
    sim.run(H, CHUNK, 0.0)                          # compile / warm up
    wall, cpu, closed, sweeps = [], [], [], []
    for _ in range(int(seconds / (H * CHUNK))):
        R = sim.rotation()
        nose = sim.position + R @ (NOSE - sim.com0)
        s, b, h = view.project(nose)
        i = pilot.steer(view, s, b, h, nose, R, float(np.linalg.norm(sim.velocity)), float(sim.system.u[3:6] @ R[:, 2]))
        sim.system.reset_accumulators()
        w0, c0 = time.perf_counter(), time.process_time()
        sim.run(H, CHUNK, sim.bob.steering(i))
        wall.append((time.perf_counter() - w0) / CHUNK)
        cpu.append((time.process_time() - c0) / CHUNK)
        st = sim.system.acc.stats
        closed.append(st[1] / st[0])
        sweeps.append(st[2] / st[0])
        if sim.crashed():
            break
    return np.array(wall), np.array(cpu), np.array(closed), np.array(sweeps)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--track", default="whistler")
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--run", action="store_true", help="also time a whole run with pilot and recorder")
    args = ap.parse_args()
    track = load_track(args.track)
    wall, cpu, closed, sweeps = solver_only(track, args.seconds)
    print(f"{args.track}: {len(wall) * CHUNK} steps of {H * 1e3:.1f} ms")
    for name, x in (("wall", wall), ("cpu", cpu)):
        med = np.median(x) * 1e6
        print(f"  {name:4s} median {med:6.1f} us/step  (p10 {np.percentile(x, 10) * 1e6:6.1f}, p90 "
              f"{np.percentile(x, 90) * 1e6:6.1f})  real-time factor {H * 1e6 / med:5.1f}x")
    print(f"  contacts closed per step: mean {closed.mean():.2f}, max {closed.max():.2f}; "
          f"Gauss-Seidel sweeps per step: mean {sweeps.mean():.2f}")
    if args.run:
        c0 = time.process_time()
        r = run(track)
        cpu_run = time.process_time() - c0
        t_end = r.trace["t"][-1]
        print(r.summary())
        print(f"  whole run: {t_end:.2f} s simulated, wall {r.wall_time:.1f} s ({t_end / r.wall_time:.1f}x), "
              f"cpu {cpu_run:.1f} s ({t_end / cpu_run:.1f}x)")


if __name__ == "__main__":
    main()
