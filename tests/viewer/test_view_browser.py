"""End to end: ``impulsim view`` served by viser, driven in headless Chromium through Playwright.

Skipped (with the reason) where viser, Playwright or a Chromium binary is missing; in CI (CI=true) a
missing Chromium fails them instead (.ci/run installs it).
"""
import re
import time
from pathlib import Path

import numpy as np
import pytest

viser = pytest.importorskip("viser", reason="the viewer needs viser (pip install 'impulsim[viewer]')")
playwright_api = pytest.importorskip("playwright.sync_api", reason="browser tests need playwright")

from tests.viewer.browser import (PIXEL_CHANGE, canvas_png as _canvas_png, changed_pixels, free_port,
                                  launch, needs_chromium, settled_canvas, viser_url)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
STATUS = re.compile(r"t = (\S+) s\s+step (\d+)\s+\((\w+)\)")
WAIT = 30.0
"""Longest wait [s] for the page to reflect a command (software WebGL in CI is slow)."""
FIRST_WAIT = 120.0
"""Longest wait [s] for the first page: its canvas and control panel, which may wait for the viewer's
simulation thread to compile its kernels on a cold machine."""

pytestmark = needs_chromium()     # skipped without Chromium, except in CI (CI=true), where it fails


@pytest.fixture(scope="module")
def viewer():
    from impulsim.viewer.app import view_scene
    v = view_scene(str(EXAMPLES / "pendulum.yaml"), port=free_port(), open_browser=False)
    yield v
    v.stop()


@pytest.fixture(scope="module")
def page(viewer):
    with playwright_api.sync_playwright() as p:
        ctx = launch(p)
        pg = ctx.new_page()
        pg.goto(viser_url(f"http://127.0.0.1:{viewer.port}/"))
        pg.wait_for_selector("canvas", timeout=FIRST_WAIT * 1000)
        _wait_status(pg, lambda t, step, state: state == "paused", timeout=FIRST_WAIT)
        time.sleep(1.0)      # first render of the meshes
        yield pg
        ctx.close()


def _status(pg):
    """(t, step, 'paused'|'playing') as the page shows it, or None before the panel has arrived."""
    for text in _inputs(pg):
        m = STATUS.search(text or "")
        if m:
            return float(m.group(1)), int(m.group(2)), m.group(3)
    return None


def _inputs(pg):
    return pg.locator("input").evaluate_all("els => els.map(e => e.value)")


def _wait_status(pg, cond, timeout=WAIT):
    """Poll the status line until ``cond(t, step, state)`` holds.

    The control panel reaches the page over the websocket after the canvas; on a loaded machine that
    can take seconds, so a missing status line is waited for like any other condition.
    """
    end = time.time() + timeout
    while time.time() < end:
        st = _status(pg)
        if st is not None and cond(*st):
            return st
        time.sleep(0.05)
    raise AssertionError(f"page status {_status(pg)} did not reach the expected condition in {timeout} s "
                         f"(inputs: {_inputs(pg)})")


def _where_they_differ(now, first, empty, folder) -> str:
    """Where a re-shown canvas differs from the first picture: the changed pixels' bounding box and colours,
    the three screenshots saved for a look."""
    from PIL import Image
    diff = np.abs(now - first).sum(axis=2) > PIXEL_CHANGE
    rows, cols = np.nonzero(diff)
    for name, im in (("first", first), ("empty", empty), ("again", now)):
        Image.fromarray(im.astype(np.uint8)).save(folder / f"canvas_{name}.png")
    return (f"{diff.sum()} pixels differ in rows {rows.min()}-{rows.max()}, columns {cols.min()}-{cols.max()}; "
            f"mean colour first {first[diff].mean(axis=0).round()}, again {now[diff].mean(axis=0).round()}; "
            f"screenshots in {folder}")


def _click(pg, label):
    pg.get_by_role("button", name=label, exact=True).click()


def test_canvas_shows_the_bodies(viewer, page, tmp_path):
    with_bodies = settled_canvas(page)       # each screenshot once the canvas has stopped changing
    viewer.show_bodies(False)
    empty = settled_canvas(page)
    viewer.show_bodies(True)
    changed = changed_pixels(with_bodies, empty)
    # the bob (r = 5 cm about 2 m from the camera) covers some hundred pixels
    assert changed > 100, "the canvas with the bodies looks like the empty scene"
    # shown again, the canvas returns to the first picture; a frame still on its way (a loaded machine) may
    # make one settled screenshot differ, so it is taken again until it matches or 15 s have passed
    deadline = time.monotonic() + 15.0
    while True:
        now = settled_canvas(page)
        back = changed_pixels(now, with_bodies)
        if back < 0.1 * changed or time.monotonic() > deadline:
            break
    assert back < 0.1 * changed, _where_they_differ(now, with_bodies, empty, tmp_path)


