"""Free-body motion over one step (Bender 3.1).

Translation is exact for forces held constant over the step:
    v(t0+h) = v + a h,   s(t0+h) = s + v h + a h²/2            (Bender eq. 3.2, 3.3)
Rotation integrates Euler's equations in the body (principal) frame, where J_l is constant,
    ω̇_l = J_l⁻¹ (τ_l − ω_l × J_l ω_l),   q̇ = ½ q ⊗ (0, ω_l)      (Bender eq. 3.4, 3.7, body-frame form)
with the world torque τ held constant (τ_l = R(q)ᵀ τ changes as the body turns). The quaternion is
normalized after the step. Bodies with zero inverse mass (static, kinematic) move with their velocity
unchanged: s += v h, q ← exp(ω h) ⊗ q.

A torque-free body whose inertia has two equal principal moments (boxes of square section, cylinders,
spheres) turns in closed form (Euler's torque-free symmetric top): with A the equal moments, C the third
about the body axis e_c, and L the world angular momentum (constant),
    R(t) = exp(t [Ω_w]×) R(0) exp(t [Ω_b]×),   Ω_w = L / A (world),   Ω_b = (1/C − 1/A) L_c e_c (body),
    ω(t) = Ω_w + R(t) Ω_b,
since then Ṙ = [Ω_w + R Ω_b]× R and Rᵀ ω = J_l⁻¹ Rᵀ L. The free step of a body (``free_step_body``, and so
the predictions of the impulse method) takes this exact solution for such bodies in place of the RK4 and
adaptive schemes; ``integrate_rotation`` is always the chosen scheme, and the Euler scheme stays the plain
first-order step everywhere. The exponentials exp(t [Ω]×) take the sine and cosine of half angles below
SERIES_ANGLE / 2 from their Taylor series (exact to rounding, and cheaper than the library's call).

The scheme reaches the kernels either as its number (``int(Integrator.RK4)``: every scheme is compiled and
chosen at run time) or as a :class:`RotationScheme` (``rotation_scheme(Integrator.RK4)``): then the scheme is
part of the compiled type and a kernel compiles only the code of that scheme. The methods pass the latter, so
that the first step of a scene on an empty Numba cache compiles one scheme, not three; both give the same
numbers.
"""
import enum
import math

import numpy as np
from numba import types
from numba.extending import NativeValue, models, overload, register_model, typeof_impl, unbox

from impulsim.kernel import njit
from impulsim.math.vec import v3, q4, qmul, qnormalize, qrot, qrot_inv, qfrom_rotvec


class Integrator(enum.IntEnum):
    """Scheme for the rotational equations of motion."""
    EULER = 0
    RK4 = 1
    RK45 = 2   # embedded Cash–Karp Runge–Kutta with adaptive sub-steps (Bender App. B, Table B.1)


class RotationScheme:
    """A rotation scheme as the kernels take it when only that scheme is to be compiled (module docstring).

    Make one with :func:`rotation_scheme`; ``int()`` gives the scheme's number."""
    __slots__ = ("integrator", "_numba_type_")

    def __init__(self, integrator):
        self.integrator = Integrator(integrator)
        # read by Numba's dispatcher in its fast path: a call costs ~0.4 µs more than with an int, against
        # ~6 µs through typeof_impl
        self._numba_type_ = RotationSchemeType(int(self.integrator))

    def __int__(self):
        return int(self.integrator)

    def __repr__(self):
        return f"rotation_scheme(Integrator.{self.integrator.name})"


class RotationSchemeType(types.Opaque):
    """Numba type of a :class:`RotationScheme`: the scheme number is in the type, not in a value."""

    def __init__(self, code):
        self.code = int(code)
        super().__init__(name=f"RotationScheme({Integrator(self.code).name})")


register_model(RotationSchemeType)(models.OpaqueModel)


@typeof_impl.register(RotationScheme)
def _typeof_rotation_scheme(val, c):
    return RotationSchemeType(int(val.integrator))


