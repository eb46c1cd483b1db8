"""The whole standard step of a model whose joints are all solved by LGS, in one kernel.

For such a model (no contacts or limits, no springs, motors or servos, no loop cuts or velocity-only rows
corrected one by one) the step is a fixed sequence of kernels: loads, rows and factorization if the poses
changed since the last one, joint correction, free step, rows and factorization at t0+h, velocity
correction. Called from Python one by one, each kernel unboxes its arrays again (about 60 ns per array,
~170 arrays a step) and the stage bookkeeping adds more; on Bender's 255-body tree that was ~8 % of the
step. Here the arrays cross into compiled code once. The results are bit for bit those of the staged step
(``tests/impulse/test_lgs_step.py``); ``ImpulseMethod(..., fused=False)`` keeps the staged step, which
reports the time of every stage in ``StepInfo.timings``.
"""
from numba import njit

from impulsim.methods.impulse.lgs_correct import correct_positions_lgs, correct_velocities_lgs, advance_bodies
from impulsim.methods.impulse.lgs_kernels import build_and_factorize, same_poses
from impulsim.methods.impulse.rows import world_inverse_inertia
from impulsim.dynamics.forces import plain_loads


@njit(cache=True)
def _rows_and_factorization(node_prim, node_trans, prim_kind, prim_body_a, prim_body_b, prim_anchor_a,
                            prim_anchor_b, prim_axis_a, prim_axis_b, body_pos, body_quat, body_inv_mass,
                            body_inv_inertia, term_target, term_row, term_row_side, term_col, term_col_side, col_ptr,
                            off_row, upd_ptr, upd_a, upd_b, upd_target, dep_tol,
                            # outputs
                            Iinv, row_ra, row_rb, row_P, row_dim, node_lin, node_ang, node_angw, asm_diag, asm_off,
                            fac_diag_inv, fac_off, tmp, fac_diag, rows_pos, rows_quat):
    """World inverse inertias, LGS rows and factorization at the current poses, which are remembered in
    rows_pos / rows_quat. Returns the number of dependent rows dropped."""
    world_inverse_inertia(body_quat, body_inv_inertia, Iinv)
    dropped = build_and_factorize(node_prim, node_trans, prim_kind, prim_body_a, prim_body_b, prim_anchor_a,
                                  prim_anchor_b, prim_axis_a, prim_axis_b, body_pos, body_quat, body_inv_mass, Iinv,
                                  term_target, term_row, term_row_side, term_col, term_col_side, col_ptr, off_row,
                                  upd_ptr, upd_a, upd_b, upd_target, dep_tol, row_ra, row_rb, row_P, row_dim,
                                  node_lin, node_ang, node_angw, asm_diag, asm_off, fac_diag_inv, fac_off, tmp,
                                  fac_diag)
    rows_pos[:, :] = body_pos
    rows_quat[:, :] = body_quat
    return dropped


@njit(cache=True)
def lgs_standard_step(
        # model
        gravity, prim_kind, prim_body_a, prim_body_b, prim_anchor_a, prim_anchor_b, prim_axis_a, prim_axis_b,
        prim_target, prim_qrel, prim_vel_target, body_inertia, body_inv_inertia, body_inv_mass, body_static,
        # LGS structure
        chain_node_start, chain_body_start, chain_bodies, chain_cut_start, cut_prims, chain_soft_start, soft_prims,
        node_prim, node_trans, term_target, term_row, term_row_side, term_col, term_col_side, col_ptr, off_row,
        upd_ptr, upd_a, upd_b, upd_target,
        # options
        h, scheme, eps_d, eps_v, max_iter_pos, max_iter_vel, max_speed, dep_tol,
        # user inputs
        body_force, body_torque,
        # state (advanced in place)
        body_pos, body_quat, body_vel, body_omega,
        # workspace
        acc, tau, Iinv, row_ra, row_rb, row_P, row_dim, row_Minv, node_lin, node_ang, node_angw, asm_diag, asm_off,
        fac_diag_inv, fac_off, tmp, fac_diag, x, iters_pos, iters_vel, pred_pos, pred_quat, pred_vel, pred_omega,
        pred_valid, dirty, step_tol, rows_pos, rows_quat):
    """One standard impulse step (Bender Fig. 3.1) of an all-LGS model. Returns (position solves, position
    residual, clamped count, velocity solves, velocity residual, factorizations, rows dropped)."""
    plain_loads(gravity, body_inv_mass, body_force, body_torque, acc, tau)
    factorizations = 0
    dropped = 0
    if not same_poses(body_pos, body_quat, rows_pos, rows_quat):
        dropped = _rows_and_factorization(
            node_prim, node_trans, prim_kind, prim_body_a, prim_body_b, prim_anchor_a, prim_anchor_b, prim_axis_a,
            prim_axis_b, body_pos, body_quat, body_inv_mass, body_inv_inertia, term_target, term_row, term_row_side,
            term_col, term_col_side, col_ptr, off_row, upd_ptr, upd_a, upd_b, upd_target, dep_tol, Iinv, row_ra,
            row_rb, row_P, row_dim, node_lin, node_ang, node_angw, asm_diag, asm_off, fac_diag_inv, fac_off, tmp,
            fac_diag, rows_pos, rows_quat)
        factorizations += 1
    solves_p, res_p, clamped = correct_positions_lgs(
        chain_node_start, chain_body_start, chain_bodies, chain_cut_start, cut_prims, node_prim, node_trans,
        prim_kind, prim_body_a, prim_body_b, prim_anchor_a, prim_anchor_b, prim_axis_a, prim_axis_b, prim_target,
        prim_qrel, body_pos, body_quat, acc, tau, body_inertia, body_inv_inertia, body_inv_mass, body_static, Iinv,
        row_ra, row_rb, row_P, row_dim, row_Minv, node_lin, node_angw, fac_diag_inv, fac_off, col_ptr, off_row, h,
        scheme, eps_d, max_iter_pos, max_speed, body_vel, body_omega, pred_pos, pred_quat, pred_vel, pred_omega,
        pred_valid, dirty, step_tol, x, iters_pos)
    advance_bodies(acc, tau, body_inertia, body_inv_inertia, body_inv_mass, body_static, h, scheme, pred_pos,
                   pred_quat, pred_vel, pred_omega, pred_valid, body_pos, body_quat, body_vel, body_omega)
    dropped = _rows_and_factorization(
        node_prim, node_trans, prim_kind, prim_body_a, prim_body_b, prim_anchor_a, prim_anchor_b, prim_axis_a,
        prim_axis_b, body_pos, body_quat, body_inv_mass, body_inv_inertia, term_target, term_row, term_row_side,
        term_col, term_col_side, col_ptr, off_row, upd_ptr, upd_a, upd_b, upd_target, dep_tol, Iinv, row_ra, row_rb,
        row_P, row_dim, node_lin, node_ang, node_angw, asm_diag, asm_off, fac_diag_inv, fac_off, tmp, fac_diag,
        rows_pos, rows_quat)
    factorizations += 1
    solves_v, res_v = correct_velocities_lgs(
        chain_node_start, chain_cut_start, cut_prims, chain_soft_start, soft_prims, node_prim, node_trans, prim_kind,
        prim_body_a, prim_body_b, prim_vel_target, body_inv_mass, Iinv, row_ra, row_rb, row_P, row_dim, row_Minv,
        node_lin, node_angw, fac_diag_inv, fac_off, col_ptr, off_row, eps_v, max_iter_vel, body_vel, body_omega, x,
        iters_vel)
    return solves_p, res_p, clamped, solves_v, res_v, factorizations, dropped
