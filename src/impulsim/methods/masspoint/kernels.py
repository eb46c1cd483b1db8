"""Numba kernels of the mass-point step (Schmitt & Thüring 2000, §3), over flat point/constraint arrays.

The kernels are written so that every floating-point operation stays in the dtype of the arrays and
scalars passed in (no float literals enter the arithmetic): the same code then runs in float64 and, to
show the report's single-precision failure (§5.2), in float32.

Notation (report §3): P_i, V_i positions and velocities, h the step, L the constraint list of (i, j, d),
e_ij the unit direction from P_i to P_j, W_i = A_i / m_i the inverse mass matrix of point i (A_i projects
onto the directions the point may move in: identity, line, plane or zero for suspension points).
"""
import numpy as np

from impulsim.kernel import njit

DISTANCE = 0   # |P_j − P_i| = d, a rigid link (numba needs plain module-level ints)
THREAD = 1     # |P_j − P_i| ≤ d, a thread


@njit(cache=True)
def external_accelerations(point_inv_mass, point_proj, gravity, force,
                           # outputs
                           acc):
    """a_i = A_i (g + Fex_i / m_i) [m/s²]: gravity and Fex restricted to the point's free directions
    (a rail or suspension takes up the rest without friction)."""
    for p in range(acc.shape[0]):
        gx = gravity[0] + force[p, 0] * point_inv_mass[p]
        gy = gravity[1] + force[p, 1] * point_inv_mass[p]
        gz = gravity[2] + force[p, 2] * point_inv_mass[p]
        for r in range(3):
            acc[p, r] = point_proj[p, r, 0] * gx + point_proj[p, r, 1] * gy + point_proj[p, r, 2] * gz


@njit(cache=True)
def predict(acc, h, half_h2,
            # outputs (in place: P(0), V(0) in, prediction out)
            point_pos, point_vel):
    """Free prediction (report §3.2 step 2, fin = 0):
    P̄ = P(0) + V(0) h + a h²/2,   V̄ = V(0) + a h."""
    for p in range(point_pos.shape[0]):
        for r in range(3):
            point_pos[p, r] += point_vel[p, r] * h + acc[p, r] * half_h2
            point_vel[p, r] += acc[p, r] * h


@njit(cache=True)
def _direction(c, i, j, point_inv_mass, point_proj, point_pos,
               # outputs
               con_dir, con_resp_i, con_resp_j, con_k, con_dist):
    """Direction e = (P_j − P_i)/|P_j − P_i| of constraint c, the responses W_i e, W_j e and
    k = e·W_i e + e·W_j e (the inverse effective mass of the pair along e) at ``point_pos``."""
    dx = point_pos[j, 0] - point_pos[i, 0]
    dy = point_pos[j, 1] - point_pos[i, 1]
    dz = point_pos[j, 2] - point_pos[i, 2]
    dist = np.sqrt(dx * dx + dy * dy + dz * dz)
    con_dist[c] = dist
    if dist > 0.0:
        dx, dy, dz = dx / dist, dy / dist, dz / dist
    con_dir[c, 0], con_dir[c, 1], con_dir[c, 2] = dx, dy, dz
    for r in range(3):
        con_resp_i[c, r] = point_inv_mass[i] * (point_proj[i, r, 0] * dx + point_proj[i, r, 1] * dy
                                                + point_proj[i, r, 2] * dz)
        con_resp_j[c, r] = point_inv_mass[j] * (point_proj[j, r, 0] * dx + point_proj[j, r, 1] * dy
                                                + point_proj[j, r, 2] * dz)
    con_k[c] = (dx * (con_resp_i[c, 0] + con_resp_j[c, 0]) + dy * (con_resp_i[c, 1] + con_resp_j[c, 1])
                + dz * (con_resp_i[c, 2] + con_resp_j[c, 2]))


@njit(cache=True)
def constraint_directions(con_i, con_j, point_inv_mass, point_proj, point_pos,
                          # outputs
                          con_dir, con_resp_i, con_resp_j, con_k, con_dist):
    """Directions, responses and k of every constraint at ``point_pos`` (see ``_direction``).

    Called at P(0) for the fin correction ("old" directions, §3.1) and at P(h) for the velocity
    correction ("new" directions, §3.3)."""
    for c in range(con_i.shape[0]):
        _direction(c, con_i[c], con_j[c], point_inv_mass, point_proj, point_pos,
                   con_dir, con_resp_i, con_resp_j, con_k, con_dist)


@njit(cache=True)
def _violation(kind, length, dist):
    """How far a constraint is from being met [m]: |dist − d| for a link, max(dist − d, 0) for a thread."""
    err = dist - length
    if kind == THREAD:
        return max(err, err - err)
    return abs(err)


