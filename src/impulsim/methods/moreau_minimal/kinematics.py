"""Tree kinematics and the equations of motion in minimal coordinates (Rempfler 2015, ch. 2.1-2.2).

One pass from the root outwards gives, for every body, its pose, velocity, the Jacobians of its centre-of-mass
velocity and angular velocity with respect to the free velocities u (J_S, J_R) and to the input velocities m
(H_S, H_R), and its pseudo-accelerations κ (the body accelerations for u̇ = 0 with the actual u, m, ṁ), all
in world coordinates (eq. 2.1, 2.7, 2.8). From these the mass matrix and the force vector follow from the
principle of virtual power (eq. 2.18/2.19):

    M = Σ_i  J_S,iᵀ m_i J_S,i + J_R,iᵀ Θ_i J_R,i
    h = Σ_i  J_S,iᵀ (F_i − m_i κ_S,i) + J_R,iᵀ (M_i − Θ_i κ_R,i − ω_i × Θ_i ω_i)

so that M u̇ = h + (contact forces) almost everywhere.
"""
import math
from typing import NamedTuple

import numpy as np

from impulsim.kernel import njit
from impulsim.math.linalg import cholesky_into

FIXED, REVOLUTE, PRISMATIC, FREE = 0, 1, 2, 5


class Work(NamedTuple):
    """Per-step buffers of the kinematic pass and the assembly (world frame throughout)."""
    R: np.ndarray       # body rotation, [n, 3, 3]
    x: np.ndarray       # centre of mass [m], [n, 3]
    w: np.ndarray       # angular velocity [rad/s], [n, 3]
    v: np.ndarray       # centre-of-mass velocity [m/s], [n, 3]
    JS: np.ndarray      # ∂v/∂u, [n, 3, nu]
    JR: np.ndarray      # ∂ω/∂u, [n, 3, nu]
    HS: np.ndarray      # ∂v/∂m, [n, 3, nk]
    HR: np.ndarray      # ∂ω/∂m, [n, 3, nk]
    kS: np.ndarray      # pseudo-acceleration of the centre [m/s²], [n, 3]
    kR: np.ndarray      # pseudo angular acceleration [rad/s²], [n, 3]
    axis: np.ndarray    # joint axis, [n, 3]
    point: np.ndarray   # joint point on the parent [m], [n, 3]
    M: np.ndarray       # mass matrix, [nu, nu]
    h: np.ndarray       # force vector, [nu]
    L: np.ndarray       # Cholesky factor of M, [nu, nu]
    force: np.ndarray   # applied force on each body [N], world, [n, 3] (user loads; gravity and drag added)
    torque: np.ndarray  # applied torque [N m], world, [n, 3]
    tmp: np.ndarray     # scratch [8, 3, 3]


def make_work(n, nu, nk) -> Work:
    """Zeroed buffers for a tree of n bodies, nu free velocities and nk inputs."""
    return Work(np.zeros((n, 3, 3)), np.zeros((n, 3)), np.zeros((n, 3)), np.zeros((n, 3)),
                np.zeros((n, 3, nu)), np.zeros((n, 3, nu)), np.zeros((n, 3, max(nk, 1))),
                np.zeros((n, 3, max(nk, 1))), np.zeros((n, 3)), np.zeros((n, 3)), np.zeros((n, 3)),
                np.zeros((n, 3)), np.zeros((nu, nu)), np.zeros(nu), np.zeros((nu, nu)), np.zeros((n, 3)),
                np.zeros((n, 3)), np.zeros((8, 3, 3)))


@njit(cache=True)
def quat_to_R(qv, o, R):
    """Rotation matrix of the quaternion qv[o:o+4] (w, x, y, z), normalised on the fly."""
    w, x, y, z = qv[o], qv[o + 1], qv[o + 2], qv[o + 3]
    s = 2.0 / (w * w + x * x + y * y + z * z)
    R[0, 0] = 1 - s * (y * y + z * z); R[0, 1] = s * (x * y - w * z); R[0, 2] = s * (x * z + w * y)
    R[1, 0] = s * (x * y + w * z); R[1, 1] = 1 - s * (x * x + z * z); R[1, 2] = s * (y * z - w * x)
    R[2, 0] = s * (x * z - w * y); R[2, 1] = s * (y * z + w * x); R[2, 2] = 1 - s * (x * x + y * y)


@njit(cache=True)
def cross_into(a, b, out):
    """out = a × b (3-vectors)."""
    out[0] = a[1] * b[2] - a[2] * b[1]
    out[1] = a[2] * b[0] - a[0] * b[2]
    out[2] = a[0] * b[1] - a[1] * b[0]


