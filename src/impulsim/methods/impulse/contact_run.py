"""``ImpulseMethod.run`` in compiled code for bodies in contact: the contact step of :mod:`contact_step`
(Bender Fig. 5.2: detect, classify, resolve collisions, contact joints, free step, static friction) taken n
times inside one kernel, with the same kernels in the same order, so the states are the same bit for bit as n
calls of ``step``.

Which models take it (:func:`contact_path`): contacts, with or without joints corrected one by one (the
iterative solver, the default: its sweeps alternate with the contacts' as in ``step``) and their limits (one
by one, in the collision, position and velocity phases as in ``step``), and nothing else the step couples them
with (no LGS chains or Wagner's constraints), the standard scheme with its velocity correction, no sleeping,
and the detector's grid broad phase (the contact stage's); static and kinematic bodies, the user's forces,
timed loads, springs, motors and servos are included (a step left to Python finds the servos' memory as before
it). Every other contact model steps in Python. The loop is compiled once per installation for each set of
shape kinds a scene has, with limits or without (about two minutes of CPU each; ``impulsim warmup`` compiles
both for boxes, spheres, capsules and half-spaces, with or without joints: one version serves both), and a run
takes it only once it is compiled or when it is long enough to pay for the compile (loop_ready). A model
without limits passes None for them, and the limits' branches are not compiled into its version.

What stays in Python: a step that needs bigger buffers (more candidate pairs, contacts or rows than they
hold) and a step that fails (a diverging joint correction, or a check). The loop stops before such a step,
with the state and the method's memory as they were before it, and ``step`` takes it (it grows the buffers,
or raises the error the step fails with and leaves everything as it was); the loop then goes on. The warm
start's memory of the last step's contacts is written only after a step has passed its checks, so a failed
step leaves it as it was.

Reference counts: the loop's kernels are compiled without them (methods/impulse/jit.py), like the contact
stage's kernels they call. With the counts, every call that handed on a group (the stage's 15 arrays and
named tuples of rows, the joints', the bodies') counted each array up and down, an atomic operation each,
and how many calls LLVM inlined (so how many counts were left) moved with any change to the loop's code: the
bouncing box sliding on the ground took 42 µs a step with the counts and 13 µs without. Only ``_roll_over`` allocates (its sorts) and keeps them.
``_phase``, ``_levels`` and ``_shock`` hand back tuples of the stage's arrays without counts: only the loop's
own kernels may call them.
"""
from __future__ import annotations

import time

import numpy as np
from numba.core.compiler_lock import global_compiler_lock

from impulsim.contact import groups as G
from impulsim.contact import memo as MEMO
from impulsim.contact import rows as R
from impulsim.contact import warmstart as W
from impulsim.contact.patches import patches_with_kind
from impulsim.contact.solve import restitution_pass, velocity_sweep, velocity_sweeps
from impulsim.contact.stage import (ALL_LEVELS, MAX_COLLISION_ROUNDS, Restitution, _begin_position_phase,
                                    _begin_velocity_phase, _level_ranges, _load_and_classify, _order_by_level,
                                    _position_levels, _position_pass, _set_targets, _velocity_levels, position_error)
from impulsim.collision import groups as CG
from impulsim.collision.pairs import narrow_phase
from impulsim.collision.broadphase import broad_phase
from impulsim.dynamics.checks import IN_RANGE, check_state
from impulsim.dynamics.forces import has_force_elements, plain_loads
from impulsim.dynamics.groups import elements_of
from impulsim.dynamics.integrate import free_step_all, rotation_scheme
from impulsim.kernel import CallSite, njit
from impulsim.methods.base import MAX_DISTANCE, MAX_SPEED, TUNNEL_FACTOR, RunInfo, StepInfo, loop_compiled
from impulsim.methods.impulse.contact_step import STALL_CHANGE, STALL_PASSES
from impulsim.methods.impulse.groups import bodies_of, limit_group_of, pred_of, prims_of, rows_of
from impulsim.methods.impulse.jit import COUNTED, NO_REFCOUNT
from impulsim.methods.impulse.iterative import correct_positions_checked, correct_velocities_of, free_position_error
from impulsim.methods.impulse.lgs_correct import DIVERGENCE_FACTOR, advance_bodies
from impulsim.methods.impulse.lgs_kernels import same_poses
from impulsim.contact.limits import COLLISION as LIMIT_COLLISION, RESTING as LIMIT_RESTING
from impulsim.methods.impulse.limit_run import (_limit_position_pass, _limit_velocity_pass, _py_max,
                                                begin_limit_positions, begin_limit_velocities, begin_limits,
                                                joint_position_pass, joint_velocity_pass)
from impulsim.methods.impulse.run_kernels import _step_forces, element_loads, update_rows

PATH = "contacts"

# how the loop ended (stats[S_EXIT])
DONE, NEEDS_PYTHON, FAILED = 0, 1, 2

# stats: totals over the loop's steps, then the last step's figures, then the contact stage's counters
(S_EXIT, S_DONE, S_T, S_SUM_P, S_SUM_V, S_MAX_P, S_MAX_V, S_RES_P, S_RES_V, S_UNCONVERGED, S_CONV_P, S_CONV_V,
 S_COLLISIONS, S_ITERS_COLLISION, S_SHOCK, S_VISITS, S_CONTACTS, S_CLAMPED,
 L_P, L_V, L_RP, L_RV, L_CONTACTS, L_COLLISIONS, L_ITERS_COLLISION, L_SHOCK, L_VISITS, L_CLAMPED, L_CONV_V,
 C_COUNT, C_COLLISIONS, C_TOP, C_UP, C_DOWN, C_PREV, C_SEEDED, C_LEVEL_SWEEPS, C_VISITS, C_PAIRS,
 N_STATS) = range(40)
# one step's figures (_contact_step's ``info``), the last the tolerance its velocity error is judged by (the
# contacts' eps_vc; the joints' eps_v in a step that found no contact, which finishes as a step without contacts)
(I_P, I_V, I_RP, I_RV, I_ITERS_COLLISION, I_CONTACTS, I_COLLISIONS, I_SHOCK, I_VISITS, I_CLAMPED, I_EPS_V,
 N_INFO) = range(12)

# the members of the contact stage's tuple (_stage_of)
(ST_ROWS, ST_ORDER, ST_ORDER_DOWN, ST_PATCHES_UP, ST_PATCHES_DOWN, ST_PATCHES_COLLIDING, ST_LEVEL_PATCHES,
 ST_LEVEL_COLLIDING, ST_MATCHED, ST_KEYS, ST_LAST, ST_WARM, ST_FROZEN, ST_AWAKE_FROZEN, ST_BODY_LEVEL, ST_WS,
 ST_LEVEL_CACHE, ST_NO_CACHE, ST_MEMO, ST_NO_MEMO, ST_CACHE, ST_FOUND, ST_MATERIALS) = range(23)
