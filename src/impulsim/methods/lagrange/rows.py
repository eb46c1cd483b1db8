"""Constraint rows of every primitive: Jacobian blocks J_a, J_b, velocity-product term c, value C, rate Ċ.

Each scalar row i satisfies  C̈_i = J_a,i v̇_a + J_b,i v̇_b + c_i  (holonomic rows) or
Ċ_i = J_a,i v̇_a + J_b,i v̇_b + c_i (velocity rows), with the generalized velocity of a body
v = (u, ω): centre-of-mass velocity and angular velocity, both in the world frame (Wagner eq. 3.7, 5.3,
5.6). Every J block is a 6-vector (3 linear, 3 angular). All quantities are in the world frame.

Row definitions (a, b the joint points on A and B, r_a = a − s_a, r_b = b − s_b, du = ḃ − ȧ,
dq = ω_b × (ω_b × r_b) − ω_a × (ω_a × r_a), the part of b̈ − ä that does not depend on v̇):

* BALL: C = e_k · (b − a), k = x, y, z: J_a = (−e, −r_a × e), J_b = (e, r_b × e), c = e · dq.
* DISTANCE: C = |d| − L, d = b − a, n = d/|d|: J = ball rows along n, c = n·dq + (|du|² − (n·du)²)/|d|.
* LINE / PLANE: C = t · (b − a₀) for directions t = R_a t' fixed in A (two ⟂ the line, or the plane
  normal): J_a = (−t, t × (b − s_a)), J_b = (t, r_b × t), c = t·dq + 2 (ω_a × t)·du + (ω_a × (ω_a × t))·(b − a₀).
* ROTATION_LOCK: e = q_b ⊗ q_rel⁻¹ ⊗ q_a⁻¹ = (w, u) with w ≥ 0, C = 2u:
  Ċ = w Δω + (ω_a + ω_b) × u, J_a,ω = −wE − u*, J_b,ω = wE − u*, c = −½ (u·Δω) Δω + ½ (ω_a + ω_b) × Ċ.
* DIRECTION: x_b = R_b b', t_k = R_a t_k' ⟂ A's axis: C_k = t_k · x_b, J_a,ω = t_k × x_b = −J_b,ω,
  c_k = ((ω_a × t_k) × x_b + t_k × (ω_b × x_b)) · (ω_a − ω_b).
* DOUBLE_ROTATION: C = (cos θ₀ − x_a·x_b)/sin θ₀ (≈ θ − θ₀ [rad]): J_a,ω = −(x_a × x_b)/sin θ₀ = −J_b,ω,
  c = −((ω_a × x_a) × x_b + x_a × (ω_b × x_b)) · (ω_a − ω_b)/sin θ₀.
* VEL_POINT: C = du − target (velocity rows): ball's J, c = e·dq.   VEL_ANGULAR: C = Δω − target, c = 0.
* POINT_FUNCTION: C = b − f(t): J_b as ball, c = e·(ω_b × (ω_b × r_b) − f̈), Ċ = e·(ḃ − ḟ).
* VELOCITY_FUNCTION: C = ḃ − f(t) (velocity rows): J_b as ball, c = e·(ω_b × (ω_b × r_b) − ḟ).
"""
import math

from impulsim.kernel import njit
from impulsim.math.vec import v3, q4, add, sub, scale, dot, cross, qmul, qconj, qrot
from impulsim.methods.lagrange.kinds import (DISTANCE, LINE, PLANE, ROTATION_LOCK, DIRECTION,
                                             DOUBLE_ROTATION, VEL_POINT, VEL_ANGULAR, POINT_FUNCTION,
                                             VELOCITY_FUNCTION)

_E = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))
_Z = (0.0, 0.0, 0.0)


@njit(cache=True, forceinline=True)
def _put(r, ja_lin, ja_ang, jb_lin, jb_ang, c, C, Cd, row_Ja, row_Jb, row_c, row_C, row_Cd):
    for i in range(3):
        row_Ja[r, i] = ja_lin[i]
        row_Ja[r, 3 + i] = ja_ang[i]
        row_Jb[r, i] = jb_lin[i]
        row_Jb[r, 3 + i] = jb_ang[i]
    row_c[r] = c
    row_C[r] = C
    row_Cd[r] = Cd


@njit(cache=True, forceinline=True)
def _point_velocity(vel, omega, r):
    return add(vel, cross(omega, r))


@njit(cache=True, forceinline=True)
def _centripetal(omega, r):
    """ω × (ω × r): the acceleration of a body point that does not depend on v̇ [m/s²]."""
    return cross(omega, cross(omega, r))


@njit(cache=True)
def _point_rows(r0, n_dirs, dirs, ra, rb, d, du, dq, velocity_level, row_Ja, row_Jb, row_c, row_C,
                row_Cd):
    """Rows along fixed world directions: C = e·d (or e·du for velocity rows), c = e·dq."""
    for k in range(n_dirs):
        e = dirs[k]
        C = dot(e, du) if velocity_level else dot(e, d)
        _put(r0 + k, scale(e, -1.0), scale(cross(ra, e), -1.0), e, cross(rb, e), dot(e, dq), C, dot(e, du),
             row_Ja, row_Jb, row_c, row_C, row_Cd)


