"""Exact checkpoints: the whole :class:`State` as .npz, so a run can be continued bit for bit.

The file is the one :meth:`State.save` writes. Loading checks that every array fits the scene it is
resumed with, so a checkpoint of another scene is refused with one clear line instead of failing deep
inside a kernel.
"""
from __future__ import annotations

import os
import zipfile
from dataclasses import fields
from pathlib import Path

import numpy as np

from impulsim.errors import ImpulsimError
from impulsim.model.state import State


class CheckpointError(ImpulsimError):
    """A checkpoint cannot be read or does not belong to the scene it is resumed with."""


def save_checkpoint(state: State, path: str | os.PathLike) -> Path:
    """Write ``state`` to ``path`` (``.npz``); returns the path written."""
    path = Path(path)
    if path.suffix != ".npz":
        path = path.with_name(path.name + ".npz")
    state.save(path)
    return path


def load_checkpoint(path: str | os.PathLike, like: State) -> State:
    """Read a checkpoint and check that its arrays have the shapes of ``like`` (the scene's state)."""
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"{path}: no such checkpoint file")
    try:
        state = State.load(path)
    except (KeyError, ValueError, OSError, zipfile.BadZipFile) as exc:
        raise CheckpointError(f"{path}: not an impulsim checkpoint ({_short(exc)})") from None
    for f in fields(State):
        ours, theirs = getattr(like, f.name), getattr(state, f.name)
        if isinstance(ours, np.ndarray) and np.shape(theirs) != ours.shape:
            raise CheckpointError(f"{path}: does not fit this scene: {f.name} has shape "
                                  f"{np.shape(theirs)}, the scene needs {ours.shape}")
    return state


def _short(exc: Exception) -> str:
    return " ".join(str(exc).split())[:120] or type(exc).__name__
