"""Featherstone's articulated-body method with Mirtich's impulses and Holck's joint limits.

One step (the state in maximal coordinates stays the single source of truth):

    coordinates   q, q̇ ← the joints' positions and rates measured from the State
    loads         motors and PID servos → generalized forces held over the step; user forces
    collisions    contacts (Detector) and active joint limits → impulses through the tree (O(n) each)
    integrate     RK4 or semi-implicit Euler of (q, q̇) with the ABA (springs, damping per evaluation)
    write back    body poses and velocities from q, q̇ (so recording, plots and the viewer work unchanged)
"""
from __future__ import annotations

import numpy as np

from impulsim.contact.default import model_has_contacts
from impulsim.contact.materials import DEFAULT_FRICTION_RULE, DEFAULT_RESTITUTION_RULE
from impulsim.dynamics.forces import pid_effort, servo_error
from impulsim.errors import ModelError
from impulsim.kernel import njit
from impulsim.methods.base import Method, StageTimer, StepInfo
from impulsim.methods.capabilities import Capabilities
from impulsim.methods.featherstone.articulated import TreeDynamics
from impulsim.methods.featherstone.checks import largest_joint_error
from impulsim.methods.featherstone.collisions import CollisionStage, parse_law
from impulsim.methods.featherstone import run_loop
from impulsim.methods.featherstone.integrators import Integrator
from impulsim.methods.featherstone.stronge import DEFAULT_SLIP_TOL, DEFAULT_STEPS
from impulsim.methods.featherstone.tree import TreeJoint, build_tree
from impulsim.model.kinds import Coordinate, JointKind
from impulsim.model.model import Model


@njit(cache=True)
def actuator_forces(t, h, motors, servos, joints, motion,
                    # in/out
                    servo_state, tau):
    """Generalized forces of motors (constant effort) and PID servos on their coordinates [N m or N].

    A model effort acts + on body B and − on A about/along the joint axis, which is ``sign`` times a force on
    the tree coordinate (sign = −1 when A is the child in the tree).

    The groups (plain tuples, unpacked here; see :mod:`.groups` for why tuples): ``motors`` = (dof, sign,
    effort [N m or N]); ``servos`` = (dof, sign, and the model's servo_mode, servo_joint, servo_gains,
    servo_limit, servo_sp_start, servo_sp_time, servo_sp_value, servo_sp_linear); ``joints`` = the model's
    joint_body_a, joint_body_b, joint_anchor_a, joint_anchor_b, joint_axis_a, joint_ref_a, joint_ref_b;
    ``motion`` = the state's body_pos, body_quat, body_vel, body_omega; ``servo_state`` = the state's
    servo_integral, servo_prev_error, servo_effort (updated)."""
    motor_dof, motor_sign, motor_effort = motors
    (servo_dof, servo_sign, servo_mode, servo_joint, servo_gains, servo_limit, servo_sp_start, servo_sp_time,
     servo_sp_value, servo_sp_linear) = servos
    joint_body_a, joint_body_b, joint_anchor_a, joint_anchor_b, joint_axis_a, joint_ref_a, joint_ref_b = joints
    body_pos, body_quat, body_vel, body_omega = motion
    servo_integral, servo_prev_error, servo_effort = servo_state
    for m in range(motor_dof.shape[0]):
        tau[motor_dof[m]] += motor_sign[m] * motor_effort[m]
    for s in range(servo_dof.shape[0]):
        e, coord = servo_error(s, t, servo_mode, servo_joint, servo_sp_start, servo_sp_time, servo_sp_value,
                               servo_sp_linear, joint_body_a, joint_body_b, joint_anchor_a, joint_anchor_b,
                               joint_axis_a, joint_ref_a, joint_ref_b, body_pos, body_quat, body_vel, body_omega)
        u, integral = pid_effort(e, servo_prev_error[s], servo_integral[s], servo_gains[s], servo_limit[s], h)
        servo_integral[s] = integral
        servo_prev_error[s] = e
        servo_effort[s] = u
        tau[servo_dof[s]] += servo_sign[s] * u