# ... of its warm start's arrays (st[ST_WARM])
W_CUR_POS, W_CUR_VEL, W_PREV_POS, W_PREV_VEL, W_ANCHOR_A, W_ANCHOR_B, W_STICKING = range(7)
# ... and of the options (_options_of)
(O_EPS_C, O_EPS_RC, O_EPS_VC, O_EPS_T, O_RECOVERY_SPEED, O_LAW, O_MAX_ITER_COLLISION, O_SHOCK, O_LEVEL_ITERATIONS,
 O_WARM_START, O_MEMO_POSITIONS, O_EPS_D, O_CAP_POSITIONS, O_CAP_VELOCITIES, O_MEMO_VELOCITIES) = range(15)

# ... and of the joints (_joints_of): the primitives corrected one by one (all of the model's), those whose rows
# are computed (the same), every primitive, the model's primitives and rows (groups), eps_v, the caps of the
# joints' own position and velocity corrections, the largest correction speed [m/s]
(J_PRIMS, J_ROW_PRIMS, J_EVERY, J_MODEL_PRIMS, J_ROWS, J_EPS_V, J_CAP_POSITIONS, J_CAP_VELOCITIES,
 J_MAX_SPEED) = range(9)

NO_SHOCK = -1
"""``shock`` of the options when the contacts have no shock propagation."""
NEWTON = int(Restitution.NEWTON)


def contact_path(method) -> bool:
    """Whether ``method`` (an ImpulseMethod) can take its steps in the compiled contact loop."""
    st = method.contacts
    return (st is not None and getattr(method, "_wagner", None) is None
            and method._lgs is None and method._limit_coupling is None
            and method.scheme == "standard" and getattr(method, "_run_fused", True)
            and method.velocity_correction and method.compiled_contact_velocities
            and st.sleep is None
            and st.detector.broad_phase_method == "grid")


COMPILE_PAYS_STEPS = 200_000
"""Steps from which a run compiles the contact loop when Numba's cache does not hold it yet (as
run_path.COMPILE_PAYS_STEPS): compiling it costs about two minutes of CPU once, and it saves ~200 µs a step on
a small pile (falling_boxes at rest). Shorter runs step in Python until it is compiled (``impulsim warmup``
compiles it for scenes of boxes, spheres, capsules and half-spaces)."""


def loop_ready(method, n: int, arguments) -> bool:
    """Whether ``n`` steps of ``method`` should go through the compiled contact loop called with
    ``arguments()``: when it is compiled for their types (in this process or in Numba's cache; a scene with
    other shape kinds or meshes takes a version of its own), or the run is long enough to pay for compiling it
    (COMPILE_PAYS_STEPS). The answer is kept with the method until the loop's versions in this process change
    (typing the arguments in Python takes milliseconds)."""
    if n >= COMPILE_PAYS_STEPS:
        return True
    versions = len(contact_run.overloads)
    kept = method.__dict__.get("_contact_loop_ready")
    if kept is not None and kept[0] == versions:
        return kept[1]
    types = tuple(contact_run.typeof_pyval(a) for a in arguments())
    ready = types in contact_run.overloads
    if not ready:
        try:
            ready = _load_cached(contact_run, types)
        except AttributeError:            # another Numba's internals: as if compiled when any version is
            ready = loop_compiled(contact_run)
    method.__dict__["_contact_loop_ready"] = (len(contact_run.overloads), ready)
    return ready


def _load_cached(dispatcher, types) -> bool:
    """Load the version of ``dispatcher`` for argument ``types`` from Numba's on-disk cache into the dispatcher,
    as its first call would (loading it takes about half a second: done once, not again at the call); False
    when the cache does not hold it."""
    with global_compiler_lock:
        cres = dispatcher._cache.load_overload(types, dispatcher.targetctx)
        if cres is None:
            return False
        dispatcher.targetctx.insert_user_function(cres.entry_point, cres.fndesc, [cres.library])
        dispatcher.add_overload(cres)
        return True


# the kernels ------------------------------------------------------------------------------------------

@njit(cache=True, **NO_REFCOUNT)
def _detect(det, body_pos, body_quat):
    """Broad phase (the grid's) and narrow phase of the detector's arrays ``det``; returns (pairs, contacts),
    -1 contacts when a buffer is too small for them (the step is then left to Python, which grows it)."""
    shapes, filt, grid, boxes, pairs, geo, ws, eps_c, buffers, meshes = det
    n_pairs = broad_phase(shapes, body_pos, body_quat, 0.5 * eps_c, filt, grid, boxes, pairs)
    if n_pairs > pairs.shape[0]:
        return n_pairs, -1
    count, _ = narrow_phase(geo, pairs, n_pairs, boxes[0], boxes[1], ws, eps_c, True, buffers, meshes)
    if count > buffers.distance.shape[0]:
        return n_pairs, -1
    return n_pairs, count


@njit(cache=True, **NO_REFCOUNT)
def _joint_position_pass(joints, bodies, pred, h, scheme, eps_d):
    """limit_run.joint_position_pass (one sweep over the joints, no LGS chains) of the joints' group; returns
    (largest error [m or rad], clamped count), (0, 0) without joints (an empty group: no sweep at all)."""
    if joints[J_PRIMS].shape[0] == 0:
        return 0.0, 0
    return joint_position_pass(None, joints[J_PRIMS], joints[J_MODEL_PRIMS], bodies, joints[J_ROWS], pred, h, scheme,
                               eps_d, joints[J_MAX_SPEED])


@njit(cache=True, **NO_REFCOUNT)
def _joint_velocity_pass(joints, bodies) -> bool:
    """limit_run.joint_velocity_pass of the joints' group: True if a joint needed correcting; False without
    joints."""
    if joints[J_PRIMS].shape[0] == 0:
        return False
    return joint_velocity_pass(None, joints[J_PRIMS], joints[J_MODEL_PRIMS], bodies, joints[J_ROWS], joints[J_EPS_V])