@njit(cache=True, forceinline=True)
def _ball_rows(r0, ra, rb, d, du, dq, row_Ja, row_Jb, row_c, row_C, row_Cd):
    """BALL rows along e_k, written out: :func:`_point_rows` with the products by the 0s and 1s of e_k
    left out (r × e_k has 0, r_{k+2}, −r_{k+1} at k, k+1, k+2 mod 3)."""
    for k in range(3):
        r = r0 + k
        k1, k2 = (k + 1) % 3, (k + 2) % 3
        Ja, Jb = row_Ja[r], row_Jb[r]
        for i in range(6):
            Ja[i] = 0.0
            Jb[i] = 0.0
        Ja[k] = -1.0
        Jb[k] = 1.0
        Ja[3 + k1] = -ra[k2]
        Ja[3 + k2] = ra[k1]
        Jb[3 + k1] = rb[k2]
        Jb[3 + k2] = -rb[k1]
        row_c[r] = dq[k]
        row_C[r] = d[k]
        row_Cd[r] = du[k]


@njit(cache=True)
def _body_fixed_rows(r0, n_dirs, t_dirs, wa, sa, rb, b, a0, du, dq, row_Ja, row_Jb, row_c, row_C, row_Cd):
    """LINE / PLANE rows C = t·(b − a₀) along directions t fixed in A (see module docstring)."""
    d = sub(b, a0)
    lever_a = sub(b, sa)
    for k in range(n_dirs):
        t = t_dirs[k]
        wt = cross(wa, t)
        c = dot(t, dq) + 2.0 * dot(wt, du) + dot(cross(wa, wt), d)
        Cd = dot(t, du) + dot(wt, d)
        _put(r0 + k, scale(t, -1.0), cross(t, lever_a), t, cross(rb, t), c, dot(t, d), Cd,
             row_Ja, row_Jb, row_c, row_C, row_Cd)


@njit(cache=True)
def _rotation_lock_rows(r0, qa, qb, qrel, wa, wb, row_Ja, row_Jb, row_c, row_C, row_Cd):
    e = qmul(qmul(qb, qconj(qrel)), qconj(qa))
    if e[0] < 0.0:
        e = (-e[0], -e[1], -e[2], -e[3])
    w = e[0]
    u = (e[1], e[2], e[3])
    dw = sub(wb, wa)
    sw = add(wa, wb)
    Cd = add(scale(dw, w), cross(sw, u))
    cvec = add(scale(dw, -0.5 * dot(u, dw)), scale(cross(sw, Cd), 0.5))
    for k in range(3):
        ek = _E[k]
        uk = cross(ek, u)   # row k of u*, since (u × x)_k = (e_k × u) · x
        _put(r0 + k, _Z, (-w * ek[0] - uk[0], -w * ek[1] - uk[1], -w * ek[2] - uk[2]),
             _Z, (w * ek[0] - uk[0], w * ek[1] - uk[1], w * ek[2] - uk[2]),
             cvec[k], 2.0 * u[k], Cd[k], row_Ja, row_Jb, row_c, row_C, row_Cd)


@njit(cache=True)
def _direction_rows(r0, t_dirs, xb, wa, wb, row_Ja, row_Jb, row_c, row_C, row_Cd):
    dw = sub(wa, wb)
    for k in range(2):
        t = t_dirs[k]
        g = cross(t, xb)
        gdot = add(cross(cross(wa, t), xb), cross(t, cross(wb, xb)))
        _put(r0 + k, _Z, g, _Z, scale(g, -1.0), dot(gdot, dw), dot(t, xb), dot(g, dw),
             row_Ja, row_Jb, row_c, row_C, row_Cd)


@njit(cache=True)
def _double_rotation_row(r0, xa, xb, cos0, inv_sin0, wa, wb, row_Ja, row_Jb, row_c, row_C, row_Cd):
    dw = sub(wa, wb)
    g = scale(cross(xa, xb), -inv_sin0)
    gdot = scale(add(cross(cross(wa, xa), xb), cross(xa, cross(wb, xb))), -inv_sin0)
    _put(r0, _Z, g, _Z, scale(g, -1.0), dot(gdot, dw), (cos0 - dot(xa, xb)) * inv_sin0, dot(g, dw),
         row_Ja, row_Jb, row_c, row_C, row_Cd)


@njit(cache=True)
def _angular_velocity_rows(r0, wa, wb, target, row_Ja, row_Jb, row_c, row_C, row_Cd):
    for k in range(3):
        e = _E[k]
        _put(r0 + k, _Z, scale(e, -1.0), _Z, e, 0.0, wb[k] - wa[k] - target[k], 0.0,
             row_Ja, row_Jb, row_c, row_C, row_Cd)