@njit(cache=True)
def correct_positions(con_kind, con_i, con_j, con_length, point_inv_mass, point_proj, h, eps, weight,
                      max_iter,
                      # outputs (prediction corrected in place; directions refreshed where degenerate)
                      point_pos, point_vel, con_dir, con_resp_i, con_resp_j, con_k, con_dist, con_impulse):
    """Iterative fin correction (report §3.2 step 3), Gauss–Seidel sweeps through L.

    For each constraint whose predicted length misses d by eps or more (threads: only when too long),
    c_ij = (|P̄_j − P̄_i| − d) / (h k)   with k = e·W_i e + e·W_j e  (= 1/m_i + 1/m_j for free points),
    and, with the relaxation weight w and the OLD direction e:
        fin_i += w c e,   P̄_i += w h c W_i e,   V̄_i += w c W_i e,   and the opposite for j.
    ``con_impulse[c]`` accumulates w c [N s] (the impulse strength of the pair this step).
    Returns (passes through L, converged): a pass that finds nothing to correct ends the loop.
    """
    n_con = con_i.shape[0]
    con_impulse[:] = 0.0
    for sweep in range(max_iter):
        corrected = False
        for c in range(n_con):
            i = con_i[c]
            j = con_j[c]
            dx = point_pos[j, 0] - point_pos[i, 0]
            dy = point_pos[j, 1] - point_pos[i, 1]
            dz = point_pos[j, 2] - point_pos[i, 2]
            err = np.sqrt(dx * dx + dy * dy + dz * dz) - con_length[c]
            if con_kind[c] == THREAD:
                if err < eps:
                    continue
            elif abs(err) < eps:
                continue
            if not con_k[c] > 0.0:
                # the old points coincided (a slack thread): take the predicted direction instead
                _direction(c, i, j, point_inv_mass, point_proj, point_pos,
                           con_dir, con_resp_i, con_resp_j, con_k, con_dist)
                if not con_k[c] > 0.0:
                    continue
            s = weight * err / (h * con_k[c])
            for r in range(3):
                point_pos[i, r] += h * s * con_resp_i[c, r]
                point_vel[i, r] += s * con_resp_i[c, r]
                point_pos[j, r] -= h * s * con_resp_j[c, r]
                point_vel[j, r] -= s * con_resp_j[c, r]
            con_impulse[c] += s
            corrected = True
        if not corrected:
            return sweep + 1, True
    return max_iter, False


@njit(cache=True)
def largest_violation(con_kind, con_i, con_j, con_length, point_pos):
    """Largest constraint violation [m] at ``point_pos`` (see ``_violation``) and its constraint
    (−1 when there are none or a value is not finite)."""
    worst = 0.0
    where = -1
    for c in range(con_i.shape[0]):
        i = con_i[c]
        j = con_j[c]
        dx = point_pos[j, 0] - point_pos[i, 0]
        dy = point_pos[j, 1] - point_pos[i, 1]
        dz = point_pos[j, 2] - point_pos[i, 2]
        v = _violation(con_kind[c], con_length[c], np.sqrt(dx * dx + dy * dy + dz * dz))
        if v > worst:
            worst = v
            where = c
    return worst, where


@njit(cache=True)
def _relative_speed(c, i, j, con_dir, point_vel):
    """r = (V_j − V_i)·e [m/s], positive when the pair separates."""
    return ((point_vel[j, 0] - point_vel[i, 0]) * con_dir[c, 0]
            + (point_vel[j, 1] - point_vel[i, 1]) * con_dir[c, 1]
            + (point_vel[j, 2] - point_vel[i, 2]) * con_dir[c, 2])


@njit(cache=True)
def _velocity_active(kind, length, dist, slack_tol, r):
    """Whether the velocity correction acts on a constraint: always for a link; for a thread only
    when it is taut (dist ≥ d − slack_tol) and the pair separates (r > 0): a thread only pulls."""
    if kind != THREAD:
        return True
    return dist >= length - slack_tol and r > 0.0


@njit(cache=True)
def correct_velocities(con_kind, con_i, con_j, con_length, con_dir, con_resp_i, con_resp_j, con_k,
                       con_dist, eps_v, slack_tol, max_iter,
                       # outputs (velocities corrected in place)
                       point_vel):
    """Velocity correction (report §3.3, eq. 1), Gauss–Seidel sweeps through L along the NEW directions:
        r = (V_j − V_i)·e,   V_i += (r/k) W_i e,   V_j −= (r/k) W_j e,
    which makes (P_j − P_i)·(V_j − V_i) = 0 for the pair. Returns (passes, converged, residual [m/s]),
    the residual being the largest |r| over the active constraints after the last pass.
    """
    n_con = con_i.shape[0]
    passes = max_iter
    converged = False
    for sweep in range(max_iter):
        corrected = False
        for c in range(n_con):
            if not con_k[c] > 0.0:
                continue
            i = con_i[c]
            j = con_j[c]
            r = _relative_speed(c, i, j, con_dir, point_vel)
            if not _velocity_active(con_kind[c], con_length[c], con_dist[c], slack_tol, r):
                continue
            if abs(r) < eps_v:
                continue
            s = r / con_k[c]
            for q in range(3):
                point_vel[i, q] += s * con_resp_i[c, q]
                point_vel[j, q] -= s * con_resp_j[c, q]
            corrected = True
        if not corrected:
            passes = sweep + 1
            converged = True
            break
    residual = 0.0
    for c in range(n_con):
        r = _relative_speed(c, con_i[c], con_j[c], con_dir, point_vel)
        if con_k[c] > 0.0 and _velocity_active(con_kind[c], con_length[c], con_dist[c], slack_tol, r):
            residual = max(residual, abs(r))
    return passes, converged, residual
