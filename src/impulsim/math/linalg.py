"""3×3 helpers: cross-product matrix, closed-form symmetric inverse, world inertia, plane bases; an array copy for
kernels compiled without reference counts."""
import numpy as np

from impulsim.kernel import njit


@njit(cache=True)
def cross_matrix(r):
    """r* with r* x = r × x (Bender App. C.1)."""
    m = np.zeros((3, 3))
    m[0, 1] = -r[2]
    m[0, 2] = r[1]
    m[1, 0] = r[2]
    m[1, 2] = -r[0]
    m[2, 0] = -r[1]
    m[2, 1] = r[0]
    return m


@njit(cache=True)
def sym3_inverse(A):
    """Inverse of a symmetric 3×3 matrix by cofactors (Bender App. C.5); zeros if singular."""
    a, b, c = A[0, 0], A[0, 1], A[0, 2]
    d, e, f = A[1, 1], A[1, 2], A[2, 2]
    c00 = d * f - e * e
    c01 = c * e - b * f
    c02 = b * e - c * d
    det = a * c00 + b * c01 + c * c02
    out = np.zeros((3, 3))
    if det == 0.0:
        return out
    inv = 1.0 / det
    out[0, 0] = c00 * inv
    out[0, 1] = out[1, 0] = c01 * inv
    out[0, 2] = out[2, 0] = c02 * inv
    out[1, 1] = (a * f - c * c) * inv
    out[1, 2] = out[2, 1] = (b * c - a * e) * inv
    out[2, 2] = (a * d - b * b) * inv
    return out


@njit(cache=True)
def inertia_world(R, diag_local):
    """R diag(J_l) Rᵀ: a body's local diagonal tensor (or its inverse) in world coordinates."""
    out = np.empty((3, 3))
    for i in range(3):
        for j in range(i, 3):
            s = R[i, 0] * diag_local[0] * R[j, 0] + R[i, 1] * diag_local[1] * R[j, 1] \
                + R[i, 2] * diag_local[2] * R[j, 2]
            out[i, j] = s
            out[j, i] = s
    return out


@njit(cache=True)
def basis_perpendicular(x):
    """Two unit vectors y, z with (x, y, z) orthonormal (x must be a unit vector).

    Uses the thesis's construction y = x × w, z = x × y with w the world axis least parallel to x.
    """
    ax, ay, az = abs(x[0]), abs(x[1]), abs(x[2])
    w = np.zeros(3)
    if ax <= ay and ax <= az:
        w[0] = 1.0
    elif ay <= az:
        w[1] = 1.0
    else:
        w[2] = 1.0
    y = np.cross(x, w)
    y /= np.sqrt(y[0] ** 2 + y[1] ** 2 + y[2] ** 2)
    z = np.cross(x, y)
    return y, z


@njit(cache=True)
def cholesky_into(M, n, L):
    """L Lᵀ = M over the leading n×n block of a symmetric positive definite M; L's block is lower
    triangular (zeros above the diagonal). Returns False, with L partly written, if M is not positive
    definite."""
    for j in range(n):
        s = M[j, j]
        for k in range(j):
            s -= L[j, k] * L[j, k]
        if s <= 0.0:
            return False
        L[j, j] = np.sqrt(s)
        for i in range(j + 1, n):
            t = M[i, j]
            for k in range(j):
                t -= L[i, k] * L[j, k]
            L[i, j] = t / L[j, j]
        for i in range(j):
            L[i, j] = 0.0
    return True


@njit(cache=True, _nrt=False)
def copy_rows(src, dst):
    """dst[:] = src for 2-d arrays of equal shape, element by element (an array assignment needs Numba's
    runtime, which kernels compiled without reference counts lack: they never allocate)."""
    for i in range(src.shape[0]):
        for k in range(src.shape[1]):
            dst[i, k] = src[i, k]
