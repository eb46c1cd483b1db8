"""PyBullet as a second peer (the ``bench`` extra): impulsim's contact scenes in a PyBullet DIRECT world, a
scan of the settings a PyBullet user would touch, and the choice by the rule of :mod:`mujoco_configs`.

Conversion (:func:`build`) from an impulsim model and state, so that both start from the same bodies:

- every body with one sphere, box or half-space shape becomes one PyBullet body whose base frame is our
  principal frame (``state.body_pos``/``body_quat``), the shape placed at its pose in that frame; mass and
  principal moments are set explicitly (``changeDynamics(localInertiaDiagonal=...)``), linear and angular
  damping are set to 0 (a body that is not damped in impulsim is not damped here);
- free bodies use maximal coordinates (``useMaximalCoordinates=1``: Bullet's rigid bodies, the form PyBullet
  recommends for many free objects); static bodies have mass 0;
- a body hinged to the world (the wall's ball on its rope) becomes a multibody whose fixed base sits at the
  pivot and whose one revolute link carries the body, its motor switched off (PyBullet motorises every
  revolute joint by default);
- materials: Bullet combines two bodies' coefficients by their product (e = e₁ e₂, μ = μ₁ μ₂). The scene's
  contact coefficients under impulsim's rules (``restitution_rule``, ``friction_rule``) are computed for every
  pair of materials present; they must be one value each (true of every scene here), and each body gets the
  square roots, so that every Bullet contact has the same e and μ as impulsim's. Bullet has one friction
  coefficient: impulsim's static one is used (as for MuJoCo);
- gravity and the time step are the model's and the scene's.

Anything else (other shapes, several shapes on one body, other joints) raises NotImplementedError naming the
body or joint: nothing is dropped silently.

Physics that differ from impulsim's whatever the settings: Bullet's contacts are solved by sequential
impulses (projected Gauss–Seidel over contact rows with warm starting) for a fixed number of iterations, not
to a tolerance; penetration is removed by a split-impulse position correction scaled by an error-reduction
parameter (contactERP), so bodies may rest slightly inside each other (soft, as Baumgarte's method is);
restitution applies only above a relative speed (the restitution velocity threshold); contacts are kept
within a breaking threshold (contact points with positive distance are generated and solved as
speculative); box shapes carry a collision margin inside their extents; Bullet's friction is two
independent directions clamped per direction (a pyramid) unless cone friction applies, which in Bullet acts
on multibody contacts only.

The scan (:func:`configurations`) covers ``numSolverIterations`` (PyBullet's default 50, and 20, 10, 5), the
solver type (sequential impulse, the default, and the MLCP projected Gauss–Seidel; Dantzig's direct MLCP at
50 iterations on the heap only, it is cubic in the number of contact rows), ``enableConeFriction`` (on by
default, off), ``numSubSteps`` (0 by default, 2), and one each of ``contactERP`` = 0.2 and
``contactBreakingThreshold`` = 0.005 m on top of the defaults. :func:`scan` runs
:func:`reduced_configurations` by default (the MLCP solvers at few settings: they are 20–70 times slower than
sequential impulses already on the heap). Each configuration is run in a fresh PyBullet client from the same
start (``saveBullet``/``restoreState``; contact caches are not saved, so the first ``warmup`` steps are not
timed), and :func:`best_reasonable` picks the fastest stable one whose penetration and rest drift are each at
most twice the defaults' plus 0.1 mm (:data:`mujoco_configs.QUALITY_FACTOR`, ``QUALITY_SLACK_M``), confirmed
over the whole run by :func:`confirm`.
"""
from __future__ import annotations

import math
import os
import tempfile
import time
from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np

from impulsim.bench import mujoco_configs
from impulsim.bench.mujoco_configs import QUALITY_FACTOR, QUALITY_SLACK_M, Result
from impulsim.contact.materials import combine, parse_rule
from impulsim.geometry.shapes import ShapeKind
from impulsim.math import quat_mul, quat_rotate
from impulsim.model.kinds import JointKind


def available() -> bool:
    try:
        import pybullet  # noqa: F401
    except ImportError:
        return False
    return True


def _pb():
    import pybullet
    return pybullet


def _xyzw(q):
    return [float(q[1]), float(q[2]), float(q[3]), float(q[0])]


