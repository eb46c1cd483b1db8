"""A tree in minimal coordinates with its segment contacts, state and workspaces: build it with
:class:`TreeBuilder`, advance it with :meth:`MinimalSystem.advance` (many steps per call, so the per-call cost
of the compiled kernel is shared)."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from impulsim.errors import ModelError, SimulationError
from impulsim.methods.moreau.laws import FrictionLaw
from impulsim.methods.moreau_minimal import kinematics as kin
from impulsim.methods.moreau_minimal.segments import Mesh, Segments, make_contacts, make_mesh
from impulsim.methods.moreau_minimal.step import (Options, advance, make_accumulators, make_buffers)
from impulsim.methods.moreau_minimal.tree import JointKind, SpringKind, TreeArrays, counts

E_R, E_A = 1e-6, 1e-4
"""The thesis's stop rule of the prox iteration: |ΔP| < e_r |P| + e_a [N s] per component."""


def frame_from_axis(axis) -> np.ndarray:
    """A rotation whose x column is the unit ``axis`` (the other two completed orthonormally)."""
    x = np.asarray(axis, float)
    x = x / np.linalg.norm(x)
    ref = np.array([0.0, 0.0, 1.0]) if abs(x[2]) < 0.9 else np.array([1.0, 0.0, 0.0])
    y = np.cross(ref, x)
    y /= np.linalg.norm(y)
    return np.column_stack([x, y, np.cross(x, y)])


@dataclass
class _Body:
    name: str
    parent: int
    kind: JointKind
    mass: float
    inertia: np.ndarray
    frame_p: np.ndarray
    origin_p: np.ndarray
    frame_c: np.ndarray
    origin_c: np.ndarray
    actuated: bool
    spring: tuple
    drag: float
    root_R: np.ndarray
    root_x: np.ndarray


@dataclass
class TreeBuilder:
    """Bodies added parents first; each with the joint to its parent."""
    bodies: list = field(default_factory=list)
    segments: list = field(default_factory=list)

    def index(self, name: str) -> int:
        for i, b in enumerate(self.bodies):
            if b.name == name:
                return i
        raise ModelError(f'body "{name}" does not exist')

    def add_body(self, name, *, parent=None, joint="revolute", mass, inertia, axis=(1.0, 0.0, 0.0),
                 parent_point=(0, 0, 0), child_point=(0, 0, 0), rotation=None, actuated=False,
                 spring=(SpringKind.NONE, 0.0, 0.0, 0.0, 0.0, 0.0), drag=0.0, root_rotation=None,
                 root_origin=(0, 0, 0)) -> int:
        """Add a body and its inner joint.

        parent: name of the parent body, or None for a joint on the fixed frame (``root_rotation``,
        ``root_origin``; a "free" joint needs None). axis: joint axis in the parent's principal frame.
        parent_point / child_point: the joint point relative to each centre of mass, in each body's frame
        [m]. rotation: the child's orientation relative to the parent at zero joint coordinate (3×3).
        inertia: principal moments (3) or a 3×3 tensor [kg m²] in the body frame. spring: (SpringKind, k1,
        k2, knee, damping, rest) on the joint coordinate."""
        kind = JointKind[joint.upper()] if isinstance(joint, str) else JointKind(joint)
        p = -1 if parent is None else self.index(parent)
        if kind == JointKind.FREE and p >= 0:
            raise ModelError(f'body "{name}": a free joint must attach to the fixed frame (parent=None)')
        if actuated and kind not in (JointKind.REVOLUTE, JointKind.PRISMATIC):
            raise ModelError(f'body "{name}": only revolute and prismatic joints can be actuated')
        I = np.asarray(inertia, float)
        I = np.diag(I) if I.shape == (3,) else I
        if not (mass > 0 and np.all(np.linalg.eigvalsh(I) > 0)):
            raise ModelError(f'body "{name}": mass and inertia must be positive')
        Qp = frame_from_axis(axis)
        R0 = np.eye(3) if rotation is None else np.asarray(rotation, float)
        Qc = R0.T @ Qp
        sp = tuple(spring) + (0.0,) * (6 - len(spring))
        self.bodies.append(_Body(name, p, kind, float(mass), I, Qp, np.asarray(parent_point, float), Qc,
                                 np.asarray(child_point, float), bool(actuated), sp, float(drag),
                                 np.eye(3) if root_rotation is None else np.asarray(root_rotation, float),
                                 np.asarray(root_origin, float)))
        return len(self.bodies) - 1

    def add_segment(self, body, origin, direction, *, law=FrictionLaw.COULOMB, par=(0.0,), eps_n=0.0,
                    eps_f=0.0, axis=(1.0, 0.0, 0.0), name=""):
        """A segment contact on ``body`` (name): D at ``origin`` and the segment D → D + direction, both in
        the body frame relative to its centre of mass [m]; law and its parameter row (laws.py)."""
        row = np.zeros(5)
        row[:len(par)] = par
        self.segments.append((self.index(body), np.asarray(origin, float), np.asarray(direction, float),
                              int(law), row, (float(eps_n), float(eps_f)), np.asarray(axis, float), name))

    def build(self, gravity=(0.0, 0.0, -9.81), mesh=None, **options) -> "MinimalSystem":
        b = self.bodies
        n = len(b)
        if n == 0:
            raise ModelError("the tree has no bodies")
        kinds = np.array([x.kind for x in b], np.int64)
        inputs = np.full(n, -1, np.int64)
        nk = 0
        for i, x in enumerate(b):
            if x.actuated:
                inputs[i] = nk
                nk += 1
        nq, nu, q0, u0 = counts(kinds, inputs)
        T = TreeArrays(kinds, np.array([x.parent for x in b], np.int64), q0, u0, inputs,
                       np.array([x.frame_p for x in b]), np.array([x.origin_p for x in b]),
                       np.array([x.frame_c for x in b]), np.array([x.origin_c for x in b]),
                       np.array([x.root_R for x in b]), np.array([x.root_x for x in b]),
                       np.array([x.mass for x in b]), np.array([x.inertia for x in b]),
                       np.array([int(x.spring[0]) for x in b], np.int64),
                       np.array([x.spring[1:6] for x in b], float), np.asarray(gravity, float),
                       np.array([x.drag for x in b]))
        sg = self.segments
        S = Segments(np.array([s[0] for s in sg], np.int64), np.array([s[1] for s in sg]).reshape(-1, 3),
                     np.array([s[2] for s in sg]).reshape(-1, 3), np.array([s[3] for s in sg], np.int64),
                     np.array([s[4] for s in sg]).reshape(-1, 5), np.array([s[5] for s in sg]).reshape(-1, 2),
                     np.array([s[6] for s in sg]).reshape(-1, 3))
        return MinimalSystem(T, S, mesh, nq, nu, nk, [x.name for x in b], [s[7] for s in sg], **options)


