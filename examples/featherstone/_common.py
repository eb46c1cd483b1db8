"""Shared helpers of the Featherstone examples: run a Holck scene and report a check."""
from __future__ import annotations

import impulsim as ims
from impulsim.methods.featherstone import FeatherstoneMethod


def simulate(scene, h, **extra):
    """A Simulation of ``scene`` = (model, state, options) with the Featherstone method."""
    model, state, options = scene
    options = {**options, **extra}
    return ims.Simulation(model, state, method=FeatherstoneMethod(model, **options), h=h)


def report(name: str, ok: bool, text: str) -> int:
    """Print one result line; returns 1 on failure (summed into the exit code)."""
    print(f"{name}: {text} -> {'ok' if ok else 'FAILED'}")
    return 0 if ok else 1