@njit(cache=True)
def _function_rows(r0, kind, rb, b, ub, wb, f, fd, fdd, row_Ja, row_Jb, row_c, row_C, row_Cd):
    """POINT_FUNCTION (C = b − f) and VELOCITY_FUNCTION (C = ḃ − f) rows; body A carries no J."""
    cen = _centripetal(wb, rb)
    for k in range(3):
        e = _E[k]
        if kind == POINT_FUNCTION:
            c, C, Cd = cen[k] - fdd[k], b[k] - f[k], ub[k] - fd[k]
        else:
            c, C, Cd = cen[k] - fd[k], ub[k] - f[k], 0.0
        _put(r0 + k, _Z, _Z, e, cross(rb, e), c, C, Cd, row_Ja, row_Jb, row_c, row_C, row_Cd)


@njit(cache=True, _nrt=False)     # allocation-free; no reference counts (see baraff.KERNEL)
def compute_rows(table, motion,
                 # outputs
                 rows):
    """Fill the ``rows`` J_a, J_b [n_rows, 6], c, C, Ċ [n_rows] of every constraint block of ``table`` at
    the bodies' ``motion`` (groups of :mod:`.groups`)."""
    (tab_kind, tab_a, tab_b, tab_anchor_a, tab_anchor_b, tab_axis_a, tab_axis_b, tab_perp, tab_target, tab_qrel,
     tab_vel_target, tab_func, tab_row_start, _, _) = table
    body_pos, body_quat, body_vel, body_omega = motion
    row_Ja, row_Jb, row_c, row_C, row_Cd = rows
    for i in range(tab_kind.shape[0]):
        kind = tab_kind[i]
        A = tab_a[i]
        B = tab_b[i]
        r0 = tab_row_start[i]
        qa, qb = q4(body_quat[A]), q4(body_quat[B])
        sa, sb = v3(body_pos[A]), v3(body_pos[B])
        wa, wb = v3(body_omega[A]), v3(body_omega[B])
        if kind == ROTATION_LOCK:
            _rotation_lock_rows(r0, qa, qb, q4(tab_qrel[i]), wa, wb, row_Ja, row_Jb, row_c, row_C, row_Cd)
            continue
        if kind == DIRECTION:
            t_dirs = (qrot(qa, v3(tab_perp[i, 0])), qrot(qa, v3(tab_perp[i, 1])))
            _direction_rows(r0, t_dirs, qrot(qb, v3(tab_axis_b[i])), wa, wb, row_Ja, row_Jb, row_c, row_C,
                            row_Cd)
            continue
        if kind == DOUBLE_ROTATION:
            theta0 = tab_target[i]
            _double_rotation_row(r0, qrot(qa, v3(tab_axis_a[i])), qrot(qb, v3(tab_axis_b[i])), math.cos(theta0),
                                 1.0 / math.sin(theta0), wa, wb, row_Ja, row_Jb, row_c, row_C, row_Cd)
            continue
        if kind == VEL_ANGULAR:
            _angular_velocity_rows(r0, wa, wb, v3(tab_vel_target[i]), row_Ja, row_Jb, row_c, row_C, row_Cd)
            continue
        # point constraints
        ra = qrot(qa, v3(tab_anchor_a[i]))
        rb = qrot(qb, v3(tab_anchor_b[i]))
        a = add(sa, ra)
        b = add(sb, rb)
        ub = _point_velocity(v3(body_vel[B]), wb, rb)
        if kind == POINT_FUNCTION or kind == VELOCITY_FUNCTION:
            _function_rows(r0, kind, rb, b, ub, wb, v3(tab_func[i, 0]), v3(tab_func[i, 1]), v3(tab_func[i, 2]),
                           row_Ja, row_Jb, row_c, row_C, row_Cd)
            continue
        du = sub(ub, _point_velocity(v3(body_vel[A]), wa, ra))
        dq = sub(_centripetal(wb, rb), _centripetal(wa, ra))
        if kind == LINE:
            t_dirs = (qrot(qa, v3(tab_perp[i, 0])), qrot(qa, v3(tab_perp[i, 1])))
            _body_fixed_rows(r0, 2, t_dirs, wa, sa, rb, b, a, du, dq, row_Ja, row_Jb, row_c, row_C, row_Cd)
        elif kind == PLANE:
            n = qrot(qa, v3(tab_axis_a[i]))
            _body_fixed_rows(r0, 1, (n, n), wa, sa, rb, b, a, du, dq, row_Ja, row_Jb, row_c, row_C, row_Cd)
        elif kind == DISTANCE:
            d = sub(b, a)
            length = math.sqrt(dot(d, d))
            n = scale(d, 1.0 / length) if length > 1e-15 else (1.0, 0.0, 0.0)
            _point_rows(r0, 1, (n, n, n), ra, rb, d, du, dq, False, row_Ja, row_Jb, row_c, row_C, row_Cd)
            if length > 1e-15:
                ndu = dot(n, du)
                row_c[r0] += (dot(du, du) - ndu * ndu) / length
            row_C[r0] = length - tab_target[i]
        elif kind == VEL_POINT:
            du = sub(du, v3(tab_vel_target[i]))
            _point_rows(r0, 3, _E, ra, rb, sub(b, a), du, dq, True, row_Ja, row_Jb, row_c, row_C, row_Cd)
        else:  # BALL
            _ball_rows(r0, ra, rb, sub(b, a), du, dq, row_Ja, row_Jb, row_c, row_C, row_Cd)