def _wxyz(q):
    return np.array([q[3], q[0], q[1], q[2]])


# configurations -------------------------------------------------------------------------------------------
SOLVERS = ("SI", "PGS", "Dantzig")
ITERATIONS = (50, 20, 10, 5)


@dataclass(frozen=True)
class Config:
    """One combination of PyBullet's engine parameters; None leaves Bullet's default untouched."""
    solver: str = "SI"
    iterations: int = 50
    cone: bool = True
    substeps: int = 0
    contact_erp: Optional[float] = None
    breaking: Optional[float] = None

    @property
    def label(self) -> str:
        s = f"{self.solver} {self.iterations} it{'' if self.cone else ', no cone friction'}"
        s += f", {self.substeps} substeps" if self.substeps else ""
        s += f", contactERP {self.contact_erp:g}" if self.contact_erp is not None else ""
        s += f", breaking {self.breaking:g} m" if self.breaking is not None else ""
        return s

    def parameters(self) -> dict:
        """Keyword arguments of ``setPhysicsEngineParameter`` that differ from a fresh client's."""
        pb = _pb()
        out = {}
        if self.solver != "SI":
            out["constraintSolverType"] = {"PGS": pb.CONSTRAINT_SOLVER_LCP_PGS,
                                           "Dantzig": pb.CONSTRAINT_SOLVER_LCP_DANTZIG}[self.solver]
        if self.iterations != 50:
            out["numSolverIterations"] = int(self.iterations)
        if not self.cone:
            out["enableConeFriction"] = 0
        if self.substeps:
            out["numSubSteps"] = int(self.substeps)
        if self.contact_erp is not None:
            out["contactERP"] = float(self.contact_erp)
        if self.breaking is not None:
            out["contactBreakingThreshold"] = float(self.breaking)
        return out


DEFAULT = Config()
"""A fresh PyBullet 3.2.7 client: sequential impulse, 50 iterations (``getPhysicsEngineParameters``), cone
friction on, no substeps."""


def configurations(dantzig: bool = False) -> list[Config]:
    """The scanned configurations, the default first."""
    solvers = SOLVERS if dantzig else SOLVERS[:2]
    out = [Config(s, it, cone, sub) for s in solvers for it in ITERATIONS for cone in (True, False)
           for sub in (0, 2)]
    out.remove(DEFAULT)
    return [DEFAULT] + out + [Config(contact_erp=0.2), Config(breaking=0.005)]


def reduced_configurations() -> list[Config]:
    """The wall's and the funnel's scan: the sequential-impulse grid in full, the MLCP projected Gauss–Seidel
    at 50 and 10 iterations only (on the 55-cube heap it already takes 30–120 ms per step, 20–70 times the
    sequential impulses', and lets the boxes sink 2–13 cm; its dense problem grows with the square of the
    contact rows), and the two single changes."""
    out = [c for c in configurations() if c.solver == "SI"]
    return out + [Config("PGS", 50), Config("PGS", 10)]


# conversion -----------------------------------------------------------------------------------------------
@dataclass
class World:
    """A PyBullet client holding a converted scene."""
    client: int
    h: float
    uids: dict                       # our body index -> PyBullet body unique id
    hinged: dict                     # our body index -> (uid, pivot [m], axis) for bodies on a hinge to the world
    dynamic: list                    # our indices of the moving bodies, in order
    restitution: float               # the contact restitution every pair gets
    friction: float                  # the contact friction coefficient every pair gets
    config: Config = DEFAULT

    def positions(self) -> np.ndarray:
        """Centres of mass [m] of the moving bodies, in ``dynamic`` order."""
        pb = _pb()
        out = np.empty((len(self.dynamic), 3))
        for i, k in enumerate(self.dynamic):
            if k in self.hinged:
                out[i] = pb.getLinkState(self.uids[k], 0, physicsClientId=self.client)[0]
            else:
                out[i] = pb.getBasePositionAndOrientation(self.uids[k], physicsClientId=self.client)[0]
        return out

    def velocities(self) -> np.ndarray:
        pb = _pb()
        out = np.empty((len(self.dynamic), 3))
        for i, k in enumerate(self.dynamic):
            if k in self.hinged:
                out[i] = pb.getLinkState(self.uids[k], 0, computeLinkVelocity=1, physicsClientId=self.client)[6]
            else:
                out[i] = pb.getBaseVelocity(self.uids[k], physicsClientId=self.client)[0]
        return out

    def step(self) -> None:
        _pb().stepSimulation(physicsClientId=self.client)

    def penetration(self) -> float:
        """Largest penetration [m] among the current contact points (0 when none penetrates)."""
        pts = _pb().getContactPoints(physicsClientId=self.client)
        if not pts:
            return 0.0
        return max(0.0, -min(p[8] for p in pts))

    def n_contacts(self) -> int:
        return len(_pb().getContactPoints(physicsClientId=self.client))

    def close(self) -> None:
        try:
            _pb().disconnect(physicsClientId=self.client)
        except Exception:        # already disconnected
            pass


