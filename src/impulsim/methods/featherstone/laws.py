"""Restitution laws of the Featherstone contact stage beyond Newton's: Poisson and Stronge (Numba kernels).

``newton``  (default) normal target −e u_n⁻ in the sequential impulses (impulses.py).
``poisson`` the sequential impulses first solve the compression (target 0); each colliding contact then
            gets e times its compression impulse along the normal, with a friction increment bounded by the
            Coulomb cone of its total normal impulse (``poisson_pass``).
``stronge`` colliding contacts are integrated one at a time with Holck's Stronge integrator (stronge.py):
            the contact approaching fastest first, with the velocities the earlier collisions left, until
            none approaches faster than the resting speed (``stronge_rounds``, Mirtich's sequential
            collisions). For one contact this is the exact law; for simultaneous contacts the order matters
            (a box landing flat may start to turn), which is the price of a law that never creates energy
            (each single integration dissipates, so every round does). The sequential impulses then handle
            resting contacts, push-out and joint limits (Newton, as Holck uses for limits).
"""
from __future__ import annotations

import enum

from impulsim.kernel import njit
from impulsim.methods.featherstone.impulses import (_apply, _clear, _dot, _friction_increment, _load_point,
                                                    _respond, relative_velocity)
from impulsim.methods.featherstone.stronge import JAMMED, stronge_collision


class Restitution(enum.IntEnum):
    """Impact law of the Featherstone contacts (the rigid-body contact stage's three laws)."""
    NEWTON = 0
    POISSON = 1
    STRONGE = 2


def parse_law(name) -> Restitution:
    """The restitution law named ``name`` ("newton", "poisson" or "stronge"); ValueError otherwise."""
    try:
        return Restitution[str(name).upper()]
    except KeyError:
        raise ValueError(f"unknown restitution law {name!r} (use newton, poisson or stronge)") from None


@njit(cache=True)
def _push(ta, tb, pa, pb, P, art, motion, scratch):
    """Apply the world impulse P at the contact (+P on A, −P on B) through the tree to ``motion`` = (q̇, v̂)
    (the groups of :mod:`.groups`)."""
    tree_v_start = art[3]
    qd, v = motion
    y_body, dqd, dv = scratch[0], scratch[2], scratch[3]
    _load_point(ta, pa, P, 1.0, y_body)
    _load_point(tb, pb, P, -1.0, y_body)
    ranges = _respond(ta, tb, art, scratch)
    _clear(ta, y_body)
    _clear(tb, y_body)
    _apply(ranges, tree_v_start, dqd, dv, qd, v)


@njit(cache=True)
def stronge_rounds(contacts, c_e, c_mu, rest, n_steps, slip_tol, max_rounds, art,
                   # in/out
                   motion, c_P, c_regime,
                   # scratch
                   scratch, frame):
    """Sequential Stronge collisions (module docstring); returns the number of collisions integrated.

    ``c_K``: world collision matrices (Δu = K p); ``c_P`` accumulates each contact's world impulse [N s];
    ``c_regime`` gets each integrated contact's last regime (stronge.SLIDING …, JAMMED; −1 untouched).
    A JAMMED contact is skipped here (the caller gives it a Newton target in the sequential impulses).
    ``contacts``, ``art``, ``motion`` = (q̇, v̂) and ``scratch`` are the groups of :mod:`.groups`."""
    c_ta, c_tb, c_pa, c_pb, c_n, c_t1, c_t2, c_K = contacts
    v = motion[1]
    n_c = c_ta.shape[0]
    Kc, uc, pc, uout = frame[0:3], frame[3], frame[4], frame[5]
    R = frame[6:9]
    world = frame[9]
    done = 0
    for _round in range(max_rounds):
        worst, kk = -rest, -1
        for k in range(n_c):
            if c_regime[k] == JAMMED:
                continue
            relative_velocity(c_ta[k], c_tb[k], c_pa[k], c_pb[k], v, world)
            un = _dot(world, c_n[k])
            if un < worst:
                worst, kk = un, k
        if kk < 0:
            break
        # contact frame: columns t1, t2, n; K_c = Rᵀ K R, u_c = Rᵀ u
        for r in range(3):
            R[r, 0], R[r, 1], R[r, 2] = c_t1[kk, r], c_t2[kk, r], c_n[kk, r]
        relative_velocity(c_ta[kk], c_tb[kk], c_pa[kk], c_pb[kk], v, world)
        for i in range(3):
            uc[i] = R[0, i] * world[0] + R[1, i] * world[1] + R[2, i] * world[2]
            for j in range(3):
                s = 0.0
                for a in range(3):
                    for b in range(3):
                        s += R[a, i] * c_K[kk, a, b] * R[b, j]
                Kc[i, j] = s
        regime = stronge_collision(Kc, uc, c_mu[kk], c_e[kk], n_steps, slip_tol, pc, uout)
        c_regime[kk] = regime
        if regime == JAMMED:
            continue
        for r in range(3):
            world[r] = R[r, 0] * pc[0] + R[r, 1] * pc[1] + R[r, 2] * pc[2]
            c_P[kk, r] += world[r]
        _push(c_ta[kk], c_tb[kk], c_pa[kk], c_pb[kk], world, art, motion, scratch)
        done += 1
    return done


@njit(cache=True)
def poisson_pass(contacts, c_e, friction, c_colliding, art,
                 # in/out
                 motion, c_P,
                 # scratch
                 scratch, work3):
    """Poisson's restitution after a compression solved with target 0: each colliding contact gets
    e P_n (its compression impulse P_n) along the normal, then a friction increment that stops its slip if
    that stays in the cone μ_s (1 + e) P_n, else slides with μ_d (1 + e) P_n against the slip. ``contacts``,
    ``art``, ``motion`` = (q̇, v̂) and ``scratch`` are the groups of :mod:`.groups`."""
    c_ta, c_tb, c_pa, c_pb, c_n, c_t1, c_t2, c_K = contacts
    c_mus, c_mud, c_slide = friction
    v = motion[1]
    uvec, Pt, newPt, dP = work3[0], work3[1], work3[2], work3[3]
    for k in range(c_ta.shape[0]):
        Pn = _dot(c_P[k], c_n[k])
        if not c_colliding[k] or Pn <= 0.0 or c_e[k] <= 0.0:
            continue
        for r in range(3):
            dP[r] = c_e[k] * Pn * c_n[k, r]
            Pt[r] = c_P[k, r] - Pn * c_n[k, r]
        _push(c_ta[k], c_tb[k], c_pa[k], c_pb[k], dP, art, motion, scratch)
        total = (1.0 + c_e[k]) * Pn
        for r in range(3):
            c_P[k, r] += dP[r]
        if c_mus[k] <= 0.0 and c_mud[k] <= 0.0:
            continue
        relative_velocity(c_ta[k], c_tb[k], c_pa[k], c_pb[k], v, uvec)
        _friction_increment(c_K[k], c_t1[k], c_t2[k], uvec, total, Pt, c_mus[k], c_mud[k], c_slide[k], newPt)
        for r in range(3):
            dP[r] = newPt[r] - Pt[r]
            c_P[k, r] += dP[r]
        _push(c_ta[k], c_tb[k], c_pa[k], c_pb[k], dP, art, motion, scratch)