@unbox(RotationSchemeType)
def _unbox_rotation_scheme(typ, obj, c):
    return NativeValue(c.context.get_dummy_value())


_SCHEMES = {i: RotationScheme(i) for i in Integrator}


def rotation_scheme(integrator) -> RotationScheme:
    """The :class:`RotationScheme` of an :class:`Integrator` (or its number): kernels called with it compile
    only that scheme."""
    scheme = _SCHEMES.get(integrator)           # once per kernel call: the common case without a conversion
    return scheme if scheme is not None else _SCHEMES[Integrator(integrator)]


SPIN_RESOLUTION = 1e-15
"""Spin angle over a step [rad] below which the closed-form rotation of a symmetric body leaves the spin
out: below the resolution of a unit quaternion in double precision (1.1e-16 per component near 1), such a
spin is the rounding noise of an axial rate that is zero in exact arithmetic (joints on the symmetry axis)."""

ADAPTIVE_TOL = 1e-12
"""Local error bound per sub-step of the adaptive scheme [rad/s and quaternion units]."""


@njit(cache=True)
def _rhs(q, w, tau_world, inertia, inv_inertia):
    """(q̇, ω̇_l) for orientation q and body-frame angular velocity w under a constant world torque."""
    if tau_world[0] == 0.0 and tau_world[1] == 0.0 and tau_world[2] == 0.0:
        tau = (0.0, 0.0, 0.0)          # torque-free: skip the rotation into the body frame
    else:
        tau = qrot_inv(q, tau_world)
    Lx, Ly, Lz = inertia[0] * w[0], inertia[1] * w[1], inertia[2] * w[2]
    dw = (inv_inertia[0] * (tau[0] - (w[1] * Lz - w[2] * Ly)),
          inv_inertia[1] * (tau[1] - (w[2] * Lx - w[0] * Lz)),
          inv_inertia[2] * (tau[2] - (w[0] * Ly - w[1] * Lx)))
    # q̇ = ½ q ⊗ (0, ω_l)
    dq = (0.5 * (-q[1] * w[0] - q[2] * w[1] - q[3] * w[2]),
          0.5 * (q[0] * w[0] + q[2] * w[2] - q[3] * w[1]),
          0.5 * (q[0] * w[1] - q[1] * w[2] + q[3] * w[0]),
          0.5 * (q[0] * w[2] + q[1] * w[1] - q[2] * w[0]))
    return dq, dw


@njit(cache=True)
def _q_axpy(s, a, b):
    return (b[0] + s * a[0], b[1] + s * a[1], b[2] + s * a[2], b[3] + s * a[3])


@njit(cache=True)
def _w_axpy(s, a, b):
    return (b[0] + s * a[0], b[1] + s * a[1], b[2] + s * a[2])


@njit(cache=True)
def _euler(q, w, tau, inertia, inv_inertia, h):
    dq, dw = _rhs(q, w, tau, inertia, inv_inertia)
    return _q_axpy(h, dq, q), _w_axpy(h, dw, w)


@njit(cache=True)
def _rk4(q, w, tau, inertia, inv_inertia, h):
    q1, w1 = _rhs(q, w, tau, inertia, inv_inertia)
    q2, w2 = _rhs(_q_axpy(0.5 * h, q1, q), _w_axpy(0.5 * h, w1, w), tau, inertia, inv_inertia)
    q3, w3 = _rhs(_q_axpy(0.5 * h, q2, q), _w_axpy(0.5 * h, w2, w), tau, inertia, inv_inertia)
    q4_, w4 = _rhs(_q_axpy(h, q3, q), _w_axpy(h, w3, w), tau, inertia, inv_inertia)
    c = h / 6.0
    qn = (q[0] + c * (q1[0] + 2 * q2[0] + 2 * q3[0] + q4_[0]), q[1] + c * (q1[1] + 2 * q2[1] + 2 * q3[1] + q4_[1]),
          q[2] + c * (q1[2] + 2 * q2[2] + 2 * q3[2] + q4_[2]), q[3] + c * (q1[3] + 2 * q2[3] + 2 * q3[3] + q4_[3]))
    wn = (w[0] + c * (w1[0] + 2 * w2[0] + 2 * w3[0] + w4[0]), w[1] + c * (w1[1] + 2 * w2[1] + 2 * w3[1] + w4[1]),
          w[2] + c * (w1[2] + 2 * w2[2] + 2 * w3[2] + w4[2]))
    return qn, wn