def _single_value(values, what):
    vals = sorted(set(round(float(v), 12) for v in values))
    if len(vals) != 1:
        raise NotImplementedError(f"PyBullet conversion: the scene's contacts have {len(vals)} different {what} "
                                  f"coefficients {vals}; Bullet's product rule gives one per pair of bodies only "
                                  f"when every pair has the same (one material)")
    return vals[0]


def contact_coefficients(model, restitution_rule="product", friction_rule="sum"):
    """(e, μ) of every contact of the scene under impulsim's rules; raises if pairs differ."""
    mats = sorted(set(int(m) for m in model.shape_material))
    er, fr = int(parse_rule(restitution_rule, "restitution")), int(parse_rule(friction_rule, "friction"))
    es = [combine(er, model.material_restitution[a], model.material_restitution[b]) for a in mats for b in mats]
    mus = [combine(fr, model.material_static_friction[a], model.material_static_friction[b])
           for a in mats for b in mats]
    return _single_value(es, "restitution"), _single_value(mus, "friction")


def _shape_of(model, k):
    shapes = np.nonzero(model.shape_body == k)[0]
    if len(shapes) > 1:
        raise NotImplementedError(f'bodies[{k}] "{model.body_names[k]}": {len(shapes)} shapes; the PyBullet '
                                  f"conversion takes one shape per body")
    return int(shapes[0]) if len(shapes) else None


def _collision_shape(pb, model, s, cid, offset=np.zeros(3)):
    kind = ShapeKind(int(model.shape_kind[s]))
    pos = (np.asarray(model.shape_pos[s]) + offset).tolist()
    orn = _xyzw(model.shape_quat[s])
    if kind == ShapeKind.BOX:
        return pb.createCollisionShape(pb.GEOM_BOX, halfExtents=(0.5 * model.shape_params[s]).tolist(),
                                       collisionFramePosition=pos, collisionFrameOrientation=orn,
                                       physicsClientId=cid)
    if kind == ShapeKind.SPHERE:
        return pb.createCollisionShape(pb.GEOM_SPHERE, radius=float(model.shape_params[s][0]),
                                       collisionFramePosition=pos, physicsClientId=cid)
    if kind == ShapeKind.HALFSPACE:
        return pb.createCollisionShape(pb.GEOM_PLANE, planeNormal=[0, 0, 1], collisionFramePosition=pos,
                                       collisionFrameOrientation=orn, physicsClientId=cid)
    b = int(model.shape_body[s])
    raise NotImplementedError(f'bodies[{b}] "{model.body_names[b]}": {kind.name.lower()} shapes are not converted '
                              f"to PyBullet (sphere, box and half-space only)")


def _hinges_to_world(model):
    """our body -> joint index, for bodies hinged to a static body; other joints raise."""
    out = {}
    for j in range(model.n_joints):
        a, b = int(model.joint_body_a[j]), int(model.joint_body_b[j])
        kind = JointKind(model.joint_kind[j])
        if kind != JointKind.HINGE or (model.body_inv_mass[a] > 0) == (model.body_inv_mass[b] > 0):
            raise NotImplementedError(f'joints[{j}] "{model.joint_names[j]}": only hinges from a static body to a '
                                      f"moving one are converted to PyBullet here (got {kind.name.lower()})")
        out[b if model.body_inv_mass[b] > 0 else a] = j
    return out


