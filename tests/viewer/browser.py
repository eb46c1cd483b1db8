"""Headless Chromium for the viewer tests: the binary, its flags, and canvas screenshots."""
import io
import os
import shutil
import socket
import tempfile

import numpy as np

CHROMIUM = os.environ.get("IMPULSIM_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--use-angle=swiftshader", "--enable-unsafe-swiftshader"]
NO_CHROMIUM = "no chromium binary (apt-get install chromium, or set IMPULSIM_CHROMIUM)"
IN_CI = os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")
"""CI sets CI=true; there the browser tests must run (.ci/run installs chromium), never skip."""


def needs_chromium():
    """Mark for a browser test: skipped without Chromium on a developer's machine, failed loudly in CI."""
    import pytest
    if CHROMIUM is None and IN_CI:
        return pytest.mark.usefixtures("chromium_required_in_ci")
    return pytest.mark.skipif(CHROMIUM is None, reason=NO_CHROMIUM)


def fail_without_chromium():
    """Fail the calling test (CI without a Chromium binary)."""
    import pytest
    pytest.fail(f"{NO_CHROMIUM}: CI must run the browser tests (.ci/run installs chromium)")


PIXEL_CHANGE = 30
"""Summed RGB difference (of 765) above which a pixel counts as changed (anti-aliasing noise is below)."""


FIXED_DPR = "fixedDpr=1"
"""Query for a viser page that keeps its pixel ratio at 1. Left to itself the page lowers the ratio after
a few seconds of slow frames (software WebGL on a busy machine) and raises it again later, so two
screenshots of an unchanged scene differ along every grid line."""


def viser_url(url: str) -> str:
    """``url`` of a viser page with the pixel ratio held fixed (:data:`FIXED_DPR`), for stable screenshots."""
    return url + ("&" if "?" in url else "?") + FIXED_DPR


def launch(playwright):
    """A fresh headless Chromium context with a throw-away profile, 1000×700 viewport."""
    return playwright.chromium.launch_persistent_context(
        tempfile.mkdtemp(prefix="impulsim-chromium-"), executable_path=CHROMIUM, headless=True,
        args=CHROMIUM_ARGS, viewport={"width": 1000, "height": 700})


OVERLAYS_HIDDEN = ".mantine-Notifications-root { visibility: hidden !important; }"
"""Style applied while a canvas screenshot is taken: notifications float over the canvas and come and go
on their own (viser announces software WebGL a moment after the page has drawn, later on a busy machine),
so a screenshot of the canvas leaves them out."""


def canvas_png(page) -> np.ndarray:
    """The first canvas of the page as an RGB float array, without the notifications above it."""
    from PIL import Image
    png = page.locator("canvas").first.screenshot(style=OVERLAYS_HIDDEN)
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), float)


def settled_canvas(page, timeout: float = 15.0, interval: float = 0.4, still: int = 10) -> np.ndarray:
    """The canvas once it has stopped changing: screenshots ``interval`` s apart until two in a row differ in
    fewer than ``still`` pixels (a render still arriving, a busy machine's slow first frame), at most
    ``timeout`` s; the last screenshot either way."""
    import time
    last = canvas_png(page)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        time.sleep(interval)
        now = canvas_png(page)
        if changed_pixels(now, last) < still:
            return now
        last = now
    return last


def changed_pixels(a: np.ndarray, b: np.ndarray) -> int:
    """How many pixels differ noticeably between two screenshots."""
    return int((np.abs(a - b).sum(axis=2) > PIXEL_CHANGE).sum())


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