# Cash–Karp coefficients (Bender Table B.1)
_CK_A = np.array([[0.0, 0.0, 0.0, 0.0, 0.0],
                  [1 / 5, 0.0, 0.0, 0.0, 0.0],
                  [3 / 40, 9 / 40, 0.0, 0.0, 0.0],
                  [3 / 10, -9 / 10, 6 / 5, 0.0, 0.0],
                  [-11 / 54, 5 / 2, -70 / 27, 35 / 27, 0.0],
                  [1631 / 55296, 175 / 512, 575 / 13824, 44275 / 110592, 253 / 4096]])
_CK_B5 = np.array([37 / 378, 0.0, 250 / 621, 125 / 594, 0.0, 512 / 1771])
_CK_B4 = np.array([2825 / 27648, 0.0, 18575 / 48384, 13525 / 55296, 277 / 14336, 1 / 4])


# The two adaptive-step kernels allocate their stage arrays, so they need Numba's runtime. They say so
# explicitly: a kernel compiled without it (the contact and collision kernels, ``_nrt=False``) passes that
# flag on to the callees it compiles, and on an empty cache this one then failed to compile ("Only accept
# returning of array passed into the function as argument") when a contact scene's position pass was the
# first to reach it.
@njit(cache=True, _nrt=True)
def _cash_karp(y, tau, inertia, inv_inertia, h):
    """One embedded step on y = (q, ω_l) as an array: 5th-order result and the error estimate's norm."""
    k = np.zeros((6, 7))
    tmp = np.empty(7)
    for s in range(6):
        for i in range(7):
            tmp[i] = y[i]
        for j in range(s):
            c = h * _CK_A[s, j]
            for i in range(7):
                tmp[i] += c * k[j, i]
        dq, dw = _rhs((tmp[0], tmp[1], tmp[2], tmp[3]), (tmp[4], tmp[5], tmp[6]), tau, inertia, inv_inertia)
        for i in range(4):
            k[s, i] = dq[i]
        for i in range(3):
            k[s, 4 + i] = dw[i]
    y5 = np.empty(7)
    err = np.zeros(7)
    for i in range(7):
        y5[i] = y[i]
    for s in range(6):
        c5 = h * _CK_B5[s]
        ce = h * (_CK_B5[s] - _CK_B4[s])
        for i in range(7):
            y5[i] += c5 * k[s, i]
            err[i] += ce * k[s, i]
    e = 0.0
    for i in range(7):
        e += err[i] * err[i]
    return y5, np.sqrt(e)


@njit(cache=True, _nrt=True)
def _adaptive(q, w, tau, inertia, inv_inertia, h):
    """Cover [0, h] with Cash–Karp sub-steps, h_new = 0.9 h (ε/err)^(1/5) (Bender App. B)."""
    y = np.empty(7)
    for i in range(4):
        y[i] = q[i]
    for i in range(3):
        y[4 + i] = w[i]
    t = 0.0
    dt = h
    for _ in range(100000):
        if t >= h:
            break
        dt = min(dt, h - t)
        y_new, err = _cash_karp(y, tau, inertia, inv_inertia, dt)
        if err <= ADAPTIVE_TOL or dt < 1e-9 * h:
            y = y_new
            t += dt
            dt *= 5.0 if err == 0.0 else min(5.0, 0.9 * (ADAPTIVE_TOL / err) ** 0.2)
        else:
            dt *= max(0.1, 0.9 * (ADAPTIVE_TOL / err) ** 0.25)
    return (y[0], y[1], y[2], y[3]), (y[4], y[5], y[6])


