"""Fixtures of the viewer tests."""
import pytest

from tests.viewer.browser import fail_without_chromium


@pytest.fixture(scope="module")
def chromium_required_in_ci():
    """Used (through ``needs_chromium()``) only in CI without Chromium: fails the browser tests loudly."""
    fail_without_chromium()