def build(model, state, h, config: Config = DEFAULT, restitution_rule="product", friction_rule="sum") -> World:
    """A PyBullet DIRECT client holding ``model`` at ``state`` (velocities included), stepped by ``h`` [s]."""
    pb = _pb()
    cid = pb.connect(pb.DIRECT)
    try:
        return _fill(pb, cid, model, state, h, config, restitution_rule, friction_rule)
    except Exception:
        pb.disconnect(physicsClientId=cid)
        raise


def _fill(pb, cid, model, state, h, config, restitution_rule, friction_rule):
    pb.setGravity(*[float(g) for g in model.gravity], physicsClientId=cid)
    pb.setTimeStep(float(h), physicsClientId=cid)
    params = config.parameters()
    if params:
        pb.setPhysicsEngineParameter(physicsClientId=cid, **params)
    e, mu = contact_coefficients(model, restitution_rule, friction_rule)
    hinges = _hinges_to_world(model)
    uids, hinged, dynamic = {}, {}, []
    for k in range(model.n_bodies):
        s = _shape_of(model, k)
        if s is None:
            if model.body_inv_mass[k] > 0:
                raise NotImplementedError(f'bodies[{k}] "{model.body_names[k]}": a moving body without a shape')
            continue                      # the world
        pos, quat = state.body_pos[k], state.body_quat[k]
        if model.body_inv_mass[k] == 0:
            uids[k] = pb.createMultiBody(0.0, _collision_shape(pb, model, s, cid), basePosition=pos.tolist(),
                                         baseOrientation=_xyzw(quat), physicsClientId=cid)
        elif k in hinges:
            uids[k], hinged[k] = _hinged_body(pb, cid, model, state, k, hinges[k], s)
            dynamic.append(k)
        else:
            uid = pb.createMultiBody(float(model.body_mass[k]), _collision_shape(pb, model, s, cid),
                                     basePosition=pos.tolist(), baseOrientation=_xyzw(quat),
                                     useMaximalCoordinates=1, physicsClientId=cid)
            # the mass again: PyBullet 3.2.7 sets a maximal-coordinate body's mass to 0 when only its inertia is
            # changed
            pb.changeDynamics(uid, -1, mass=float(model.body_mass[k]),
                              localInertiaDiagonal=model.body_inertia[k].tolist(), physicsClientId=cid)
            pb.resetBaseVelocity(uid, state.body_vel[k].tolist(), state.body_omega[k].tolist(), physicsClientId=cid)
            uids[k] = uid
            dynamic.append(k)
        link = 0 if k in hinged else -1
        pb.changeDynamics(uids[k], link, restitution=math.sqrt(e), lateralFriction=math.sqrt(mu),
                          rollingFriction=0.0, spinningFriction=0.0, linearDamping=0.0, angularDamping=0.0,
                          physicsClientId=cid)
    return World(cid, float(h), uids, hinged, dynamic, e, mu, config)


def _hinged_body(pb, cid, model, state, k, j, s):
    """A fixed base at the pivot and one revolute link carrying body k (its frame at the pivot, the centre of
    mass and the shape offset by the rope)."""
    a = int(model.joint_body_a[j])
    if a == k:
        raise NotImplementedError(f'joints[{j}] "{model.joint_names[j]}": the moving body must be body b')
    pa = state.body_pos[a] + quat_rotate(state.body_quat[a], model.joint_anchor_a[j])
    axis = quat_rotate(state.body_quat[a], model.joint_axis_a[j])
    r = state.body_pos[k] - pa
    q = state.body_quat[k]
    r_local = quat_rotate(np.array([q[0], -q[1], -q[2], -q[3]]), r)      # rope in the body's frame
    axis_local = quat_rotate(np.array([q[0], -q[1], -q[2], -q[3]]), axis)
    col = _collision_shape(pb, model, s, cid, offset=r_local)
    uid = pb.createMultiBody(0.0, -1, basePosition=pa.tolist(), baseOrientation=_xyzw(q),
                             linkMasses=[float(model.body_mass[k])], linkCollisionShapeIndices=[col],
                             linkVisualShapeIndices=[-1], linkPositions=[[0, 0, 0]],
                             linkOrientations=[[0, 0, 0, 1]], linkInertialFramePositions=[r_local.tolist()],
                             linkInertialFrameOrientations=[[0, 0, 0, 1]], linkParentIndices=[0],
                             linkJointTypes=[pb.JOINT_REVOLUTE], linkJointAxis=[axis_local.tolist()],
                             physicsClientId=cid)
    pb.changeDynamics(uid, 0, mass=float(model.body_mass[k]), localInertiaDiagonal=model.body_inertia[k].tolist(),
                      physicsClientId=cid)
    pb.setJointMotorControl2(uid, 0, pb.VELOCITY_CONTROL, force=0.0, physicsClientId=cid)
    rate = float(np.dot(state.body_omega[k], axis))
    pb.resetJointState(uid, 0, 0.0, rate, physicsClientId=cid)
    return uid, (pa, axis, r)