@njit(cache=True)
def symmetry_axis(inertia):
    """Index of the body axis about which the principal moments are symmetric (the other two are equal
    and positive), 3 if all three are equal, -1 if no two are."""
    if inertia[0] == inertia[1]:
        if inertia[1] == inertia[2]:
            return 3
        return 2 if inertia[0] > 0.0 else -1
    if inertia[1] == inertia[2]:
        return 0 if inertia[1] > 0.0 else -1
    if inertia[0] == inertia[2]:
        return 1 if inertia[0] > 0.0 else -1
    return -1


# Taylor coefficients in u = (α/2)² of cos(α/2) and of sin(α/2)/(α/2), for the rotation angle α
_COS_SERIES = (-1 / 2, 1 / 24, -1 / 720, 1 / 40320, -1 / 3628800, 1 / 479001600, -1 / 87178291200)
_SINC_SERIES = (-1 / 6, 1 / 120, -1 / 5040, 1 / 362880, -1 / 39916800, 1 / 6227020800, -1 / 1307674368000)

SERIES_ANGLE = 1.0
"""Rotation angle per step [rad] below which :func:`_qexp` evaluates sin and cos of the half angle by their
Taylor series (7 terms in u = (α/2)² ≤ 1/4; the first dropped terms, (α/2)¹⁶/16! and (α/2)¹⁶/17!, are below
1e-18): in line, with no call of the library's sincos to save the registers around, it made a symmetric
body's prediction ~7 ns (15 %) faster. The two agree to rounding (tests/unit/test_rotation_series.py)."""


@njit(cache=True)
def _qexp(v, h):
    """Unit quaternion of the rotation by the vector v h [rad] (rotation vector to quaternion)."""
    x, y, z = v[0] * h, v[1] * h, v[2] * h
    a2 = x * x + y * y + z * z
    if a2 < SERIES_ANGLE * SERIES_ANGLE:
        u = 0.25 * a2
        C, S = _COS_SERIES, _SINC_SERIES
        c = 1.0 + u * (C[0] + u * (C[1] + u * (C[2] + u * (C[3] + u * (C[4] + u * (C[5] + u * C[6]))))))
        s = 0.5 + (0.5 * u) * (S[0] + u * (S[1] + u * (S[2] + u * (S[3] + u * (S[4] + u * (S[5] + u * S[6]))))))
    else:
        angle = math.sqrt(a2)
        s = math.sin(0.5 * angle) / angle
        c = math.cos(0.5 * angle)
    return (c, x * s, y * s, z * s)


@njit(cache=True)
def _unit(q):
    """q / |q| for the product of two unit quaternions (|q| = 1 to rounding), by one reciprocal: ~4 ns less
    than the four quotients of ``qnormalize`` in a ~40 ns prediction, and the products differ from them by an
    ulp at most."""
    n = 1.0 / math.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
    return (q[0] * n, q[1] * n, q[2] * n, q[3] * n)


@njit(cache=True)
def _body_axis(q, c):
    """World direction of body axis c (column c of R(q))."""
    w, x, y, z = q
    if c == 0:
        return (1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y + w * z), 2.0 * (x * z - w * y))
    if c == 1:
        return (2.0 * (x * y - w * z), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z + w * x))
    return (2.0 * (x * z + w * y), 2.0 * (y * z - w * x), 1.0 - 2.0 * (x * x + y * y))


