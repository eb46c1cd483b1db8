"""Contact handling inside an impulse step (Bender Fig. 5.2): detect, classify, resolve collisions,
contact joints in the position correction, static friction in the velocity correction.

``ContactStage`` owns the detector and the contact rows. The owning method calls, in order:
``begin(state)`` (detect, load, classify), ``resolve_collisions(state, joint_velocity_pass)``,
``begin_positions()`` then ``position_sweep(...)`` inside its joint-correction loop, and after the free
step ``begin_velocities(state)`` then ``velocity_sweep(...)`` inside its velocity-correction loop.
Joint coupling is by callbacks into the method's own sweeps, so this module needs no joint solver.
"""
from __future__ import annotations

import enum
import math

import numpy as np

from impulsim.collision import Detector
from impulsim.contact import groups as G
from impulsim.contact import rows as R
from impulsim.contact import warmstart as W
from impulsim.contact.graph import body_levels, contact_levels
from impulsim.contact.materials import parse_rule, DEFAULT_RESTITUTION_RULE, DEFAULT_FRICTION_RULE
from impulsim.contact.sleep import Sleep, SleepOptions, read_only
from impulsim.collision.vec import KERNEL
from impulsim.contact.patches import group_patches, make_workspace, make_cache, patches_with_kind
from impulsim.contact import memo as MEMO
from impulsim.contact.memo import make_memo, memo_keep, memo_reset, memo_bound, memo_skips, memo_limit, memo_set_limit
from impulsim.contact.solve import (velocity_sweep, velocity_sweeps, restitution_pass, position_normal,
                                   position_patch_normals, position_friction, patch_setup, fill_cache, keep_frozen_k,
                                   forget_frozen_k, position_patch_residual, position_residual)
from impulsim.dynamics.integrate import predict_body
from impulsim.kernel import call_sites, njit
from impulsim.math.vec import v3, q4, sub, qmul, qnormalize
from impulsim.geometry.shapes import ShapeKind


MAX_COLLISION_ROUNDS = 100
"""Cap on the rounds of collision resolution per step (each round resolves the collisions the last one
created); a row of n touching balls needs n − 1."""


ALL_LEVELS = np.iinfo(np.int32).max
"""``level_hi`` of a sweep over the contacts of every level (outside shock passes)."""

SHOCK_LEVEL_ITERATIONS = 6
"""Default cap on the sweeps over one level of a shock pass."""


@njit(cache=True, forceinline=True)
def level_resolved(err, tol, n_levels) -> bool:
    """Whether a shock pass may freeze a level after a sweep over it with error ``err``. Every level above
    follows the motion a frozen level is left with, so the errors of all levels add up at the top: a level
    counts as resolved at tol / n_levels."""
    return err <= tol / n_levels


class Restitution(enum.IntEnum):
    """Impact law: Newton (velocity ratio, eq. 5.2), Poisson (impulse ratio, eq. 5.3), Stronge (work)."""
    NEWTON = 0
    POISSON = 1
    STRONGE = 2


class ContactOptions:
    """Contact options of the impulse method (all with the thesis's meaning and units).

    eps_c : contact tolerance [m]: points closer than this are in contact (default 1 mm).
    eps_vc : velocity tolerance [m/s] of the collision and contact iterations (stop criterion).
    restitution : impact law, "newton" (velocity ratio), "poisson" (impulse ratio) or "stronge" (work ratio).
    restitution_rule, friction_rule : how two materials' coefficients combine ("product", "sum", "min",
        "max", "mean", "geometric"; the thesis's e = e1·e2 and μ = μ1 + μ2 by default).
    max_iter_collision, max_iter_contact : caps on the collision iterations and on the contact sweeps.
    shock_propagation : iterations before the shock-propagation pass (None: no shock propagation; 0 acts as 1,
        the pass always follows a first sweep).
    shock_level_iterations : cap on the sweeps over one level's contacts in a shock pass before its bodies
        are frozen (Bender 5.3.2: a level is frozen once its contacts are resolved; see level_resolved).
    capacity : initial contact buffer size (grown on demand).
    gravity_for_eps_rc : |g| [m/s²] in eps_rc = sqrt(2 |g| eps_c) (default: the model's gravity).
    warm_start : seed contact impulses with last step's values (matched by contact feature).
    sleep : let islands of bodies at rest sleep (see :mod:`impulsim.contact.sleep`), with the thresholds
        sleep_velocity [m/s], sleep_angular [rad/s] held for sleep_time [s].
    skip_resolved : let the velocity sweeps pass over patches whose error provably stays within half the
        tolerance since their last visit (see :mod:`impulsim.contact.memo`); False (default) visits every
        patch in every sweep.
    skip_resolved_positions : the same for the position sweeps (bound to first order in the turn h|Δω| of
        a step; the positions the sweeps leave then differ within the tolerance); False (default).
    recovery_speed : the largest speed [m/s] at which the position correction pushes a penetrating contact
        apart. A contact found d deep at the start of a step may end it d − recovery_speed·h deep (never
        deeper than it was): the push-out velocity stays in the bodies after the step, so an unlimited
        correction turns penetration into a bounce (d/h: 0.8 m/s for a ball 1.7 mm deep at h = 2 ms, even with
        restitution 0). Default (None): eps_rc, the speed of a fall through the contact tolerance eps_c, after
        which a body rises at most about eps_c; ``math.inf`` corrects in one step, as the thesis does.
    """

    def __init__(self, eps_c=1e-3, eps_vc=1e-3, restitution="newton", restitution_rule=DEFAULT_RESTITUTION_RULE,
                 friction_rule=DEFAULT_FRICTION_RULE, max_iter_collision=1000, shock_propagation=None,
                 shock_level_iterations=SHOCK_LEVEL_ITERATIONS, max_iter_contact=10000, capacity=None,
                 gravity_for_eps_rc=None, warm_start=True, sleep=False,
                 sleep_velocity=0.02, sleep_angular=0.05, sleep_time=0.5, skip_resolved=False,
                 skip_resolved_positions=False, recovery_speed=None):
        try:
            self.restitution = Restitution[str(restitution).upper()]
        except KeyError:
            raise ValueError(f"unknown restitution law {restitution!r} (use newton, poisson or stronge)") \
                from None
        for name, v in (("eps_c", eps_c), ("eps_vc", eps_vc)):
            if not (np.isfinite(v) and v > 0):
                raise ValueError(f"{name} must be positive, got {v!r}")
        if shock_propagation is not None and int(shock_propagation) < 0:
            raise ValueError("shock_propagation is the number of iterations before the shock pass (>= 0)")
        if int(shock_level_iterations) < 1:
            raise ValueError(f"shock_level_iterations must be at least 1, got {shock_level_iterations!r}")
        self.eps_c, self.eps_vc = float(eps_c), float(eps_vc)
        self.restitution_rule = int(parse_rule(restitution_rule, "restitution"))
        self.friction_rule = int(parse_rule(friction_rule, "friction"))
        self.max_iter_collision = int(max_iter_collision)
        self.max_iter_contact = int(max_iter_contact)
        self.shock_propagation = None if shock_propagation is None else int(shock_propagation)
        self.shock_level_iterations = int(shock_level_iterations)
        self.capacity = capacity
        self.gravity_for_eps_rc = gravity_for_eps_rc
        self.warm_start = bool(warm_start)
        self.sleep = bool(sleep)
        self.skip_resolved = bool(skip_resolved)
        self.skip_resolved_positions = bool(skip_resolved_positions)
        if recovery_speed is not None and not (isinstance(recovery_speed, (int, float)) and recovery_speed > 0):
            raise ValueError(f"recovery_speed must be a positive speed [m/s] or inf, got {recovery_speed!r}")
        self.recovery_speed = recovery_speed
        self.sleep_options = SleepOptions(sleep_velocity, sleep_angular, sleep_time)