@njit(cache=True)
def _matmul3(A, B, out):
    for r in range(3):
        for c in range(3):
            out[r, c] = A[r, 0] * B[0, c] + A[r, 1] * B[1, c] + A[r, 2] * B[2, c]


@njit(cache=True)
def _joint_value(T, i, q, k, u, m, mdot):
    """(coordinate, rate, input acceleration) of joint i: from q, u for a free coordinate, from k, m, ṁ for
    an actuated one (u̇ = 0 in the pseudo-acceleration, so a free coordinate contributes no θ̈)."""
    a = T.joint_input[i]
    if a >= 0:
        return k[a], m[a], mdot[a]
    if T.joint_q[i] >= 0:
        return q[T.joint_q[i]], u[T.joint_u[i]], 0.0
    return 0.0, 0.0, 0.0


@njit(cache=True)
def _root(T, Wk, i, q, u):
    """A FREE joint: pose from q, velocity from u, unit Jacobian columns, zero pseudo-acceleration."""
    q0, u0 = T.joint_q[i], T.joint_u[i]
    quat_to_R(q, q0 + 3, Wk.R[i])
    for r in range(3):
        Wk.x[i, r] = q[q0 + r]
        Wk.v[i, r] = u[u0 + r]
        Wk.w[i, r] = u[u0 + 3 + r]
        Wk.kS[i, r] = 0.0
        Wk.kR[i, r] = 0.0
        Wk.point[i, r] = q[q0 + r]
        Wk.axis[i, r] = 0.0
        Wk.JS[i, r, :] = 0.0
        Wk.JR[i, r, :] = 0.0
        Wk.HS[i, r, :] = 0.0
        Wk.HR[i, r, :] = 0.0
        Wk.JS[i, r, u0 + r] = 1.0
        Wk.JR[i, r, u0 + 3 + r] = 1.0


@njit(cache=True)
def _parent_state(T, Wk, i, p, Rp, xp, wp, vp, kRp, kSp):
    """Copy the parent's pose, velocities and pseudo-accelerations (or the fixed frame's) into locals
    (copies instead of array views: views cost reference counting in this hot loop)."""
    for r in range(3):
        for c in range(3):
            Rp[r, c] = Wk.R[p, r, c] if p >= 0 else T.root_R[i, r, c]
        xp[r] = Wk.x[p, r] if p >= 0 else T.root_x[i, r]
        wp[r] = Wk.w[p, r] if p >= 0 else 0.0
        vp[r] = Wk.v[p, r] if p >= 0 else 0.0
        kRp[r] = Wk.kR[p, r] if p >= 0 else 0.0
        kSp[r] = Wk.kS[p, r] if p >= 0 else 0.0