@njit(cache=True, **NO_REFCOUNT)
def _coupled_pass(joints, bodies, limits, colliding, eps_vc) -> bool:
    """A joint velocity pass after a collision sweep (ContactCoupling._resolve_collisions' coupled pass): the
    colliding limits' Newton impulses first when ``colliding`` (limits None: none); True if a joint needed
    correcting or a limit still lacks more than eps_vc [m/s or rad/s]."""
    err = 0.0
    if limits is not None:
        if colliding:
            err = _limit_velocity_pass(None, joints[J_MODEL_PRIMS], bodies, joints[J_ROWS], joints[J_EPS_V], limits,
                                       None, LIMIT_COLLISION, eps_vc)
    return _joint_velocity_pass(joints, bodies) or err > eps_vc


@njit(cache=True, **NO_REFCOUNT)
def _limit_collisions(joints, bodies, limits, cap, eps_vc) -> int:
    """The colliding limits' iterations when no contact collides (ContactCoupling._resolve_collisions): coupled
    passes until one corrects nothing, at most ``cap``; returns them."""
    it = 0
    for it in range(1, cap + 1):
        if not _coupled_pass(joints, bodies, limits, True, eps_vc):
            break
    return it


@njit(cache=True, **NO_REFCOUNT)
def _collision_shock_pass(st, bodies, opts, c, n_colliding):
    """The shock pass of a collision round over the patches with a collision (ContactStage._collision_shock_pass)."""
    rows, order, colliding, frozen = st[ST_ROWS], st[ST_ORDER], st[ST_PATCHES_COLLIDING], st[ST_FROZEN]
    _, _, body_vel, body_omega, _, _, Iinv, _, _, body_inv_mass, _ = bodies
    _level_ranges(rows, order, colliding[0], n_colliding, int(c[C_TOP]), st[ST_LEVEL_COLLIDING])
    _, sweeps = _velocity_levels(rows, (order, colliding[0], colliding[1]), _levels(st, st[ST_LEVEL_COLLIDING], c),
                                 frozen, R.COLLISION, body_inv_mass, Iinv, body_vel, body_omega, opts[O_EPS_VC],
                                 opts[O_LEVEL_ITERATIONS], _shock(st))
    c[C_LEVEL_SWEEPS] += sweeps


@njit(cache=True, **NO_REFCOUNT)
def _collision_sweeps(st, joints, bodies, opts, c, n_colliding, cap, limits, limits_colliding):
    """The iterations of one collision round, up to ``cap``, and its shock pass (ContactStage._collision_round):
    without joints in one compiled loop of sweeps, with joints each sweep followed by one coupled pass (a joint
    velocity pass, after the colliding limits' sweep if ``limits_colliding``). Returns the iterations."""
    rows, order, colliding, frozen, ws = st[ST_ROWS], st[ST_ORDER], st[ST_PATCHES_COLLIDING], st[ST_FROZEN], st[ST_WS]
    _, _, body_vel, body_omega, _, _, Iinv, _, _, body_inv_mass, _ = bodies
    eps_vc, shock = opts[O_EPS_VC], opts[O_SHOCK]
    if joints[J_PRIMS].shape[0] == 0:
        limit = cap if shock == NO_SHOCK else min(cap, max(shock, 1))
        it, err = velocity_sweeps(rows, order, colliding[0], colliding[1], 0, n_colliding, R.COLLISION,
                                  body_inv_mass, Iinv, frozen, body_vel, body_omega, eps_vc, ALL_LEVELS, ws,
                                  st[ST_NO_CACHE], st[ST_NO_MEMO], limit)
        if shock != NO_SHOCK and it >= shock and err > eps_vc:
            _collision_shock_pass(st, bodies, opts, c, n_colliding)
        return it
    it = 0
    for it in range(1, cap + 1):
        err = velocity_sweep(rows, order, colliding[0], colliding[1], 0, n_colliding, R.COLLISION, body_inv_mass,
                             Iinv, frozen, body_vel, body_omega, eps_vc, ALL_LEVELS, ws, st[ST_NO_CACHE],
                             st[ST_NO_MEMO])
        moved = _coupled_pass(joints, bodies, limits, limits_colliding, eps_vc)
        if err <= eps_vc and not moved:
            break
        if shock != NO_SHOCK and it >= shock:
            _collision_shock_pass(st, bodies, opts, c, n_colliding)
            break
    return it


@njit(cache=True, **NO_REFCOUNT)
def _collisions(st, joints, bodies, opts, c, limits, limits_colliding):
    """Collision rounds (ContactStage.resolve_collisions, coupled with the joints if any, and with the limits
    if ``limits_colliding``); returns the iterations of all rounds. ``c`` holds the stage's counters (C_*),
    updated."""
    rows, order, patches_up, colliding = st[ST_ROWS], st[ST_ORDER], st[ST_PATCHES_UP], st[ST_PATCHES_COLLIDING]
    _, _, body_vel, body_omega, _, _, Iinv, _, _, body_inv_mass, _ = bodies
    eps_rc, eps_vc, law, max_iter = opts[O_EPS_RC], opts[O_EPS_VC], opts[O_LAW], opts[O_MAX_ITER_COLLISION]
    count = int(c[C_COUNT])
    iters = 0
    n_coll = int(c[C_COLLISIONS])
    for _ in range(MAX_COLLISION_ROUNDS):
        if n_coll == 0 or iters >= max_iter:
            break
        _set_targets(rows, count, body_vel, body_omega, law)
        _copy(st[ST_AWAKE_FROZEN], st[ST_FROZEN])
        n_colliding = patches_with_kind(rows, order, patches_up[0], patches_up[1], int(c[C_UP]), R.COLLISION,
                                        colliding[0], colliding[1])
        it = _collision_sweeps(st, joints, bodies, opts, c, n_colliding, max_iter - iters, limits, limits_colliding)
        if law != NEWTON:
            restitution_pass(rows, order, count, law, body_inv_mass, Iinv, st[ST_FROZEN], body_vel, body_omega)
            if joints[J_PRIMS].shape[0]:
                _coupled_pass(joints, bodies, limits, limits_colliding, eps_vc)
        iters += it
        n_coll = R.classify(rows, count, body_vel, body_omega, eps_rc, eps_vc)
        c[C_COLLISIONS] += n_coll
    return iters


@njit(cache=True, **NO_REFCOUNT)
def _phase(st, bodies, opts, c):
    """``phase`` of the stage's kernels (ContactStage._phase_of) with the counters ``c``."""
    _, _, body_vel, body_omega, _, _, Iinv, _, _, body_inv_mass, _ = bodies
    return (opts[O_WARM_START] and c[C_PREV] > 0, st[ST_MATCHED], body_inv_mass, Iinv, st[ST_FROZEN], body_vel,
            body_omega, st[ST_MEMO], st[ST_ORDER_DOWN], st[ST_PATCHES_DOWN], int(c[C_DOWN]), st[ST_WS], st[ST_CACHE])