class ContactStage:
    """Contacts of one model for an impulse-based method; see the module docstring for the call order."""

    _scratch_attrs = frozenset((
        "rows", "order", "order_down", "patches_up", "patches_down", "patches_colliding", "level_patches",
        "level_colliding", "cache", "no_cache", "level_cache", "memo", "no_memo", "keys", "matched", "cur_pos",
        "cur_vel", "ws", "body_level", "frozen", "shape_round_radius", "shape_rolls", "model", "_fixed",
        "_has_kinematic", "_kernels", "_materials", "_found", "_down"))
    """Rebuilt in every step before they are read (or fixed): a failed step need not roll them back and a
    checkpoint need not hold them (see impulsim.methods.memory). The prev_* arrays and the sleep clocks
    carry over and are kept."""

    def __init__(self, model, options: ContactOptions):
        self.model = model
        self.opt = options
        self.detector = Detector(model, eps_c=options.eps_c, capacity=options.capacity)
        g = np.linalg.norm(model.gravity) if options.gravity_for_eps_rc is None else options.gravity_for_eps_rc
        # eps_rc = √(2 |g| eps_c): the speed of a fall through the contact tolerance (Bender 5.1.1)
        self.eps_rc = max(math.sqrt(2.0 * g * options.eps_c), options.eps_vc)
        self.rows = R.make_rows(len(self.detector.buffers.distance))
        rounded = (model.shape_kind == ShapeKind.SPHERE) | (model.shape_kind == ShapeKind.CAPSULE)
        self.shape_round_radius = np.where(rounded, model.shape_params[:, 0], 0.0)
        """Radius [m] of the shapes whose surface is a sphere about a material core (sphere, capsule)."""
        self.shape_rolls = (rounded | (model.shape_kind == ShapeKind.ELLIPSOID)).astype(np.int8)
        """1 for smooth shapes, on which the touching point moves as they roll (static friction anchors
        afresh every step there, see warmstart.set_anchors)."""
        self.count = 0
        self.n_collisions = 0
        self._alloc_orders(len(self.rows.e))
        self.body_level = np.zeros(model.n_bodies, np.int64)
        self.frozen = np.zeros(model.n_bodies, np.int8)
        self.sleep = Sleep(model, options.sleep_options) if options.sleep else None
        self._fixed = self.detector.body_fixed.copy()
        """The detector's fixed bodies (static, kinematic), to which detection adds the sleeping ones."""
        self._has_kinematic = bool(model.body_kinematic.any())
        self._awake_frozen = np.zeros(model.n_bodies, np.int8) if self.sleep is None else self.sleep.asleep
        """What ``frozen`` returns to outside shock propagation: nothing, or the sleeping bodies."""
        self.top_level = 0
        self._alloc_warm(len(self.rows.e))
        self.prev_count = 0
        self.n_seeded = 0
        self.level_sweeps = 0
        """Sweeps over single levels in this step's shock passes."""
        self.visits = 0
        """Patch visits of this step's position and velocity sweeps (shock passes not counted)."""
        self.ws = make_workspace()
        self._kernels = call_sites(_load_and_classify, _order_by_level, _begin_position_phase, _position_pass,
                                   W.store_phase, _begin_velocity_phase, velocity_sweeps, velocity_sweep,
                                   W.roll_over, memo_set_limit)
        """The kernels called in every step, with the stage's arrays (see impulsim.kernel.CallSite)."""
        self._materials = G.materials_of(self)
        """The contacts' material arrays and rules (groups.materials_of), fixed with the model: one tuple for
        every step, which the call sites then find unchanged at once."""
        self._found = (None, None)
        """(the detector's buffers, their ``found`` tuple): made again only when the detector grows them."""

    def _alloc_orders(self, cap):
        """Contact orders bottom-up and top-down, each split into patches (see contact.patches)."""
        self.order = np.zeros(cap, np.int64)
        self.order_down = np.zeros(cap, np.int64)
        self.patches_up = (np.zeros(cap, np.int64), np.zeros(cap, np.int64))
        self.patches_down = (np.zeros(cap, np.int64), np.zeros(cap, np.int64))
        self._down = (self.order_down, *self.patches_down)
        """The top-down order with its patches, as the position passes take them."""
        self.patches_colliding = (np.zeros(cap, np.int64), np.zeros(cap, np.int64))
        """The patches of patches_up with a collision, for the iterations of one collision round."""
        self.n_patches_up = self.n_patches_down = 0
        self.level_patches = np.zeros(cap + 2, np.int64)
        """level_patches[L] … level_patches[L + 1] − 1: the patches of contact level L in patches_up."""
        self.level_colliding = np.zeros(cap + 2, np.int64)
        """The same for patches_colliding (a collision round's shock pass)."""
        self.cache = make_cache(cap)
        """The blocks of patches_down for the current position or velocity phase (see patches.make_cache)."""
        self.no_cache = make_cache(1)
        """An invalid cache: collision rounds find their blocks as they go."""
        self.level_cache = make_cache(cap)
        """The blocks of one level of a shock pass (its frozen bodies differ from the phase's)."""
        self.memo = make_memo(cap)
        """What the phase's sweeps saw at each patch of patches_down (see contact.memo)."""
        self.no_memo = make_memo(1)
        """Memory switched off: collision rounds and shock passes visit every patch (passing over in shock
        passes, at the tolerance over the number of levels, cost more than it saved on the wall)."""

    def _alloc_warm(self, cap):
        self.keys = np.zeros(cap, np.int64)
        self.matched = np.full(cap, -1, np.int64)
        self.cur_pos, self.cur_vel = np.zeros((cap, 3)), np.zeros((cap, 3))
        self.prev_pos, self.prev_vel = np.zeros((cap, 3)), np.zeros((cap, 3))
        self.prev_keys_sorted = np.zeros(cap, np.int64)
        self.prev_index_sorted = np.zeros(cap, np.int64)
        self.prev_pair_sorted = np.zeros(cap, np.int64)
        self.prev_pair_index = np.zeros(cap, np.int64)
        self.prev_local_a = np.zeros((cap, 3))
        self.prev_local_b = np.zeros((cap, 3))
        self.prev_anchor_a = np.zeros((cap, 3))
        self.prev_anchor_b = np.zeros((cap, 3))
        self.prev_sticking = np.zeros(cap, np.int8)

    # detection and classification ----------------------------------------------------------------
    def begin(self, state, Iinv) -> int:
        """Detect contacts at the state's poses and classify them; returns the number of contacts. With
        sleeping, the pairs of two bodies that are asleep or static are left out (see impulsim.contact.sleep),
        and when the contacts found wake an island, detection runs again with it awake."""
        while True:
            self._detect_and_classify(state, Iinv)
            if self.sleep is None or not self.sleep.wake(self.rows, self.count, state, self.model.body_inv_mass):
                break
        self.frozen[:] = self._awake_frozen
        return self.count

    def _detect(self, state):
        """The detector's contacts at the state's poses; with sleeping, the sleeping bodies count as fixed, so
        that their pairs with each other and with static bodies are left out. Not in a model with kinematic
        bodies: the detector's filter cannot tell a kinematic body, which may start moving and must then wake
        the sleepers it hits, from a static one; there every pair is detected."""
        if self.sleep is None or self._has_kinematic:
            return self.detector.detect(state)
        fixed = self.detector.body_fixed
        np.maximum(self._fixed, self.sleep.asleep, out=fixed)
        try:
            return self.detector.detect(state)
        finally:
            fixed[:] = self._fixed

    def _detect_and_classify(self, state, Iinv):
        m = self.model
        c = self._detect(state)
        if len(self.rows.e) < c.count:
            self.rows = R.make_rows(2 * c.count)
            self._alloc_orders(len(self.rows.e))
            self._grow_warm(len(self.rows.e))
        self.count = c.count
        self.level_sweeps = 0
        self.visits = 0
        self.cache[0][0] = 0            # the last phase's blocks are not this step's
        # sticking flags are set again before the positions
        found = c.buffers          # uncut: the kernel reads the first c.count
        if self._found[0] is not found:
            self._found = (found, G.found_of(found))
        self.n_collisions = self._kernels.load_and_classify(
            self._found[1], found.feature_a, found.feature_b, c.count, self._materials, state.body_pos,
            state.body_quat, state.body_vel, state.body_omega, m.body_inv_mass, Iinv, m.n_bodies, G.last_of(self),
            10.0 * self.opt.eps_c, self.eps_rc, self.opt.eps_vc, self.keys, self.rows, self.matched)
        self.top_level, self.n_patches_up, self.n_patches_down = self._kernels.order_by_level(
            self.rows, self.count, m.body_inv_mass if self.sleep is None else self.sleep.levelled_inv_mass(), m.n_bodies,
            self.body_level, self.order, self.order_down, self.patches_up, self.patches_down, self.level_patches)

    # collisions -------------------------------------------------------------------------------------
    def resolve_collisions(self, state, Iinv, joint_velocity_pass) -> int:
        """Collision resolution (Bender 5.1.2, 5.2): rounds of iterated impulses, each iteration followed by
        one joint velocity pass (``joint_velocity_pass()`` returns True if it had to correct a joint; None when
        there are no joints or limits to couple, and a round's iterations run in one kernel). After
        each round the contacts are classified again: a contact that the round's impulses made approach
        faster than eps_rc is a new collision (a struck ball pushing its neighbour in Newton's cradle), and
        the next round resolves the new collisions with targets from the current velocities. Returns the
        iterations of all rounds."""
        iters = 0
        n_coll = self.n_collisions
        for _ in range(MAX_COLLISION_ROUNDS):
            if n_coll == 0 or iters >= self.opt.max_iter_collision:
                break
            iters += self._collision_round(state, Iinv, joint_velocity_pass, self.opt.max_iter_collision - iters)
            n_coll = R.classify(self.rows, self.count, state.body_vel, state.body_omega, self.eps_rc,
                                self.opt.eps_vc)
            self.n_collisions += n_coll
        return iters

    def _collision_round(self, state, Iinv, joint_velocity_pass, cap) -> int:
        """One round over the contacts classified as collisions, to their targets or ``cap`` iterations."""
        rows, n = self.rows, self.count
        _set_targets(rows, n, state.body_vel, state.body_omega, int(self.opt.restitution))
        self.frozen[:] = self._awake_frozen
        shock = self.opt.shock_propagation
        n_colliding = patches_with_kind(rows, self.order, *self.patches_up, self.n_patches_up, R.COLLISION,
                                        *self.patches_colliding)
        if joint_velocity_pass is None:
            iters = self._collision_sweeps(state, Iinv, n_colliding, cap, shock)
        else:
            iters = 0
            for iters in range(1, cap + 1):
                err = self._velocity_pass(state, Iinv, self.order, self.patches_colliding, 0, n_colliding,
                                          R.COLLISION, ALL_LEVELS, self.no_cache)
                joints_moved = joint_velocity_pass()
                if err <= self.opt.eps_vc and not joints_moved:
                    break
                if shock is not None and iters >= shock:
                    self._collision_shock_pass(state, Iinv, n_colliding)
                    break
        if self.opt.restitution != Restitution.NEWTON:
            restitution_pass(rows, self.order, n, int(self.opt.restitution), self.model.body_inv_mass, Iinv,
                             self.frozen, state.body_vel, state.body_omega)
            if joint_velocity_pass is not None:
                joint_velocity_pass()
        return iters

    def _collision_sweeps(self, state, Iinv, n_colliding, cap, shock) -> int:
        """The iterations of a collision round without joints or limits to couple, in one compiled loop (a
        call from Python per iteration cost more than the funnel's collision impulses); the same iterations,
        and the shock pass after ``shock`` of them if the error is still above eps_vc."""
        limit = cap if shock is None else min(cap, max(shock, 1))
        iters, err = velocity_sweeps(self.rows, self.order, *self.patches_colliding, 0, n_colliding, R.COLLISION,
                                     self.model.body_inv_mass, Iinv, self.frozen, state.body_vel, state.body_omega,
                                     self.opt.eps_vc, ALL_LEVELS, self.ws, self.no_cache, self.no_memo, limit)
        if shock is not None and iters >= shock and err > self.opt.eps_vc:
            self._collision_shock_pass(state, Iinv, n_colliding)
        return iters

    def _collision_shock_pass(self, state, Iinv, n_colliding):
        """The shock pass of a collision round over the patches with a collision only (the others have nothing
        to resolve in it: the same impulses, without a scan of the whole pile's patches level by level)."""
        _level_ranges(self.rows, self.order, self.patches_colliding[0], n_colliding, self.top_level,
                      self.level_colliding)
        self._shock_pass(state, Iinv, R.COLLISION, self.patches_colliding, self.level_colliding)

    def _shock_pass(self, state, Iinv, kind, patches=None, levels=None):
        """Shock propagation at velocity level over the contacts of ``kind`` (see _velocity_levels) in
        ``patches`` with their level ranges ``levels`` (default: every patch, patches_up)."""
        if patches is None:
            patches, levels = self.patches_up, self.level_patches
        _, sweeps = _velocity_levels(self.rows, (self.order, *patches), G.levels_of(self, levels), self.frozen, kind,
                                     self.model.body_inv_mass, Iinv, state.body_vel, state.body_omega, self.opt.eps_vc,
                                     self.opt.shock_level_iterations, G.shock_of(self))
        self.level_sweeps += sweeps

    # contact joints -------------------------------------------------------------------------------------
    def _grow_warm(self, cap):
        names = ("prev_pos", "prev_vel", "prev_keys_sorted", "prev_index_sorted", "prev_pair_sorted",
                 "prev_pair_index", "prev_local_a", "prev_local_b", "prev_anchor_a", "prev_anchor_b",
                 "prev_sticking")
        old = [getattr(self, k) for k in names]
        self._alloc_warm(cap)
        n = self.prev_count
        for name, arr in zip(names, old):
            getattr(self, name)[:n] = arr[:n]

    def begin_positions(self, state, Iinv, h) -> int:
        """Turn every contact that is not separating now into a contact joint for this step and seed it
        with last step's impulse (warm start). Returns the number of collisions left after resolution."""
        n, self.n_seeded = self._kernels.begin_position_phase(
            self.rows, self.count, state.body_vel, state.body_omega, self.eps_rc, self._eps_t(h),
            self.recovery_speed(), h,
            self.matched, self.prev_anchor_a, self.prev_anchor_b, self.prev_sticking, self._phase_of(state, Iinv),
            self.prev_pos, MEMO.SKIP if self.opt.skip_resolved_positions else MEMO.KEEP)
        return n

    def recovery_speed(self) -> float:
        """The largest speed [m/s] at which the position correction pushes a penetrating contact apart
        (ContactOptions.recovery_speed; by default eps_rc)."""
        return self.eps_rc if self.opt.recovery_speed is None else float(self.opt.recovery_speed)

    def _phase_of(self, state, Iinv) -> tuple:
        """What seeding a phase and preparing its sweeps takes (see _prepare_phase), less the impulses and the
        memory's mode."""
        return (self.opt.warm_start and self.prev_count > 0, self.matched, self.model.body_inv_mass, Iinv,
                self.frozen, state.body_vel, state.body_omega, self.memo, self.order_down, self.patches_down,
                self.n_patches_down, self.ws, self.cache)

    def _eps_t(self, h):
        """Tangential speed below which a contact counts as sticking: the tolerance, or the speed gravity
        gives in one step, whichever is larger (static friction can stop such a slip within the step)."""
        g = self.model.gravity
        return max(self.opt.eps_vc, math.sqrt(float(g[0]) ** 2 + float(g[1]) ** 2 + float(g[2]) ** 2) * h)

    def end_positions(self):
        """Keep this step's position-phase impulses for the next step's warm start."""
        self._kernels.store_phase(self.rows, self.count, self.cur_pos)
        self._count_visits()

    def _count_visits(self):
        flag = self.memo[0]
        self.visits += int(flag[1])
        flag[1] = 0

    def end_velocities(self):
        """Keep the velocity-phase impulses and roll the contact identities over to the next step."""
        self._count_visits()
        n = self.count
        if n == 0:                      # nothing to carry over (the arrays' contents past prev_count are not read)
            self.prev_count = 0
            return
        rows = self.rows
        pairs = rows.body_a[:n].astype(np.int64) * self.model.n_bodies + rows.body_b[:n]   # as W.match_nearby keys
        self._kernels.roll_over(rows, n, self.keys, self.keys[:n].argsort(kind="mergesort"), pairs,
                                pairs.argsort(kind="mergesort"), self.cur_pos, self.cur_vel, self.prev_keys_sorted,
                                self.prev_index_sorted, self.prev_pair_sorted, self.prev_pair_index, self.prev_pos,
                                self.prev_vel, self.prev_local_a, self.prev_local_b, self.prev_anchor_a,
                                self.prev_anchor_b, self.prev_sticking)
        self.prev_count = n

    def at_rest(self, state) -> bool:
        """Whether sleeping is on and a step from ``state`` would change nothing but the time (see
        Sleep.nothing_can_move), so that it may be skipped after :meth:`rest`. Not in a model with kinematic
        bodies, whose steps still detect the sleepers' contacts (see :meth:`_detect`) and carry them over."""
        return self.sleep is not None and not self._has_kinematic and self.sleep.nothing_can_move(state)

    def rest(self) -> None:
        """What a step of a model asleep whole leaves in the stage: its detection finds no contact (every pair
        joins two bodies that are asleep or fixed), so none is counted or carried over to the next step."""
        self.count = self.prev_count = self.n_collisions = 0

    def after_step(self, state, h) -> None:
        """Sleeping: advance the still clocks and put islands at rest to sleep."""
        if self.sleep is not None:
            self.sleep.update(self.rows, self.count, state, h)

    @property
    def static_now(self):
        """Bodies the free step and the predictions leave in place: static ones and sleeping ones. Read-only
        either way, like the model's array (see sleep.read_only)."""
        if self.sleep is None:
            return self.model.body_static
        return read_only(self.sleep.static_now)

    def position_sweep(self, bodies, pred, free, h, eps_d):
        """One pass of contact-joint impulses, predicting dirty bodies with ``free`` (see _position_pass;
        ``bodies`` and ``pred`` the impulse method's groups). Returns (largest remaining error [m], any impulse
        applied)."""
        self._kernels.memo_set_limit(self.memo, eps_d)
        return self._kernels.position_pass(self.rows, self._down, 0, self.n_patches_down, bodies, pred, free,
                                           self.frozen, h, eps_d, ALL_LEVELS, self.ws, self.cache, self.memo)

    def position_shock_pass(self, bodies, pred, free, h, eps_d) -> float:
        """Shock propagation of the contact joints (see _position_levels). Returns the largest error left [m]."""
        levels = G.levels_of(self, self.level_patches)
        worst, sweeps = _position_levels(self.rows, (self.order, *self.patches_up), levels, self.frozen, bodies, pred,
                                         free, h, eps_d, self.opt.shock_level_iterations, G.shock_of(self))
        self.level_sweeps += sweeps
        return worst

    def position_error(self, bodies, pred, free, h) -> float:
        """The contacts' largest position error on the bodies' poses predicted at t0+h [m] (position_error),
        without an impulse."""
        return position_error(self.rows, self.count, bodies, pred, free, self.frozen, h)

    def velocity_shock_pass(self, state, Iinv) -> None:
        """Shock propagation of the velocity correction (as for collisions, on the resting contacts)."""
        self._shock_pass(state, Iinv, R.RESTING)

    def begin_velocities(self, state, Iinv):
        """Contact geometry at t0+h and fresh impulses for the velocity correction."""
        self.n_seeded = self._kernels.begin_velocity_phase(
            self.rows, self.count, state.body_pos, state.body_quat, self._phase_of(state, Iinv), self.prev_vel,
            MEMO.SKIP if self.opt.skip_resolved else MEMO.KEEP, self.opt.eps_vc)

    def velocity_sweeps(self, state, Iinv, cap, shock) -> tuple[int, float]:
        """The velocity correction of contacts alone (no joints or limits to alternate with): up to ``cap``
        sweeps in one compiled loop until the error is within eps_vc, then, if ``shock`` (a number of sweeps,
        or None) sweeps did not do it, a shock pass. The same sweeps as calling velocity_sweep in a loop;
        returns (sweeps, error of the last [m/s])."""
        limit = cap if shock is None else min(cap, max(shock, 1))
        sweeps, err = self._kernels.velocity_sweeps(self.rows, self.order_down, *self.patches_down, 0,
                                                    self.n_patches_down, R.RESTING, self.model.body_inv_mass, Iinv,
                                                    self.frozen, state.body_vel, state.body_omega, self.opt.eps_vc,
                                                    ALL_LEVELS, self.ws, self.cache, self.memo, limit)
        if shock is not None and sweeps >= max(shock, 1) and err > self.opt.eps_vc:
            self.velocity_shock_pass(state, Iinv)
        return sweeps, err

    def velocity_sweep(self, state, Iinv) -> float:
        """One pass of velocity-level contact impulses (non-approach and friction) at t0+h."""
        return self._kernels.velocity_sweep(self.rows, self.order_down, *self.patches_down, 0, self.n_patches_down,
                                            R.RESTING, self.model.body_inv_mass, Iinv, self.frozen, state.body_vel,
                                            state.body_omega, self.opt.eps_vc, ALL_LEVELS, self.ws, self.cache,
                                            self.memo)

    def _velocity_pass(self, state, Iinv, order, patches, p_lo, p_hi, kind, level_hi, cache, memo=None) -> float:
        """One velocity pass over patches p_lo … p_hi − 1 of ``patches`` (contacts of ``kind`` up to level
        ``level_hi``, see solve.velocity_sweep; ``memo`` the phase's patch memory, default off). Returns the
        largest remaining error [m/s]."""
        memo = self.no_memo if memo is None else memo
        return velocity_sweep(self.rows, order, *patches, p_lo, p_hi, kind, self.model.body_inv_mass, Iinv,
                              self.frozen, state.body_vel, state.body_omega, self.opt.eps_vc, level_hi, self.ws, cache,
                              memo)