@njit(cache=True)
def kinematics(T, q, k, u, m, mdot, Wk):
    """Poses, velocities, Jacobians (J, H) and pseudo-accelerations κ of all bodies (eq. 2.1, 2.7, 2.8)."""
    n = T.joint_kind.shape[0]
    A, Rj, Rc, Rp = Wk.tmp[0], Wk.tmp[1], Wk.tmp[2], Wk.tmp[5]
    r1, r2, c1, c2, dx, o = np.empty(3), np.empty(3), np.empty(3), np.empty(3), np.empty(3), np.empty(3)
    xp, wp, vp, kRp, kSp = np.empty(3), np.empty(3), np.empty(3), np.empty(3), np.empty(3)
    a, w, kR, kS = np.empty(3), np.empty(3), np.empty(3), np.empty(3)
    for i in range(n):
        kind = T.joint_kind[i]
        if kind == FREE:
            _root(T, Wk, i, q, u)
            continue
        p = T.joint_parent[i]
        _parent_state(T, Wk, i, p, Rp, xp, wp, vp, kRp, kSp)
        th, thd, thdd = _joint_value(T, i, q, k, u, m, mdot)
        _matmul3(Rp, T.frame_p[i], A)                  # parent joint frame, world
        for r in range(3):
            a[r] = A[r, 0]
            o[r] = xp[r] + Rp[r, 0] * T.origin_p[i, 0] + Rp[r, 1] * T.origin_p[i, 1] + Rp[r, 2] * T.origin_p[i, 2]
            Wk.axis[i, r] = a[r]
            Wk.point[i, r] = o[r]
        slide = th if kind == PRISMATIC else 0.0
        if kind == REVOLUTE:
            c, s = math.cos(th), math.sin(th)
            for r in range(3):
                Rj[r, 0] = A[r, 0]
                Rj[r, 1] = c * A[r, 1] + s * A[r, 2]
                Rj[r, 2] = -s * A[r, 1] + c * A[r, 2]
        else:
            for r in range(3):
                for cc in range(3):
                    Rj[r, cc] = A[r, cc]
        # R_c = R_j Q_cᵀ
        for r in range(3):
            for cc in range(3):
                Rc[r, cc] = Rj[r, 0] * T.frame_c[i, cc, 0] + Rj[r, 1] * T.frame_c[i, cc, 1] + \
                    Rj[r, 2] * T.frame_c[i, cc, 2]
                Wk.R[i, r, cc] = Rc[r, cc]
        for r in range(3):
            o[r] += a[r] * slide
        for r in range(3):
            xc = o[r] - (Rc[r, 0] * T.origin_c[i, 0] + Rc[r, 1] * T.origin_c[i, 1] + Rc[r, 2] * T.origin_c[i, 2])
            Wk.x[i, r] = xc
            r1[r] = o[r] - xp[r]
            r2[r] = xc - o[r]
            dx[r] = xc - xp[r]
        rot = 1.0 if kind == REVOLUTE else 0.0
        lin = 1.0 if kind == PRISMATIC else 0.0
        for r in range(3):
            w[r] = wp[r] + rot * a[r] * thd
        # velocity: v_c = v_p + ω_p × r1 + ṡ a + ω_c × r2   (eq. 2.7)
        cross_into(wp, r1, c1)
        cross_into(w, r2, c2)
        for r in range(3):
            Wk.v[i, r] = vp[r] + c1[r] + c2[r] + lin * a[r] * thd
            Wk.w[i, r] = w[r]
        # pseudo-acceleration (eq. 2.8 with u̇ = 0): κ_R = κ_Rp + ω_p × (θ̇ a) + θ̈ a
        cross_into(wp, a, c1)
        for r in range(3):
            kR[r] = kRp[r] + rot * (c1[r] * thd + a[r] * thdd)
        cross_into(kRp, r1, c2)
        for r in range(3):
            kS[r] = kSp[r] + c2[r] + lin * (2.0 * c1[r] * thd + a[r] * thdd)
        cross_into(wp, r1, c1)
        cross_into(wp, c1, c2)
        for r in range(3):
            kS[r] += c2[r]
        cross_into(kR, r2, c1)
        for r in range(3):
            kS[r] += c1[r]
        cross_into(w, r2, c1)
        cross_into(w, c1, c2)
        for r in range(3):
            kS[r] += c2[r]
            Wk.kS[i, r] = kS[r]
            Wk.kR[i, r] = kR[r]
        _jacobian_columns(T, Wk, i, p, a, r2, dx, rot, lin)


@njit(cache=True)
def _propagate(JSc, JRc, JSp, JRp, i, p, dx):
    """Columns of child i from parent p: J_R,i = J_R,p, J_S,i = J_S,p + J_R,p × (x_i − x_p)."""
    for col in range(JSc.shape[2]):
        w0, w1, w2 = JRp[p, 0, col], JRp[p, 1, col], JRp[p, 2, col]
        JRc[i, 0, col], JRc[i, 1, col], JRc[i, 2, col] = w0, w1, w2
        JSc[i, 0, col] = JSp[p, 0, col] + w1 * dx[2] - w2 * dx[1]
        JSc[i, 1, col] = JSp[p, 1, col] + w2 * dx[0] - w0 * dx[2]
        JSc[i, 2, col] = JSp[p, 2, col] + w0 * dx[1] - w1 * dx[0]


@njit(cache=True)
def _jacobian_columns(T, Wk, i, p, a, r2, dx, rot, lin):
    """J and H of body i from its parent's plus the column of its own joint (eq. 2.7 per unit rate)."""
    if p >= 0:
        _propagate(Wk.JS, Wk.JR, Wk.JS, Wk.JR, i, p, dx)
        _propagate(Wk.HS, Wk.HR, Wk.HS, Wk.HR, i, p, dx)
    else:
        Wk.JS[i, :, :] = 0.0
        Wk.JR[i, :, :] = 0.0
        Wk.HS[i, :, :] = 0.0
        Wk.HR[i, :, :] = 0.0
    if T.joint_kind[i] == FIXED:
        return
    ai = T.joint_input[i]
    S = Wk.HS if ai >= 0 else Wk.JS
    Rr = Wk.HR if ai >= 0 else Wk.JR
    col = ai if ai >= 0 else T.joint_u[i]
    Rr[i, 0, col] += rot * a[0]
    Rr[i, 1, col] += rot * a[1]
    Rr[i, 2, col] += rot * a[2]
    S[i, 0, col] += rot * (a[1] * r2[2] - a[2] * r2[1]) + lin * a[0]
    S[i, 1, col] += rot * (a[2] * r2[0] - a[0] * r2[2]) + lin * a[1]
    S[i, 2, col] += rot * (a[0] * r2[1] - a[1] * r2[0]) + lin * a[2]


