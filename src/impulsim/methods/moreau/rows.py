"""Constraint rows W (generalized force directions) of contacts and joints at the midpoint.

Every scalar row i couples two bodies a, b: γ_i = w_a,i · u_a + w_b,i · u_b + χ_i with u = (v, _K ω)
(see :mod:`.bodies`), so the row's generalized force direction for body a is w_a,i = (d, _K(r × d)) for a
force along the world direction d at lever r from the centre of mass. A percussion Λ_i adds
Δu_a = M_a⁻¹ w_a,i Λ_i (thesis eq. 2.40). Rows are grouped in *blocks*: a bilateral joint row (one row,
law prox onto R) or a contact (three rows n, t, b: unilateral normal law and one friction law).
"""
import math

import numpy as np

from impulsim.contact.materials import combine
from impulsim.kernel import njit
from impulsim.math.vec import v3, q4, sub, add, scale, dot, cross, norm, qrot, qrot_inv, perpendicular_basis
from impulsim.methods.moreau.laws import N_PAR

BILATERAL = 0
CONTACT = 1
NO_LAW = -1


class RowBuffers:
    """Preallocated rows and blocks, grown on demand (``grow_count``)."""

    def __init__(self, n_rows: int, n_blocks: int):
        self.grow_count = 0
        self._alloc(max(n_rows, 8), max(n_blocks, 4))

    def _alloc(self, n_rows, n_blocks):
        self.row_a = np.zeros(n_rows, np.int64)
        self.row_b = np.zeros(n_rows, np.int64)
        self.row_wa = np.zeros((n_rows, 6))
        self.row_wb = np.zeros((n_rows, 6))
        self.row_chi = np.zeros(n_rows)
        """Velocity offset χ [m/s or rad/s] (prescribed relative velocities)."""
        self.row_gamma_b = np.zeros(n_rows)
        """Row velocity γ^B at the start of the step (Newton's law ξ = γ^E + e γ^B)."""
        self.row_r = np.zeros(n_rows)
        self.lam = np.zeros(n_rows)
        """Percussion Λ per row [N s or N m s]."""
        self.lam_new = np.zeros(n_rows)
        self.blk_start = np.zeros(n_blocks + 1, np.int64)
        self.blk_kind = np.zeros(n_blocks, np.int64)
        self.blk_law = np.zeros(n_blocks, np.int64)
        self.blk_e = np.zeros(n_blocks)
        self.blk_e_t = np.zeros(n_blocks)
        self.blk_par = np.zeros((n_blocks, N_PAR))
        self.blk_contact = np.zeros(n_blocks, np.int64)
        """Detector index of a contact block's contact point."""

    def ensure(self, n_rows: int, n_blocks: int) -> None:
        """Room for n_rows rows and n_blocks blocks (contents are not kept)."""
        if n_rows > len(self.row_a) or n_blocks + 1 > len(self.blk_start):
            self._alloc(max(n_rows, 2 * len(self.row_a)), max(n_blocks, 2 * len(self.blk_kind)))
            self.grow_count += 1


@njit(cache=True)
def put_body_row(i, d, r, quat, sign, w_out):
    """w = sign (d, _K (r × d)) for a force along world d [unit] at world lever r [m]."""
    m = qrot_inv(quat, cross(r, d))
    for j in range(3):
        w_out[i, j] = sign * d[j]
        w_out[i, 3 + j] = sign * m[j]


@njit(cache=True)
def row_velocity(i, row_a, row_b, row_wa, row_wb, row_chi, u):
    """γ_i = w_a · u_a + w_b · u_b + χ_i."""
    a, b = row_a[i], row_b[i]
    g = row_chi[i]
    for j in range(6):
        g += row_wa[i, j] * u[a, j] + row_wb[i, j] * u[b, j]
    return g