@njit(cache=True)          # match_nearby allocates: not KERNEL's _nrt=False
def _load_and_classify(found, feature_a, feature_b, count, materials, body_pos, body_quat, body_vel, body_omega,
                       body_inv_mass, Iinv, n_bodies, last, match_tol, eps_rc, eps_vc,
                       # outputs
                       keys, rows, matched):
    """Load the detector's ``count`` contacts (``found``, ``materials`` as contact.groups) into the rows,
    match each to ``last`` step's contact it continues (contact.groups.LAST; see contact.warmstart: by
    identity, then by nearness within ``match_tol`` [m]), compute their geometry and classify them
    (contact.rows.classify). Returns the number of collisions. One call from Python for what were six: each
    call types the 37 arrays of the rows again (about 3.5 µs)."""
    prev_keys_sorted, prev_index_sorted, prev_pair_sorted, prev_pair_index, prev_local_a, prev_local_b, \
        prev_count = last
    W.make_keys(found[0], found[1], feature_a, feature_b, count, keys)
    W.match(keys, count, prev_keys_sorted, prev_index_sorted, prev_count, matched)
    R.load_contacts(found, count, materials, body_pos, body_quat, rows)
    W.match_nearby(rows, count, n_bodies, prev_pair_sorted, prev_pair_index, prev_local_a, prev_local_b, prev_count,
                   match_tol, matched)
    R.update_geometry(rows, count, body_pos, body_quat, body_inv_mass, Iinv)
    return R.classify(rows, count, body_vel, body_omega, eps_rc, eps_vc)