@njit(cache=True, **NO_REFCOUNT)
def _levels(st, level_patches, c):
    """``levels`` of a shock pass over the patches whose level ranges are ``level_patches`` (contact.groups)."""
    return level_patches, int(c[C_TOP]), st[ST_BODY_LEVEL], st[ST_AWAKE_FROZEN]


@njit(cache=True, **NO_REFCOUNT)
def _shock(st):
    """``shock`` of the stage (contact.groups)."""
    return st[ST_WS], st[ST_LEVEL_CACHE], st[ST_NO_CACHE], st[ST_NO_MEMO]


@njit(cache=True, **NO_REFCOUNT)
def _count_visits(memo, c):
    c[C_VISITS] += memo[0][1]
    memo[0][1] = 0


@njit(cache=True, **NO_REFCOUNT)
def _free_joint_error(joints, bodies, pred, h, scheme):
    """Largest joint error at the free prediction over h (ContactCoupling._free_joint_error); 0 without joints."""
    every = joints[J_EVERY]
    if every.shape[0] == 0:
        return 0.0
    pred[5][:] = 1
    return free_position_error(every, joints[J_MODEL_PRIMS], bodies, pred, h, scheme)


@njit(cache=True, **NO_REFCOUNT)
def _positions(st, joints, bodies, pred, free, opts, h, scheme, c, info, limits):
    """The position correction of contacts, joints and limits (ContactCoupling._positions_with_contacts): joint,
    contact-joint and limit passes in turn until within eps_d, a stall or the shock pass. Puts the passes, the
    error and the clamped count into ``info``; returns False if the joints' correction diverged (the step fails).
    ``scheme`` is the rotation scheme of the joints' predictions (the contacts' take the integrator's number in
    ``free``, as in ``step``)."""
    rows, patches_up, frozen, memo = st[ST_ROWS], st[ST_PATCHES_UP], st[ST_FROZEN], st[ST_MEMO]
    down = (st[ST_ORDER_DOWN], st[ST_PATCHES_DOWN][0], st[ST_PATCHES_DOWN][1])
    eps_d, cap, shock = opts[O_EPS_D], opts[O_CAP_POSITIONS], opts[O_SHOCK]
    start = _free_joint_error(joints, bodies, pred, h, scheme)
    pred[5][:] = 1                  # every prediction afresh
    ref_contacts, ref_joints, changed_at = np.inf, np.inf, 0       # the stall watch (contact_step._StallWatch)
    res = 0.0
    it = 0
    contacts_pushed = False
    for it in range(1, cap + 1):
        joint_err, clamped = _joint_position_pass(joints, bodies, pred, h, scheme, eps_d)
        info[I_CLAMPED] = max(info[I_CLAMPED], clamped)
        if it == 2 and contacts_pushed:
            start = max(start, joint_err)       # what the first contact pass opened (ContactCoupling._diverging)
        MEMO.memo_set_limit(memo, eps_d)
        err, pushed = _position_pass(rows, down, 0, int(c[C_DOWN]), bodies, pred, free, frozen, h, eps_d,
                                     ALL_LEVELS, st[ST_WS], st[ST_CACHE], memo)
        res = max(joint_err, err)
        if it == 1:
            start = max(start, err)
            contacts_pushed = pushed
        if limits is not None:
            lim_err, pushed = _limit_position_pass(None, joints[J_MODEL_PRIMS], bodies, joints[J_ROWS],
                                                   joints[J_EPS_V], limits, None, pred, h, eps_d)
            res = _py_max(res, lim_err)
            start = _py_max(start, pushed)
            if it == 1:
                start = _py_max(start, lim_err)
        if it > 1 and joint_err > DIVERGENCE_FACTOR * max(start, eps_d):
            info[I_P], info[I_RP] = it, res
            return False
        if res <= eps_d:
            break
        if abs(err - ref_contacts) > STALL_CHANGE * err or abs(joint_err - ref_joints) > STALL_CHANGE * max(joint_err,
                                                                                                           eps_d):
            ref_contacts, ref_joints, changed_at = err, joint_err, it
        stalled = err > eps_d and it - changed_at >= STALL_PASSES
        if stalled or (shock != NO_SHOCK and it >= max(shock, 1)):
            if not stalled:         # the shock pass, then the joints closed (as in Python)
                err, sweeps = _position_levels(rows, (st[ST_ORDER], patches_up[0], patches_up[1]),
                                               _levels(st, st[ST_LEVEL_PATCHES], c), frozen, bodies, pred, free, h,
                                               eps_d, opts[O_LEVEL_ITERATIONS], _shock(st))
                c[C_LEVEL_SWEEPS] += sweeps
            res = err
            if joints[J_PRIMS].shape[0]:        # ContactCoupling._close_joints_after_contacts
                joint_err, closed = _close_joints(joints, bodies, pred, h, scheme, eps_d, start, info)
                if not closed:
                    info[I_P], info[I_RP] = it, joint_err
                    return False
                res = max(joint_err, position_error(rows, int(c[C_COUNT]), bodies, pred, free, frozen, h))
            break
    info[I_P], info[I_RP] = it, res
    return True


@njit(cache=True, **NO_REFCOUNT)
def _close_joints(joints, bodies, pred, h, scheme, eps_d, start, info):
    """Joint passes alone until one finds the joints within eps_d, at most the joints' cap of them
    (ContactCoupling._close_joints); returns (the last pass's error [m or rad], False if they diverged under
    the coupled correction's rule, its reference the larger of ``start`` and the first pass's error)."""
    err, clamped = _joint_position_pass(joints, bodies, pred, h, scheme, eps_d)
    info[I_CLAMPED] = max(info[I_CLAMPED], clamped)
    start = max(start, err)             # what the contacts' last impulses opened
    for _ in range(2, joints[J_CAP_POSITIONS] + 1):
        if err <= eps_d:
            break
        err, clamped = _joint_position_pass(joints, bodies, pred, h, scheme, eps_d)
        info[I_CLAMPED] = max(info[I_CLAMPED], clamped)
        if err > DIVERGENCE_FACTOR * max(start, eps_d):
            return err, False
    return err, True


@njit(cache=True, **NO_REFCOUNT)
def _close_joint_velocities(joints, bodies):
    """Joint velocity passes alone until one corrects nothing, at most the joints' cap of them
    (ContactCoupling._close_joint_velocities)."""
    for _ in range(joints[J_CAP_VELOCITIES]):
        if not _joint_velocity_pass(joints, bodies):
            break