@njit(cache=True)
def _contact_frame(n, law, axis_world):
    """Tangent t and lateral b = n × t: t along the runner axis projected on the contact plane for the
    runner laws, else any unit vector ⟂ n."""
    if law == 1 or law == 3:
        t = sub(axis_world, scale(n, dot(axis_world, n)))
        length = norm(t)
        if length > 1e-9:
            t = scale(t, 1.0 / length)
            return t, cross(n, t)
    return perpendicular_basis(n)


@njit(cache=True)
def _contact_law(a, b, body_law, body_law_par, body_law_axis, quat, mu, par_out, blk):
    """Friction law of the contact between a and b: a runner body's law (a's first), else Coulomb with
    μ from the materials (no friction when μ = 0). Returns (law, runner axis in the world frame)."""
    for k in (a, b):
        if body_law[k] == 1 or body_law[k] == 3:
            for j in range(N_PAR):
                par_out[blk, j] = body_law_par[k, j]
            return body_law[k], qrot(q4(quat[k]), v3(body_law_axis[k]))
    par_out[blk, 0] = mu
    for j in range(1, N_PAR):
        par_out[blk, j] = 0.0
    return (0 if mu > 0.0 else 2), (0.0, 0.0, 0.0)


@njit(cache=True)
def contact_rows(contacts, n_contacts, gap_close, body_pos, body_quat, u_b, materials, restitution_rule,
                 friction_rule, laws, e_t, row0, blk0,
                 # outputs
                 rows, blocks, blk_contact):
    """One contact block (rows n, t, b) per detected point with gap ≤ ``gap_close`` [m] at the midpoint.

    Both bodies are pushed at the same point c = (p_a + p_b)/2, so the pair of percussions carries no net
    moment. ``blk_contact`` receives the detector's index of each block's contact. Returns (rows used,
    blocks used, closed contacts that approach: γ_N^B < 0). The groups are those of :mod:`.groups`.
    """
    c_body_a, c_body_b, c_shape_a, c_shape_b, c_point_a, c_point_b, c_normal, c_distance = contacts
    shape_material, material_restitution, material_friction = materials
    body_law, body_law_par, body_law_axis = laws
    row_a, row_b, row_wa, row_wb, row_chi, row_gamma_b = rows
    blk_start, blk_kind, blk_law, blk_e, blk_e_t, blk_par = blocks
    i = row0
    blk = blk0
    n_impacts = 0
    for c in range(n_contacts):
        if c_distance[c] > gap_close:
            continue
        a, b = c_body_a[c], c_body_b[c]
        ma, mb = shape_material[c_shape_a[c]], shape_material[c_shape_b[c]]
        e = combine(restitution_rule, material_restitution[ma], material_restitution[mb])
        mu = combine(friction_rule, material_friction[ma], material_friction[mb])
        law, axis = _contact_law(a, b, body_law, body_law_par, body_law_axis, body_quat, mu, blk_par, blk)
        n = v3(c_normal[c])
        t, bb = _contact_frame(n, law, axis)
        point = scale(add(v3(c_point_a[c]), v3(c_point_b[c])), 0.5)
        ra, rb = sub(point, v3(body_pos[a])), sub(point, v3(body_pos[b]))
        qa, qb = q4(body_quat[a]), q4(body_quat[b])
        for k, d in enumerate((n, t, bb)):
            row_a[i + k], row_b[i + k] = a, b
            put_body_row(i + k, d, ra, qa, 1.0, row_wa)
            put_body_row(i + k, d, rb, qb, -1.0, row_wb)
            row_chi[i + k] = 0.0
            row_gamma_b[i + k] = row_velocity(i + k, row_a, row_b, row_wa, row_wb, row_chi, u_b)
        if row_gamma_b[i] < 0.0:
            n_impacts += 1
        blk_start[blk] = i
        blk_kind[blk], blk_law[blk], blk_e[blk], blk_e_t[blk] = CONTACT, law, e, e_t
        blk_contact[blk] = c
        i += 3
        blk += 1
        blk_start[blk] = i
    return i - row0, blk - blk0, n_impacts