@njit(**KERNEL)
def _gap_floors(rows, count, speed, h):
    """The least gap each contact may end the step with (rows.gap_floor): 0, or for a contact deeper than
    speed·h (the recovery speed [m/s], see ContactOptions.recovery_speed) its start depth less that much."""
    unlimited = math.isinf(speed)
    for c in range(count):
        g = 0.0 if unlimited else rows.gap0[c] + speed * h
        rows.gap_floor[c] = g if (g < 0.0 or g != g) else 0.0       # as np.minimum(0, g): NaN kept


@njit(**KERNEL)
def _prepare_phase(rows, count, phase, prev_impulse, memo_mode):
    """Seed the resting contacts with their matches' impulses of the same phase last step (``prev_impulse``)
    when ``phase`` says warm, and prepare the phase's sweeps: a fresh patch memory in ``memo_mode`` and the
    blocks of the resting contacts' patches (geometry, kinds and frozen bodies fixed for the phase).
    ``phase`` as ContactStage._phase_of. Returns the number of seeded contacts."""
    warm, matched, body_inv_mass, Iinv, frozen, body_vel, body_omega, memo, order_down, patches_down, n_patches, \
        ws, cache = phase
    n_seeded = 0
    if warm:
        n_seeded = W.seed_phase(rows, count, R.RESTING, matched, prev_impulse, 1.0)
        W.apply_seeds(rows, count, R.RESTING, matched, body_inv_mass, Iinv, frozen, body_vel, body_omega)
    memo_reset(memo, n_patches, memo_mode)
    fill_cache(rows, order_down, patches_down[0], patches_down[1], 0, n_patches, R.RESTING, ALL_LEVELS, body_inv_mass,
               frozen, ws, cache)
    return n_seeded