@njit(cache=True, **NO_REFCOUNT)
def _velocity_shock_pass(st, bodies, opts, c):
    """Shock propagation of the velocity correction over the resting contacts (ContactStage.velocity_shock_pass)."""
    rows, patches_up = st[ST_ROWS], st[ST_PATCHES_UP]
    _, _, body_vel, body_omega, _, _, Iinv, _, _, body_inv_mass, _ = bodies
    _, n = _velocity_levels(rows, (st[ST_ORDER], patches_up[0], patches_up[1]), _levels(st, st[ST_LEVEL_PATCHES], c),
                            st[ST_FROZEN], R.RESTING, body_inv_mass, Iinv, body_vel, body_omega, opts[O_EPS_VC],
                            opts[O_LEVEL_ITERATIONS], _shock(st))
    c[C_LEVEL_SWEEPS] += n


@njit(cache=True, **NO_REFCOUNT)
def _velocities(st, joints, bodies, opts, c, limits):
    """The velocity correction (ContactCoupling._velocities_with_contacts): of contacts alone in one compiled
    loop of sweeps (ContactStage.velocity_sweeps), with joints a joint pass, a contact sweep and a sweep of the
    resting and arriving limits in turn. Returns (sweeps, error)."""
    rows, patches_down, frozen = st[ST_ROWS], st[ST_PATCHES_DOWN], st[ST_FROZEN]
    _, _, body_vel, body_omega, _, _, Iinv, _, _, body_inv_mass, _ = bodies
    eps_vc, shock, cap = opts[O_EPS_VC], opts[O_SHOCK], opts[O_CAP_VELOCITIES]
    n_down = int(c[C_DOWN])
    if joints[J_PRIMS].shape[0] == 0:
        limit = cap if shock == NO_SHOCK else min(cap, max(shock, 1))
        sweeps, err = velocity_sweeps(rows, st[ST_ORDER_DOWN], patches_down[0], patches_down[1], 0, n_down,
                                      R.RESTING, body_inv_mass, Iinv, frozen, body_vel, body_omega, eps_vc, ALL_LEVELS,
                                      st[ST_WS], st[ST_CACHE], st[ST_MEMO], limit)
        if shock != NO_SHOCK and sweeps >= max(shock, 1) and err > eps_vc:
            _velocity_shock_pass(st, bodies, opts, c)
        return sweeps, err
    it = 0
    res = 0.0
    for it in range(1, cap + 1):
        moved = _joint_velocity_pass(joints, bodies)
        res = max(0.0, velocity_sweep(rows, st[ST_ORDER_DOWN], patches_down[0], patches_down[1], 0, n_down,
                                      R.RESTING, body_inv_mass, Iinv, frozen, body_vel, body_omega, eps_vc,
                                      ALL_LEVELS, st[ST_WS], st[ST_CACHE], st[ST_MEMO]))
        if limits is not None:
            res = _py_max(res, _limit_velocity_pass(None, joints[J_MODEL_PRIMS], bodies, joints[J_ROWS],
                                                    joints[J_EPS_V], limits, None, LIMIT_RESTING, eps_vc))
        if not moved and res <= eps_vc:
            break
        if shock != NO_SHOCK and it >= max(shock, 1):
            _velocity_shock_pass(st, bodies, opts, c)
            _close_joint_velocities(joints, bodies)
            break
    return it, res


@njit(cache=True, **COUNTED)     # it allocates (argsort): counted though its caller is not
def _roll_over(st, n_bodies, c):
    """Keep this step's impulses and contact identities for the next step's warm start (end_velocities)."""
    rows, keys, warm = st[ST_ROWS], st[ST_KEYS], st[ST_WARM]
    n = int(c[C_COUNT])
    if n == 0:
        c[C_PREV] = 0
        return
    pairs = rows.body_a[:n].astype(np.int64) * n_bodies + rows.body_b[:n]
    cur_pos, cur_vel, prev_pos, prev_vel, prev_anchor_a, prev_anchor_b, prev_sticking = warm
    last = st[ST_LAST]
    W.roll_over(rows, n, keys, np.argsort(keys[:n], kind="mergesort"), pairs, np.argsort(pairs, kind="mergesort"),
                cur_pos, cur_vel, last[0], last[1], last[2], last[3], prev_pos, prev_vel, last[4], last[5],
                prev_anchor_a, prev_anchor_b, prev_sticking)
    c[C_PREV] = n


@njit(cache=True, **NO_REFCOUNT)
def _copy(src, dst):
    """dst[...] = src, for arrays of one shape (a loop: the broadcasting copy compiles its error messages)."""
    a, b = src.reshape(-1), dst.reshape(-1)
    for i in range(a.shape[0]):
        b[i] = a[i]


@njit(cache=True, **NO_REFCOUNT)
def _update_rows(joints, bodies):
    """World inverse inertias and the joints' rows at the bodies' poses, which are remembered as the rows' key
    (ImpulseMethod._update_rows without LGS)."""
    update_rows(None, joints[J_ROW_PRIMS], joints[J_MODEL_PRIMS], bodies, joints[J_ROWS])


@njit(cache=True, **NO_REFCOUNT)
def _joints_alone(st, joints, bodies, pred, h, scheme, eps_d, c, info):
    """The rest of a step that found no contact (ContactCoupling._joints_alone, the standard step after its loads
    with the joints corrected iteratively); False if the joints' correction diverged (the step fails)."""
    listed, prims, rows = joints[J_PRIMS], joints[J_MODEL_PRIMS], joints[J_ROWS]
    if listed.shape[0]:
        sweeps, res, clamped, diverged = correct_positions_checked(listed, prims, bodies, rows, pred, h, scheme, eps_d,
                                                                   joints[J_CAP_POSITIONS], joints[J_MAX_SPEED],
                                                                   DIVERGENCE_FACTOR)
        if diverged:
            return False
        info[I_P], info[I_RP], info[I_CLAMPED] = max(0, sweeps), (res if res > 0.0 else 0.0), clamped
    advance_bodies(bodies, pred, h, scheme)
    _update_rows(joints, bodies)
    if listed.shape[0]:
        sweeps, res = correct_velocities_of(listed, prims, bodies, rows, joints[J_EPS_V], joints[J_CAP_VELOCITIES])
        info[I_V], info[I_RV] = max(0, sweeps), (res if res > 0.0 else 0.0)
    _count_visits(st[ST_MEMO], c)
    return True