def hinge_angle(world: World, k: int, centre) -> float:
    """The hinge angle [rad] about its axis that brings hinged body k's centre to ``centre``."""
    pa, axis, r0 = world.hinged[k]
    r = np.asarray(centre) - pa
    return math.atan2(float(axis @ np.cross(r0, r)), float(r0 @ r))


def set_poses(world: World, model, state) -> None:
    """Put every moving body of ``world`` at ``state``'s pose (for judging impulsim's poses with Bullet's
    collision stage)."""
    pb = _pb()
    for k in world.dynamic:
        if k in world.hinged:
            pb.resetJointState(world.uids[k], 0, hinge_angle(world, k, state.body_pos[k]),
                               physicsClientId=world.client)
        else:
            pb.resetBasePositionAndOrientation(world.uids[k], state.body_pos[k].tolist(),
                                               _xyzw(state.body_quat[k]), physicsClientId=world.client)


def probe_penetration(world: World, model, state) -> float:
    """Largest penetration [m] Bullet's collision stage finds among impulsim's poses in ``state``."""
    set_poses(world, model, state)
    _pb().performCollisionDetection(physicsClientId=world.client)
    return world.penetration()


# scenes ---------------------------------------------------------------------------------------------------
def _scene_table():
    from impulsim.experiments import bender_contacts as S
    from impulsim.contact.materials import BENDER_RULES as R
    return {
        # builder, step, seconds, scan window [steps], budget per configuration [s], rest bodies
        "funnel": dict(build=S.funnel, h=S.FUNNEL_H, seconds=S.FUNNEL_DURATION, window=30, budget=4.0,
                       rules=R, start_s=2.0),
        "wall": dict(build=S.wall, h=S.WALL_H, seconds=S.WALL_DURATION, window=240, budget=12.0, rules=R),
        "heap": dict(build=S.pyramid, h=S.STACK_H, seconds=10.0, window=100, budget=12.0, rules=R),
    }


SCENE_NAMES = ("funnel", "wall", "heap")


def scene(name: str):
    """(impulsim model, state, scene record) of a contact scene by name."""
    sc = _scene_table()[name]
    model, state = sc["build"]()
    return model, state, sc


def scene_world(name: str, config: Config = DEFAULT):
    """(impulsim model, state, record, PyBullet World) of a scene."""
    model, state, sc = scene(name)
    return model, state, sc, build(model, state, sc["h"], config, **sc["rules"])


def rest_indices(name: str, world: World) -> np.ndarray:
    """Positions in ``world.dynamic`` of the bodies that should stay at rest (the wall's stones before the
    impact; the heap's boxes); none for the funnel."""
    if name == "funnel":
        return np.array([], int)
    return np.array([i for i, k in enumerate(world.dynamic) if k not in world.hinged], int)


def count_through(world: World) -> int:
    """Funnel cubes whose centre is below the outlet."""
    from impulsim.experiments import bender_contacts as S
    return int((world.positions()[:, 2] < S.FUNNEL_OUTLET_Z).sum())


def wall_ball_touches(world: World) -> bool:
    """The wall's ball within 1 mm of the wall's face plane (impulsim's contact tolerance eps_c)."""
    from impulsim.experiments import bender_contacts as S
    k = next(iter(world.hinged))
    y = world.positions()[world.dynamic.index(k), 1]
    return y + S.WALL_BALL_RADIUS >= -0.5 * S.WALL_STONE[1] - S.WALL_SETTINGS["eps_c"]


def _finite(world: World) -> bool:
    return bool(np.isfinite(world.positions()).all() and np.isfinite(world.velocities()).all())


