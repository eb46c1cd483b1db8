"""Per-contact data for one step: bodies, local points, normal, tangents, K parts, material, impulses.

A contact from the detector joins point a on body A and point b on body B with the unit normal n from
B towards A. Impulses act +p at a on A and −p at b on B, so a positive normal impulse pushes A away
from B. The velocity change of the relative point velocity per impulse is K = K_A + K_B with
K_A = (1/m_A) E − r_a* J_A⁻¹ r_a* (Bender eq. 3.9); K_A and K_B are kept apart so that shock propagation
can treat a body as frozen (infinite mass) by dropping its part.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from impulsim.collision.vec import KERNEL
from impulsim.kernel import njit
from impulsim.math.vec import matvec, matvec_at, v3, q4, add, sub, cross, dot, norm, scale, qrot, qrot_inv, perpendicular_basis
from impulsim.contact.materials import combine
from impulsim.dynamics.impulse_response import add_k_body

COLLISION, RESTING, SEPARATING = 0, 1, 2


class ContactRows(NamedTuple):
    """Workspace of capacity C; rows < count are valid. World frame unless noted."""
    body_a: np.ndarray          # [C] int32
    body_b: np.ndarray
    local_a: np.ndarray         # [C, 3] contact point in A's principal frame [m]
    local_b: np.ndarray         # [C, 3] contact point in B's principal frame [m]
    normal_b: np.ndarray        # [C, 3] normal in B's principal frame (turns with B)
    gap0: np.ndarray            # [C] signed distance when detected [m]
    ra: np.ndarray              # [C, 3] a − s_A now [m]
    rb: np.ndarray              # [C, 3] b − s_B now [m]
    n: np.ndarray               # [C, 3] unit normal now (B → A)
    t1: np.ndarray              # [C, 3] tangent basis now
    t2: np.ndarray
    KA: np.ndarray              # [C, 3, 3] body A's part of K [1/kg]
    KB: np.ndarray
    e: np.ndarray               # [C] restitution
    mu_s: np.ndarray            # [C] static friction coefficient
    mu_d: np.ndarray            # [C] dynamic friction coefficient
    kind: np.ndarray            # [C] int8: COLLISION, RESTING or SEPARATING
    sticking: np.ndarray        # [C] int8: 1 while static friction holds
    slide_dir: np.ndarray       # [C, 3] unit tangential velocity of A relative to B at classification
    target_n: np.ndarray        # [C] normal relative velocity to reach in collision resolution [m/s]
    lam_n: np.ndarray           # [C] accumulated normal impulse, current phase [N s]
    lam_t: np.ndarray           # [C, 2] accumulated tangential impulse (t1, t2), current phase [N s]
    work_n: np.ndarray          # [C] normal work of the compression phase (Stronge) [J]
    level: np.ndarray           # [C] int32 contact-graph level (shock propagation order)
    core_a: np.ndarray          # [C, 3] A's contact point moved inward by radius_a, A's frame [m]
    core_b: np.ndarray          # [C, 3] B's, in B's frame
    radius_a: np.ndarray        # [C] radius of A's rounded shape at the contact (sphere, capsule), else 0 [m]
    radius_b: np.ndarray
    normal_a: np.ndarray        # [C, 3] the normal in A's principal frame (turns with A)
    anchor_a: np.ndarray        # [C, 3] material point of A that static friction holds, A's frame [m]
    anchor_b: np.ndarray        # [C, 3] the material point of B it is held to, B's frame [m]
    slipped: np.ndarray         # [C] int8: static friction could not hold it in the last position pass
    rolling: np.ndarray         # [C] int8: a smooth shape (sphere, capsule, ellipsoid) touches: the touching
                                #     point moves over it as it rolls
    k_nt: np.ndarray            # [C, 4] nᵀK n, t1ᵀK t1, t1ᵀK t2, t2ᵀK t2 of K = K_A + K_B [1/kg] (update_geometry)
    k_frozen: np.ndarray        # [C] int8: 1 while k_nt leaves out the bodies a shock pass has frozen (see
                                #     stage._begin_level); 0: k_nt is update_geometry's
    arms: np.ndarray            # [C, 4, 3] r_a × n, J_A⁻¹(r_a × n), r_b × n, J_B⁻¹(r_b × n) (update_geometry):
                                #     a patch's normal block from dot products (patches.patch_matrix)
    gap_floor: np.ndarray       # [C] least predicted gap the position correction accepts at t0+h [m]: 0, or
                                #     above a deeper penetration by the recovery speed times h (see
                                #     stage._gap_floors)


def make_rows(capacity: int) -> ContactRows:
    c = max(1, int(capacity))
    z3, z33 = (lambda: np.zeros((c, 3))), (lambda: np.zeros((c, 3, 3)))
    return ContactRows(np.zeros(c, np.int32), np.zeros(c, np.int32), z3(), z3(), z3(), np.zeros(c), z3(), z3(),
                       z3(), z3(), z3(), z33(), z33(), np.zeros(c), np.zeros(c), np.zeros(c), np.zeros(c, np.int8),
                       np.zeros(c, np.int8), z3(), np.zeros(c), np.zeros(c), np.zeros((c, 2)), np.zeros(c),
                       np.zeros(c, np.int32), z3(), z3(), np.zeros(c), np.zeros(c), z3(), z3(), z3(), np.zeros(c, np.int8),
                       np.zeros(c, np.int8), np.zeros((c, 4)), np.zeros(c, np.int8), np.zeros((c, 4, 3)),
                       np.zeros(c))


@njit(**KERNEL)
def _k_part(inv_mass, Iinv, r, K):
    """K = (1/m) E − r* J⁻¹ r* for one body (zero for infinite mass)."""
    K[:, :] = 0.0
    add_k_body(inv_mass, Iinv, r, K)


@njit(cache=True, forceinline=True)
def _touching_offset(q, local, core, radius, toward):
    """Offset [m, world] from a body's centre to where it touches: on a rounded shape (sphere, capsule) the
    point of its surface facing the other body, core + radius · toward, which stays under the body as it
    rolls; else the material contact point. (The material point of a rolling ball turns back by h|ω| in a
    step: an impulse there has a lever arm of |v| h along the motion, and the support force of every step
    then spins the ball up: energy from nothing.)"""
    if radius > 0.0:
        return add(qrot(q, core), scale(toward, radius))
    return qrot(q, local)


@njit(**KERNEL)
def update_geometry(rows, count, body_pos, body_quat, body_inv_mass, body_Iinv):
    """World offsets, normal, tangents, K parts, their normal and tangential entries and the normal's lever
    arms of every contact at the current body poses."""
    for c in range(count):
        A = rows.body_a[c]
        B = rows.body_b[c]
        qa = q4(body_quat[A])
        qb = q4(body_quat[B])
        n, _ = contact_normal(rows, c, v3(body_pos[A]), qa, v3(body_pos[B]), qb)
        ra = _touching_offset(qa, v3(rows.local_a[c]), v3(rows.core_a[c]), rows.radius_a[c], scale(n, -1.0))
        rb = _touching_offset(qb, v3(rows.local_b[c]), v3(rows.core_b[c]), rows.radius_b[c], n)
        t1, t2 = perpendicular_basis(n)
        for i in range(3):
            rows.ra[c, i] = ra[i]
            rows.rb[c, i] = rb[i]
            rows.n[c, i] = n[i]
            rows.t1[c, i] = t1[i]
            rows.t2[c, i] = t2[i]
        _k_part(body_inv_mass[A], body_Iinv[A], ra, rows.KA[c])
        _k_part(body_inv_mass[B], body_Iinv[B], rb, rows.KB[c])
        set_k_entries(rows, c)
        _set_arms(rows, c, 0, ra, n, body_Iinv[A])
        _set_arms(rows, c, 2, rb, n, body_Iinv[B])


@njit(**KERNEL, forceinline=True)
def _set_arms(rows, c, slot, r, n, Iinv):
    """arms[c, slot] = r × n and arms[c, slot + 1] = J⁻¹(r × n) (world) for one body of contact c."""
    rn = cross(r, n)
    jrn = matvec(Iinv, rn)
    for i in range(3):
        rows.arms[c, slot, i] = rn[i]
        rows.arms[c, slot + 1, i] = jrn[i]


@njit(**KERNEL, forceinline=True)
def set_k_entries(rows, c):
    """k_nt of contact c from its K parts, normal and tangents (both bodies counted)."""
    n, t1, t2 = v3(rows.n[c]), v3(rows.t1[c]), v3(rows.t2[c])
    for i, (x, y) in enumerate(((n, n), (t1, t1), (t1, t2), (t2, t2))):
        rows.k_nt[c, i] = dot(x, matvec_at(rows.KA, c, y)) + dot(x, matvec_at(rows.KB, c, y))
    rows.k_frozen[c] = 0


@njit(cache=True, forceinline=True)
def contact_normal(rows, c, pos_a, qa, pos_b, qb):
    """Unit normal (B → A) of contact c at the given poses, and the separation of its core points along it
    minus the radii: the signed distance [m]. Core points are material points (a sphere's centre, a point
    of a capsule's axis, a vertex, a point of a face), so the distance stays exact as the bodies turn:
    between two rounded shapes the normal joins the cores, otherwise it is the flat side's face normal."""
    return normal_and_gap(pos_a, qa, v3(rows.core_a[c]), v3(rows.normal_a[c]), rows.radius_a[c],
                          pos_b, qb, v3(rows.core_b[c]), v3(rows.normal_b[c]), rows.radius_b[c])


@njit(cache=True, forceinline=True)
def normal_and_gap(pos_a, qa, core_a, normal_a, radius_a, pos_b, qb, core_b, normal_b, radius_b):
    """contact_normal's normal and signed distance [m] from the body-fixed core points, normals and radii of
    both sides."""
    a = add(pos_a, qrot(qa, core_a))
    b = add(pos_b, qrot(qb, core_b))
    d = sub(a, b)
    if radius_a > 0.0 and radius_b > 0.0 and norm(d) > 0.0:
        n = scale(d, 1.0 / norm(d))
    elif radius_b > 0.0 and radius_a == 0.0:
        n = qrot(qa, normal_a)
    else:
        n = qrot(qb, normal_b)
    return n, dot(d, n) - radius_a - radius_b


@njit(**KERNEL)
def load_contacts(found, count, materials, body_pos, body_quat,
                  # outputs
                  rows):
    """Copy the first ``count`` of the detector's contacts ``found`` into the rows: local points, core points,
    body-fixed normals, material (``found``, ``materials`` as contact.groups)."""
    c_body_a, c_body_b, c_shape_a, c_shape_b, c_point_a, c_point_b, c_normal, c_distance = found
    shape_material, shape_round_radius, shape_rolls, material_restitution, material_static_friction, \
        material_dynamic_friction, restitution_rule, friction_rule = materials
    for c in range(count):
        A = c_body_a[c]
        B = c_body_b[c]
        rows.body_a[c] = A
        rows.body_b[c] = B
        qa, qb = q4(body_quat[A]), q4(body_quat[B])
        n = v3(c_normal[c])
        r_a, r_b = shape_round_radius[c_shape_a[c]], shape_round_radius[c_shape_b[c]]
        la = qrot_inv(qa, sub(v3(c_point_a[c]), v3(body_pos[A])))
        lb = qrot_inv(qb, sub(v3(c_point_b[c]), v3(body_pos[B])))
        ca = qrot_inv(qa, sub(add(v3(c_point_a[c]), scale(n, r_a)), v3(body_pos[A])))
        cb = qrot_inv(qb, sub(sub(v3(c_point_b[c]), scale(n, r_b)), v3(body_pos[B])))
        na = qrot_inv(qa, n)
        nb = qrot_inv(qb, n)
        rows.radius_a[c] = r_a
        rows.radius_b[c] = r_b
        rows.rolling[c] = shape_rolls[c_shape_a[c]] | shape_rolls[c_shape_b[c]]
        for i in range(3):
            rows.local_a[c, i] = la[i]
            rows.local_b[c, i] = lb[i]
            rows.core_a[c, i] = ca[i]
            rows.core_b[c, i] = cb[i]
            rows.normal_a[c, i] = na[i]
            rows.normal_b[c, i] = nb[i]
        rows.gap0[c] = c_distance[c]
        ma = shape_material[c_shape_a[c]]
        mb = shape_material[c_shape_b[c]]
        rows.e[c] = combine(restitution_rule, material_restitution[ma], material_restitution[mb])
        rows.mu_s[c] = combine(friction_rule, material_static_friction[ma], material_static_friction[mb])
        rows.mu_d[c] = combine(friction_rule, material_dynamic_friction[ma], material_dynamic_friction[mb])
        rows.lam_n[c] = 0.0
        rows.lam_t[c, 0] = 0.0
        rows.lam_t[c, 1] = 0.0
        rows.work_n[c] = 0.0
        rows.level[c] = 0
        rows.slipped[c] = 0


@njit(cache=True, forceinline=True)
def relative_velocity(rows, c, body_vel, body_omega):
    """u_a − u_b: velocity of A's contact point relative to B's [m/s], world."""
    A = rows.body_a[c]
    B = rows.body_b[c]
    ua = add(v3(body_vel[A]), cross(v3(body_omega[A]), v3(rows.ra[c])))
    ub = add(v3(body_vel[B]), cross(v3(body_omega[B]), v3(rows.rb[c])))
    return sub(ua, ub)


@njit(**KERNEL)
def classify(rows, count, body_vel, body_omega, eps_rc, eps_t):
    """Collision (u_n ≤ −eps_rc), resting (|u_n| < eps_rc) or separating, and whether static friction
    holds (|u_t| < eps_t) (Bender 5.1.1, 5.2.5). Returns the number of collisions."""
    n_coll = 0
    for c in range(count):
        u = relative_velocity(rows, c, body_vel, body_omega)
        n = v3(rows.n[c])
        un = dot(u, n)
        if un <= -eps_rc:
            rows.kind[c] = COLLISION
            n_coll += 1
        elif un < eps_rc:
            rows.kind[c] = RESTING
        else:
            rows.kind[c] = SEPARATING
        ut = sub(u, scale(n, un))
        speed = norm(ut)
        rows.sticking[c] = 1 if speed < eps_t else 0
        for i in range(3):
            rows.slide_dir[c, i] = ut[i] / speed if speed > 0.0 else 0.0
    return n_coll
