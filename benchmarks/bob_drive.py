"""Driving simulator figures: frame rate of the page (headless Chromium, software WebGL), real-time factor
of the simulation, latency from a key press to the frame that shows the steering joint moved, and the
screenshots of docs/bobsleigh_drive.md.

    PYTHONPATH=src python benchmarks/bob_drive.py [TRACK] [--shots docs/images]
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
    a = ap.parse_args()
    from playwright.sync_api import sync_playwright

    from impulsim.apps.bobsleigh.drive.server import DriveServer
    from impulsim.apps.bobsleigh.drive.session import DriveSession
    d = Path(tempfile.mkdtemp(prefix="bob-drive-"))
    session = DriveSession(a.track, runs_dir=d, reference=True)
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


if __name__ == "__main__":
    main()