# scan -----------------------------------------------------------------------------------------------------
def run_window(name, world: World, steps, warmup=3, budget_s=float("inf")) -> dict:
    """Step ``world`` ``steps`` times; time each step after ``warmup`` (process CPU and wall); quality as in
    :class:`mujoco_configs.Result`: largest penetration every step, rest drift (the wall: until the ball
    touches it), bodies through the funnel at the end."""
    rest = rest_indices(name, world)
    start = world.positions()[rest]
    cpu, wall, ncon = [], [], []
    pen, drift, standing, t0 = 0.0, 0.0, True, time.perf_counter()
    ok = True
    for k in range(steps):
        w0, c0 = time.perf_counter(), time.process_time()
        world.step()
        c1, w1 = time.process_time(), time.perf_counter()
        if k >= warmup:
            cpu.append(c1 - c0)
            wall.append(w1 - w0)
        pts = _pb().getContactPoints(physicsClientId=world.client)
        ncon.append(len(pts))
        if pts:
            pen = max(pen, -min(p[8] for p in pts))
        if len(rest) and standing:
            p = world.positions()
            drift = max(drift, float(np.linalg.norm(p[rest] - start, axis=1).max()))
            if name == "wall" and wall_ball_touches(world):
                standing = False
        if not _finite(world):
            ok = False
            break
        if w1 - t0 > budget_s and k >= warmup:
            break
    return dict(steps=len(cpu), cpu_ms=1e3 * float(np.median(cpu)) if cpu else float("nan"),
                wall_ms=1e3 * float(np.median(wall)) if wall else float("nan"), penetration=max(pen, 0.0),
                drift=drift, count=count_through(world) if name == "funnel" else None,
                stable=ok and _finite(world), warnings={} if ok else {"non-finite state": 1},
                avg_contacts=float(np.mean(ncon)) if ncon else 0.0)


def start_file(name: str, seconds: float, config: Config = DEFAULT) -> tuple[str, str]:
    """Run the scene ``seconds`` with ``config`` and save its state (``saveBullet``); (file, description)."""
    model, state, sc, world = scene_world(name, config)
    for _ in range(int(round(seconds / sc["h"]))):
        world.step()
    fd, path = tempfile.mkstemp(suffix=".bullet")
    os.close(fd)
    _pb().saveBullet(path, physicsClientId=world.client)
    where = f"the state at t = {seconds:g} s ({world.n_contacts()} contact points), reached with {config.label}"
    world.close()
    return path, where


def scan(name: str, configs=None, steps=None, start: Optional[str] = None, warmup=3, budget_s=None,
         progress: Optional[Callable] = None) -> list[Result]:
    """Each configuration (default :func:`configurations`) over a window of ``steps`` (the scene's) in a
    fresh client from ``start`` (a ``saveBullet`` file) or the scene's initial state."""
    model, state, sc = scene(name)
    steps = steps or sc["window"]
    budget_s = sc["budget"] if budget_s is None else budget_s
    out = []
    if configs is None:
        configs = reduced_configurations() + ([Config("Dantzig", 50)] if name == "heap" else [])
    for cfg in configs:
        world = build(model, state, sc["h"], cfg, **sc["rules"])
        try:
            if start is not None:
                _pb().restoreState(fileName=start, physicsClientId=world.client)
            r = Result(config=cfg, **run_window(name, world, steps, warmup, budget_s))
        finally:
            world.close()
        out.append(r)
        if progress:
            progress(r)
    return out


def best_reasonable(results: list[Result], factor: float = QUALITY_FACTOR, slack: float = QUALITY_SLACK_M):
    """The fastest acceptable result by the rule MuJoCo's scan uses (mujoco_configs.best_reasonable), with
    PyBullet's defaults as the reference."""
    return mujoco_configs.best_reasonable(results, factor, slack, default_config=DEFAULT, engine="PyBullet")


def long_run(name: str, config: Config, seconds=None) -> Result:
    """The whole run of a scene from its initial state under ``config``."""
    model, state, sc, world = scene_world(name, config)
    try:
        steps = int(round((seconds or sc["seconds"]) / sc["h"]))
        return Result(config=config, **run_window(name, world, steps, warmup=3))
    finally:
        world.close()


