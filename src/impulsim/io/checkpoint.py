"""Exact checkpoints: the whole :class:`State`, the method's memory and a fingerprint of the model, as .npz.

A run continued from a checkpoint ends bit for bit where the unbroken run ends. For that the file holds,
beside the State, everything the method carries from one step into the next (warm-start impulses,
static-friction anchors, sleep clocks, controller memory; see :mod:`impulsim.methods.memory`), and a
fingerprint of the model it was written for. Loading refuses, with one clear line, a file that is not a
checkpoint, one written for another model (even with the same number of bodies), and one whose state holds
non-finite values.

The file is a plain NumPy ``.npz`` archive read without pickles: a checkpoint from elsewhere cannot run code.
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import zipfile
from dataclasses import fields
from pathlib import Path
from typing import Optional

import numpy as np

from impulsim.errors import ImpulsimError
from impulsim.model.state import State

FINGERPRINT_KEY = "__model_fingerprint__"
METHOD_KEY = "__method__"
MEMORY_PREFIX = "method:"
FORMAT_KEY = "__checkpoint_format__"
FORMAT = 2
_NAN_ALLOWED = ("servo_prev_error",)
"""State fields where NaN has a meaning (no previous servo error before the first step)."""


class CheckpointError(ImpulsimError):
    """A checkpoint cannot be read or does not belong to the scene it is resumed with."""


def model_fingerprint(model) -> str:
    """SHA-256 (hex) over every field of the model: names, kinds, geometry, masses, parameters."""
    h = hashlib.sha256()
    for f in fields(model):
        v = getattr(model, f.name)
        h.update(f.name.encode())
        if isinstance(v, np.ndarray):
            h.update(str(v.dtype).encode() + str(v.shape).encode())
            h.update(np.ascontiguousarray(v).tobytes())
        else:
            h.update(repr(v).encode())
    return h.hexdigest()


def save_checkpoint(state: State, path: str | os.PathLike, method=None, model=None) -> Path:
    """Write ``state`` to ``path`` (``.npz``); with ``method``, also its memory for an exact resume, and
    the fingerprint of ``model`` (default: the method's). Returns the path written."""
    path = Path(path)
    if path.suffix != ".npz":
        path = path.with_name(path.name + ".npz")
    model = model if model is not None else getattr(method, "model", None)
    data = {k: np.asarray(v) for k, v in state.arrays().items()}
    data[FORMAT_KEY] = np.asarray(FORMAT)
    if model is not None:
        data[FINGERPRINT_KEY] = np.asarray(model_fingerprint(model))
    if method is not None:
        from impulsim.methods.memory import method_memory
        scalars = {}
        for key, value in method_memory(method).items():
            if isinstance(value, np.ndarray):
                data[MEMORY_PREFIX + key] = value
            else:
                scalars[key] = value.item() if isinstance(value, np.generic) else value
        data[METHOD_KEY] = np.asarray(json.dumps({"name": method.name, "class": type(method).__name__,
                                                  "scalars": scalars}))
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:                  # written whole, then renamed: a crash leaves the old file
        np.savez(f, **data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    return path


def load_checkpoint(path: str | os.PathLike, like: State, model=None) -> State:
    """Read a checkpoint and check it against the scene: array shapes as in ``like`` (the scene's state),
    the model's fingerprint when ``model`` is given, and finite values."""
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"{path}: no such checkpoint file")
    try:
        state = State.load(path)
        with np.load(path, allow_pickle=False) as data:
            fingerprint = str(data[FINGERPRINT_KEY]) if FINGERPRINT_KEY in data.files else None
    except (KeyError, ValueError, OSError, zipfile.BadZipFile, EOFError) as exc:
        raise CheckpointError(f"{path}: not an impulsim checkpoint ({_short(exc)})") from None
    for f in fields(State):
        ours, theirs = getattr(like, f.name), getattr(state, f.name)
        if isinstance(ours, np.ndarray) and np.shape(theirs) != ours.shape:
            raise CheckpointError(f"{path}: does not fit this scene: {f.name} has shape "
                                  f"{np.shape(theirs)}, the scene needs {ours.shape}")
    if model is not None:
        if fingerprint is None:
            raise CheckpointError(f"{path}: carries no model fingerprint, so it cannot be checked against "
                                  f"this scene (write it with the model: save_checkpoint(..., model=...))")
        if fingerprint != model_fingerprint(model):
            raise CheckpointError(f"{path}: was written for another model (its fingerprint differs from this "
                                  f"scene's: bodies, shapes, joints, masses or parameters changed)")
    _check_finite(path, state)
    return state


def restore_method_memory(path: str | os.PathLike, method) -> Optional[str]:
    """Put the method memory stored in the checkpoint into ``method`` (made with the same options as the
    run that wrote it). Returns None when done, else why it was not (no memory stored, another method or
    other options): the state alone then continues the run, not bit for bit."""
    from impulsim.methods.memory import method_memory, restore_memory
    try:
        with np.load(path, allow_pickle=False) as data:
            if METHOD_KEY not in data.files:
                return "the checkpoint holds no method memory"
            meta = json.loads(str(data[METHOD_KEY]))
            memory = {k[len(MEMORY_PREFIX):]: data[k] for k in data.files if k.startswith(MEMORY_PREFIX)}
    except (KeyError, ValueError, OSError, zipfile.BadZipFile, EOFError) as exc:
        raise CheckpointError(f"{path}: not an impulsim checkpoint ({_short(exc)})") from None
    if meta.get("name") != method.name or meta.get("class") != type(method).__name__:
        return f"it was written by method {meta.get('name')!r}, this run uses {method.name!r}"
    memory.update(meta.get("scalars", {}))
    ours = method_memory(method)
    if not set(ours) <= set(memory):         # parts made during the run (buffers of the first contact) may add
        return "the method was made with other options (its memory has other parts)"
    for key, value in memory.items():
        if isinstance(value, np.ndarray) and not _finite_or_nan_marker(value):
            raise CheckpointError(f"{path}: method memory {key!r} holds infinite values")
    restore_memory(method, memory)
    return None


def _finite_or_nan_marker(a: np.ndarray) -> bool:
    """No infinities (NaN marks unset entries in some caches)."""
    return not (a.dtype.kind == "f" and np.isinf(a).any())


def _check_finite(path, state: State) -> None:
    if not math.isfinite(state.t):
        raise CheckpointError(f"{path}: the time t = {state.t!r} is not finite")
    for name, value in state.arrays().items():
        if not isinstance(value, np.ndarray) or value.dtype.kind != "f":
            continue
        bad = np.isinf(value) if name in _NAN_ALLOWED else ~np.isfinite(value)
        if bad.any():
            idx = tuple(int(i) for i in np.argwhere(bad)[0])
            raise CheckpointError(f"{path}: {name}{list(idx)} = {value[idx]!r} is not finite; the checkpoint "
                                  f"cannot be resumed")


def _short(exc: Exception) -> str:
    return " ".join(str(exc).split())[:120] or type(exc).__name__