@njit(cache=True)
def spring_moment(kind, par, th, thd):
    """Generalized force [N m or N] of a joint's force element at coordinate th and rate thd.

    LINEAR: −k1 (θ − θ0) − d θ̇. DOUBLE (preloaded double spring, Rempfler eq. 4.3 in general form): an odd
    piecewise-linear moment, stiffness k1 inside the knee |θ − θ0| ≤ φ_k and k2 beyond, plus −d θ̇."""
    if kind == 0:
        return -par[3] * thd
    e = th - par[4]
    if kind == 1:
        return -par[0] * e - par[3] * thd
    ae = abs(e)
    if ae <= par[2]:
        mom = par[0] * e
    else:
        mom = math.copysign(par[0] * par[2] + par[1] * (ae - par[2]), e)
    return -mom - par[3] * thd


@njit(cache=True)
def assemble(T, q, u, Wk):
    """Mass matrix M and force vector h at the state of the last :func:`kinematics` (eq. 2.18/2.19):
    gravity, quadratic drag, applied loads in ``Wk.force``/``Wk.torque``, joint springs and dampers."""
    n, nu = T.joint_kind.shape[0], u.shape[0]
    M, h = Wk.M, Wk.h
    M[:, :] = 0.0
    h[:] = 0.0
    Th, TJ = Wk.tmp[3], np.empty((3, nu))
    f, tq, Iw, c1 = np.empty(3), np.empty(3), np.empty(3), np.empty(3)
    for i in range(n):
        R = Wk.R[i]
        # Θ_world = R Θ Rᵀ
        _matmul3(R, T.inertia[i], Wk.tmp[4])
        for r in range(3):
            for c in range(3):
                Th[r, c] = Wk.tmp[4, r, 0] * R[c, 0] + Wk.tmp[4, r, 1] * R[c, 1] + Wk.tmp[4, r, 2] * R[c, 2]
        mi = T.mass[i]
        vv = Wk.v[i]
        speed = math.sqrt(vv[0] * vv[0] + vv[1] * vv[1] + vv[2] * vv[2])
        w = Wk.w[i]
        for r in range(3):
            Iw[r] = Th[r, 0] * w[0] + Th[r, 1] * w[1] + Th[r, 2] * w[2]
        cross_into(w, Iw, c1)
        for r in range(3):
            f[r] = mi * T.gravity[r] - T.drag[i] * speed * vv[r] + Wk.force[i, r] - mi * Wk.kS[i, r]
            tq[r] = Wk.torque[i, r] - c1[r] - (Th[r, 0] * Wk.kR[i, 0] + Th[r, 1] * Wk.kR[i, 1] +
                                               Th[r, 2] * Wk.kR[i, 2])
        JS, JR = Wk.JS[i], Wk.JR[i]
        for c in range(nu):
            for r in range(3):
                TJ[r, c] = Th[r, 0] * JR[0, c] + Th[r, 1] * JR[1, c] + Th[r, 2] * JR[2, c]
        for a in range(nu):
            if JS[0, a] == 0.0 and JS[1, a] == 0.0 and JS[2, a] == 0.0 and JR[0, a] == 0.0 and \
                    JR[1, a] == 0.0 and JR[2, a] == 0.0:
                continue            # a freedom that does not move this body
            h[a] += JS[0, a] * f[0] + JS[1, a] * f[1] + JS[2, a] * f[2] + \
                JR[0, a] * tq[0] + JR[1, a] * tq[1] + JR[2, a] * tq[2]
            for b in range(a, nu):
                M[a, b] += mi * (JS[0, a] * JS[0, b] + JS[1, a] * JS[1, b] + JS[2, a] * JS[2, b]) + \
                    JR[0, a] * TJ[0, b] + JR[1, a] * TJ[1, b] + JR[2, a] * TJ[2, b]
    for a in range(nu):
        for b in range(a):
            M[a, b] = M[b, a]
    for i in range(n):
        col = T.joint_u[i]
        if col >= 0 and T.joint_kind[i] != FREE:
            h[col] += spring_moment(T.spring_kind[i], T.spring_par[i], q[T.joint_q[i]], u[col])