def confirm(name: str, results: list[Result], default: Result, seconds=None, checks: Optional[int] = None,
            factor: float = QUALITY_FACTOR, slack: float = QUALITY_SLACK_M, progress=None, first: int = 0):
    """The scan's acceptable configurations, fastest first, each over the whole run from the initial state
    (as :func:`mujoco_configs.confirm`): with ``checks`` None until the first keeps the bound (penetration and
    rest drift within ``factor`` × ``default``'s plus ``slack``) throughout; otherwise candidates ``first`` …
    ``first + checks − 1`` all, and the fastest over the run that keeps the bound is kept. Returns (kept
    Result or None, every long Result)."""
    return mujoco_configs.confirm_with(lambda r: long_run(name, r.config, seconds), results, default, factor,
                                       slack, progress, first, checks)


def table(results: list[Result], chosen=None) -> str:
    """Markdown table of a scan, fastest first; the chosen row marked."""
    lines = ["| configuration | steps | CPU ms/step | wall ms/step | max penetration [m] | rest drift [m] | "
             "count | contact points | stable |", "|---|---|---|---|---|---|---|---|---|"]
    for r in sorted(results, key=lambda r: (np.isnan(r.cpu_ms), r.cpu_ms)):
        mark = " **(chosen)**" if chosen is not None and r.config == chosen.config else ""
        mark += " (default)" if r.config == DEFAULT else ""
        lines.append(f"| {r.config.label}{mark} | {r.steps} | {r.cpu_ms:.3g} | {r.wall_ms:.3g} | "
                     f"{r.penetration:.3g} | {r.drift:.3g} | {'' if r.count is None else r.count} | "
                     f"{r.avg_contacts:.0f} | {'yes' if r.stable else 'no'} |")
    return "\n".join(lines)


PEER_CONFIGS: dict = {"heap": DEFAULT, "wall": Config("SI", 20, False, 0), "funnel": Config("SI", 5, True, 0)}
"""PyBullet's configuration per scene, as kept by the scan and its whole-run check (docs/peers.md). The heap
keeps the defaults: the one faster configuration of the window that kept the bound over 10 s was no faster
than the defaults over the run (1.71 against 1.61 ms per step). The funnel's window pick, 5 sequential-impulse
iterations, kept the bound over the whole 8 s run (8.34 against the defaults' 11.3 ms per step)."""


def peer_config(name: str) -> Config:
    return PEER_CONFIGS.get(name, DEFAULT)


# articulated trees (no contacts) --------------------------------------------------------------------------
@dataclass
class Tree:
    """A PyBullet multibody holding a tree of ball joints (impulsim's chains and trees)."""
    client: int
    uid: int
    links: list                      # our body index per link, in link order
    h: float

    def step(self) -> None:
        _pb().stepSimulation(physicsClientId=self.client)

    def positions(self) -> np.ndarray:
        pb = _pb()
        return np.array([pb.getLinkState(self.uid, i, computeForwardKinematics=1, physicsClientId=self.client)[0]
                         for i in range(len(self.links))])

    def angular_velocities(self) -> np.ndarray:
        pb = _pb()
        return np.array([pb.getLinkState(self.uid, i, computeLinkVelocity=1, computeForwardKinematics=1,
                                         physicsClientId=self.client)[7]
                         for i in range(len(self.links))])

    def close(self) -> None:
        _pb().disconnect(physicsClientId=self.client)


MAX_SPHERICAL_LINKS = 32
"""Measured with PyBullet 3.2.7: a multibody of 32 spherical links (128 position coordinates) is built at the
given poses, one of 33 (chains and trees alike) has NaN link states from the start. So Bender's chain of 50
and trees of 63 and 255 bodies do not run as PyBullet multibodies."""


def _version() -> str:
    from importlib.metadata import version
    try:
        return version("pybullet")
    except Exception:
        return "?"


def _conj(q):
    return np.array([q[0], -q[1], -q[2], -q[3]])