@njit(**KERNEL)
def _begin_position_phase(rows, count, body_vel, body_omega, eps_rc, eps_t, recovery_speed, h, matched,
                          prev_anchor_a, prev_anchor_b, prev_sticking, phase, prev_impulse, memo_mode):
    """The position phase's start (ContactStage.begin_positions) in one call from Python: classify the
    contacts (collisions left, resting contacts sticking below eps_t [m/s]), make every contact not
    separating a contact joint, set the gap floors and the static-friction anchors, seed and prepare the
    sweeps (see _prepare_phase). Returns (collisions left, contacts seeded)."""
    n = R.classify(rows, count, body_vel, body_omega, eps_rc, eps_t)
    _reset_phase(rows, count, True)
    _gap_floors(rows, count, recovery_speed, h)
    W.set_anchors(rows, count, matched, prev_anchor_a, prev_anchor_b, prev_sticking)
    return n, _prepare_phase(rows, count, phase, prev_impulse, memo_mode)


@njit(**KERNEL)
def _begin_velocity_phase(rows, count, body_pos, body_quat, phase, prev_impulse, memo_mode, eps_vc):
    """The velocity phase's start (ContactStage.begin_velocities) in one call from Python: contact geometry
    at t0+h, fresh impulses and no approach targets, seed and prepare the sweeps (see _prepare_phase),
    patches passed over within eps_vc [m/s]. Returns the number of contacts seeded."""
    body_inv_mass, Iinv = phase[2], phase[3]
    R.update_geometry(rows, count, body_pos, body_quat, body_inv_mass, Iinv)
    _reset_phase(rows, count, False)
    for c in range(count):
        rows.target_n[c] = 0.0
    n_seeded = _prepare_phase(rows, count, phase, prev_impulse, memo_mode)
    memo_set_limit(phase[7], eps_vc)
    return n_seeded