def test_play_pause_and_single_step_advance_by_exactly_one_step(viewer, page):
    _click(page, "Play")
    _wait_status(page, lambda t, step, state: state == "playing" and t > 0.05)
    _click(page, "Pause")
    t0, step0, _ = _wait_status(page, lambda t, step, state: state == "paused")
    snap0 = viewer.engine.snapshot()
    assert snap0.step == step0 and not snap0.playing
    _click(page, "Step")
    t1, step1, _ = _wait_status(page, lambda t, step, state: step != step0)
    snap1 = viewer.engine.snapshot()
    assert step1 == step0 + 1 and snap1.step == step0 + 1
    assert snap1.t - snap0.t == pytest.approx(snap0.h, rel=1e-9)
    assert t1 - t0 == pytest.approx(snap0.h, abs=1.5e-6)   # the page prints t with 6 decimals
    time.sleep(0.3)
    assert _status(page)[1] == step1, "the simulation kept running after a single step"


def test_dragging_a_body_changes_its_motion(viewer, page):
    _click(page, "Pause")
    _wait_status(page, lambda t, step, state: state == "paused")
    bob = viewer.model.body("bob")
    x, y = _body_on_screen(viewer, page)
    before = viewer.engine.snapshot()
    reference = viewer.engine.sim.state.copy()
    box = page.locator("canvas").first.bounding_box()
    page.mouse.move(box["x"] + x, box["y"] + y)
    page.mouse.down()
    for i in range(1, 11):
        page.mouse.move(box["x"] + x + 8 * i, box["y"] + y, steps=2)
        time.sleep(0.03)
    page.mouse.up()
    _wait_until(lambda: np.linalg.norm(viewer.engine.sim.state.body_vel[bob]
                                       - reference.body_vel[bob]) > 1e-3, "the drag")
    viewer.engine.send("step", 50, wait=True)
    after = viewer.engine.snapshot()
    # the same 50 steps without the drag, from the same state
    sim = viewer.engine.make_sim(reference, before.h, before.method)
    sim.run(50 * before.h)
    moved = np.linalg.norm(after.body_pos[bob] - sim.state.body_pos[bob])
    assert moved > 1e-3, f"the drag moved the bob by only {moved} m"
    _wait_status(page, lambda t, step, state: step == after.step)


def _body_on_screen(viewer, pg):
    """Pixel (x, y) in the canvas at the centre of the pixels the bodies cover."""
    shown = _canvas_png(pg)
    viewer.show_bodies(False)
    time.sleep(1.0)
    hidden = _canvas_png(pg)
    viewer.show_bodies(True)
    time.sleep(1.0)
    changed = np.abs(shown - hidden).sum(axis=2) > PIXEL_CHANGE
    # a body's pixels are coloured; its shadow on the grid below is grey and must not pull the point off it
    coloured = changed & (shown.max(axis=2) - shown.min(axis=2) > 40)
    ys, xs = np.nonzero(coloured if coloured.any() else changed)
    assert len(xs) > 0, "no body visible on the canvas"
    return float(np.median(xs)), float(np.median(ys))


def _wait_until(cond, what="the command", timeout=WAIT):
    end = time.time() + timeout
    while time.time() < end:
        if cond():
            return
        time.sleep(0.05)
    raise AssertionError(f"{what} did not reach the simulation within {timeout} s")


def test_gravity_edited_in_the_parameter_panel_reaches_the_running_model(viewer, page):
    page.get_by_text("Parameters", exact=True).click()
    box = page.get_by_label("Gravity z [m/s²]")
    box.fill("-1.62")
    box.press("Enter")
    _wait_until(lambda: viewer.engine.sim.model.gravity[2] == -1.62, "the gravity edit")
    step = viewer.engine.snapshot().step
    viewer.engine.send("step", 1, wait=True)
    assert viewer.engine.sim.method.model.gravity[2] == -1.62 and viewer.engine.snapshot().step == step + 1


def test_shift_drag_grabs_the_body_through_a_velocity_joint(viewer, page):
    _click(page, "Pause")
    _wait_status(page, lambda t, step, state: state == "paused")
    x, y = _body_on_screen(viewer, page)
    box = page.locator("canvas").first.bounding_box()
    page.keyboard.down("Shift")
    page.mouse.move(box["x"] + x, box["y"] + y)
    page.mouse.down()
    for i in range(1, 11):
        page.mouse.move(box["x"] + x + 8 * i, box["y"] + y, steps=2)
        time.sleep(0.03)
    _wait_until(lambda: viewer.engine.grab is not None, "the grab")
    viewer.engine.send("step", 100, wait=True)
    held = viewer.engine.snapshot()
    page.mouse.up()
    page.keyboard.up("Shift")
    _wait_until(lambda: viewer.engine.grab is None, "the release")
    assert held.body_pos.shape[0] == viewer.model.n_bodies + 1      # the kinematic mouse body
    assert viewer.engine.snapshot().error is None
