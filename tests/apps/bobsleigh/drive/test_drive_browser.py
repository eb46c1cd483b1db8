"""The driving simulator in a real browser (headless Chromium with software WebGL, through Playwright):
the page shows the track, a key press steers the simulated bob, the HUD follows the run, the finished run
is listed, its replay draws the runner traces, a ghost moves, and the page's line analysis agrees with the
run times. Skipped only where Chromium or Playwright is missing on a developer's machine; in CI (CI=true)
a missing browser is a failure."""
import os
import time

import numpy as np
import pytest

from tests.viewer.browser import CHROMIUM, NO_CHROMIUM, canvas_png, free_port, launch

IN_CI = os.environ.get("CI", "").lower() == "true"
try:
    from playwright import sync_api as playwright_api
except ImportError:                                   # pragma: no cover - depends on the machine
    playwright_api = None

if CHROMIUM is None or playwright_api is None:
    reason = NO_CHROMIUM if CHROMIUM is None else "browser tests need playwright"
    if IN_CI:
        pytest.fail(f"CI: {reason}", pytrace=False)
    pytestmark = pytest.mark.skip(reason=reason)

WAIT = 120_000
"""Longest wait [ms] for the page (software WebGL and a simulation slower than real time on a busy host)."""
SKY = np.array([0.62, 0.74, 0.86]) * 255


@pytest.fixture(scope="module")
def drive(tmp_path_factory):
    from impulsim.apps.bobsleigh.drive.server import DriveServer
    from impulsim.apps.bobsleigh.drive.session import DriveSession
    d = tmp_path_factory.mktemp("drive")
    session = DriveSession("test_chute", runs_dir=d, reference=True)
    server = DriveServer(session, port=free_port(), pilots_dir=d / "pilots").start()
    with playwright_api.sync_playwright() as p:
        ctx = launch(p)
        page = ctx.new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(server.url)
        page.wait_for_function("window.drive && window.drive.renders > 3", timeout=WAIT)
        yield session, page, errors
        ctx.close()
    server.stop()