def build_tree(model, state, h, config: Config = DEFAULT) -> Tree:
    """A PyBullet multibody of ``model``'s ball-joint tree at ``state``: a massless fixed base at the world's
    origin, one spherical link per body (link frame at its parent joint's point, oriented as the body at
    ``state``; centre of mass and principal moments as impulsim's), joint velocities from the relative
    angular velocities, motors off, no damping, no collision shapes. Other joints, loops and static bodies
    other than the world raise NotImplementedError."""
    from impulsim.bench.mujoco_peer import _tree_edges, _anchor_on
    pb = _pb()
    edges, cuts = _tree_edges(model)
    if cuts:
        j = cuts[0]
        raise NotImplementedError(f'joints[{j}] "{model.joint_names[j]}": closes a loop; the PyBullet multibody '
                                  f"conversion takes trees only")
    for child, (j, _) in edges.items():
        if JointKind(model.joint_kind[j]) != JointKind.BALL:
            raise NotImplementedError(f'joints[{j}] "{model.joint_names[j]}": '
                                      f"{JointKind(model.joint_kind[j]).name.lower()} joints are not converted to "
                                      f"a PyBullet multibody here (ball joints only)")
    if len(edges) > MAX_SPHERICAL_LINKS:
        raise NotImplementedError(f'model "{model.name}": {len(edges)} ball joints; a PyBullet {_version()} multibody '
                                  f"holds at most {MAX_SPHERICAL_LINKS} spherical links (from 33 on its link "
                                  f"states come back NaN)")
    children: dict[int, list[int]] = {}
    for child, (_, parent) in edges.items():
        children.setdefault(parent, []).append(child)
    # depth first, parents before children: PyBullet numbers a multibody's links in this order whatever the
    # order they are given in
    order, stack = [], list(reversed(children.get(-1, [])))
    while stack:
        k = stack.pop()
        order.append(k)
        stack += reversed(children.get(k, []))
    index = {k: i for i, k in enumerate(order)}
    origin = {}                                        # link frame origin in the body's principal frame
    pos, orn, parents, com, masses = [], [], [], [], []
    for k in order:
        j, parent = edges[k]
        origin[k] = np.asarray(_anchor_on(model, j, k), float)
        qk = state.body_quat[k]
        if parent < 0:
            a = int(model.joint_body_a[j]) if int(model.joint_body_b[j]) == k else int(model.joint_body_b[j])
            p_world = state.body_pos[a] + quat_rotate(state.body_quat[a], _anchor_on(model, j, a))
            pos.append(p_world.tolist())
            orn.append(_xyzw(qk))
            parents.append(0)
        else:
            qp = state.body_quat[parent]
            pos.append((np.asarray(_anchor_on(model, j, parent)) - origin[parent]).tolist())
            orn.append(_xyzw(quat_mul(_conj(qp), qk)))
            parents.append(index[parent] + 1)
        com.append((-origin[k]).tolist())
        masses.append(float(model.body_mass[k]))
    cid = pb.connect(pb.DIRECT)
    pb.setGravity(*[float(g) for g in model.gravity], physicsClientId=cid)
    pb.setTimeStep(float(h), physicsClientId=cid)
    if config.parameters():
        pb.setPhysicsEngineParameter(physicsClientId=cid, **config.parameters())
    n = len(order)
    uid = pb.createMultiBody(0.0, -1, basePosition=[0, 0, 0], linkMasses=masses, linkCollisionShapeIndices=[-1] * n,
                             linkVisualShapeIndices=[-1] * n, linkPositions=pos, linkOrientations=orn,
                             linkInertialFramePositions=com, linkInertialFrameOrientations=[[0, 0, 0, 1]] * n,
                             linkParentIndices=parents, linkJointTypes=[pb.JOINT_SPHERICAL] * n,
                             linkJointAxis=[[0, 0, 1]] * n, physicsClientId=cid)
    pb.changeDynamics(uid, -1, linearDamping=0.0, angularDamping=0.0, physicsClientId=cid)
    for i, k in enumerate(order):
        pb.changeDynamics(uid, i, mass=masses[i], localInertiaDiagonal=model.body_inertia[k].tolist(),
                          jointDamping=0.0, physicsClientId=cid)
        pb.setJointMotorControlMultiDof(uid, i, pb.POSITION_CONTROL, targetPosition=[0, 0, 0, 1], positionGain=0.0,
                                        velocityGain=0.0, force=[0.0, 0.0, 0.0], physicsClientId=cid)
        parent = edges[k][1]
        w_rel = state.body_omega[k] - (state.body_omega[parent] if parent >= 0 else 0.0)
        pb.resetJointStateMultiDof(uid, i, targetValue=[0, 0, 0, 1],
                                   targetVelocity=quat_rotate(_conj(state.body_quat[k]), w_rel).tolist(),
                                   physicsClientId=cid)
    return Tree(cid, uid, order, float(h))