@njit(cache=True, **NO_REFCOUNT)
def _contact_step(det, st, joints, model, bodies, pred, free, opts, t, h, c, info, limits):
    """One contact step from the bodies' current state (ContactCoupling._step_with_contacts), up to but not
    including the warm start's roll-over: DONE, NEEDS_PYTHON if a buffer was too small (nothing changed but
    scratch), FAILED if the joints' correction diverged. ``info`` receives the step's figures (I_*)."""
    body_pos, body_quat, body_vel, body_omega, acc, tau, Iinv, _, body_inv_inertia, body_inv_mass, _ = bodies
    gravity, body_force, body_torque, n_bodies, scheme, loads, force_w, torque_w, elements, servo_backup, \
        with_elements = model
    rows_key = joints[J_ROWS]
    if with_elements:           # the springs', motors' and servos' loads too (the servos' memory advances)
        element_loads(t, h, loads, elements, gravity, body_force, body_torque, bodies, force_w, servo_backup)
    else:
        _step_forces(body_force, body_torque, loads, t, h, force_w, torque_w)      # the user's and the timed loads
        plain_loads(gravity, body_inv_mass, force_w, torque_w, acc, tau)
    if not same_poses(body_pos, body_quat, rows_key[5], rows_key[6]):
        _update_rows(joints, bodies)
    n_pairs, count = _detect(det, body_pos, body_quat)
    c[C_PAIRS] = n_pairs
    rows = st[ST_ROWS]
    if count < 0 or count > rows.e.shape[0]:
        return NEEDS_PYTHON
    buffers = det[8]
    c[C_COUNT], c[C_LEVEL_SWEEPS], c[C_VISITS] = count, 0, 0
    st[ST_CACHE][0][0] = 0                 # the last phase's blocks are not this step's
    last = st[ST_LAST]
    opts_eps_c, eps_rc, eps_vc = opts[O_EPS_C], opts[O_EPS_RC], opts[O_EPS_VC]
    n_coll = _load_and_classify(st[ST_FOUND], buffers.feature_a, buffers.feature_b, count, st[ST_MATERIALS],
                                body_pos, body_quat, body_vel, body_omega, body_inv_mass, Iinv, n_bodies,
                                last + (int(c[C_PREV]),),
                                10.0 * opts_eps_c, eps_rc, eps_vc, st[ST_KEYS], rows, st[ST_MATCHED])
    c[C_COLLISIONS] = n_coll
    top, n_up, n_down = _order_by_level(rows, count, body_inv_mass, n_bodies, st[ST_BODY_LEVEL], st[ST_ORDER],
                                        st[ST_ORDER_DOWN], st[ST_PATCHES_UP], st[ST_PATCHES_DOWN],
                                        st[ST_LEVEL_PATCHES])
    c[C_TOP], c[C_UP], c[C_DOWN] = top, n_up, n_down
    _copy(st[ST_AWAKE_FROZEN], st[ST_FROZEN])
    info[:] = 0.0
    info[I_CONTACTS], info[I_COLLISIONS], info[I_EPS_V] = count, n_coll, eps_vc
    limits_colliding = 0
    if limits is not None:
        limits_colliding = begin_limits(limits, bodies, h)
        info[I_COLLISIONS] += limits_colliding
    elif count == 0:            # (with limits the whole step is taken, as in Python)
        info[I_EPS_V] = joints[J_EPS_V]
        return DONE if _joints_alone(st, joints, bodies, pred, h, scheme, opts[O_EPS_D], c, info) else FAILED
    if n_coll:
        info[I_ITERS_COLLISION] = _collisions(st, joints, bodies, opts, c, limits, limits_colliding > 0)
    elif limits_colliding:
        if limits is not None:
            info[I_ITERS_COLLISION] = _limit_collisions(joints, bodies, limits, opts[O_MAX_ITER_COLLISION], eps_vc)
    warm = st[ST_WARM]
    _, c[C_SEEDED] = _begin_position_phase(rows, count, body_vel, body_omega, eps_rc, opts[O_EPS_T],
                                           opts[O_RECOVERY_SPEED], h, st[ST_MATCHED], warm[W_ANCHOR_A],
                                           warm[W_ANCHOR_B], warm[W_STICKING], _phase(st, bodies, opts, c),
                                           warm[W_PREV_POS], opts[O_MEMO_POSITIONS])
    if limits is not None:
        begin_limit_positions(limits, bodies)
    if not _positions(st, joints, bodies, pred, free, opts, h, scheme, c, info, limits):
        return FAILED
    W.store_phase(rows, count, warm[W_CUR_POS])
    _count_visits(st[ST_MEMO], c)
    free_step_all(body_pos, body_quat, body_vel, body_omega, acc, tau, bodies[7], body_inv_inertia, body_inv_mass,
                  bodies[10], h, scheme)
    _update_rows(joints, bodies)
    c[C_SEEDED] = _begin_velocity_phase(rows, count, body_pos, body_quat, _phase(st, bodies, opts, c),
                                        warm[W_PREV_VEL], opts[O_MEMO_VELOCITIES], eps_vc)
    if limits is not None:
        begin_limit_velocities(limits, bodies)
    info[I_V], info[I_RV] = _velocities(st, joints, bodies, opts, c, limits)
    _count_visits(st[ST_MEMO], c)
    info[I_SHOCK], info[I_VISITS] = c[C_LEVEL_SWEEPS], c[C_VISITS]
    return DONE


@njit(cache=True, **NO_REFCOUNT)
def _backup(bodies, backup, restore):
    """Copy the bodies' poses and velocities into ``backup`` (n × 13), or back from it."""
    arrays = (bodies[0], bodies[1], bodies[2], bodies[3])
    col = 0
    for a in arrays:
        w = a.shape[1]
        for k in range(a.shape[0]):
            for i in range(w):
                if restore:
                    a[k, i] = backup[k, col + i]
                else:
                    backup[k, col + i] = a[k, i]
        col += w


@njit(cache=True, **NO_REFCOUNT)
def _restore_servos(model):
    """The servos' memory as before the current step (element_loads saved it), for a step left to Python."""
    integral, prev_error, effort = model[8][3]
    backup = model[9]
    for k in range(integral.shape[0]):
        integral[k], prev_error[k], effort[k] = backup[k, 0], backup[k, 1], backup[k, 2]


