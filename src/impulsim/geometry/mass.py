"""Mass properties: combining shapes, parallel-axis shifts and the principal frame."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from impulsim.math import quat_to_matrix, quat_from_matrix
from impulsim.math.plain import plain

# called once per shape: run as Python (compiling them would cost seconds on an empty cache)
quat_to_matrix, quat_from_matrix = plain(quat_to_matrix), plain(quat_from_matrix)


@dataclass
class MassProperties:
    """Mass [kg], centre of mass [m] and inertia tensor about it [kg m²], both in the user frame."""
    mass: float
    com: np.ndarray
    inertia: np.ndarray  # (3, 3)


def shape_mass_properties(shape, density: float) -> MassProperties:
    """Mass properties of one uniform-density shape, expressed in its body's user frame.

    Raises ModelError for shapes without volume (half-spaces, open meshes).
    """
    mass, com, inertia = shape.local_mass_properties(density)
    R = quat_to_matrix(shape.orientation)
    return MassProperties(mass, shape.position + R @ com, R @ inertia @ R.T)


def combine_mass_properties(parts: list[MassProperties]) -> MassProperties:
    """Sum of parts: total mass, common centre of mass and inertia about it (parallel-axis theorem)."""
    mass = sum(p.mass for p in parts)
    com = sum(p.mass * p.com for p in parts) / mass
    inertia = np.zeros((3, 3))
    for p in parts:
        r = p.com - com
        inertia += p.inertia + p.mass * (np.dot(r, r) * np.eye(3) - np.outer(r, r))
    return MassProperties(mass, com, inertia)


def principal_frame(inertia: np.ndarray, rel_tol: float = 1e-12) -> tuple[np.ndarray, np.ndarray]:
    """Principal moments (3,) and the quaternion of the principal axes in the user frame.

    A tensor that is already diagonal keeps the user's axes, so that users who build bodies aligned with
    their principal axes see no surprising permutation.
    """
    inertia = 0.5 * (inertia + inertia.T)
    scale = max(np.max(np.abs(inertia)), 1e-300)
    off = inertia - np.diag(np.diag(inertia))
    if np.max(np.abs(off)) <= rel_tol * scale:
        return np.diag(inertia).copy(), np.array([1.0, 0.0, 0.0, 0.0])
    moments, axes = np.linalg.eigh(inertia)
    if np.linalg.det(axes) < 0.0:
        axes[:, 2] = -axes[:, 2]
    return moments, quat_from_matrix(np.ascontiguousarray(axes))