class FeatherstoneMethod(Method):
    """Reduced coordinates: the articulated-body algorithm (Featherstone; Holck ch. 3) over trees of hinge,
    slider, cylindrical, ball, universal (perpendicular axes) and fixed joints, with free-floating bases (bodies or subtrees not attached to a
    static body get a 6-DoF joint); contacts with Newton restitution and Coulomb friction by impulses
    propagated through the tree (Mirtich), or Poisson's or Stronge's law (Stronge's integrated along the
impact as Holck derives it); joint limits by impulses (Holck ch. 4).

    Supports gravity, user forces, springs, motors (constant effort), PID servos (position or velocity
    control with an effort limit), viscous joint damping. Rejects, naming the joint: loops, distance,
    point-on-line/plane, rotation-lock, direction, double-rotation and velocity joints, universal joints
    whose axes are not perpendicular, and kinematic bodies.

    Options
    -------
    integrator : "rk4" (default, as Holck's Multi) or "euler" (semi-implicit).
    damping : joint damping d [N m s/rad or N s/m]: τ = −d q̇ on every joint freedom.
    contacts : resolve contacts found by the collision Detector. Default: on when shapes of bodies that no
        chain of joints connects may collide (see contact.default); True also detects self-collisions.
    restitution : impact law of the contacts: "newton" (default; u_n⁺ = −e u_n⁻ by sequential impulses),
        "poisson" (restitution impulse e times the compression impulse) or "stronge" (normal work of the
        restitution e² times that of the compression, each collision integrated with Coulomb friction:
        sliding, stable and unstable sticking; see stronge.py and laws.py). Joint limits always use Newton's.
    stronge_steps : RK4 steps per sliding phase of the Stronge integration (Holck's subdivision).
    slip_tol : slip speed, relative to the approach speed, below which a Stronge collision sticks (Holck's ε).
    eps_c : contact tolerance of the Detector [m].
    limits : {joint name: (lower, upper, restitution)} for hinge angles [rad] and slider positions [m],
        measured as dynamics/coordinates.py measures them; added to the limits the model carries
        (``limit_*`` arrays, used when present). A revolute limit needs |bound| < π (angles are read in
        (−π, π]).
    limit_envelope : a limit whose gap is below this [rad or m] counts as reached even at rest.
    eps_v : stop criterion of the impulse iteration: largest velocity change of a sweep [m/s].
    max_iter : sweeps of the impulse iteration at most.
    rest_speed : approach speed [m/s, or rad/s at a limit] below which a contact or limit gets no
        restitution (default 2 |g| h).
    slop, beta : penetration [m] tolerated; deeper contacts separate at beta · (depth − slop) / h.
    measure_joints : report the largest joint error of the written-back state in StepInfo.residual_pos
        (a check of the reduced coordinates; costs a pass over the joint primitives).
    eps_d : bound residual_pos is compared against for StepInfo.converged_pos.
    """

    name = "featherstone"
    unsupported = ((lambda m: not isinstance(m, Model), "models other than the rigid-body Model"),)
    capabilities = Capabilities(joints=frozenset({"hinge", "slider", "cylindrical", "ball", "universal", "fixed"}),
                                contacts=("newton", "poisson", "stronge"), limits=True)

    def __init__(self, model, *, integrator: str = "rk4", damping: float = 0.0, contacts=None,
                 eps_c: float = 1e-3, limits=None, eps_v: float = 1e-6, max_iter: int = 100,
                 rest_speed=None, slop: float = 1e-3, beta: float = 0.2, limit_envelope: float = 1e-9,
                 measure_joints: bool = True, eps_d: float = 1e-6, restitution_rule=DEFAULT_RESTITUTION_RULE,
                 friction_rule=DEFAULT_FRICTION_RULE, restitution="newton", stronge_steps: int = DEFAULT_STEPS,
                 slip_tol: float = DEFAULT_SLIP_TOL, constraints=(), forces=(), ignore=()):
        super().__init__(model, ignore=ignore, contacts=contacts, constraints=constraints, forces=forces,
                         restitution=restitution)
        if not (np.isfinite(damping) and damping >= 0):
            raise ValueError(f"damping must be non-negative, got {damping!r}")
        parse_law(restitution)                 # fail at construction on an unknown name
        if int(stronge_steps) < 1:
            raise ValueError(f"stronge_steps must be a positive integer, got {stronge_steps!r}")
        self.tree = build_tree(model)
        self.damping = float(damping)
        self.integrator_name = integrator
        self.eps_d = float(eps_d)
        self.measure_joints = bool(measure_joints)
        self.q = np.zeros(self.tree.nq)
        self.qd = np.zeros(self.tree.nv)
        self.limit_rows = self._limits(model, limits or {})
        use_contacts = model_has_contacts(model) if contacts is None else bool(contacts)
        self.detector = None
        if use_contacts:
            from impulsim.collision import Detector
            self.detector = Detector(model, eps_c)
        self._options = dict(eps_v=eps_v, max_iter=max_iter, rest_speed=rest_speed, slop=slop, beta=beta,
                             limit_envelope=limit_envelope, restitution_rule=restitution_rule,
                             friction_rule=friction_rule, law=restitution, stronge_steps=stronge_steps,
                             slip_tol=slip_tol, load_lead=1.0 if integrator == "euler" else 0.5)
        self._actuators()
        self.dyn = None

    # set-up -----------------------------------------------------------------------------------------
    def _limits(self, model, option):
        """(dof, q index, sign, lower, upper, e) per limit, from the model's arrays and the option."""
        entries = []
        for k in range(len(getattr(model, "limit_joint", ()))):
            coord = int(model.limit_coord[k]) if hasattr(model, "limit_coord") else None
            entries.append((int(model.limit_joint[k]), coord, float(model.limit_lower[k]),
                            float(model.limit_upper[k]), float(model.limit_restitution[k]),
                            f'limits[{k}] "{model.limit_names[k]}"'))
        for name, spec in option.items():
            try:
                j = model.joint(name)
            except KeyError:
                raise ModelError(f'featherstone limits: joint "{name}" does not exist') from None
            spec = tuple(spec)
            if len(spec) not in (2, 3):
                raise ModelError(f'featherstone limits "{name}": give (lower, upper) or (lower, upper, restitution)')
            lower, upper, e = spec if len(spec) == 3 else spec + (0.0,)
            entries.append((j, None, float(lower), float(upper), float(e), f'limits "{name}"'))
        return [self._limit_row(*entry) for entry in entries]

    def _limit_row(self, j, coord, lower, upper, e, label):
        kind = JointKind(int(self.model.joint_kind[j]))
        if kind not in (JointKind.HINGE, JointKind.SLIDER, JointKind.CYLINDRICAL):
            raise ModelError(f'{label}: joint "{self.model.joint_names[j]}" is a {kind.name.lower()} joint; '
                             f"limits need a hinge, slider or cylindrical joint")
        if np.isnan(lower) or np.isnan(upper) or not lower < upper:
            raise ModelError(f"{label}: need lower < upper, got [{lower}, {upper}]")
        if not (0.0 <= e <= 1.0):
            raise ModelError(f"{label}: restitution must be in [0, 1], got {e}")
        if coord is None:
            coord = Coordinate.ANGLE if kind in (JointKind.HINGE, JointKind.CYLINDRICAL) else Coordinate.POSITION
        i = int(self.tree.joint_tree[j])
        dof = self.tree.dof(j, coord)
        q_index = int(self.tree.q_start[i]) + (dof - int(self.tree.v_start[i]))
        return (dof, q_index, float(self.tree.sign[i]), lower, upper, e)

    def _actuators(self):
        m, t = self.model, self.tree
        self.motor_dof = np.array([t.dof(int(j), int(c)) for j, c in zip(m.motor_joint, m.motor_coord)], np.int64)
        self.motor_sign = t.sign[t.joint_tree[m.motor_joint]] if m.n_motors else np.zeros(0)
        modes = m.servo_mode
        coords = [Coordinate.ANGLE if md in (0, 2) else Coordinate.POSITION for md in modes]
        self.servo_dof = np.array([t.dof(int(j), int(c)) for j, c in zip(m.servo_joint, coords)], np.int64)
        self.servo_sign = t.sign[t.joint_tree[m.servo_joint]] if m.n_servos else np.zeros(0)

    def _prepare(self, state):
        """Workspaces need a State (for the static bodies' poses); built on the first step."""
        self.dyn = TreeDynamics(self.model, self.tree, state)
        self.dyn.damping = self.damping
        self.integrator = Integrator(self.integrator_name, self.dyn)
        self.collisions = CollisionStage(self.model, self.tree, self.dyn, self.detector, self.limit_rows,
                                         **self._options)

    # the step ---------------------------------------------------------------------------------------
    def contact_detector(self):
        return self.detector

    def _step(self, s, h, info: StepInfo):
        if self.dyn is None:
            self._prepare(s)
        dyn, q, qd = self.dyn, self.q, self.qd
        # live parameters (gravity, springs, servos) may have changed: Simulation.set_params swaps the model
        dyn.model = self.collisions.model = self.model
        timer = StageTimer(info.timings)
        dyn.read(s, q, qd)                 # also leaves the poses and velocities of q, q̇ in dyn
        timer.lap("coordinates")
        self._loads(s, h)                  # first: the joint limits hold the links against these loads
        timer.lap("loads")
        if self.detector is not None or self.limit_rows:
            self.collisions.resolve(s, q, qd, h, info)
        timer.lap("collisions")
        self.integrator.step(q, qd, h)
        timer.lap("integrate")
        dyn.pose(q)
        dyn.velocities(qd)
        dyn.write(s)
        s.t += h
        s.step_count += 1
        timer.lap("write back")
        if self.measure_joints and self.model.n_prims:
            m = self.model
            info.residual_pos = float(largest_joint_error(
                m.prim_kind, m.prim_body_a, m.prim_body_b, m.prim_anchor_a, m.prim_anchor_b, m.prim_axis_a,
                m.prim_axis_b, m.prim_target, m.prim_qrel, s.body_pos, s.body_quat))
            info.converged_pos = info.residual_pos <= self.eps_d
        info.iters_pos = 1

    def _loads(self, s, h):
        m, dyn = self.model, self.dyn
        dyn.user_force[...] = s.body_force
        dyn.user_torque[...] = s.body_torque
        dyn.tau_const[...] = 0.0
        actuator_forces(
            s.t, h, (self.motor_dof, self.motor_sign, s.motor_effort),
            (self.servo_dof, self.servo_sign, m.servo_mode, m.servo_joint, m.servo_gains, m.servo_limit,
             m.servo_sp_start, m.servo_sp_time, m.servo_sp_value, m.servo_sp_linear),
            (m.joint_body_a, m.joint_body_b, m.joint_anchor_a, m.joint_anchor_b, m.joint_axis_a, m.joint_ref_a,
             m.joint_ref_b),
            (s.body_pos, s.body_quat, s.body_vel, s.body_omega),
            (s.servo_integral, s.servo_prev_error, s.servo_effort), dyn.tau_const)

    # many steps -------------------------------------------------------------------------------------
    @property
    def run_path(self) -> str:
        """How :meth:`run` steps this model: "compiled" (one compiled loop, see :mod:`.run_loop`: no
        contacts, joint limits or servos) or "python" (calls of :meth:`step`)."""
        return "compiled" if run_loop.compiled(self) else "python"

    def _run_steps(self, state, h, n, iters):
        if n < 1 or not run_loop.compiled(self) or not run_loop.loop_ready(n):
            return super()._run_steps(state, h, n, iters)
        return run_loop.run_compiled(self, state, h, n, iters)

    # queries ----------------------------------------------------------------------------------------
    def coordinates(self, state):
        """(q, q̇) of ``state`` in this method's tree layout (see :class:`~.tree.Tree`)."""
        if self.dyn is None:
            self._prepare(state)
        q, qd = np.zeros(self.tree.nq), np.zeros(self.tree.nv)
        self.dyn.read(state, q, qd)
        return q, qd

    def accelerations(self, state):
        """q̈ at ``state`` under gravity, user loads (held), springs and damping (no actuators, no contacts)."""
        q, qd = self.coordinates(state)
        self.dyn.user_force[...] = state.body_force
        self.dyn.user_torque[...] = state.body_torque
        self.dyn.tau_const[...] = 0.0
        qdd = np.zeros(self.tree.nv)
        self.dyn.accelerations(q, qd, qdd)
        return qdd


__all__ = ["FeatherstoneMethod", "TreeJoint"]