@njit(cache=True, **NO_REFCOUNT)
def _take(stats, info, eps_d):
    """Add one step's figures ``info`` (I_*) to the loop's totals and keep them as the last step's."""
    p, v, rp, rv = int(info[I_P]), int(info[I_V]), info[I_RP], info[I_RV]
    stats[S_SUM_P] += p
    stats[S_SUM_V] += v
    stats[S_MAX_P] = max(stats[S_MAX_P], p)
    stats[S_MAX_V] = max(stats[S_MAX_V], v)
    stats[S_RES_P] = max(stats[S_RES_P], rp)
    stats[S_RES_V] = max(stats[S_RES_V], rv)
    conv_p, conv_v = rp <= eps_d, rv <= info[I_EPS_V]
    if not (conv_p and conv_v):
        stats[S_UNCONVERGED] += 1
    if not conv_p:
        stats[S_CONV_P] = 0.0
    if not conv_v:
        stats[S_CONV_V] = 0.0
    stats[S_ITERS_COLLISION] += info[I_ITERS_COLLISION]
    stats[S_CONTACTS] = max(stats[S_CONTACTS], info[I_CONTACTS])
    stats[S_COLLISIONS] += info[I_COLLISIONS]
    stats[S_SHOCK] += info[I_SHOCK]
    stats[S_VISITS] += info[I_VISITS]
    stats[S_CLAMPED] += info[I_CLAMPED]
    stats[L_P], stats[L_V], stats[L_RP], stats[L_RV] = p, v, rp, rv
    stats[L_ITERS_COLLISION], stats[L_CONTACTS] = info[I_ITERS_COLLISION], info[I_CONTACTS]
    stats[L_COLLISIONS], stats[L_SHOCK] = info[I_COLLISIONS], info[I_SHOCK]
    stats[L_VISITS], stats[L_CLAMPED], stats[L_CONV_V] = info[I_VISITS], info[I_CLAMPED], conv_v


@njit(cache=True, **NO_REFCOUNT)
def contact_run(run, det, st, joints, model, bodies, pred, free, opts, checks, limits):
    """Up to ``n`` contact steps of h [s] (``run`` = (n, t, h, stats, iters, backup, info, counters)): each step as
    _contact_step, then the checks of Method.step (check_state and finite errors, ``checks`` = (thickness,
    max distance, max speed, tunnel factor)); a step that passes them rolls the warm start over. Stops before a
    step that needs bigger buffers (stats[S_EXIT] = NEEDS_PYTHON) and after one that fails (its joints'
    correction diverged) or fails a check (FAILED), with the bodies and the stage's counters put back as they
    were before it (``backup``, ``counters``). The contact stage's counters end in stats[C_*]."""
    n, t, h, stats, iters, backup, info, counters = run
    thickness, max_distance, max_speed, tunnel = checks
    eps_d = opts[O_EPS_D]
    c = stats
    for i in range(n):
        _backup(bodies, backup, False)
        _copy(c[C_COUNT:], counters)
        code = _contact_step(det, st, joints, model, bodies, pred, free, opts, t, h, c, info, limits)
        if code == NEEDS_PYTHON:
            _copy(counters, c[C_COUNT:])
            _restore_servos(model)
            stats[S_EXIT] = NEEDS_PYTHON
            break
        if (code == FAILED or check_state(bodies[0], bodies[1], bodies[2], bodies[3], backup[:, 0:3], thickness,
                                          max_distance, max_speed, tunnel) != IN_RANGE
                or not (np.isfinite(info[I_RP]) and np.isfinite(info[I_RV]))):
            _backup(bodies, backup, True)
            _copy(counters, c[C_COUNT:])
            _restore_servos(model)
            stats[S_EXIT] = FAILED
            break
        _roll_over(st, model[3], c)
        _take(stats, info, eps_d)
        if iters.shape[0] > i:
            iters[i, 0], iters[i, 1] = int(info[I_P]), int(info[I_V])
        t += h
        stats[S_DONE] += 1
    stats[S_T] = t


# the Python side --------------------------------------------------------------------------------------

class _Work:
    """The loop's own buffers: the bodies before the current step, one step's figures, the totals, the stage's
    counters before the current step, the forces of the current step (the user's and the timed loads), the
    servos' memory before it."""

    def __init__(self, n_bodies: int, n_servos: int):
        self.backup = np.zeros((n_bodies, 13))
        self.servo_backup = np.zeros((n_servos, 3))
        self.info = np.zeros(N_INFO)
        self.counters = np.zeros(N_STATS - C_COUNT)
        self.force = np.zeros((n_bodies, 3))
        self.torque = np.zeros((n_bodies, 3))
        self.stats = np.zeros(N_STATS)
        self.no_iters = np.zeros((0, 2), np.int64)


def run_contacts(method, state, h: float, n: int, iters) -> RunInfo | None:
    """``n`` steps of ``method`` (contact_path) in the compiled loop, the steps it leaves to Python taken by
    ``method.step``; the same results as n calls of ``step``. None (nothing done) when the loop is not
    compiled for this scene and the run is too short to pay for compiling it (loop_ready)."""
    work = _work_of(method, state)
    if not loop_ready(method, n, lambda: _arguments(method, state, h, n, work.no_iters, work)):
        return None
    method._check_input(state)
    total = RunInfo()
    done = 0
    while done < n:
        if method._first_step_prepared:
            info, k, code = _loop(method, state, h, n - done, None if iters is None else iters[done:])
            total.add(info)
            done += k
            if code == DONE:
                continue
        info = method.step(state, h)         # grows the buffers, raises a failed step's error, or a first step
        total.add(info)
        if iters is not None:
            iters[done, 0], iters[done, 1] = info.iters_pos, info.iters_vel
        done += 1
    return total


def _loop(method, state, h, n, iters):
    """One call of contact_run; returns (RunInfo of the steps it took, their number, how it ended)."""
    work = _work_of(method, state)
    stats = work.stats
    stats[:] = 0.0
    stats[S_CONV_P] = stats[S_CONV_V] = 1.0
    st = method.contacts
    _counters_of(st, stats)
    out = iters
    if iters is None:
        out = work.no_iters
    elif iters.dtype != np.int64 or not iters.flags.c_contiguous:
        out = np.zeros((n, 2), np.int64)
    t0 = time.perf_counter()
    site = method.__dict__.get("_contact_site")
    if site is None:
        site = method.__dict__["_contact_site"] = CallSite(contact_run)
    site(*_arguments(method, state, h, n, out, work))
    seconds = time.perf_counter() - t0
    done = int(stats[S_DONE])
    if iters is not None and out is not iters:
        iters[:done] = out[:done]
    state.step_count += done
    state.t = float(stats[S_T])
    _stage_counters(st, stats)
    return _run_info(method, stats, done, seconds), done, int(stats[S_EXIT])


def _arguments(method, state, h, n, out, work) -> tuple:
    """The arguments of contact_run for n steps of h [s] from ``state``, the solves a step into ``out``, the
    loop's buffers ``work``."""
    st = method.contacts
    return ((n, float(state.t), float(h), work.stats, out, work.backup, work.info, work.counters),
            _detector_of(st.detector), _stage_of(st), _joints_of(method), _model_of(method, state, work),
            bodies_of(method.model, state, method), pred_of(method), method._free(), _options_of(method, h),
            _checks_of(method), None if method.limits is None else limit_group_of(method))


