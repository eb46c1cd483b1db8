"""Joint limits solved together, through the joints, where every joint is in an LGS chain.

Corrected one at a time (:mod:`impulsim.contact.limits`), a stop that holds up a chain converges slowly: its
impulse moves its two bodies as if nothing else held them (inverse mass k between the two), the joint solve
that follows hands most of that motion on to the rest of the chain, and the stop is left with most of its
error, pass after pass. A six-link arm resting on one stop took about 115 position and 430 velocity passes
a step, and random limited trees 650 and 1150.

Here the limits that act in a phase are solved together with the joints' answer. The matrix

    D[r, c] = change of limit r's rate u = s q̇ per unit impulse of limit c, once the joints have followed

(the Delassus matrix of the limits in the motions the joints leave free) is measured by probing: limit c's
impulse applied to the velocities, one LGS velocity solve of the joints (exact: the joints' velocity
constraints are linear), the limits' rates read, and the same without the impulse subtracted; the
velocities are then put back. A projected Gauss–Seidel on the small dense D gives the impulses, each
accumulated impulse ≥ 0, that bring every active limit to its target at once. They are applied to the two
bodies of each limit; the joint pass that follows in the loop hands them on (exactly in the velocity phases,
as one linearized step in the position phase, whose nonlinear rest the next rounds take).

D is measured once per phase and set of active limits, at the poses of that phase: t0 for the collisions and
the positions (the LGS rows are those of t0 then), t0+h for the velocities. A probe costs one LGS velocity
solve of the model. The same kernels serve single steps (``ContactCoupling``) and the compiled loop
(:mod:`limit_run`), so both give the same bits.
"""
from __future__ import annotations

import numpy as np

from impulsim.collision.vec import KERNEL
from impulsim.contact.limits import ARRIVED, COLLISION, RESTING, apply_impulse, coordinate_of, predicted_distance
from impulsim.kernel import njit
from impulsim.math.linalg import copy_rows
from impulsim.methods.impulse.lgs_correct import correct_velocities_lgs

SWEEPS = 200
"""Most Gauss–Seidel sweeps over D in one limit pass (D is small: the active limits)."""

SWEEP_TOL = 1e-3
"""A pass's sweeps stop once no impulse changes its limit's rate by more than this fraction of the
tolerance (eps_vc in the velocity phases, eps_d / h in the position phase)."""


COUPLING = ("D", "d_set", "d_count", "save_v", "save_w", "base_v", "base_w", "active", "err", "lam", "dl", "base",
            "probe")
"""Fields of ``coupling``: D, the limits it was measured for and their count (−1: not measured in this
phase); body velocities and angular velocities saved, and the joints' answer without impulses; the active
limits of a pass, the rate each lacks, their accumulated impulses and changes; rates before and after a
probe."""


def coupling_arrays(n_limits: int, n_bodies: int) -> tuple:
    """``coupling`` of the kernels below (fields: COUPLING)."""
    vectors = tuple(np.zeros(n_limits) for _ in COUPLING[8:])
    return (np.zeros((n_limits, n_limits)), np.zeros(n_limits, np.int64), np.full(1, -1, np.int64),
            np.zeros((n_bodies, 3)), np.zeros((n_bodies, 3)), np.zeros((n_bodies, 3)), np.zeros((n_bodies, 3)),
            np.zeros(n_limits, np.int64)) + vectors


@njit(**KERNEL)
def forget(coupling):
    """A new phase: D is measured afresh at its first pass."""
    coupling[2][0] = -1


@njit(**KERNEL)
def _rates(args, side, active, n, motion, out):
    """u = s q̇ of the ``n`` limits in ``active`` [rad/s or m/s], into ``out``."""
    body_pos, body_quat, body_vel, body_omega = motion
    for c in range(n):
        i = active[c]
        out[c] = side[i] * coordinate_of(args, i, True, body_pos, body_quat, body_vel, body_omega)


@njit(**KERNEL)
def _joints_follow(lgs, prims, bodies, rows, eps_v):
    """One LGS velocity solve of every chain (the joints' answer to what was applied)."""
    correct_velocities_lgs(lgs[0], lgs[1], prims, bodies, rows, lgs[2], eps_v, 1)