class MinimalSystem:
    """State (q, u, k, m, ṁ), constant arrays and workspaces of one tree with segment contacts."""

    def __init__(self, T, S, mesh, nq, nu, nk, names, segment_names, *, e_r=E_R, e_a=E_A, max_iter=500,
                 alpha=1.0):
        self.T, self.S = T, S
        if mesh is None:
            mesh = make_mesh(np.array([[0, 0, -1e9], [1, 0, -1e9], [0, 1, -1e9]], float),
                             np.array([[0, 1, 2]]))
        elif not isinstance(mesh, Mesh):
            mesh = make_mesh(*mesh)
        self.mesh = mesh
        self.nq, self.nu, self.nk = nq, nu, nk
        self.names, self.segment_names = names, segment_names
        self.q, self.u = np.zeros(nq), np.zeros(nu)
        self.k, self.m, self.mdot = np.zeros(nk), np.zeros(nk), np.zeros(nk)
        for i in range(len(names)):
            if T.joint_kind[i] == JointKind.FREE:
                self.q[T.joint_q[i] + 3] = 1.0
        ns = len(S.body)
        self.work = kin.make_work(len(names), nu, nk)
        self.contacts = make_contacts(ns)
        self.buffers = make_buffers(nq, nu, nk, ns)
        self.acc = make_accumulators(nu, nk, ns)
        if not (0 < alpha < 2):
            raise ValueError(f"alpha (r-factor scale) must lie in (0, 2), got {alpha}")
        self.options = Options(float(e_r), float(e_a), int(max_iter), float(alpha))
        self.t = 0.0

    @property
    def state(self):
        return (self.q, self.u, self.k, self.m, self.mdot)

    def reset_accumulators(self):
        for a in self.acc:
            a[...] = 0.0

    def advance(self, h: float, K: np.ndarray) -> int:
        """len(K) steps of Δt = h [s]; K[i] are the inputs at the end of step i (shape [n, nk]).
        Raises SimulationError (state at the last good step) if a step fails; returns the steps done."""
        K = np.ascontiguousarray(K, float)
        K = K.reshape(len(K), self.nk)
        done, status = advance(self.T, self.S, self.mesh, self.state, K, float(h), self.options, self.work,
                               self.contacts, self.buffers, self.acc)
        self.t += done * h
        if status == -1:
            raise SimulationError(f"t = {self.t:.6g} s: the mass matrix is not positive definite")
        if status == -2:
            raise SimulationError(f"t = {self.t:.6g} s: too many mesh triangles near a contact segment")
        if status == -3:
            raise SimulationError(f"t = {self.t:.6g} s: the step's result is not finite (state kept at the "
                                  f"last good step)")
        return done

    def step(self, h: float, n: int = 1):
        """n steps with the inputs held at their present values."""
        return self.advance(h, np.repeat(self.k[None, :], n, axis=0))

    def update_kinematics(self):
        """Poses, velocities, Jacobians, M and h at the present state (for queries)."""
        kin.kinematics(self.T, self.q, self.k, self.u, self.m, self.mdot, self.work)
        kin.assemble(self.T, self.q, self.u, self.work)
        return self.work

    def energy(self):
        """(kinetic, gravitational, spring) energies [J] at the present state."""
        self.update_kinematics()
        return kin.energy(self.T, self.q, self.work)

    def body(self, name):
        return self.names.index(name)
