"""The kernel cache is keyed on every source file of the package (impulsim.kernel_cache): Numba keys a
kernel's cache entry on its own file only, and a caller's entry keeps inlined copies of the kernels it calls."""
import os
import subprocess
import sys
from pathlib import Path

from impulsim import kernel_cache


def _tree(root: Path, files: dict) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_the_fingerprint_follows_every_source_file(tmp_path):
    files = {"a.py": "x = 1\n", "sub/b.py": "def f():\n    return 2\n", "notes.txt": "not code"}
    first = kernel_cache.source_fingerprint(_tree(tmp_path / "one", files))
    assert kernel_cache.source_fingerprint(_tree(tmp_path / "two", files)) == first      # same sources
    changed = kernel_cache.source_fingerprint(_tree(tmp_path / "three", {**files, "sub/b.py": "def f():\n    return 3\n"}))
    assert changed != first                         # a callee's edit changes every kernel's cache key
    renamed = kernel_cache.source_fingerprint(_tree(tmp_path / "four", {"c.py": "x = 1\n", "sub/b.py": files["sub/b.py"]}))
    assert renamed != first
    text_only = kernel_cache.source_fingerprint(_tree(tmp_path / "five", {**files, "notes.txt": "other"}))
    assert text_only == first                       # only Python sources count


def test_kernels_are_cached_under_the_fingerprint_of_the_sources(tmp_path):
    """A fresh process with NUMBA_CACHE_DIR set compiles a kernel into impulsim-<fingerprint> below it."""
    code = ("import numba, impulsim; from impulsim.dynamics.checks import all_finite; import numpy as np; "
            "z = np.zeros((1, 3)); all_finite(z, np.ones((1, 4)), z, z); print(numba.config.CACHE_DIR)")
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    expected = tmp_path / f"impulsim-{kernel_cache.source_fingerprint()}"
    assert Path(out.stdout.strip()) == expected
    assert any(expected.rglob("*.nbi")) and any(expected.rglob("*.nbc"))


def test_developers_may_keep_numbas_per_file_cache():
    env = dict(os.environ, IMPULSIM_KERNEL_CACHE="per-file")
    env.pop("NUMBA_CACHE_DIR", None)
    code = "import numba, impulsim; from impulsim import kernel_cache as k; print(k.CACHE, repr(numba.config.CACHE_DIR))"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["None", "''"]


def test_old_versions_are_pruned_once_unused_for_a_day(tmp_path, monkeypatch):
    """Beside the current directory: the KEEP most recent others stay, and so does any used within a day."""
    import time
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    now = time.time()
    ages = {"recent": 3600, "a": 2e5, "b": 3e5, "c": 4e5, "d": 5e5, "e": 6e5}
    for name, age in ages.items():
        (tmp_path / name).mkdir()
        os.utime(tmp_path / name, (now - age, now - age))
    current = tmp_path / "current"
    current.mkdir()
    kernel_cache._prune(current)
    left = sorted(p.name for p in tmp_path.iterdir())
    # the 3 most recently used others (recent, a, b) stay; c, d, e are older than a day and go
    assert left == ["a", "b", "current", "recent"]
