"""The standalone replay page: written from a recording, played offline from a file in Chromium."""
import time
from pathlib import Path

import pytest

from impulsim.io import load_scene
from impulsim.io.recording import Recorder

pytest.importorskip("viser", reason="the replay page is viser's player (pip install 'impulsim[viewer]')")
playwright_api = pytest.importorskip("playwright.sync_api", reason="browser tests need playwright")

from impulsim.io.replay_html import write_replay_html  # noqa: E402
from tests.viewer.browser import canvas_png, changed_pixels, launch, needs_chromium  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(scope="module")
def page_file(tmp_path_factory):
    scene = load_scene(EXAMPLES / "double_pendulum.yaml")
    sim = scene.simulation()
    rec = Recorder(scene.model)
    rec.record(sim.state)
    sim.run(3.0, every=10, observer=lambda s, info: rec.record(s.state, info))
    path = tmp_path_factory.mktemp("replay") / "double_pendulum.html"
    write_replay_html(path, scene.model, rec.table(), scene.state, fps=30)
    return path


def test_page_is_one_self_contained_file(page_file):
    text = page_file.read_text(encoding="utf-8")
    assert text.lstrip().lower().startswith("<!doctype html")


@needs_chromium()
def test_page_plays_offline_without_any_request(page_file):
    requests = []
    with playwright_api.sync_playwright() as p:
        ctx = launch(p)
        ctx.route("**/*", lambda route: route.continue_() if route.request.url.startswith(("file:", "data:",
                                                                                           "blob:"))
                  else (requests.append(route.request.url), route.abort()))
        page = ctx.new_page()
        page.goto(page_file.as_uri())
        page.wait_for_selector("canvas", timeout=30000)
        time.sleep(1.5)
        first = canvas_png(page)
        time.sleep(1.0)
        later = canvas_png(page)
        ctx.close()
    assert requests == [], f"the replay page asked the network for {requests}"
    # the pendulum swings, so the picture changes while the page plays
    assert changed_pixels(first, later) > 200
