"""Options shared by the test suite, the kernels compiled once before parallel test workers start, and the
order in which the workers take the test files."""
import collections
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

FILE_SECONDS = Path(__file__).with_name("file_seconds.json")
"""Seconds each test file took in a whole parallel run on an empty kernel cache (two workers, CI's command):
only an ordering hint, so a stale or missing entry costs some balance, never a test. Refresh it with
``python -m pytest -q -n auto --dist loadfile --store-file-seconds``."""


def pytest_addoption(parser):
    parser.addoption("--fuzz-long", action="store_true", default=False,
                     help="run the scene-loader fuzz tests with thousands of cases instead of a few hundred")
    parser.addoption("--store-file-seconds", action="store_true", default=False,
                     help=f"write the seconds each test file took to {FILE_SECONDS.name} (the workers' order)")


def pytest_configure(config):
    """pytest-xdist deals files out by their number of tests unless told not to; this suite deals them out
    longest first instead (``pytest_collection_modifyitems``)."""
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False
    if config.getoption("--store-file-seconds") and not hasattr(config, "workerinput"):
        config.pluginmanager.register(_FileSeconds(), "impulsim-file-seconds")


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session):
    """On an empty kernel cache, parallel test workers (pytest-xdist) each compile the same kernels at the
    same time, the contact pipeline above all: a minute of compiling per worker, done twice. For a parallel
    run of the whole suite the kernels are therefore compiled first, once, by ``impulsim warmup`` (which
    deals its groups out to one process per usable core, balanced by their compile time), and the workers
    load them from the cache. On a filled cache this costs the loads (a few seconds).
    ``IMPULSIM_TEST_PREWARM=0`` turns it off."""
    config = session.config
    if hasattr(config, "workerinput") or not _parallel_whole_suite(config):
        return
    if os.environ.get("IMPULSIM_TEST_PREWARM", "1").strip() == "0":
        return
    start = time.perf_counter()
    code = "import sys; from impulsim.cli import main; sys.exit(main(['warmup', '-q']))"
    failed = subprocess.run([sys.executable, "-c", code]).returncode != 0
    took = time.perf_counter() - start
    note = "; the warm-up failed (the tests will say why)" if failed else ""
    sys.stderr.write(f"kernels compiled or loaded before the test workers start: {took:.0f} s{note}\n")


def pytest_collection_modifyitems(config, items):
    """The test files longest first, each file's tests kept together and in order: pytest-xdist's ``--dist
    loadfile`` deals the files out in this order, so the long ones start early and short files fill the end,
    instead of one long file running alone at the end. A file's length is its entry in FILE_SECONDS; a file
    without one counts as long if it has a test marked slow or is a browser test, else as short."""
    recorded = _recorded_file_seconds()
    root = config.rootpath

    def seconds(path: Path, marked_long: bool) -> float:
        key = path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
        return recorded.get(key, 60.0 if marked_long else 1.0)

    long_files = {item.path for item in items
                  if item.get_closest_marker("slow") is not None or "browser" in item.path.name}
    length = {path: seconds(path, path in long_files) for path in {item.path for item in items}}
    items.sort(key=lambda item: -length[item.path])      # stable: a file's tests keep their order


def _recorded_file_seconds() -> dict:
    try:
        return {str(k): float(v) for k, v in json.loads(FILE_SECONDS.read_text()).items()}
    except (OSError, ValueError, AttributeError):
        return {}


class _FileSeconds:
    """Sums the seconds of every test phase per file as the reports reach the controlling process, and at
    the end of a run with no failure writes them into FILE_SECONDS (the files that did not run keep their
    entries)."""

    def __init__(self):
        self.seconds = collections.Counter()
        self.failed = False

    def pytest_runtest_logreport(self, report):
        self.seconds[report.nodeid.split("::")[0]] += report.duration
        self.failed |= report.failed

    def pytest_sessionfinish(self, session):
        if self.failed or not self.seconds:
            return
        merged = {**_recorded_file_seconds(), **self.seconds}
        table = {path: round(s, 1) for path, s in sorted(merged.items(), key=lambda kv: -kv[1])}
        FILE_SECONDS.write_text(json.dumps(table, indent=0) + "\n")


def _parallel_whole_suite(config) -> bool:
    """True for a pytest-xdist run with two or more workers over the default test paths."""
    workers = getattr(config.option, "numprocesses", None)
    return isinstance(workers, int) and workers >= 2 and config.args_source != pytest.Config.ArgsSource.ARGS
