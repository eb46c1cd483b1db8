"""Small linear-algebra and rotation helpers shared by every layer.

Everything here is a Numba ``njit`` function on float64 arrays, callable from Python and from kernels.
Quaternions are scalar-first ``(w, x, y, z)`` and rotate body-frame vectors into the world frame:
``v_world = R(q) v_body``.
"""
from impulsim.math.quaternion import (
    quat_mul, quat_conj, quat_normalize, quat_rotate, quat_rotate_inv, quat_to_matrix,
    quat_from_matrix, quat_from_axis_angle, quat_to_rotvec, quat_from_rotvec, quat_identity,
)
from impulsim.math.linalg import cross_matrix, sym3_inverse, inertia_world, basis_perpendicular

__all__ = [
    "quat_mul", "quat_conj", "quat_normalize", "quat_rotate", "quat_rotate_inv", "quat_to_matrix",
    "quat_from_matrix", "quat_from_axis_angle", "quat_to_rotvec", "quat_from_rotvec", "quat_identity",
    "cross_matrix", "sym3_inverse", "inertia_world", "basis_perpendicular",
]