@njit(**KERNEL)
def _push(i, dp, args, geom, side, bodies):
    """Limit i's impulse s·dp on its two bodies."""
    x, ra, rb, k = geom
    _, _, body_vel, body_omega, _, _, Iinv, _, _, body_inv_mass, _ = bodies
    j = args[0][i]
    apply_impulse(i, dp, side, x, ra, rb, args[1][i] == 0, args[4][j], args[5][j], body_inv_mass, Iinv, body_vel,
                  body_omega)


@njit(**KERNEL)
def measure(lgs, prims, bodies, rows, eps_v, args, geom, side, active, n, coupling):
    """D of the ``n`` limits in ``active`` at the present poses (module docstring); velocities unchanged."""
    D, d_set, d_count, save_v, save_w = coupling[0], coupling[1], coupling[2], coupling[3], coupling[4]
    base, probe = coupling[11], coupling[12]
    k = geom[3]
    body_pos, body_quat, body_vel, body_omega = bodies[0], bodies[1], bodies[2], bodies[3]
    motion = (body_pos, body_quat, body_vel, body_omega)
    copy_rows(body_vel, save_v)
    copy_rows(body_omega, save_w)
    _joints_follow(lgs, prims, bodies, rows, eps_v)
    _rates(args, side, active, n, motion, base)
    for c in range(n):
        copy_rows(save_v, body_vel)
        copy_rows(save_w, body_omega)
        i = active[c]
        p = 1.0 / k[i]                   # an impulse that would change the free rate by 1
        _push(i, p, args, geom, side, bodies)
        _joints_follow(lgs, prims, bodies, rows, eps_v)
        _rates(args, side, active, n, motion, probe)
        for r in range(n):
            D[r, c] = (probe[r] - base[r]) / p
        d_set[c] = i
    copy_rows(save_v, body_vel)
    copy_rows(save_w, body_omega)
    d_count[0] = n


@njit(**KERNEL)
def _measured_for(coupling, active, n):
    """Whether D was measured in this phase for exactly the limits ``active[:n]``."""
    d_set, d_count = coupling[1], coupling[2]
    if d_count[0] != n:
        return False
    for c in range(n):
        if d_set[c] != active[c]:
            return False
    return True


@njit(**KERNEL)
def _solve_together(D, n, err, lam, dl, tol):
    """Changes dl of the accumulated impulses lam with lam + dl ≥ 0 and err − D dl ≤ 0, = 0 where lam + dl > 0
    (projected Gauss–Seidel; ``err`` the rate each limit lacks)."""
    for c in range(n):
        dl[c] = 0.0
    for _ in range(SWEEPS):
        change = 0.0
        for c in range(n):
            dcc = D[c, c]
            if dcc <= 0.0:
                continue
            r = err[c]
            for q in range(n):
                r -= D[c, q] * dl[q]
            new = max(lam[c] + dl[c] + r / dcc, 0.0)
            delta = new - lam[c] - dl[c]
            dl[c] += delta
            change = max(change, abs(delta) * dcc)
        if change <= tol:
            break


@njit(**KERNEL)
def _acts(which, ph):
    """Whether a limit in phase ``ph`` takes part in a velocity pass of ``which`` (COLLISION or RESTING)."""
    if which == COLLISION:
        return ph == COLLISION
    return ph == RESTING or ph == ARRIVED


@njit(**KERNEL)
def velocity_pass(lgs, prims, bodies, rows, eps_v, args, which, geom, side, phase, target, lam, coupling, tol):
    """contact.limits.velocity_pass with the limits solved together (module docstring): every limit of the
    pass (``which``: the colliding ones, or the resting and arriving ones) gets at least its target rate,
    accumulated impulses ≥ 0. Returns the largest speed the pushing limits lacked before the pass."""
    active, err, lam_c, dl = coupling[7], coupling[8], coupling[9], coupling[10]
    k = geom[3]
    motion = (bodies[0], bodies[1], bodies[2], bodies[3])
    n = 0
    for i in range(side.shape[0]):
        if _acts(which, phase[i]) and k[i] > 0.0:
            active[n] = i
            n += 1
    if n == 0:
        return 0.0
    if not _measured_for(coupling, active, n):
        measure(lgs, prims, bodies, rows, eps_v, args, geom, side, active, n, coupling)
    _rates(args, side, active, n, motion, err)
    for c in range(n):
        i = active[c]
        err[c] = target[i] - err[c]
        lam_c[c] = lam[i]
    _solve_together(coupling[0], n, err, lam_c, dl, SWEEP_TOL * tol)
    worst = 0.0
    for c in range(n):
        i = active[c]
        if dl[c] != 0.0:
            _push(i, dl[c], args, geom, side, bodies)
            lam[i] += dl[c]
        if lam[i] > 0.0:
            worst = max(worst, err[c])
    return worst