def _work_of(method, state) -> _Work:
    work = method.__dict__.get("_contact_work")
    shape = (state.body_pos.shape[0], state.servo_integral.shape[0])
    if work is None or (work.backup.shape[0], work.servo_backup.shape[0]) != shape:
        work = method.__dict__["_contact_work"] = _Work(*shape)
    return work


def _detector_of(det) -> tuple:
    shapes, grid, boxes = det._fixed_groups
    return (shapes, CG.filter_of(det), grid, boxes, det.pairs, det.geo, det.ws, float(det.eps_c), det.buffers,
            det._meshes)


def _stage_of(st) -> tuple:
    """The contact stage's arrays, in the order the kernels above index them."""
    return (st.rows, st.order, st.order_down, st.patches_up, st.patches_down, st.patches_colliding,
            st.level_patches, st.level_colliding, st.matched, st.keys,
            (st.prev_keys_sorted, st.prev_index_sorted, st.prev_pair_sorted, st.prev_pair_index, st.prev_local_a,
             st.prev_local_b),
            (st.cur_pos, st.cur_vel, st.prev_pos, st.prev_vel, st.prev_anchor_a, st.prev_anchor_b, st.prev_sticking),
            st.frozen, st._awake_frozen, st.body_level, st.ws, st.level_cache, st.no_cache, st.memo, st.no_memo,
            st.cache, G.found_of(st.detector.buffers), st._materials)


_NO_PRIMS = np.zeros(0, np.int64)


def _joints_of(method) -> tuple:
    """The joints' group (J_*): every primitive corrected one by one (contact_path: no LGS chains)."""
    listed = _NO_PRIMS if method._iter_prims is None else method._iter_prims
    row_prims = _NO_PRIMS if method._row_prims is None else method._row_prims
    return (listed, row_prims, method._every_prim(), prims_of(method.model), rows_of(method), float(method.eps_v),
            int(method.max_iter_pos), int(method.max_iter_vel), float(method.max_correction_speed))


def _model_of(method, state, work) -> tuple:
    m = method.model
    return (m.gravity, state.body_force, state.body_torque, int(m.n_bodies), rotation_scheme(method.integrator),
            (m.load_body, m.load_force, m.load_torque, m.load_start, m.load_end), work.force, work.torque,
            elements_of(m, state), work.servo_backup, has_force_elements(m))


def _options_of(method, h) -> tuple:
    st = method.contacts
    opt = st.opt
    shock = NO_SHOCK if opt.shock_propagation is None else int(opt.shock_propagation)
    return (float(opt.eps_c), float(st.eps_rc), float(opt.eps_vc), float(st._eps_t(h)), st.recovery_speed(),
            int(opt.restitution), int(opt.max_iter_collision), shock, int(opt.shock_level_iterations),
            bool(opt.warm_start), MEMO.SKIP if opt.skip_resolved_positions else MEMO.KEEP, float(method.eps_d),
            int(max(method.max_iter_pos, method._max_iter_contact)),
            int(max(method.max_iter_vel, method._max_iter_contact)),
            MEMO.SKIP if opt.skip_resolved else MEMO.KEEP)


def _checks_of(method) -> tuple:
    thickness = method._thickness()
    return (np.zeros(0) if thickness is None else thickness, MAX_DISTANCE, MAX_SPEED, TUNNEL_FACTOR)


def _counters_of(st, stats):
    """The contact stage's counters into stats[C_*] (what a loop that stops at once leaves them)."""
    stats[C_COUNT], stats[C_COLLISIONS], stats[C_TOP] = st.count, st.n_collisions, st.top_level
    stats[C_UP], stats[C_DOWN], stats[C_PREV] = st.n_patches_up, st.n_patches_down, st.prev_count
    stats[C_SEEDED], stats[C_LEVEL_SWEEPS], stats[C_VISITS] = st.n_seeded, st.level_sweeps, st.visits
    stats[C_PAIRS] = st.detector.n_pairs


def _stage_counters(st, stats):
    """The contact stage's counters as the last step in the loop left them."""
    st.count, st.n_collisions, st.top_level = int(stats[C_COUNT]), int(stats[C_COLLISIONS]), int(stats[C_TOP])
    st.n_patches_up, st.n_patches_down = int(stats[C_UP]), int(stats[C_DOWN])
    st.prev_count, st.n_seeded = int(stats[C_PREV]), int(stats[C_SEEDED])
    st.level_sweeps, st.visits = int(stats[C_LEVEL_SWEEPS]), int(stats[C_VISITS])
    st.detector.n_pairs = int(stats[C_PAIRS])


def _run_info(method, stats, done, seconds) -> RunInfo:
    info = RunInfo(iters_pos=int(stats[S_SUM_P]), iters_vel=int(stats[S_SUM_V]),
                   residual_pos=float(stats[S_RES_P]), residual_vel=float(stats[S_RES_V]),
                   converged_pos=bool(stats[S_CONV_P]), converged_vel=bool(stats[S_CONV_V]),
                   n_collisions=int(stats[S_COLLISIONS]), iters_collision=int(stats[S_ITERS_COLLISION]),
                   shock_sweeps=int(stats[S_SHOCK]), patch_visits=int(stats[S_VISITS]),
                   n_contacts=int(stats[S_CONTACTS]), clamped=int(stats[S_CLAMPED]), steps=done,
                   max_iters_pos=int(stats[S_MAX_P]), max_iters_vel=int(stats[S_MAX_V]),
                   unconverged=int(stats[S_UNCONVERGED]),
                   timings={f"{PATH}_run": seconds})
    if done:
        info.last = StepInfo(iters_pos=int(stats[L_P]), residual_pos=float(stats[L_RP]),
                             converged_pos=bool(stats[L_RP] <= method.eps_d), iters_vel=int(stats[L_V]),
                             residual_vel=float(stats[L_RV]),
                             converged_vel=bool(stats[L_CONV_V]),
                             n_contacts=int(stats[L_CONTACTS]), n_collisions=int(stats[L_COLLISIONS]),
                             iters_collision=int(stats[L_ITERS_COLLISION]), shock_sweeps=int(stats[L_SHOCK]),
                             patch_visits=int(stats[L_VISITS]), clamped=int(stats[L_CLAMPED]))
    if method.ignored:
        info.ignored = dict(method.ignored)
        if info.last is not None:
            info.last.ignored = dict(method.ignored)
    return info
