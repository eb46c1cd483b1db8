"""Screenshots of ``impulsim view`` on the chain, the tree and a contact scene, with the frame rate the
page renders at and the real-time factor the simulation keeps while it plays.

Needs the viewer and test extras (viser, playwright) and a Chromium binary (see tests/viewer/browser.py).
Run from the repository root:  python benchmarks/viewer_screenshots.py [seconds] [scene ...]
Writes docs/images/viewer_<scene>.png and prints one Markdown row per scene.
"""
import re
import sys
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.viewer.browser import free_port, launch      # noqa: E402  (the tests' headless Chromium setup)

SCENES = ("double_pendulum", "ball_chain", "ball_tree", "falling_boxes")
CONTACTS = ("falling_boxes",)
"""Scenes shot with the contact markers on."""
STATUS = re.compile(r"t = (\S+) s\s+step (\d+)")
COUNT_FRAMES = """(ms) => new Promise(done => {
    let frames = 0; const t0 = performance.now();
    function tick() { frames++; if (performance.now() - t0 < ms) requestAnimationFrame(tick);
                      else done(frames * 1000 / (performance.now() - t0)); }
    requestAnimationFrame(tick); })"""


def sim_time(page) -> float:
    for text in page.locator("input").evaluate_all("els => els.map(e => e.value)"):
        m = STATUS.search(text or "")
        if m:
            return float(m.group(1))
    raise RuntimeError("no status line on the page")


def _dismiss_notifications(page) -> None:
    """Close the page's notices (software WebGL), which would cover part of the picture."""
    page.evaluate("""() => { for (const b of document.querySelectorAll('button')) {
                                 if (b.closest('[class*="Notification"]')) b.click(); } }""")


def measure(scene: str, seconds: float) -> dict:
    from impulsim.viewer.app import view_scene
    viewer = view_scene(str(ROOT / "examples" / f"{scene}.yaml"), port=free_port(), open_browser=False)
    try:
        with sync_playwright() as p:
            ctx = launch(p)
            page = ctx.new_page()
            page.goto(f"http://127.0.0.1:{viewer.port}")
            page.wait_for_selector("canvas", timeout=60_000)
            time.sleep(2.0)
            _dismiss_notifications(page)
            if scene in CONTACTS:
                page.get_by_text("Contacts", exact=True).click()
            page.get_by_role("button", name="Play", exact=True).click()
            time.sleep(1.0)
            t0, w0 = sim_time(page), time.perf_counter()
            fps = page.evaluate(COUNT_FRAMES, int(seconds * 1000))
            factor = (sim_time(page) - t0) / (time.perf_counter() - w0)
            out = ROOT / "docs" / "images" / f"viewer_{scene}.png"
            page.screenshot(path=str(out))
            ctx.close()
    finally:
        viewer.stop()
    return dict(scene=scene, fps=fps, real_time_factor=factor, screenshot=str(out.relative_to(ROOT)))


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 5.0
    print("| scene | frames per second (page) | simulated s per wall s | screenshot |")
    print("|---|---|---|---|")
    only = [a for a in sys.argv[2:]] or SCENES
    for scene in only:
        r = measure(scene, seconds)
        print(f"| {r['scene']} | {r['fps']:.1f} | {r['real_time_factor']:.2f} | {r['screenshot']} |")


if __name__ == "__main__":
    main()
