"""Joint limits in the Lagrange method: impulses at the end of a step, as Wagner treats collisions.

After each integrator step, every stop whose coordinate lies at or beyond its bound gets one unilateral
row w (the coordinate's rate away from the stop, world (v, ω) form). If the coordinate approaches the stop,
an impulse along w and the joints' rows J makes its rate −e times what it was while every joint row's
velocity stays as it was (Newton's law; [J; w] M⁻¹ [J; w]ᵀ ν = [0; −(1 + e) w·v]); then displacements of
the same form (Gauss–Newton on [C; gap], up to POSITION_STEPS) move every coordinate beyond a bound back
onto it and the joints onto their constraints (post-stabilization in the steps where a stop acts). Several stops are solved together by an
active set: a stop whose impulse would pull is dropped and the system solved again (resting contact as a
complementarity problem). Dense least squares over the bodies of the model: for the small systems that
carry limits.
"""
from __future__ import annotations

import numpy as np

from impulsim.dynamics.coordinates import coordinate_value
from impulsim.math.quaternion import quat_rotate
from impulsim.model.kinds import Coordinate


def _limit_row(model, lim, side, s, n):
    """World row w [6 n] of the stop: w·v is the coordinate's rate away from it [rad/s or m/s]."""
    j = int(model.limit_joint[lim])
    a, b = int(model.joint_body_a[j]), int(model.joint_body_b[j])
    x = side * quat_rotate(s.body_quat[a], model.joint_axis_a[j])
    w = np.zeros(6 * n)
    if int(model.limit_coord[lim]) == Coordinate.ANGLE:
        w[6 * a + 3:6 * a + 6] -= x
        w[6 * b + 3:6 * b + 6] += x
    else:
        pb = s.body_pos[b] + quat_rotate(s.body_quat[b], model.joint_anchor_b[j])
        w[6 * a:6 * a + 3] -= x
        w[6 * a + 3:6 * a + 6] -= np.cross(pb - s.body_pos[a], x)
        w[6 * b:6 * b + 3] += x
        w[6 * b + 3:6 * b + 6] += np.cross(pb - s.body_pos[b], x)
    return w


def _coordinate(model, lim, s):
    j, coord = int(model.limit_joint[lim]), int(model.limit_coord[lim])
    return coordinate_value(coord, False, j, model.joint_body_a, model.joint_body_b, model.joint_anchor_a,
                            model.joint_anchor_b, model.joint_axis_a, model.joint_ref_a, model.joint_ref_b,
                            s.body_pos, s.body_quat, s.body_vel, s.body_omega)


def _gap(model, lim, side, s):
    bound = model.limit_lower[lim] if side > 0 else model.limit_upper[lim]
    return side * (_coordinate(model, lim, s) - bound)


def reached_stops(model, s):
    """[(limit, side, gap)] of the stops at or beyond their bounds (gap ≤ 0 [rad or m])."""
    out = []
    for lim in range(model.n_limits):
        q = _coordinate(model, lim, s)
        for side, bound in ((1.0, model.limit_lower[lim]), (-1.0, model.limit_upper[lim])):
            if np.isfinite(bound) and side * (q - bound) <= 0.0:
                out.append((lim, side, side * (q - bound)))
    return out


def _inverse_mass(model, s, iw_inv):
    n = model.n_bodies
    minv = np.zeros((6 * n, 6 * n))
    for k in range(n):
        minv[6 * k:6 * k + 3, 6 * k:6 * k + 3] = model.body_inv_mass[k] * np.eye(3)
        minv[6 * k + 3:6 * k + 6, 6 * k + 3:6 * k + 6] = iw_inv[k]
    return minv


def _joint_matrix(table, ev, n, holonomic_only):
    rows = np.nonzero(table.row_velocity == 0)[0] if holonomic_only else np.arange(table.n_rows)
    J = np.zeros((len(rows), 6 * n))
    for r, i in enumerate(rows):
        a, b = int(table.row_a[i]), int(table.row_b[i])
        J[r, 6 * a:6 * a + 6] += ev.row_Ja[i]
        J[r, 6 * b:6 * b + 6] += ev.row_Jb[i]
    return J