@njit(cache=True)
def joint_rows(sel, joint, use_value, e_holonomic, body_quat, body_vel, body_omega, u, row0, blk0,
               # outputs
               rows, blocks):
    """Bilateral blocks from the Lagrange method's rows J (world (v, ω)) of the selected rows ``sel``.

    χ makes γ equal the row's velocity error: Ċ − J v on holonomic rows (0 unless time-dependent),
    C − J v on velocity-level rows. With ``use_value`` = 1, χ is C instead (position projection:
    γ = W Δq + C linearizes C(q + Δq)). Holonomic rows get the law ξ = γ^E + e_holonomic γ^B = 0: with 1,
    the mean velocity (u_B + u_E)/2 satisfies the joint at the midpoint, which reflects u_B across the
    joint's tangent space and so neither gains nor loses kinetic energy (the midpoint rule). A velocity
    error the last projection left (≤ eps_v) is reflected too, so a body held still by joints and
    contacts may rock at that level. Velocity rows always take γ^E = 0. Returns the number of rows
    (= blocks) written. The groups are those of :mod:`.groups` (the blocks' parameters are left as they are).
    """
    j_a, j_b, j_Ja, j_Jb, j_C, j_Cd, j_velocity = joint
    row_a, row_b, row_wa, row_wb, row_chi, row_gamma_b = rows
    blk_start, blk_kind, blk_law, blk_e, blk_e_t = blocks[:5]
    for s in range(sel.shape[0]):
        src = sel[s]
        i = row0 + s
        a, b = j_a[src], j_b[src]
        row_a[i], row_b[i] = a, b
        la = qrot_inv(q4(body_quat[a]), (j_Ja[src, 3], j_Ja[src, 4], j_Ja[src, 5]))
        lb = qrot_inv(q4(body_quat[b]), (j_Jb[src, 3], j_Jb[src, 4], j_Jb[src, 5]))
        jv = 0.0
        for k in range(3):
            row_wa[i, k], row_wa[i, 3 + k] = j_Ja[src, k], la[k]
            row_wb[i, k], row_wb[i, 3 + k] = j_Jb[src, k], lb[k]
            jv += (j_Ja[src, k] * body_vel[a, k] + j_Ja[src, 3 + k] * body_omega[a, k]
                   + j_Jb[src, k] * body_vel[b, k] + j_Jb[src, 3 + k] * body_omega[b, k])
        if use_value:
            row_chi[i] = j_C[src]
        elif j_velocity[src]:
            row_chi[i] = j_C[src] - jv
        else:
            row_chi[i] = j_Cd[src] - jv
        row_gamma_b[i] = row_velocity(i, row_a, row_b, row_wa, row_wb, row_chi, u)
        blk = blk0 + s
        blk_start[blk] = i
        e = 0.0 if j_velocity[src] else e_holonomic
        blk_kind[blk], blk_law[blk], blk_e[blk], blk_e_t[blk] = BILATERAL, NO_LAW, e, 0.0
        blk_start[blk + 1] = i + 1
    return sel.shape[0]


@njit(cache=True)
def row_mass(i, row_a, row_b, row_wa, row_wb, row_wc_a, row_wc_b, minv):
    """wᵢᵀ M⁻¹ w_c summed over both bodies (an entry of G = Wᵀ M⁻¹ W between rows of one block)."""
    a, b = row_a[i], row_b[i]
    g = 0.0
    for j in range(6):
        g += minv[a, j] * row_wa[i, j] * row_wc_a[j] + minv[b, j] * row_wb[i, j] * row_wc_b[j]
    return g


@njit(cache=True)
def largest_eig2(gtt, gbb, gtb):
    """λ_max of the symmetric 2×2 matrix [[gtt, gtb], [gtb, gbb]]."""
    m = 0.5 * (gtt + gbb)
    return m + math.sqrt(0.25 * (gtt - gbb) ** 2 + gtb * gtb)