@njit(cache=True)
def cholesky(M, L):
    """L Lᵀ = M (M symmetric positive definite); returns False if M is not."""
    return cholesky_into(M, M.shape[0], L)


@njit(cache=True)
def forward_solve(L, b, out):
    """out = L⁻¹ b (L lower triangular)."""
    n = L.shape[0]
    for i in range(n):
        s = b[i]
        for k in range(i):
            s -= L[i, k] * out[k]
        out[i] = s / L[i, i]


@njit(cache=True)
def cho_solve(L, b, out):
    """out = M⁻¹ b with M = L Lᵀ."""
    n = L.shape[0]
    for i in range(n):
        s = b[i]
        for k in range(i):
            s -= L[i, k] * out[k]
        out[i] = s / L[i, i]
    for i in range(n - 1, -1, -1):
        s = out[i]
        for k in range(i + 1, n):
            s -= L[k, i] * out[k]
        out[i] = s / L[i, i]


@njit(cache=True)
def position_rates_half(T, q, u, half_h, out):
    """out = q + (Δt/2) B(q) u: 1-DoF coordinates advance by their rate, a free joint's centre by v and
    its quaternion by ½ (0, ω) ⊗ q (ω world), renormalised (eq. 2.35, 2.44)."""
    out[:] = q
    for i in range(T.joint_kind.shape[0]):
        q0, u0 = T.joint_q[i], T.joint_u[i]
        if q0 < 0:
            continue
        if T.joint_kind[i] == FREE:
            for r in range(3):
                out[q0 + r] = q[q0 + r] + half_h * u[u0 + r]
            wx, wy, wz = u[u0 + 3], u[u0 + 4], u[u0 + 5]
            qw, qx, qy, qz = q[q0 + 3], q[q0 + 4], q[q0 + 5], q[q0 + 6]
            f = 0.5 * half_h
            nw = qw + f * (-wx * qx - wy * qy - wz * qz)
            nx = qx + f * (wx * qw + wy * qz - wz * qy)
            ny = qy + f * (wy * qw + wz * qx - wx * qz)
            nz = qz + f * (wz * qw + wx * qy - wy * qx)
            s = 1.0 / math.sqrt(nw * nw + nx * nx + ny * ny + nz * nz)
            out[q0 + 3], out[q0 + 4], out[q0 + 5], out[q0 + 6] = nw * s, nx * s, ny * s, nz * s
        else:
            out[q0] = q[q0] + half_h * u[u0]


@njit(cache=True)
def spring_energy(kind, par, th):
    """Potential energy [J] of a joint spring at coordinate th (the integral of −spring_moment at rest)."""
    if kind == 0:
        return 0.0
    e = abs(th - par[4])
    if kind == 1 or e <= par[2]:
        return 0.5 * par[0] * e * e
    k = par[2]
    return 0.5 * par[0] * k * k + par[0] * k * (e - k) + 0.5 * par[1] * (e - k) * (e - k)


@njit(cache=True)
def energy(T, q, Wk):
    """(kinetic, gravitational −Σ m g·x, spring) energies [J] of the bodies at the last :func:`kinematics`
    (kinetic energy includes the motion of actuated joints)."""
    kin, pot = 0.0, 0.0
    Iw = np.empty(3)
    for i in range(T.joint_kind.shape[0]):
        R, w, v = Wk.R[i], Wk.w[i], Wk.v[i]
        wb = np.empty(3)
        for r in range(3):
            wb[r] = R[0, r] * w[0] + R[1, r] * w[1] + R[2, r] * w[2]     # ω in the body frame
        for r in range(3):
            Iw[r] = T.inertia[i, r, 0] * wb[0] + T.inertia[i, r, 1] * wb[1] + T.inertia[i, r, 2] * wb[2]
        kin += 0.5 * T.mass[i] * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) + \
            0.5 * (wb[0] * Iw[0] + wb[1] * Iw[1] + wb[2] * Iw[2])
        pot -= T.mass[i] * (T.gravity[0] * Wk.x[i, 0] + T.gravity[1] * Wk.x[i, 1] + T.gravity[2] * Wk.x[i, 2])
    spring = 0.0
    for i in range(T.joint_kind.shape[0]):
        if T.joint_q[i] >= 0 and T.joint_kind[i] != FREE:
            spring += spring_energy(T.spring_kind[i], T.spring_par[i], q[T.joint_q[i]])
    return kin, pot, spring
