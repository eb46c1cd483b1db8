"""3-vectors as tuples inside kernels: no allocation, inlined by Numba.

Every function accepts tuples or length-3 arrays and returns a tuple.

``KERNEL`` is the Numba option set of every collision kernel: cached, and compiled without the runtime's
reference counting (``_nrt=False``). The kernels never allocate (all memory is the detector's
preallocated workspace), and without the runtime every array handed from kernel to kernel no longer
costs an atomic increment and decrement of its count: that was a large share of the narrow phase.
A kernel that needs to allocate must not use these options.
"""
import math

import numpy as np

from impulsim.kernel import njit

KERNEL = dict(cache=True, _nrt=False)
_INL = KERNEL


@njit(**_INL)
def slots():
    """The core slots 0 (A) and 1 (B) as plain int64. Numba compiles a separate copy of a kernel for each
    literal constant it is called with, so heavy kernels get their slot (and flags, counters) from
    variables, never from literals at the call site (a third less compile time)."""
    return np.int64(0), np.int64(1)


@njit(**_INL)
def v3(a):
    """A length-3 array (or tuple) as a tuple."""
    return (a[0], a[1], a[2])


@njit(**_INL)
def add(a, b):
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


@njit(**_INL)
def sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


@njit(**_INL)
def scale(a, s):
    return (a[0] * s, a[1] * s, a[2] * s)


@njit(**_INL)
def madd(a, b, s):
    """a + s b."""
    return (a[0] + s * b[0], a[1] + s * b[1], a[2] + s * b[2])


@njit(**_INL)
def neg(a):
    return (-a[0], -a[1], -a[2])


@njit(**_INL)
def dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@njit(**_INL)
def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


@njit(**_INL)
def norm(a):
    return math.sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2])


@njit(**_INL)
def normalize(a):
    """a / |a|, or (0, 0, 0) for a zero vector."""
    n = math.sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2])
    if n == 0.0:
        return (0.0, 0.0, 0.0)
    return (a[0] / n, a[1] / n, a[2] / n)


@njit(**_INL)
def mat_vec(m, v):
    """m v for a 3×3 array m."""
    return (m[0, 0] * v[0] + m[0, 1] * v[1] + m[0, 2] * v[2],
            m[1, 0] * v[0] + m[1, 1] * v[1] + m[1, 2] * v[2],
            m[2, 0] * v[0] + m[2, 1] * v[1] + m[2, 2] * v[2])


@njit(**_INL)
def mat_t_vec(m, v):
    """mᵀ v for a 3×3 array m."""
    return (m[0, 0] * v[0] + m[1, 0] * v[1] + m[2, 0] * v[2],
            m[0, 1] * v[0] + m[1, 1] * v[1] + m[2, 1] * v[2],
            m[0, 2] * v[0] + m[1, 2] * v[1] + m[2, 2] * v[2])


@njit(**_INL)
def column(m, j):
    return (m[0, j], m[1, j], m[2, j])


@njit(**_INL)
def store(out, i, v):
    """out[i, :] = v."""
    out[i, 0] = v[0]
    out[i, 1] = v[1]
    out[i, 2] = v[2]


@njit(**_INL)
def row(a, i):
    """Row i of an [n, 3] array as a tuple."""
    return (a[i, 0], a[i, 1], a[i, 2])


@njit(**_INL)
def perpendicular(n):
    """Two unit vectors (t1, t2) with (t1, t2, n) right-handed and orthonormal, for a unit n."""
    if abs(n[0]) > 0.57735:
        t = normalize((n[1], -n[0], 0.0))
    else:
        t = normalize((0.0, n[2], -n[1]))
    return t, cross(n, t)
