"""Where the compiled kernels are cached: one directory per version of impulsim's sources.

Numba caches each kernel's machine code keyed on its own source file only. A kernel that calls kernels of
other modules carries compiled copies of them (they are inlined), so after one of those modules changes —
a ``git pull`` into an editable install, a local edit — the caller's cache entry still holds the old code
and is loaded without complaint. Keying the whole cache on a fingerprint of every source file of the
package closes that hole: a changed source gives a new, empty cache directory, and every kernel compiles
once from the current code.

The cache lives in ``__pycache__/numba/<fingerprint>`` of the package when that is writable (as Numba's own
default is beside the sources), else in ``~/.cache/impulsim/numba/<fingerprint>``; if ``NUMBA_CACHE_DIR`` is
set, in ``$NUMBA_CACHE_DIR/impulsim-<fingerprint>``. Directories of other fingerprints are removed once
unused for a day, keeping the few most recent (another checkout of a different version may be using one).

Every edit of any source file therefore recompiles all kernels on the next run (minutes). Developers who
edit kernels often and clear stale entries themselves may set ``IMPULSIM_KERNEL_CACHE=per-file`` to keep
Numba's own per-file cache beside the sources instead (the old hole included).

This module must be imported before any module that defines kernels (``impulsim/__init__`` imports it
first): Numba fixes a kernel's cache location when the kernel is defined.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import time
from pathlib import Path

# Numba colours its error messages with colorama, which it sets up while importing its list support (a
# compile or a cache load may do that); colorama then writes a reset code to every terminal at exit, a stray
# "\x1b[0m" after each impulsim command. Plain messages unless the user asked otherwise (read by Numba on import).
os.environ.setdefault("NUMBA_DISABLE_ERROR_MESSAGE_HIGHLIGHTING", "1")

import numba  # noqa: E402

PACKAGE = Path(__file__).resolve().parent
KEEP = 3
"""Cache directories of older source versions kept beside the current one's (the most recently used)."""


def source_fingerprint(root: Path = PACKAGE) -> str:
    """SHA-1 (first 16 hex digits) over the relative paths and contents of every ``.py`` file under root."""
    digest = hashlib.sha1()
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _writable(directory: Path) -> bool:
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    return os.access(directory, os.W_OK)


def cache_directory(fingerprint: str) -> Path:
    """The directory for the kernels compiled from the sources with this fingerprint (module docstring)."""
    user = os.environ.get("NUMBA_CACHE_DIR")
    if user:
        return Path(user) / f"impulsim-{fingerprint}"
    beside = PACKAGE / "__pycache__" / "numba"
    base = beside if _writable(beside) else Path.home() / ".cache" / "impulsim" / "numba"
    return base / fingerprint


STALE_AFTER_S = 86400.0
"""A directory of another fingerprint is removed only when unused this long [s] (a process that imported an
older version may still be compiling into it)."""


def _prune(current: Path) -> None:
    """Remove the sibling directories of other fingerprints, except the KEEP most recently used and any
    used within STALE_AFTER_S."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return                      # the user's directory: theirs to manage
    try:
        others = [p for p in current.parent.iterdir() if p.is_dir() and p != current]
    except OSError:
        return
    others.sort(key=lambda p: p.stat().st_mtime, reverse=True)
    now = time.time()
    for old in others[KEEP:]:
        if now - old.stat().st_mtime > STALE_AFTER_S:
            shutil.rmtree(old, ignore_errors=True)


def use_fingerprinted_cache() -> Path | None:
    """Point Numba's cache at this source version's directory (creating it); returns the directory, or None
    with ``IMPULSIM_KERNEL_CACHE=per-file`` (Numba's own cache, untouched)."""
    if os.environ.get("IMPULSIM_KERNEL_CACHE", "").strip().lower() == "per-file":
        return None
    directory = cache_directory(source_fingerprint())
    directory.mkdir(parents=True, exist_ok=True)
    os.utime(directory)             # "most recently used", for the pruning of other checkouts' versions
    numba.config.CACHE_DIR = str(directory)
    _prune(directory)
    return directory


CACHE = use_fingerprinted_cache()
"""This process's kernel cache directory."""
