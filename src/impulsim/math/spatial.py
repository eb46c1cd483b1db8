"""Spatial (6D) vector algebra in Plücker coordinates (Featherstone, *Rigid Body Dynamics Algorithms*).

Conventions (the modern ones, not the 1987 force-first notation Holck's thesis uses):

* motion vectors  v̂ = [ω; v_O]: angular velocity and the velocity of the body point at the origin O;
* force vectors   f̂ = [n_O; f]: moment about O and the resultant force;
* a Plücker transform ``X`` = ``BX_A`` maps motion vectors from frame A to frame B; forces map with
  ``X* = X⁻ᵀ``. For frame B rotated by E (B coordinates of a vector = E · A coordinates) with its origin
  at r (A coordinates): X = [[E, 0], [−E r̃, E]];
* the scalar product of a motion and a force vector is the power ``v̂ · f̂`` (an ordinary dot product).

All functions are Numba kernels over float64 arrays; ``_into`` variants write into a given output.
"""
import numpy as np

from impulsim.kernel import njit
from impulsim.math.linalg import cross_matrix


skew = cross_matrix
"""r̃ with r̃ x = r × x, shape [3, 3] (the cross-product matrix of :mod:`impulsim.math.linalg`)."""


@njit(cache=True)
def cross_motion_into(v, m, out):
    """out = v ×m m = [ω × m_ω; ω × m_v + v_O × m_ω] (derivative of motion vector m moving with v)."""
    w0, w1, w2, u0, u1, u2 = v[0], v[1], v[2], v[3], v[4], v[5]
    a0, a1, a2, b0, b1, b2 = m[0], m[1], m[2], m[3], m[4], m[5]
    out[0] = w1 * a2 - w2 * a1
    out[1] = w2 * a0 - w0 * a2
    out[2] = w0 * a1 - w1 * a0
    out[3] = w1 * b2 - w2 * b1 + u1 * a2 - u2 * a1
    out[4] = w2 * b0 - w0 * b2 + u2 * a0 - u0 * a2
    out[5] = w0 * b1 - w1 * b0 + u0 * a1 - u1 * a0


@njit(cache=True)
def cross_force_into(v, f, out):
    """out = v ×f f = [ω × n + v_O × f; ω × f] (= −(v ×m)ᵀ f, the dual of the motion cross product)."""
    w0, w1, w2, u0, u1, u2 = v[0], v[1], v[2], v[3], v[4], v[5]
    n0, n1, n2, f0, f1, f2 = f[0], f[1], f[2], f[3], f[4], f[5]
    out[0] = w1 * n2 - w2 * n1 + u1 * f2 - u2 * f1
    out[1] = w2 * n0 - w0 * n2 + u2 * f0 - u0 * f2
    out[2] = w0 * n1 - w1 * n0 + u0 * f1 - u1 * f0
    out[3] = w1 * f2 - w2 * f1
    out[4] = w2 * f0 - w0 * f2
    out[5] = w0 * f1 - w1 * f0


@njit(cache=True)
def cross_motion(v, m):
    """v ×m m, shape [6]."""
    out = np.empty(6)
    cross_motion_into(v, m, out)
    return out


@njit(cache=True)
def cross_force(v, f):
    """v ×f f, shape [6]."""
    out = np.empty(6)
    cross_force_into(v, f, out)
    return out


@njit(cache=True)
def crm(v):
    """Matrix of v ×m, shape [6, 6]: [[ω̃, 0], [ṽ_O, ω̃]]."""
    out = np.zeros((6, 6))
    w = skew(v[:3])
    u = skew(v[3:])
    out[:3, :3] = w
    out[3:, 3:] = w
    out[3:, :3] = u
    return out


@njit(cache=True)
def crf(v):
    """Matrix of v ×f = −crm(v)ᵀ, shape [6, 6]."""
    return -crm(v).T.copy()


@njit(cache=True)
def plucker(E, r):
    """BX_A for frame B rotated by E (B coords = E · A coords) with origin at r (A coords): [[E, 0], [−E r̃, E]]."""
    out = np.zeros((6, 6))
    er = E @ skew(r)
    out[:3, :3] = E
    out[3:, 3:] = E
    out[3:, :3] = -er
    return out


@njit(cache=True)
def plucker_inverse(X):
    """AX_B from BX_A without a general inverse: [[Eᵀ, 0], [r̃ Eᵀ, Eᵀ]] (with −E r̃ = X[3:, :3])."""
    out = np.zeros((6, 6))
    Et = X[:3, :3].T.copy()
    out[:3, :3] = Et
    out[3:, 3:] = Et
    # lower-left block of the inverse: −Eᵀ (−E r̃) Eᵀ = r̃ Eᵀ
    lower = X[3:, :3].copy()
    out[3:, :3] = -Et @ lower @ Et
    return out


@njit(cache=True)
def force_transform(X):
    """X* = X⁻ᵀ = [[E, −E r̃], [0, E]]: maps force vectors between the same frames as X."""
    return plucker_inverse(X).T.copy()


@njit(cache=True)
def spatial_inertia(mass, com, inertia_com):
    """Rigid-body inertia about the origin: [[I_c + m c̃ c̃ᵀ, m c̃], [m c̃ᵀ, m 1]].

    ``mass`` [kg], ``com`` centre of mass [m] and ``inertia_com`` rotational inertia about the centre of
    mass [kg m²], all in the frame the result is expressed in.
    """
    out = np.zeros((6, 6))
    spatial_inertia_into(mass, com, inertia_com, out)
    return out


@njit(cache=True)
def spatial_inertia_into(mass, com, inertia_com, out):
    """:func:`spatial_inertia` written into ``out`` [6, 6], without temporaries.

    Uses c̃ c̃ᵀ = |c|² 1 − c cᵀ for the upper-left block.
    """
    cc = com[0] * com[0] + com[1] * com[1] + com[2] * com[2]
    for i in range(3):
        for j in range(3):
            out[i, j] = inertia_com[i, j] + mass * ((cc if i == j else 0.0) - com[i] * com[j])
            out[3 + i, 3 + j] = mass if i == j else 0.0
            out[i, 3 + j] = 0.0
            out[3 + i, j] = 0.0
    # m c̃ (upper right) and m c̃ᵀ = −m c̃ (lower left)
    out[0, 4], out[0, 5] = -mass * com[2], mass * com[1]
    out[1, 3], out[1, 5] = mass * com[2], -mass * com[0]
    out[2, 3], out[2, 4] = -mass * com[1], mass * com[0]
    for i in range(3):
        for j in range(3):
            out[3 + i, j] = -out[i, 3 + j]


@njit(cache=True)
def transform_inertia(X, inertia):
    """Inertia in frame B from frame A: I_B = X* I_A X⁻¹ with X = BX_A (kinetic energy is invariant)."""
    Xi = plucker_inverse(X)
    return Xi.T @ inertia @ Xi


@njit(cache=True)
def rotation_x(angle):
    """Rotation matrix about the local x axis by ``angle`` [rad] (maps rotated to unrotated coords)."""
    c = np.cos(angle)
    s = np.sin(angle)
    out = np.zeros((3, 3))
    out[0, 0] = 1.0
    out[1, 1] = c
    out[1, 2] = -s
    out[2, 1] = s
    out[2, 2] = c
    return out