@njit(cache=True)          # the level sort allocates
def _order_by_level(rows, count, body_inv_mass, n_bodies,
                    # outputs
                    body_level, order, order_down, patches_up, patches_down, level_patches):
    """The contact levels (contact.graph), the contacts sorted by level bottom-up (``order``) and top-down
    (``order_down``: a sweep carries the weight of a stack down to the ground in one pass), each split into
    patches, and the first patch of each level bottom-up. Returns (top level, patches up, patches down)."""
    top = body_levels(rows, count, body_inv_mass, n_bodies, body_level)
    contact_levels(rows, count, body_level, order)
    for i in range(count):
        order_down[i] = order[count - 1 - i]
    n_up = group_patches(rows, order, count, patches_up[0], patches_up[1])
    n_down = group_patches(rows, order_down, count, patches_down[0], patches_down[1])
    _level_ranges(rows, order, patches_up[0], n_up, top, level_patches)
    return top, n_up, n_down


@njit(**KERNEL)
def _set_targets(rows, count, body_vel, body_omega, law):
    """Newton: u_n' = −e u_n (eq. 5.2); Poisson and Stronge solve the compression with target 0 first."""
    for c in range(count):
        rows.lam_n[c] = 0.0
        rows.lam_t[c, 0] = 0.0
        rows.lam_t[c, 1] = 0.0
        rows.work_n[c] = 0.0
        if rows.kind[c] != R.COLLISION:
            continue
        u = R.relative_velocity(rows, c, body_vel, body_omega)
        un = u[0] * rows.n[c, 0] + u[1] * rows.n[c, 1] + u[2] * rows.n[c, 2]
        rows.target_n[c] = -rows.e[c] * un if law == 0 else 0.0


