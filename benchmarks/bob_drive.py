"""Driving simulator figures: frame rate of the page (headless Chromium, software WebGL), real-time factor
of the simulation, latency from a key press to the frame that shows the steering joint moved, and the
screenshots of docs/bobsleigh_drive.md.

    PYTHONPATH=src python benchmarks/bob_drive.py [TRACK] [--shots docs/images] [--max-frame 0.05]
    PYTHONPATH=src python benchmarks/bob_drive.py [TRACK] --no-page [--seconds 10]

``--no-page``: the server and its real-time loop without a browser; a WebSocket client (as the page) sends
a steering command every 0.37 s (lever target 0, so the run stays hands off; the command's number shows
when it was applied) and times each until a frame from the server shows it applied. Prints the real-time
factor (simulated over wall time, and over the process's CPU time) and the latencies, then runs the same
passes back to back without waiting for wall time and prints their real-time factor and the CPU time of a
pass split into the sub-steps, the work at the 10 ms marks and the page's snapshot. ``--max-frame``: the
most simulated time per pass [s] (the session's default 0.05).
"""
import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.viewer.browser import launch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("track", nargs="?", default="test_chute")
    ap.add_argument("--shots", default=None, help="directory for the screenshots")
    ap.add_argument("--presses", type=int, default=10)
    ap.add_argument("--no-page", action="store_true", help="no browser: a WebSocket client steers")
    ap.add_argument("--seconds", type=float, default=10.0, help="with --no-page: simulated seconds at most")
    ap.add_argument("--max-frame", type=float, default=None, help="most simulated time per pass [s]")
    a = ap.parse_args()
    if a.no_page:
        return no_page(a.track, a.seconds)
    from playwright.sync_api import sync_playwright

    from impulsim.apps.bobsleigh.drive.server import DriveServer
    from impulsim.apps.bobsleigh.drive.session import DriveSession
    d = Path(tempfile.mkdtemp(prefix="bob-drive-"))
    session = DriveSession(a.track, runs_dir=d, reference=True,
                           **({} if a.max_frame is None else {"max_frame": a.max_frame}))
    while session.reference is None:            # the pilot model's run first, so it does not share the CPU
        time.sleep(0.5)
    srv = DriveServer(session, pilots_dir=d / "pilots").start()
    shots = Path(a.shots) if a.shots else None
    with sync_playwright() as p:
        ctx = launch(p)
        pg = ctx.new_page()
        pg.goto(srv.url)
        pg.wait_for_function("window.drive && window.drive.renders > 3", timeout=120_000)
        pg.keyboard.press("Enter")
        pg.wait_for_function("window.drive.state == 'driving' && window.drive.lastFrame.t > 1", timeout=120_000)
        for k in range(a.presses):
            pg.keyboard.down("ArrowLeft" if k % 2 else "ArrowRight")
            time.sleep(0.12)
            pg.keyboard.up("ArrowLeft" if k % 2 else "ArrowRight")
            time.sleep(0.25)
            if k == 3 and shots:
                pg.screenshot(path=str(shots / "bob_drive_chase.png"))
        fps = pg.evaluate("window.drive.fps")
        frame = pg.evaluate("window.drive.lastFrame")
        lat = np.array(pg.evaluate("window.drive.latency"))
        if shots:
            pg.click("#cam")
            time.sleep(1.0)
            pg.screenshot(path=str(shots / "bob_drive_cockpit.png"))
            pg.click("#cam"); pg.click("#cam")
        pg.wait_for_function("window.drive.state != 'driving'", timeout=600_000)
        wall = time.perf_counter() - session.wall0
        t_end = float(session.last_result.trace["t"][-1])
        print(f"track {a.track}: page {fps:.1f} frames/s (software WebGL), server frame median "
              f"{frame['frame_ms']:.1f} ms, real-time factor median {frame['rtf']:.2f} "
              f"(whole run: {t_end:.2f} s simulated in {wall:.2f} s wall = {t_end / wall:.2f})")
        print(f"key press → frame with the steering applied: median {np.median(lat):.0f} ms, "
              f"min {lat.min():.0f} ms, max {lat.max():.0f} ms over {len(lat)} key events")
        srv_lat = 1e3 * np.array(session.steer_latency)
        print(f"command received by the server → steering joint moved: median {np.median(srv_lat):.0f} ms, "
              f"max {srv_lat.max():.0f} ms")
        print(f"run: {session.last_result.outcome}, splits {np.round(session.last_result.splits, 3)}, "
              f"pilot model {np.round(session.reference.splits, 3)}")
        if shots:
            runs = pg.evaluate("window.drive.runs")
            mine = [r for r in runs if r["name"] == "run_001"][0]["id"]
            model = [r for r in runs if r["name"] == "pilot model"][0]["id"]
            pg.locator("#runs tr").nth(model).locator("text=ghost").click()
            pg.locator("#runs tr").nth(mine).locator("text=replay").click()
            pg.wait_for_function("window.drive.state == 'replay' && window.drive.lastFrame.t > 3.0", timeout=60_000)
            pg.screenshot(path=str(shots / "bob_drive_replay.png"))
            for r in (mine, model):
                pg.locator(f".pick[value='{r}']").check()
            pg.fill("#curve", "2" if len(session.track.curves) >= 2 else "0")
            pg.click("#analyse")
            pg.wait_for_function("window.drive.analysis !== undefined", timeout=60_000)
            time.sleep(0.5)
            pg.screenshot(path=str(shots / "bob_drive_analysis_page.png"))
        ctx.close()
    srv.stop()
    print(f"runs in {d}")