def _solve_active(J, W, minv, target, unilateral=True, joint_target=None):
    """ν_w ≥ 0 for the stops' rows W with J Δ = 0 and W Δ = target where active (Δ = M⁻¹ Gᵀ ν); a stop
    whose ν would pull leaves the active set (``unilateral``; the displacements onto the bounds take every
    stop beyond its bound as an equality). Returns Δ [6 n]."""
    active = np.ones(len(W), bool)
    delta = np.zeros(minv.shape[0])
    for _ in range(len(W) + 1):
        G = np.vstack([J, W[active]])
        A = G @ minv @ G.T
        rhs = np.concatenate([np.zeros(len(J)) if joint_target is None else joint_target, target[active]])
        nu = np.linalg.lstsq(A, rhs, rcond=1e-12)[0]
        delta = minv @ G.T @ nu
        pull = nu[len(J):] < 0.0
        if not unilateral or not pull.any():
            break
        active[np.nonzero(active)[0][pull]] = False
        if not active.any():
            return np.zeros(minv.shape[0])
    return delta


POSITION_STEPS = 5
"""Gauss–Newton displacements at most per step until every stop is within GAP_TOL of its bound."""
GAP_TOL = 1e-9


def apply_limits(model, table, ev, s, iw_inv, refresh) -> int:
    """Impulses and displacements of the stops reached at the end of a step (see the module); ``refresh()``
    re-evaluates the joint rows and world inertias at ``s``. Returns the number of stops acted on."""
    stops = reached_stops(model, s)
    if not stops:
        return 0
    n = model.n_bodies
    minv = _inverse_mass(model, s, iw_inv)
    W = np.array([_limit_row(model, lim, side, s, n) for lim, side, _ in stops])
    v = np.concatenate([np.concatenate([s.body_vel[k], s.body_omega[k]]) for k in range(n)])
    rate = W @ v
    e = np.array([model.limit_restitution[lim] for lim, _, _ in stops])
    approaching = rate < 0.0
    if approaching.any():
        J = _joint_matrix(table, ev, n, holonomic_only=False)
        dv = _solve_active(J, W[approaching], minv, -(1.0 + e[approaching]) * rate[approaching])
        dv = dv.reshape(n, 6)
        s.body_vel += dv[:, :3]
        s.body_omega += dv[:, 3:]
    acted = len(stops)
    held = []        # stops moved onto their bounds in this step stay there while others are moved
    for _ in range(POSITION_STEPS):
        held += [(lim, side) for lim, side, g in reached_stops(model, s)
                 if g < -GAP_TOL and (lim, side) not in held]
        gap = np.array([_gap(model, lim, side, s) for lim, side in held])
        if not len(held) or gap.min() >= -GAP_TOL:
            break
        refresh()
        minv = _inverse_mass(model, s, iw_inv)
        W = np.array([_limit_row(model, lim, side, s, n) for lim, side in held])
        J = _joint_matrix(table, ev, n, holonomic_only=True)
        C = ev.row_C[table.row_velocity == 0]
        _displace(s, _solve_active(J, W, minv, -gap, unilateral=False, joint_target=-C).reshape(n, 6))
    return acted


def _displace(s, dq):
    """Positions += Δr, quaternions turned by the world rotation vector Δθ [rad] (first order)."""
    s.body_pos += dq[:, :3]
    for k in range(dq.shape[0]):
        dth = dq[k, 3:]
        if not dth.any():
            continue
        q = s.body_quat[k]
        w, x, y, z = q
        dw = 0.5 * np.array([-dth @ q[1:], dth[0] * w + dth[1] * z - dth[2] * y,
                             dth[1] * w + dth[2] * x - dth[0] * z, dth[2] * w + dth[0] * y - dth[1] * x])
        q = q + dw
        s.body_quat[k] = q / np.linalg.norm(q)