@njit(cache=True)
def _torque_free_symmetric(q, omega, inertia, axis, h):
    """Exact torque-free rotation over h [s] of a body with two equal principal moments (module
    docstring); omega in the world frame, axis the symmetry axis (3: all moments equal). Returns the
    orientation after h and the world angular velocity there.

    With e = R e_c the body axis in the world and ω_c = ω·e, the world momentum over A is
    Ω_w = R (J_l / A) Rᵀ ω = ω + (C/A − 1) ω_c e and the body rate
    Ω_b = (1/C − 1/A) L_c e_c = (1 − C/A) ω_c e_c.
    """
    c = 2 if axis == 3 else axis
    ratio = 1.0 if axis == 3 else inertia[c] / inertia[0 if c != 0 else 1]        # C / A
    e = _body_axis(q, c)
    wc = omega[0] * e[0] + omega[1] * e[1] + omega[2] * e[2]
    f = (ratio - 1.0) * wc
    ow = (omega[0] + f * e[0], omega[1] + f * e[1], omega[2] + f * e[2])
    q1 = qmul(_qexp(ow, h), q)
    if abs(f * h) < SPIN_RESOLUTION:                        # |−f h| = |f h| exactly
        return _unit(q1), ow
    return _add_spin(q1, ow, -f, c, h)                      # spin (1 − C/A) ω_c [rad/s] about e_c


@njit(cache=True)
def _add_spin(q1, ow, spin, c, h):
    """Orientation and world angular velocity of :func:`_torque_free_symmetric` with its spin about body
    axis c: q1 = exp(h Ω_w) ⊗ q is followed by the turn of spin h [rad] about e_c (the bodies of jointed
    models rarely spin: a joint on the symmetry axis leaves only rounding noise, see SPIN_RESOLUTION)."""
    sc = _qexp((spin if c == 0 else 0.0, spin if c == 1 else 0.0, spin if c == 2 else 0.0), h)
    q1 = _unit(qmul(q1, sc))
    e1 = _body_axis(q1, c)
    return q1, (ow[0] + spin * e1[0], ow[1] + spin * e1[1], ow[2] + spin * e1[2])


def _rotate(q, w, tau, inertia, inv_inertia, h, scheme):
    """(q, ω_l) after h [s] by the scheme (a number: chosen at run time; a RotationScheme: at compile time)."""
    raise NotImplementedError("compiled code only")


@overload(_rotate)
def _rotate_impl(q, w, tau, inertia, inv_inertia, h, scheme):
    code = scheme.code if isinstance(scheme, RotationSchemeType) else -1
    if code == 0:
        return lambda q, w, tau, inertia, inv_inertia, h, scheme: _euler(q, w, tau, inertia, inv_inertia, h)
    if code == 1:
        return lambda q, w, tau, inertia, inv_inertia, h, scheme: _rk4(q, w, tau, inertia, inv_inertia, h)
    if code == 2:
        return lambda q, w, tau, inertia, inv_inertia, h, scheme: _adaptive(q, w, tau, inertia, inv_inertia, h)
    if not isinstance(scheme, types.Integer):
        return None

    def any_scheme(q, w, tau, inertia, inv_inertia, h, scheme):
        if scheme == 0:
            return _euler(q, w, tau, inertia, inv_inertia, h)
        elif scheme == 1:
            return _rk4(q, w, tau, inertia, inv_inertia, h)
        return _adaptive(q, w, tau, inertia, inv_inertia, h)
    return any_scheme


def _is_euler(scheme):
    """Whether the scheme is the Euler scheme (a constant for a RotationScheme)."""
    raise NotImplementedError("compiled code only")


@overload(_is_euler)
def _is_euler_impl(scheme):
    if isinstance(scheme, RotationSchemeType):
        euler = scheme.code == 0
        return lambda scheme: euler
    if isinstance(scheme, types.Integer):
        return lambda scheme: scheme == 0
    return None


@njit(cache=True)
def integrate_rotation(q, omega, tau, inertia, inv_inertia, h, scheme):
    """Orientation and world angular velocity (tuples) after h [s] under constant world torque tau; scheme
    an Integrator number or a RotationScheme."""
    w = qrot_inv(q, omega)
    q1, w1 = _rotate(q, w, tau, inertia, inv_inertia, h, scheme)
    q1 = qnormalize(q1)
    return q1, qrot(q1, w1)