def no_page(track, seconds):
    import asyncio
    import json
    import os

    from websockets.asyncio.client import connect

    from impulsim.apps.bobsleigh.drive.server import DriveServer
    from impulsim.apps.bobsleigh.drive.session import DriveSession
    d = Path(tempfile.mkdtemp(prefix="bob-drive-"))
    session = DriveSession(track, runs_dir=d, reference=False)
    srv = DriveServer(session, pilots_dir=d / "pilots").start()
    lat, cpu = [], {}

    async def drive():
        async with connect(f"ws://127.0.0.1:{srv.port}/ws?token={srv.token}", max_size=2 ** 24,
                           ping_interval=None) as ws:
            sent, seq = {}, 0
            await ws.send(json.dumps({"cmd": "start"}))
            cpu["c0"], cpu["w0"] = time.process_time(), time.perf_counter()
            next_cmd = time.perf_counter() + 0.5
            while True:
                try:
                    m = json.loads(await asyncio.wait_for(ws.recv(), 0.02))
                except asyncio.TimeoutError:
                    m = {}
                now = time.perf_counter()
                if m.get("type") == "frame" and m.get("state") == "driving":
                    for k in [k for k in sent if k <= m["seq"]]:
                        lat.append(now - sent.pop(k))
                    if m["t"] >= seconds:
                        break
                elif m.get("type") == "frame" and m.get("state") not in ("idle", "driving"):
                    break
                if now >= next_cmd:
                    seq += 1
                    sent[seq] = now
                    await ws.send(json.dumps({"cmd": "steer", "target": 0.0, "seq": seq}))
                    next_cmd = now + 0.37
    asyncio.run(drive())
    wall, c = time.perf_counter() - cpu["w0"], time.process_time() - cpu["c0"]
    t = session.sim.system.t
    srv.stop()
    lat = 1e3 * np.array(lat)
    srv_lat = 1e3 * np.array(session.steer_latency)
    print(f"track {track}, no page, load average {os.getloadavg()[0]:.2f}: {t:.2f} s simulated in {wall:.2f} s "
          f"wall = {t / wall:.2f}x real time; process CPU {c:.2f} s = {t / c:.2f}x; state {session.state}")
    print(f"steering command sent → frame showing it applied: median {np.median(lat):.0f} ms, "
          f"max {lat.max():.0f} ms over {len(lat)} commands")
    print(f"command received by the server → steering joint moved: median {np.median(srv_lat):.0f} ms, "
          f"max {srv_lat.max():.0f} ms")
    # the loop's capacity: frames of 1/60 s one after the other, without waiting for wall time
    session.start()
    spent = {"sub-steps": 0.0, "10 ms work": 0.0, "snapshot": 0.0}

    def timed(f, key):
        def g(*args):
            c = time.process_time()
            out = f(*args)
            spent[key] += time.process_time() - c
            return out
        return g
    session.sim.run = timed(session.sim.run, "sub-steps")
    session._record_period = timed(session._record_period, "10 ms work")
    session._snapshot = timed(session._snapshot, "snapshot")
    w0, c0, passes = time.perf_counter(), time.process_time(), 0
    while session.state == "driving" and session.sim.system.t < seconds:
        session.tick(1 / 60)
        passes += 1
    wall, c = time.perf_counter() - w0, time.process_time() - c0
    t = session.sim.system.t
    print(f"passes back to back (no waiting, no server): {t:.2f} s simulated in {wall:.2f} s wall = "
          f"{t / wall:.2f}x real time, CPU {c:.2f} s = {t / c:.2f}x; load average {os.getloadavg()[0]:.2f}")
    print("CPU per pass: " + ", ".join(f"{k} {1e3 * v / passes:.2f} ms" for k, v in spent.items())
          + f", all {1e3 * c / passes:.2f} ms")


if __name__ == "__main__":
    main()