def test_page_shows_the_track(drive):
    session, page, errors = drive
    img = canvas_png(page)
    lower = img[img.shape[0] // 2:]          # below the HUD and the message: only the 3-D view
    not_sky = (np.abs(lower - SKY).sum(axis=2) > 30).mean()
    assert not_sky > 0.01, f"only {not_sky:.1%} of the view differs from the sky colour"
    assert page.evaluate("window.drive.trackTriangles") > 1000
    assert not errors


def test_key_press_steers_the_simulated_bob(drive):
    session, page, errors = drive
    page.keyboard.press("Enter")
    page.wait_for_function("window.drive.state == 'driving' && window.drive.lastFrame.t > 0.5", timeout=WAIT)
    assert session.sim.system.k[0] == 0.0                 # nobody steered yet
    page.keyboard.down("ArrowLeft")
    deadline = time.time() + 30
    beta = 0.0          # the angle as read while the key is held (the simulation steps on in its own thread,
    while beta < 0.02 and time.time() < deadline:   # so after the release it may already be coming back)
        beta = max(beta, session.sim.system.k[0])
        time.sleep(0.02)
    page.keyboard.up("ArrowLeft")
    assert 0.02 <= beta <= session.bob.beta_max + 1e-12   # left key: positive (left) steering angle
    page.wait_for_function("window.drive.latency.length >= 2", timeout=WAIT)
    deadline = time.time() + 30                           # released: the lever returns to the centre
    while session.lever.value != 0.0 and time.time() < deadline:
        time.sleep(0.02)
    assert session.lever.value == 0.0
    assert not errors


def test_hud_follows_the_run_and_the_run_is_listed(drive):
    session, page, errors = drive
    hud1 = page.inner_text("#hud")
    t1 = page.evaluate("window.drive.lastFrame.t")
    page.wait_for_function(f"window.drive.lastFrame.t > {t1} + 0.5", timeout=WAIT)
    hud2 = page.inner_text("#hud")
    assert hud1 != hud2 and "km/h" in hud2
    page.wait_for_function("window.drive.state == 'finish'", timeout=4 * WAIT)
    page.wait_for_function("window.drive.runs.some(r => r.name == 'run_001')", timeout=WAIT)
    runs = page.evaluate("window.drive.runs")
    mine = [r for r in runs if r["name"] == "run_001"][0]
    np.testing.assert_allclose(mine["splits"], session.last_result.splits, atol=1e-3)   # shown to 1 ms
    assert "run_001" in page.inner_text("#runs")
    assert "finish" in page.inner_text("#msg")


def test_replay_draws_traces_and_the_ghost_moves(drive):
    session, page, errors = drive
    page.wait_for_function("window.drive.runs.some(r => r.name == 'pilot model')", timeout=4 * WAIT)
    runs = page.evaluate("window.drive.runs")
    mine = [r for r in runs if r["name"] == "run_001"][0]["id"]
    model = [r for r in runs if r["name"] == "pilot model"][0]["id"]
    page.locator("#runs tr").nth(model).locator("text=ghost").click()
    before = canvas_png(page)
    page.locator("#runs tr").nth(mine).locator("text=replay").click()
    page.wait_for_function("window.drive.state == 'replay' && window.drive.traces > 0", timeout=WAIT)
    assert page.evaluate("window.drive.traces") > 1000
    p1 = page.evaluate("[window.drive.lastFrame.t, window.drive.ghostPos, window.drive.lastFrame.bodies[0].slice(0,3)]")
    page.wait_for_function(f"window.drive.lastFrame.t > {p1[0]} + 1.0", timeout=WAIT)
    p2 = page.evaluate("[window.drive.lastFrame.t, window.drive.ghostPos, window.drive.lastFrame.bodies[0].slice(0,3)]")
    assert np.linalg.norm(np.subtract(p2[1], p1[1])) > 5.0     # the ghost slid on (≥ 10 m/s for ≥ 1 s)
    assert np.linalg.norm(np.subtract(p2[2], p1[2])) > 5.0     # so did the replayed bob
    page.screenshot(path=str(session.runs_dir.parent / "replay.png"))
    assert (np.abs(canvas_png(page) - before).sum(axis=2) > 30).mean() > 0.01
    assert not errors


def test_line_analysis_on_the_page(drive):
    session, page, errors = drive
    runs = page.evaluate("window.drive.runs")
    mine = [r for r in runs if r["name"] == "run_001"][0]
    model = [r for r in runs if r["name"] == "pilot model"][0]
    for r in (mine, model):
        page.locator(f".pick[value='{r['id']}']").check()
    page.fill("#curve", "0")
    page.click("#analyse")
    page.wait_for_function("window.drive.analysis !== undefined", timeout=WAIT)
    dt = page.evaluate("window.drive.analysis")
    # ticked in the list's order: the pilot model (first row) against run_001. Both traces carry each
    # row's station at the row's time and end past the finish line, so Δt at the finish is the difference
    # of the run times (to rounding)
    assert model["id"] < mine["id"]
    t_model = session.reference.splits[-1]
    t_mine = [r for r in session.runs if r["name"] == "run_001"][0]["result"].splits[-1]
    assert dt == pytest.approx(t_model - t_mine, abs=1e-9), (dt, mine, model)
    assert page.locator("#analysis img").count() == 1
    assert not errors


def test_setup_dialog_saves_and_loads_per_pilot(drive):
    import json
    session, page, errors = drive
    page.fill("#f_start_speed", "12.5")
    page.select_option("#f_spring_set", "hard")
    page.click("#save")
    page.wait_for_function("document.getElementById('setupmsg').textContent == 'saved'", timeout=WAIT)
    saved = json.loads((session.runs_dir.parent / "pilots" / "pilot.json").read_text())
    assert saved["start_speed"] == 12.5 and saved["spring_set"] == "hard"
    assert session.setup.start_speed == 12.5
    page.fill("#f_start_speed", "3")
    page.click("#load")
    page.wait_for_function("document.getElementById('setupmsg').textContent == 'loaded'", timeout=WAIT)
    assert page.input_value("#f_start_speed") == "12.5"
    page.fill("#f_eps_n", "1.5")                      # out of range: refused, the setup stays
    page.click("#save")
    page.wait_for_function("document.getElementById('setupmsg').textContent.includes('eps_n')", timeout=WAIT)
    assert session.setup.eps_n == 0.05
    assert not errors


def test_game_controller_axis_steers(drive):
    """A controller seen through the Gamepad API (here one the page is given before it loads, its first
    axis at −0.5, i.e. pushed left) sets the lever's target: the simulated steering angle turns left."""
    session, page, errors = drive
    ctx = page.context
    pad = ctx.new_page()
    pad.add_init_script("navigator.getGamepads = () => [{id: 'test pad', axes: [-0.5, 0], buttons: []}];")
    pad.goto(page.url)
    pad.wait_for_function("window.drive && window.drive.renders > 3", timeout=WAIT)
    pad.keyboard.press("Enter")
    deadline = time.time() + 60
    while not (session.state == "driving" and session.lever.value == 0.5) and time.time() < deadline:
        time.sleep(0.05)
    assert session.lever.target == 0.5 and session.lever.value == 0.5, \
        (session.state, session.lever.target, session.lever.value, pad.evaluate("window.drive.lastFrame"))
    time.sleep(0.3)
    with session.lock:              # a whole frame: the joint reaches the lever's angle at its end
        beta, state = session.sim.system.k[0], session.state
    assert state == "driving"
    assert beta == pytest.approx(session.bob.steering(0.5), rel=1e-9)   # the map with the directness d
    pad.close()
