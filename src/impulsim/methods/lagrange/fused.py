"""One evaluation of the equations of motion with Baraff's solve, in one kernel: y' = f(t, y); and a whole
explicit Runge–Kutta step of such evaluations in one kernel.

The stages are those of :class:`.evaluate.Evaluator` with :class:`.solvers.BaraffSolver` (world inertia →
generalized forces → rows J, c, C, Ċ → c′ → no-fill block factorization → solve → v̇, λ → ẏ), called
from one compiled function over preallocated buffers, so that an evaluation costs no Python glue and
allocates nothing. The loads held over the step (and, when the model has them, the springs and force
elements of this stage) come in as ``acc`` [m/s²] and ``tau`` [N m]; secondary (loop) rows are added
afterwards by the solver.
"""
import math

from impulsim.kernel import njit
from impulsim.methods.lagrange.baraff import KERNEL, back_substitute, factor, load_rhs, unload_solution
from impulsim.methods.lagrange.evaluate import state_derivative
from impulsim.methods.lagrange.integrators import normalize_quaternions, weighted_sum
from impulsim.methods.lagrange.rows import compute_rows
from impulsim.methods.lagrange.system import generalized_forces, stabilized_terms, world_inertia


@njit(cache=True, _nrt=False, error_model="numpy")     # a blown-up state gives NaN, not an exception
def unit_quaternions(y, n,
                     # outputs
                     quat_unit):
    """The quaternions of the packed state y, normalized (stage values drift off unit length)."""
    for k in range(n):
        o = 3 * n + 4 * k
        s = 0.0
        for i in range(4):
            s += y[o + i] * y[o + i]
        r = math.sqrt(s)
        for i in range(4):
            quat_unit[k, i] = y[o + i] / r


@njit(**KERNEL)     # every stage below is compiled without reference counting too (see baraff.KERNEL)
def baraff_derivative(mass, table, forest, acc, tau, alpha, beta, svd, y, ws,
                      # outputs
                      acc6, lam, dy):
    """dy = f(t, y) for the packed state y (pos, quat, vel, ω of n bodies), with v̇ (acc6) and the primary
    λ; returns −1, or the node of the first singular block (then the outputs are incomplete). The groups
    ``mass``, ``table``, ``forest`` and the workspace ``ws`` are those of :mod:`.groups`."""
    body_static, body_inv_mass, body_inertia, body_inv_inertia = mass
    row_a, row_velocity = table[13], table[14]
    (node_kind, node_ref, node_size, node_parent, order, node_x, node_d, node_h, child_start, children,
     element_row_start) = forest
    quat_unit, Iw, Iw_inv, force, a0, row_Ja, row_Jb, row_c, row_C, row_Cd, cp, Q, Y, node_form, x, work = ws
    n = body_inv_mass.shape[0]
    pos = y[:3 * n].reshape((n, 3))
    quat = y[3 * n:7 * n].reshape((n, 4))
    vel = y[7 * n:10 * n].reshape((n, 3))
    omega = y[10 * n:13 * n].reshape((n, 3))
    unit_quaternions(y, n, quat_unit)
    world_inertia(quat_unit, body_inertia, body_inv_inertia, body_inv_mass, Iw, Iw_inv)
    generalized_forces(body_inv_mass, omega, acc, tau, Iw, Iw_inv, force, a0)
    compute_rows(table, (pos, quat_unit, vel, omega), (row_Ja, row_Jb, row_c, row_C, row_Cd))
    stabilized_terms(row_c, row_C, row_Cd, row_velocity, alpha, beta, cp)
    load_rhs(node_kind, node_ref, node_x, element_row_start, force, cp, x)
    bad = factor(forest, (row_a, row_Ja, row_Jb, body_inv_mass, Iw, Iw_inv), svd, True, (Q, Y, node_form, x, work))
    if bad >= 0:
        return bad
    back_substitute(order, node_kind, node_size, node_parent, node_x, node_d, node_h, node_form, Q, Y, work, x)
    acc6[:, :] = 0.0
    lam[:] = 0.0
    unload_solution(node_kind, node_ref, node_x, element_row_start, x, acc6, lam)
    state_derivative(body_static, quat, vel, omega, acc6, dy[:3 * n].reshape((n, 3)),
                     dy[3 * n:7 * n].reshape((n, 4)), dy[7 * n:10 * n].reshape((n, 3)),
                     dy[10 * n:13 * n].reshape((n, 3)))
    return -1


@njit(**KERNEL)
def baraff_runge_kutta_step(rk_a, rk_b, h, alpha, beta, motion, mass, table, forest, acc, tau, svd, ws, acc6,
                            lam, rk_ws,
                            # outputs (and the state's motion, advanced in place)
                            lam_start):
    """The state's ``motion`` (pos, quat, vel, ω) advanced by h with the explicit tableau (rk_a, rk_b), each
    stage one :func:`baraff_derivative`: y0 = the packed state, stage input y0 + h Σ_j a_sj k_j,
    k_s = f(stage input), out = y0 + h Σ_s b_s k_s with its quaternions normalized; lam_start = λ of the
    first stage. The groups are those of :mod:`.groups`; acc6 and lam are the stages' workspace. For models
    whose f needs nothing between the stages (no springs, force elements, functions of time or secondary
    rows). Returns −1, or the node of the first singular block (the state is then unchanged)."""
    body_pos, body_quat, body_vel, body_omega = motion
    body_inv_mass = mass[1]
    rk_k, rk_tmp, y0, out = rk_ws
    n = body_inv_mass.shape[0]
    for k in range(n):
        for i in range(3):
            y0[3 * k + i] = body_pos[k, i]
            y0[7 * n + 3 * k + i] = body_vel[k, i]
            y0[10 * n + 3 * k + i] = body_omega[k, i]
        for i in range(4):
            y0[3 * n + 4 * k + i] = body_quat[k, i]
    for s in range(rk_b.shape[0]):
        weighted_sum(y0, rk_k, rk_a[s], s, h, rk_tmp)
        bad = baraff_derivative(mass, table, forest, acc, tau, alpha, beta, svd, rk_tmp, ws, acc6, lam, rk_k[s])
        if bad >= 0:
            return bad
        if s == 0:
            for r in range(lam.shape[0]):
                lam_start[r] = lam[r]
    weighted_sum(y0, rk_k, rk_b, rk_b.shape[0], h, out)
    normalize_quaternions(out, n)
    for k in range(n):
        for i in range(3):
            body_pos[k, i] = out[3 * k + i]
            body_vel[k, i] = out[7 * n + 3 * k + i]
            body_omega[k, i] = out[10 * n + 3 * k + i]
        for i in range(4):
            body_quat[k, i] = out[3 * n + 4 * k + i]
    return -1