@njit(**KERNEL)
def _reset_phase(rows, count, collisions_to_resting):
    for c in range(count):
        rows.lam_n[c] = 0.0
        rows.lam_t[c, 0] = 0.0
        rows.lam_t[c, 1] = 0.0
        if collisions_to_resting and rows.kind[c] == R.COLLISION:
            rows.kind[c] = R.RESTING


@njit(**KERNEL)
def _freeze_up_to(body_level, level, frozen):
    for k in range(body_level.shape[0]):
        if 0 <= body_level[k] <= level:
            frozen[k] = 1


@njit(**KERNEL, called_from_python=True)     # and by kernels: one version (impulsim.kernel)
def _position_pass(rows, patches, p_lo, p_hi, bodies, pred, free, frozen, h, eps_d, level_hi, ws, cache, memo):
    """One pass over the contact joints of patches p_lo … p_hi − 1 of ``patches`` (contact.groups.PATCHES), up to
    contact level ``level_hi``, with lazily refreshed predictions. ``bodies`` and ``pred`` are the impulse
    method's groups (velocities changed, predictions and dirty flags updated in place); ``free`` holds what the
    free step needs: (body_acc, body_tau, body_inertia, body_inv_inertia, body_inv_mass, body_static, scheme);
    ``ws`` is a patch workspace, ``cache`` the phase's blocks if valid; ``memo`` the phase's patch memory
    (contact.memo: with passing over, patches within half the tolerance since their last visit are skipped)."""
    order, patch_start, patch_len = patches
    body_pos, body_quat, body_vel, body_omega, _, _, Iinv, _, _, body_inv_mass, _ = bodies
    pred_pos, pred_quat, _, _, _, dirty, _ = pred
    worst = 0.0
    moved_any = False
    idx, rest, keep, A, b, lam, dl, lcp = ws
    for p in range(p_lo, p_hi):
        bound = memo_bound(memo, p, body_vel, body_omega, h)
        if bound <= memo_limit(memo):
            worst = max(worst, bound)
            continue
        q, r = patch_setup(rows, order, patch_start, patch_len, p, R.RESTING, level_hi, body_inv_mass, frozen, ws,
                           cache)
        if q + r == 0:
            continue
        A_ = rows.body_a[idx[0]]
        B_ = rows.body_b[idx[0]]
        _refresh(A_, B_, dirty, body_pos, body_quat, body_vel, body_omega, free, h, pred_pos, pred_quat)
        seen_a = _velocities(A_, body_vel, body_omega)     # the velocities the predictions of A and B are from
        seen_b = _velocities(B_, body_vel, body_omega)
        err, moved = 0.0, False
        if q > 1:
            err, moved = position_patch_normals(rows, idx, q, pred_pos, pred_quat, body_inv_mass, Iinv, frozen, h,
                                                eps_d, body_vel, body_omega, A, b, lam, dl, lcp)
        # friction (and, outside a block, the normal impulse) point by point, each on predictions that include
        # the impulses before it (all at once from one prediction would correct the same drift m times over)
        for i in range(q + r):
            c = idx[i] if i < q else rest[i - q]
            if moved:
                seen_a = _shift_prediction(A_, seen_a, body_vel, body_omega, h, pred_pos, pred_quat)
                seen_b = _shift_prediction(B_, seen_b, body_vel, body_omega, h, pred_pos, pred_quat)
            if q == 1 or i >= q:
                e, mv = position_normal(rows, c, pred_pos, pred_quat, body_inv_mass, Iinv, frozen, h, body_vel,
                                        body_omega)
                err, moved = max(err, e), moved or mv
            e, mv = position_friction(rows, c, pred_pos, pred_quat, body_inv_mass, Iinv, frozen, h, body_vel,
                                      body_omega)
            err, moved = max(err, e), moved or mv
        if moved:
            dirty[A_] = 1
            dirty[B_] = 1
            moved_any = True
        left = err
        if memo_skips(memo):
            left = _left_after_visit(rows, idx, q, rest, r, A_, B_, err, 2.0 * memo_limit(memo), bodies, pred, free,
                                     h, frozen)
        memo_keep(memo, p, rows, idx, q, rest, r, left, body_vel, body_omega)
        worst = max(worst, err)
    return worst, moved_any


@njit(**KERNEL, forceinline=True)
def _left_after_visit(rows, idx, q, rest, r, A, B, found, tol, bodies, pred, free, h, frozen):
    """The position error a visit leaves at its patch [m], for passing over it later: measured on A's and B's
    poses predicted afresh, if the visit found the patch within the sweeps' tolerance ``tol``; else +inf (never
    passed over) without the cost of a prediction, as a patch found that far off rarely ends a visit within
    half the tolerance."""
    if found > tol:
        return np.inf
    body_pos, body_quat, body_vel, body_omega, _, _, _, _, _, _, _ = bodies
    pred_pos, pred_quat, _, _, _, dirty, _ = pred
    _refresh(A, B, dirty, body_pos, body_quat, body_vel, body_omega, free, h, pred_pos, pred_quat)
    return position_patch_residual(rows, idx, q, rest, r, pred_pos, pred_quat, frozen)


@njit(**KERNEL, forceinline=True)
def _begin_level(rows, order, patch_start, patch_len, level_patches, level, body_level, kind, body_inv_mass, frozen,
                 max_sweeps, ws, level_cache, no_cache):
    """Freeze the bodies of levels ≤ ``level`` and return the level's patch range and blocks (lo, hi, cache):
    found once here when the level gets more than one sweep; a single sweep finds them as it goes."""
    _freeze_up_to(body_level, level, frozen)
    lo, hi = level_patches[level], level_patches[level + 1]
    keep_frozen_k(rows, order, patch_start, patch_len, lo, hi, frozen)
    if max_sweeps == 1:
        return lo, hi, no_cache
    fill_cache(rows, order, patch_start, patch_len, lo, hi, kind, level, body_inv_mass, frozen, ws, level_cache)
    return lo, hi, level_cache


@njit(**KERNEL, forceinline=True)
def _end_levels(rows, order, patch_start, patch_len, level_patches, top, frozen, awake_frozen):
    """After a shock pass: back to what is frozen outside it (nothing, or the sleeping bodies), and to
    update_geometry's K entries for the contacts it swept."""
    for k in range(frozen.shape[0]):
        frozen[k] = awake_frozen[k]
    forget_frozen_k(rows, order, patch_start, patch_len, level_patches[0], level_patches[top + 1])