@njit(**KERNEL)
def position_pass(lgs, prims, bodies, rows, eps_v, args, geom, side, phase, lam, pred, free, h, eps_d, coupling):
    """contact.limits.position_pass with the limits solved together (module docstring): impulses at t0 that
    bring every predicted coordinate at t0+h within its bounds, the sides and arrivals chosen as there.
    Returns (largest violation at t0+h [m or rad], largest free motion k·|Δp|·h of an impulse applied)."""
    active, err, lam_c, dl = coupling[7], coupling[8], coupling[9], coupling[10]
    k = geom[3]
    worst = 0.0
    n = 0
    for i in range(side.shape[0]):
        acting, d = predicted_distance(i, args, side, phase, lam, bodies, pred, free, h, eps_d)
        if not acting:
            continue
        worst = max(worst, -d)
        if k[i] <= 0.0:
            continue
        active[n] = i
        err[n] = -d / h
        lam_c[n] = lam[i]
        n += 1
    if n == 0:
        return worst, 0.0
    if not _measured_for(coupling, active, n):
        measure(lgs, prims, bodies, rows, eps_v, args, geom, side, active, n, coupling)
    _solve_together(coupling[0], n, err, lam_c, dl, SWEEP_TOL * eps_d / h)
    pushed = 0.0
    for c in range(n):
        if dl[c] != 0.0:
            pushed = max(pushed, k[active[c]] * abs(dl[c]) * h)
    if pushed > 0.0:
        _push_through_joints(lgs, prims, bodies, rows, eps_v, args, geom, side, active, n, dl, coupling)
        for c in range(n):
            lam[active[c]] += dl[c]
        pred[5][:] = 1                 # every body: the joints handed the impulses on
    return worst, pushed


@njit(**KERNEL)
def _push_through_joints(lgs, prims, bodies, rows, eps_v, args, geom, side, active, n, dl, coupling):
    """The impulses dl of the limits ``active[:n]`` with the joints' answer to them, M_c·impulse: the velocities
    after one LGS velocity solve with the impulses, minus those after the same solve without them, added to
    the velocities now. In the position phase the joints' velocities are not at rest (the position impulses
    set them), so the solve's answer to them is taken out; what is left is the joints' linear answer to the
    limits, and the joint position pass that follows has only the nonlinear rest to close. Pushed raw, the
    impulses would spin the stops' two bodies alone (an arm's first link at 125 rad/s) and the next joint pass
    could not hand that on within its correction-speed limit."""
    save_v, save_w, base_v, base_w = coupling[3], coupling[4], coupling[5], coupling[6]
    body_vel, body_omega = bodies[2], bodies[3]
    copy_rows(body_vel, save_v)
    copy_rows(body_omega, save_w)
    _joints_follow(lgs, prims, bodies, rows, eps_v)
    copy_rows(body_vel, base_v)
    copy_rows(body_omega, base_w)
    copy_rows(save_v, body_vel)
    copy_rows(save_w, body_omega)
    for c in range(n):
        if dl[c] != 0.0:
            _push(active[c], dl[c], args, geom, side, bodies)
    _joints_follow(lgs, prims, bodies, rows, eps_v)
    for b in range(body_vel.shape[0]):          # loops, not array expressions: nothing is allocated
        for c in range(3):
            body_vel[b, c] += save_v[b, c] - base_v[b, c]
            body_omega[b, c] += save_w[b, c] - base_w[b, c]
