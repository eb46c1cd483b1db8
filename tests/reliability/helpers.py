"""Shared pieces of the reliability tests: scenes per method and bit-for-bit comparisons."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from impulsim.io import load_scene
from impulsim.methods import METHODS
from impulsim.methods.capabilities import capabilities_of
from impulsim.methods.memory import method_memory

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

CONTACT_SCENE = EXAMPLES / "falling_boxes.yaml"
CHAIN_SCENE = EXAMPLES / "double_pendulum.yaml"

CONTACT_METHODS = tuple(sorted(name for name, cls in METHODS.items()
                               if getattr(capabilities_of(cls), "contacts", ())))
"""Methods that handle contacts, from their capability declarations (the others refuse shapes)."""

JOINT_METHODS = {
    "impulse-iterative": ("impulse", {"solver": "iterative"}),
    "impulse-lgs": ("impulse", {"solver": "lgs"}),
    "lagrange": ("lagrange", {}),
    "featherstone": ("featherstone", {}),
    "moreau": ("moreau", {}),
}


def scene_sim(path, method, **options):
    scene = load_scene(path)
    return scene, scene.simulation(method=method, **options)


def same_bits(a, b) -> bool:
    """Every motion array of two states identical bit for bit (NaN included)."""
    return all(getattr(a, n).tobytes() == getattr(b, n).tobytes()
               for n in ("body_pos", "body_quat", "body_vel", "body_omega")) and a.t == b.t


def memory_copy(method) -> dict:
    return {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in method_memory(method).items()}


def same_memory(before: dict, after: dict) -> list[str]:
    """Paths whose value differs (bitwise for arrays)."""
    out = [k for k in before.keys() ^ after.keys()]
    for k in before.keys() & after.keys():
        a, b = before[k], after[k]
        if isinstance(a, np.ndarray):
            if a.shape != b.shape or a.tobytes() != b.tobytes():
                out.append(k)
        elif not (a == b or (a != a and b != b)):
            out.append(k)
    return out
