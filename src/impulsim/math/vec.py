"""Allocation-free 3-vector and quaternion helpers on tuples, for the innermost Numba loops.

Numba keeps tuples of floats in registers, so these functions cost no heap allocation, unlike small
NumPy arrays. Vectors are (x, y, z); quaternions (w, x, y, z), rotating body vectors into the world.
"""
import math

from impulsim.kernel import njit


@njit(cache=True)
def v3(a):
    """Tuple from a length-3 array (or row)."""
    return (a[0], a[1], a[2])


@njit(cache=True)
def q4(a):
    """Tuple from a length-4 array (or row)."""
    return (a[0], a[1], a[2], a[3])


@njit(cache=True)
def add(a, b):
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


@njit(cache=True)
def sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


@njit(cache=True)
def scale(a, s):
    return (a[0] * s, a[1] * s, a[2] * s)


@njit(cache=True)
def axpy(s, a, b):
    """s·a + b."""
    return (s * a[0] + b[0], s * a[1] + b[1], s * a[2] + b[2])


@njit(cache=True)
def dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@njit(cache=True)
def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


@njit(cache=True)
def norm(a):
    return math.sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2])


@njit(cache=True)
def matvec(M, a):
    """M a for a 3×3 array M."""
    return (M[0, 0] * a[0] + M[0, 1] * a[1] + M[0, 2] * a[2],
            M[1, 0] * a[0] + M[1, 1] * a[1] + M[1, 2] * a[2],
            M[2, 0] * a[0] + M[2, 1] * a[1] + M[2, 2] * a[2])


@njit(cache=True)
def matvec_at(M, k, a):
    """M[k] a for a stack of 3×3 matrices M [n, 3, 3], indexed element by element: inside hot loops a view
    ``M[k]`` of an array held in a tuple of arrays can cost a few hundred ns where this costs a few."""
    return (M[k, 0, 0] * a[0] + M[k, 0, 1] * a[1] + M[k, 0, 2] * a[2],
            M[k, 1, 0] * a[0] + M[k, 1, 1] * a[1] + M[k, 1, 2] * a[2],
            M[k, 2, 0] * a[0] + M[k, 2, 1] * a[1] + M[k, 2, 2] * a[2])


@njit(cache=True)
def qmul(p, q):
    """Hamilton product p ⊗ q."""
    return (p[0] * q[0] - p[1] * q[1] - p[2] * q[2] - p[3] * q[3],
            p[0] * q[1] + p[1] * q[0] + p[2] * q[3] - p[3] * q[2],
            p[0] * q[2] - p[1] * q[3] + p[2] * q[0] + p[3] * q[1],
            p[0] * q[3] + p[1] * q[2] - p[2] * q[1] + p[3] * q[0])


@njit(cache=True)
def qconj(q):
    return (q[0], -q[1], -q[2], -q[3])


@njit(cache=True)
def qnormalize(q):
    n = math.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
    if n == 0.0:
        return (1.0, 0.0, 0.0, 0.0)
    return (q[0] / n, q[1] / n, q[2] / n, q[3] / n)


@njit(cache=True)
def qrot(q, v):
    """R(q) v."""
    w, x, y, z = q
    tx = 2.0 * (y * v[2] - z * v[1])
    ty = 2.0 * (z * v[0] - x * v[2])
    tz = 2.0 * (x * v[1] - y * v[0])
    return (v[0] + w * tx + (y * tz - z * ty),
            v[1] + w * ty + (z * tx - x * tz),
            v[2] + w * tz + (x * ty - y * tx))


@njit(cache=True)
def qrot_inv(q, v):
    """R(q)ᵀ v."""
    return qrot((q[0], -q[1], -q[2], -q[3]), v)


@njit(cache=True)
def qfrom_rotvec(r):
    """Quaternion of the rotation vector r (axis × angle [rad])."""
    angle = norm(r)
    if angle < 1e-12:
        return qnormalize((1.0, 0.5 * r[0], 0.5 * r[1], 0.5 * r[2]))
    s = math.sin(0.5 * angle) / angle
    return (math.cos(0.5 * angle), r[0] * s, r[1] * s, r[2] * s)


@njit(cache=True)
def qto_rotvec(q):
    """Rotation vector α·x, α in [0, π] (the shorter way round)."""
    w, x, y, z = q
    if w < 0.0:
        w, x, y, z = -w, -x, -y, -z
    s = math.sqrt(x * x + y * y + z * z)
    if s < 1e-12:
        f = 2.0 / w
    else:
        f = 2.0 * math.atan2(s, w) / s
    return (f * x, f * y, f * z)


@njit(cache=True)
def perpendicular_basis(x):
    """Unit y, z with (x, y, z) orthonormal, for unit x (y = x × w, w the axis least parallel to x)."""
    ax, ay, az = abs(x[0]), abs(x[1]), abs(x[2])
    if ax <= ay and ax <= az:
        w = (1.0, 0.0, 0.0)
    elif ay <= az:
        w = (0.0, 1.0, 0.0)
    else:
        w = (0.0, 0.0, 1.0)
    y = cross(x, w)
    y = scale(y, 1.0 / norm(y))
    return y, cross(x, y)
