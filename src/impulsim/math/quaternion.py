"""Unit quaternions, scalar first (w, x, y, z); R(q) maps body-frame vectors to the world frame."""
import numpy as np

from impulsim.kernel import njit

_FM = dict(cache=True, fastmath=False)


@njit(**_FM)
def quat_identity():
    """The identity rotation (1, 0, 0, 0)."""
    return np.array([1.0, 0.0, 0.0, 0.0])


@njit(**_FM)
def quat_mul(p, q):
    """Hamilton product p ⊗ q: first rotate by q, then by p."""
    pw, px, py, pz = p[0], p[1], p[2], p[3]
    qw, qx, qy, qz = q[0], q[1], q[2], q[3]
    out = np.empty(4)
    out[0] = pw * qw - px * qx - py * qy - pz * qz
    out[1] = pw * qx + px * qw + py * qz - pz * qy
    out[2] = pw * qy - px * qz + py * qw + pz * qx
    out[3] = pw * qz + px * qy - py * qx + pz * qw
    return out


@njit(**_FM)
def quat_conj(q):
    """Conjugate, the inverse of a unit quaternion."""
    return np.array([q[0], -q[1], -q[2], -q[3]])


@njit(**_FM)
def quat_normalize(q):
    """q / |q|; falls back to the identity for a zero quaternion."""
    n = np.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
    if n == 0.0:
        return quat_identity()
    return q / n


@njit(**_FM)
def quat_rotate(q, v):
    """R(q) v, a body-frame vector v expressed in the world frame."""
    w, x, y, z = q[0], q[1], q[2], q[3]
    # v + 2 w (u × v) + 2 u × (u × v), u = (x, y, z)
    tx = 2.0 * (y * v[2] - z * v[1])
    ty = 2.0 * (z * v[0] - x * v[2])
    tz = 2.0 * (x * v[1] - y * v[0])
    out = np.empty(3)
    out[0] = v[0] + w * tx + (y * tz - z * ty)
    out[1] = v[1] + w * ty + (z * tx - x * tz)
    out[2] = v[2] + w * tz + (x * ty - y * tx)
    return out


@njit(**_FM)
def quat_rotate_inv(q, v):
    """R(q)ᵀ v, a world vector expressed in the body frame."""
    return quat_rotate(quat_conj(q), v)


@njit(**_FM)
def quat_to_matrix(q):
    """Rotation matrix R(q) (columns are the body axes in world coordinates)."""
    R = np.empty((3, 3))
    quat_to_matrix_into(q, R)
    return R


@njit(**_FM)
def quat_to_matrix_into(q, out):
    """R(q) written into ``out`` [3, 3] (no allocation, for kernels that loop over bodies)."""
    w, x, y, z = q[0], q[1], q[2], q[3]
    out[0, 0] = 1.0 - 2.0 * (y * y + z * z)
    out[0, 1] = 2.0 * (x * y - w * z)
    out[0, 2] = 2.0 * (x * z + w * y)
    out[1, 0] = 2.0 * (x * y + w * z)
    out[1, 1] = 1.0 - 2.0 * (x * x + z * z)
    out[1, 2] = 2.0 * (y * z - w * x)
    out[2, 0] = 2.0 * (x * z - w * y)
    out[2, 1] = 2.0 * (y * z + w * x)
    out[2, 2] = 1.0 - 2.0 * (x * x + y * y)


@njit(**_FM)
def quat_from_matrix(R):
    """Unit quaternion (w ≥ 0) of a proper rotation matrix, Shepperd's branch on the largest pivot.

    (Bender's Algorithm A.1 assigns z twice in its i = 3 branch; this is the corrected form.)
    """
    tr = R[0, 0] + R[1, 1] + R[2, 2]
    q = np.empty(4)
    if tr > 0.0:
        s = 0.5 / np.sqrt(tr + 1.0)
        q[0] = 0.25 / s
        q[1] = (R[2, 1] - R[1, 2]) * s
        q[2] = (R[0, 2] - R[2, 0]) * s
        q[3] = (R[1, 0] - R[0, 1]) * s
    elif R[0, 0] > R[1, 1] and R[0, 0] > R[2, 2]:
        s = 2.0 * np.sqrt(1.0 + R[0, 0] - R[1, 1] - R[2, 2])
        q[0] = (R[2, 1] - R[1, 2]) / s
        q[1] = 0.25 * s
        q[2] = (R[0, 1] + R[1, 0]) / s
        q[3] = (R[0, 2] + R[2, 0]) / s
    elif R[1, 1] > R[2, 2]:
        s = 2.0 * np.sqrt(1.0 + R[1, 1] - R[0, 0] - R[2, 2])
        q[0] = (R[0, 2] - R[2, 0]) / s
        q[1] = (R[0, 1] + R[1, 0]) / s
        q[2] = 0.25 * s
        q[3] = (R[1, 2] + R[2, 1]) / s
    else:
        s = 2.0 * np.sqrt(1.0 + R[2, 2] - R[0, 0] - R[1, 1])
        q[0] = (R[1, 0] - R[0, 1]) / s
        q[1] = (R[0, 2] + R[2, 0]) / s
        q[2] = (R[1, 2] + R[2, 1]) / s
        q[3] = 0.25 * s
    if q[0] < 0.0:
        q = -q
    return quat_normalize(q)


@njit(**_FM)
def quat_from_axis_angle(axis, angle):
    """Rotation by ``angle`` [rad] about ``axis`` (normalized here)."""
    n = np.sqrt(axis[0] ** 2 + axis[1] ** 2 + axis[2] ** 2)
    if n == 0.0:
        return quat_identity()
    s = np.sin(0.5 * angle) / n
    return np.array([np.cos(0.5 * angle), axis[0] * s, axis[1] * s, axis[2] * s])


@njit(**_FM)
def quat_from_rotvec(r):
    """Rotation vector (axis × angle [rad]) to quaternion."""
    angle = np.sqrt(r[0] ** 2 + r[1] ** 2 + r[2] ** 2)
    if angle < 1e-12:
        return quat_normalize(np.array([1.0, 0.5 * r[0], 0.5 * r[1], 0.5 * r[2]]))
    return quat_from_axis_angle(r, angle)


@njit(**_FM)
def quat_to_rotvec(q):
    """Rotation vector α·x with α in [0, π] (the shorter way round), Bender's Algorithm A.2."""
    w = q[0]
    x, y, z = q[1], q[2], q[3]
    if w < 0.0:
        w, x, y, z = -w, -x, -y, -z
    s = np.sqrt(x * x + y * y + z * z)
    if s < 1e-12:
        # small angle: α x ≈ 2 (x, y, z) / w
        f = 2.0 / w
    else:
        f = 2.0 * np.arctan2(s, w) / s
    return np.array([f * x, f * y, f * z])
