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

from impulsim.kernel import njit
from impulsim.methods.impulse.jit import NO_REFCOUNT
from impulsim.methods.impulse.lgs_correct import correct_positions_lgs, correct_velocities_lgs, advance_bodies
from impulsim.methods.impulse.lgs_kernels import build_and_factorize, same_poses
from impulsim.methods.impulse.rows import world_inverse_inertia
from impulsim.dynamics.forces import plain_loads


@njit(cache=True, **NO_REFCOUNT)
def _rows_and_factorization(struct, prims, bodies, dep_tol,
                            # outputs
                            rows, fac):
    """World inverse inertias, LGS rows and factorization at the current poses, which are remembered as the
    key of ``rows``. Returns the number of dependent rows dropped."""
    body_pos, body_quat, _, _, _, _, Iinv, _, body_inv_inertia, _, _ = bodies
    rows_pos, rows_quat = rows[5], rows[6]
    world_inverse_inertia(body_quat, body_inv_inertia, Iinv)
    dropped = build_and_factorize(struct, prims, bodies, dep_tol, rows, fac)
    for k in range(body_pos.shape[0]):
        for i in range(3):
            rows_pos[k, i] = body_pos[k, i]
        for i in range(4):
            rows_quat[k, i] = body_quat[k, i]
    return dropped


@njit(cache=True, **NO_REFCOUNT)
def lgs_standard_step(chains, struct, prims, bodies, rows, fac, pred, gravity, body_force, body_torque,
                      h, scheme, eps_d, eps_v, max_iter_pos, max_iter_vel, max_speed, dep_tol):
    """One standard impulse step (Bender Fig. 3.1) of an all-LGS model: the state's motion in ``bodies`` is
    advanced in place under gravity [m/s²] and the user's forces [N] and torques [N m] (groups: see
    :mod:`groups`). Returns (position solves, position residual, clamped count, velocity solves, velocity
    residual, factorizations, rows dropped, chains whose joint correction diverged)."""
    _, _, _, _, acc, tau, _, _, _, body_inv_mass, _ = bodies
    plain_loads(gravity, body_inv_mass, body_force, body_torque, acc, tau)
    return lgs_corrections(chains, struct, prims, bodies, rows, fac, pred, h, scheme, eps_d, eps_v, max_iter_pos,
                           max_iter_vel, max_speed, dep_tol, False)


@njit(cache=True, **NO_REFCOUNT)
def lgs_corrections(chains, struct, prims, bodies, rows, fac, pred, h, scheme, eps_d, eps_v, max_iter_pos,
                    max_iter_vel, max_speed, dep_tol, rows_current):
    """:func:`lgs_standard_step` after its loads (the accelerations and torques of ``bodies`` are the
    step's): rows and factorization at t0 unless current, joint correction, free step, rows and
    factorization at t0+h, velocity correction. ``rows_current`` tells that the rows and factorization are
    those of the current poses without comparing the poses with their key (the compiled run loop knows it
    after its first step: the previous step built them last and changed no pose since)."""
    body_pos, body_quat, _, _, _, _, _, _, _, _, _ = bodies
    factorizations = 0
    dropped = 0
    if not (rows_current or same_poses(body_pos, body_quat, rows[5], rows[6])):
        dropped = _rows_and_factorization(struct, prims, bodies, dep_tol, rows, fac)
        factorizations += 1
    solves_p, res_p, clamped, diverged = correct_positions_lgs(chains, struct, prims, bodies, rows, fac, pred, h,
                                                               scheme, eps_d, max_iter_pos, max_speed)
    if diverged:
        # the step fails: the rest of it would only carry the diverged velocities on
        return solves_p, res_p, clamped, 0, 0.0, factorizations, dropped, diverged
    advance_bodies(bodies, pred, h, scheme)
    dropped = _rows_and_factorization(struct, prims, bodies, dep_tol, rows, fac)
    factorizations += 1
    solves_v, res_v = correct_velocities_lgs(chains, struct, prims, bodies, rows, fac, eps_v, max_iter_vel)
    return solves_p, res_p, clamped, solves_v, res_v, factorizations, dropped, 0