@njit(cache=True, forceinline=True)     # in line in the prediction loops: the call itself cost ~15 % of a prediction
def free_step_body(pos, quat, vel, omega, acc, tau, inertia, inv_inertia, inv_mass, h, scheme):
    """(pos, quat, vel, omega) tuples of one body after a free step of h [s].

    Inputs are tuples or arrays; acc [m/s²] is the body's linear acceleration (gravity + force / m),
    held constant over the step.
    """
    p, q, v, w = v3(pos), q4(quat), v3(vel), v3(omega)
    if inv_mass == 0.0:
        q1 = qnormalize(qmul(qfrom_rotvec((w[0] * h, w[1] * h, w[2] * h)), q))
        return (p[0] + v[0] * h, p[1] + v[1] * h, p[2] + v[2] * h), q1, v, w
    hh = 0.5 * h * h
    p1 = (p[0] + v[0] * h + hh * acc[0], p[1] + v[1] * h + hh * acc[1], p[2] + v[2] * h + hh * acc[2])
    v1 = (v[0] + acc[0] * h, v[1] + acc[1] * h, v[2] + acc[2] * h)
    t = v3(tau)
    axis = symmetry_axis(inertia) if not _is_euler(scheme) and t[0] == 0.0 and t[1] == 0.0 and t[2] == 0.0 else -1
    if axis >= 0:
        q1, w1 = _torque_free_symmetric(q, w, inertia, axis, h)
    else:
        q1, w1 = integrate_rotation(q, w, t, inertia, inv_inertia, h, scheme)
    return p1, q1, v1, w1


@njit(cache=True, forceinline=True)
def store_body(k, p, q, v, w, pos, quat, vel, omega):
    """Write one body's pose and velocities (tuples or arrays) into row k of the given arrays."""
    for i in range(3):
        pos[k, i] = p[i]
        vel[k, i] = v[i]
        omega[k, i] = w[i]
    for i in range(4):
        quat[k, i] = q[i]


@njit(cache=True)
def free_step_all(body_pos, body_quat, body_vel, body_omega, body_acc, body_tau, body_inertia,
                  body_inv_inertia, body_inv_mass, body_static, h, scheme):
    """Advance every non-static body by a free step, in place."""
    for k in range(body_pos.shape[0]):
        if body_static[k]:
            continue
        # rows as tuples, as every other caller passes them: one compiled free step for all
        p, q, v, w = free_step_body(v3(body_pos[k]), q4(body_quat[k]), v3(body_vel[k]), v3(body_omega[k]),
                                    v3(body_acc[k]), v3(body_tau[k]), v3(body_inertia[k]), v3(body_inv_inertia[k]),
                                    body_inv_mass[k], h, scheme)
        store_body(k, p, q, v, w, body_pos, body_quat, body_vel, body_omega)


@njit(cache=True)
def predict_body(k, body_pos, body_quat, body_vel, body_omega, body_acc, body_tau, body_inertia,
                 body_inv_inertia, body_inv_mass, body_static, h, scheme, pred_pos, pred_quat):
    """Pose of body k at t0+h if it moved freely from its current velocities.

    The joint and contact corrections predict with exactly the free step (called with tuples, like the
    step itself, so all share one compiled version): a converged correction then holds at t0+h.
    """
    if body_static[k]:
        p, q = v3(body_pos[k]), q4(body_quat[k])
    else:
        p, q, _, _ = free_step_body(v3(body_pos[k]), q4(body_quat[k]), v3(body_vel[k]), v3(body_omega[k]),
                                    v3(body_acc[k]), v3(body_tau[k]), v3(body_inertia[k]), v3(body_inv_inertia[k]),
                                    body_inv_mass[k], h, scheme)
    for i in range(3):
        pred_pos[k, i] = p[i]
    for i in range(4):
        pred_quat[k, i] = q[i]
