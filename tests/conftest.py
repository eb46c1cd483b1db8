"""Options shared by the test suite, and the kernels compiled once before parallel test workers start."""
import os
import subprocess
import sys
import time

import pytest

def pytest_addoption(parser):
    parser.addoption("--fuzz-long", action="store_true", default=False,
                     help="run the scene-loader fuzz tests with thousands of cases instead of a few hundred")


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
    """The files with long tests first (a test marked slow, or a browser test), each file's tests kept
    together and in order: pytest-xdist's ``--dist loadfile`` deals the files out in this order, so the long
    ones start early and short files fill the end, instead of one long file running alone at the end."""
    long_files = {item.path for item in items
                  if item.get_closest_marker("slow") is not None or "browser" in item.path.name}
    items.sort(key=lambda item: item.path not in long_files)


def _parallel_whole_suite(config) -> bool:
    """True for a pytest-xdist run with two or more workers over the default test paths."""
    workers = getattr(config.option, "numprocesses", None)
    return isinstance(workers, int) and workers >= 2 and config.args_source != pytest.Config.ArgsSource.ARGS