@njit(**KERNEL)
def _velocity_levels(rows, patches, levels, frozen, kind, body_inv_mass, Iinv, body_vel, body_omega, eps_v,
                     max_sweeps, shock):
    """One velocity pass level by level from the ground up, freezing each level's bodies once resolved
    (Guendelman; Bender 5.2.4, 5.3.2): a level's contacts of ``kind`` are swept at most ``max_sweeps`` times,
    until level_resolved. A level's pass visits only its own contacts: those below it join two frozen bodies
    and cannot act. ``patches``, ``levels`` and ``shock`` as contact.groups. Leaves ``frozen`` as
    ``awake_frozen``; returns (the largest error left [m/s], sweeps)."""
    order, patch_start, patch_len = patches
    level_patches, top, body_level, awake_frozen = levels
    ws, level_cache, no_cache, no_memo = shock
    worst = 0.0
    sweeps = 0
    for level in range(top + 1):
        lo, hi, cache = _begin_level(rows, order, patch_start, patch_len, level_patches, level, body_level, kind,
                                     body_inv_mass, frozen, max_sweeps, ws, level_cache, no_cache)
        err = 0.0
        for _ in range(max_sweeps):
            err = velocity_sweep(rows, order, patch_start, patch_len, lo, hi, kind, body_inv_mass, Iinv, frozen,
                                 body_vel, body_omega, eps_v, level, ws, cache, no_memo)
            sweeps += 1
            if level_resolved(err, eps_v, top + 1):
                break
        worst = max(worst, err)
    _end_levels(rows, order, patch_start, patch_len, level_patches, top, frozen, awake_frozen)
    return worst, sweeps


@njit(**KERNEL)
def _position_levels(rows, patches, levels, frozen, bodies, pred, free, h, eps_d, max_sweeps, shock):
    """The contact joints' pass level by level (as _velocity_levels, with _position_pass's sweeps). Returns
    (the largest error left [m], sweeps)."""
    order, patch_start, patch_len = patches
    level_patches, top, body_level, awake_frozen = levels
    ws, level_cache, no_cache, no_memo = shock
    _, _, _, _, _, _, _, _, _, body_inv_mass, _ = bodies
    worst = 0.0
    sweeps = 0
    for level in range(top + 1):
        lo, hi, cache = _begin_level(rows, order, patch_start, patch_len, level_patches, level, body_level,
                                     R.RESTING, body_inv_mass, frozen, max_sweeps, ws, level_cache, no_cache)
        err = 0.0
        for _ in range(max_sweeps):
            err, _moved = _position_pass(rows, patches, lo, hi, bodies, pred, free, frozen, h, eps_d, level, ws, cache,
                                         no_memo)
            sweeps += 1
            if level_resolved(err, eps_d, top + 1):
                break
        worst = max(worst, err)
    _end_levels(rows, order, patch_start, patch_len, level_patches, top, frozen, awake_frozen)
    return worst, sweeps


@njit(**KERNEL, forceinline=True)
def _velocities(k, body_vel, body_omega):
    return v3(body_vel[k]), v3(body_omega[k])


@njit(**KERNEL, forceinline=True)
def _shift_prediction(k, seen, body_vel, body_omega, h, pred_pos, pred_quat):
    """Carry body k's predicted pose along with the impulses applied since its velocities were ``seen``:
    the position moves by h Δv (exact: the free step is linear in v), the orientation turns by h Δω (first
    order; the body is predicted afresh at the next patch that touches it). A full prediction per point cost
    most of a position sweep. Returns the velocities now."""
    v, w = v3(body_vel[k]), v3(body_omega[k])
    dv, dw = sub(v, seen[0]), sub(w, seen[1])
    if dv[0] != 0.0 or dv[1] != 0.0 or dv[2] != 0.0:
        for i in range(3):
            pred_pos[k, i] += h * dv[i]
    if dw[0] != 0.0 or dw[1] != 0.0 or dw[2] != 0.0:
        q = q4(pred_quat[k])
        turn = qmul((0.0, 0.5 * h * dw[0], 0.5 * h * dw[1], 0.5 * h * dw[2]), q)
        q = qnormalize((q[0] + turn[0], q[1] + turn[1], q[2] + turn[2], q[3] + turn[3]))
        for i in range(4):
            pred_quat[k, i] = q[i]
    return v, w


@njit(**KERNEL)
def _refresh(A, B, dirty, body_pos, body_quat, body_vel, body_omega, free, h, pred_pos, pred_quat):
    """Predict bodies A and B afresh (free step from the current velocities) where marked dirty."""
    for k in (A, B):
        if dirty[k]:
            predict_body(k, body_pos, body_quat, body_vel, body_omega, free[0], free[1], free[2], free[3], free[4],
                         free[5], h, free[6], pred_pos, pred_quat)
            dirty[k] = 0


@njit(**KERNEL, called_from_python=True)     # and by kernels: one version (impulsim.kernel)
def position_error(rows, count, bodies, pred, free, frozen, h):
    """Largest position_residual of contacts 0 … count − 1 [m] on the bodies' poses predicted at t0 + h,
    predicted afresh where marked dirty (``bodies``, ``pred``, ``free`` as in _position_pass): what the contacts
    keep when the coupled correction ends with the joints closed after them."""
    body_pos, body_quat, body_vel, body_omega, _, _, _, _, _, _, _ = bodies
    pred_pos, pred_quat, _, _, _, dirty, _ = pred
    worst = 0.0
    for c in range(count):
        A, B = rows.body_a[c], rows.body_b[c]
        _refresh(A, B, dirty, body_pos, body_quat, body_vel, body_omega, free, h, pred_pos, pred_quat)
        worst = max(worst, position_residual(rows, c, pred_pos, pred_quat, frozen))
    return worst


@njit(**KERNEL)
def _level_ranges(rows, order, patch_start, n_patches, top, out):
    """out[L] = the first patch of contact level L (patches sorted by level, as ``order``), out[top + 1] =
    n_patches; a level without contacts gets an empty range."""
    p = 0
    for level in range(top + 2):
        while p < n_patches and rows.level[order[patch_start[p]]] < level:
            p += 1
        out[level] = p
