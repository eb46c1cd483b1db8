"""MJCF import through MuJoCo's own compiler (``mujoco.MjModel.from_xml_path``, the ``bench`` extra).

Every convention is MuJoCo's: the model is compiled by MuJoCo, then read from the compiled arrays at the
reference configuration ``qpos0`` (body poses, ``body_mass``, ``body_inertia`` about ``body_ipos`` on the
axes ``body_iquat``, joint anchors and axes, geom sizes, mesh vertices). How it maps onto impulsim:

- Bodies welded together (MuJoCo's ``body_weldid``: no joint between them) are one rigid body; their
  mass properties are combined exactly. Its user frame is the inertial frame of the body carrying the
  joints, so a single body's inertia arrives diagonal, as MuJoCo computed it. Bodies welded to the world
  are static; their geoms (ground planes) go on one static body called ``worldbody``.
- Joints of one body: ``free`` → none (a free body); one ``hinge`` → hinge, one ``slide`` → slider (with
  a limit when ``limited``; bounds relative to ``ref``); ``ball`` → ball. Several joints in one body map
  only where impulsim has the exact joint: two hinges through one point → universal (cardan, first axis on
  the parent, second on the body, as MuJoCo composes them); three hinges through one point with
  independent axes → ball; a hinge and a slide along one axis → cylindrical. Any other combination is
  refused with a clear error: impulsim does not insert massless intermediate bodies, because a tiny mass
  would change the dynamics and the conditioning that the comparison with MuJoCo is about.
- Geoms: plane → half-space, box, sphere, capsule, cylinder, ellipsoid; mesh → the convex hull of
  MuJoCo's compiled vertices (MuJoCo collides meshes as their hulls too). Geoms with ``contype`` and
  ``conaffinity`` both 0 are display only (:attr:`ImportReport.visuals`); two bodies none of whose geoms
  pass MuJoCo's contype/conaffinity test never collide. Sliding friction → a material.
- Equality constraints: ``connect`` → ball joint, ``weld`` → fixed joint; contact ``exclude`` pairs →
  collision exclusions; actuators on joints: ``motor`` → motor (effort = gear · ctrl, starting at 0),
  ``position`` → angle/position servo (kp, kd = kv), ``velocity`` → velocity servo, with ``forcerange`` as
  the servo's limit.
- Everything else present in the file is listed, one line per element or per property, in
  :attr:`ImportReport.unmapped` and warned about: joint damping, armature, friction loss, stiffness,
  ball cones, soft-contact parameters (solref/solimp), tendons, other equality and actuator types,
  height fields, sensors, keyframes.
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from impulsim.errors import ModelError
from impulsim.geometry import Box, Capsule, ConvexHull, Cylinder, Ellipsoid, HalfSpace, Sphere
from impulsim.io.formats import FormatError, ImportReport
from impulsim.math import quat_from_matrix


def compile_mjcf(path):
    """MuJoCo's compiled model of ``path``; its errors become one line ``file:line: element: problem``."""
    try:
        import mujoco
    except ImportError:
        raise FormatError(f"{path}: MJCF import needs MuJoCo: pip install 'impulsim[bench]'") from None
    path = Path(path)
    if not path.is_file():
        raise FormatError(f"{path}: no such file")
    try:
        return mujoco.MjModel.from_xml_path(str(path))
    except ValueError as exc:
        raise FormatError(mujoco_error_line(str(exc), path)) from None


def mujoco_error_line(message: str, path) -> str:
    """MuJoCo's compiler message as ``file:line: element: problem`` (the line found in the file when
    MuJoCo does not give one)."""
    text = " ".join(message.split())
    m = re.search(r"Element '([^']*)', line (\d+)", text)
    if m:
        problem = text[:m.start()].strip().rstrip(":").strip()
        problem = re.sub(r"^(XML )?Error:\s*", "", problem)
        rest = text[m.end():].strip()
        return f"{path}:{m.group(2)}: <{m.group(1)}>: {problem}" + (f" ({rest})" if rest else "")
    m = re.search(r"XML_ERROR_(\w+).*?Line number=(\d+):?\s*(.*)", text)
    if m:
        return f"{path}:{m.group(2)}: XML: {m.group(1).lower().replace('_', ' ')}" + \
            (f" ({m.group(3).strip()})" if m.group(3).strip() else "")
    m = re.search(r"Error opening file '([^']*)'", text)
    if m:
        line, tag = _line_of_file_reference(path, m.group(1))
        return f"{path}:{line}: <{tag}>: file {m.group(1)!r} does not exist"
    problem = re.sub(r"^(XML )?Error:\s*", "", text)
    return f"{path}:0: <mujoco>: {problem}"


def _line_of_file_reference(path, name):
    try:
        from lxml import etree
        root = etree.parse(str(path)).getroot()
    except Exception:
        return 0, "mujoco"
    base = Path(name).name
    for e in root.iter():
        f = e.get("file") if isinstance(e.tag, str) else None
        if f and Path(f).name == base:
            return e.sourceline, e.tag
    return 0, "mujoco"


def _element_lines(path):
    """(tag, name) -> line of the named elements of the top file, for the report's lines."""
    try:
        from lxml import etree
        root = etree.parse(str(path)).getroot()
    except Exception:
        return {}
    return {(e.tag, e.get("name")): e.sourceline for e in root.iter() if isinstance(e.tag, str) and e.get("name")}


def load_mjcf(path, *, gravity=None, name: str | None = None):
    """A :class:`~impulsim.model.builder.ModelBuilder` filled from the MJCF file ``path`` (compiled by
    MuJoCo). The builder's ``import_report`` lists what was not mapped; ``import_timestep`` is MuJoCo's
    ``opt.timestep`` [s]. Raises :class:`FormatError` (one line) on a bad file or an unmappable body."""
    from impulsim.model.builder import ModelBuilder
    m = compile_mjcf(path)
    import mujoco
    d = mujoco.MjData(m)
    d.qpos[:] = m.qpos0
    mujoco.mj_kinematics(m, d)
    report = ImportReport(str(path))
    g = m.opt.gravity.copy() if gravity is None else gravity
    builder = ModelBuilder(name or _model_name(m) or Path(path).stem, gravity=g)
    builder.import_report = report
    builder.import_timestep = float(m.opt.timestep)
    _Importer(m, d, report, builder, str(path)).run()
    return builder


def _model_name(m):
    import mujoco
    return mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_MODEL, 0) if hasattr(mujoco.mjtObj, "mjOBJ_MODEL") else None


class _Importer:
    def __init__(self, m, d, report, builder, file):
        import mujoco
        self.mj, self.m, self.d, self.report, self.b, self.file = mujoco, m, d, report, builder, file
        self.lines = _element_lines(file)

    # names and places --------------------------------------------------------------------------
    def _name(self, obj, i, prefix):
        n = self.mj.mj_id2name(self.m, obj, i)
        return n if n else f"{prefix}{i}"

    def body_name(self, i):
        return self._name(self.mj.mjtObj.mjOBJ_BODY, i, "body")

    def joint_name(self, i):
        return self._name(self.mj.mjtObj.mjOBJ_JOINT, i, "joint")

    def at(self, tag, name):
        line = self.lines.get((tag, name))
        return f"{self.file}:{line}: {tag} \"{name}\"" if line else f'{self.file}: {tag} "{name}"'

    def run(self):
        m = self.m
        self.weld = np.asarray(m.body_weldid)
        self.groups = {0: []}               # the world's own geoms, even when no body is welded to it
        for i in range(1, m.nbody):
            self.groups.setdefault(int(self.weld[i]), []).append(i)
        self.frames, self.frames_by_name = {}, {}
        self.colliding_geoms = []           # MuJoCo geoms that became collision shapes
        for root in sorted(self.groups):
            self._add_body(root)
        for root in sorted(self.groups):
            if root != 0:
                self._add_joints(root)
        self._equalities()
        self._exclusions()
        self._actuators()
        self._note_rest()

    def group_body(self, i):
        """Impulsim body name of MuJoCo body ``i`` (the world for bodies welded to it)."""
        w = int(self.weld[i])
        return "world" if w == 0 else self.body_name(w)

    # bodies -------------------------------------------------------------------------------------
    def _add_body(self, root):
        m, d = self.m, self.d
        members = self.groups[root]
        if root == 0:
            self.frames[0] = (np.zeros(3), np.eye(3))
            self.frames_by_name["world"] = self.frames[0]
            self._add_static(0, "worldbody")
            for b in members:
                if b != 0:
                    self._add_static(b, self.body_name(b))
            return
        pos, R = d.xipos[root].copy(), d.ximat[root].reshape(3, 3).copy()
        self.frames[root] = (pos, R)
        self.frames_by_name[self.body_name(root)] = (pos, R)
        shapes = []
        for b in members:
            shapes += self._geoms_of(b, pos, R, static=False)
        mass, com, inertia = self._mass_properties(members, pos, R)
        name = self.body_name(root)
        self.b.add_body(name, shapes=shapes, mass=mass, inertia=inertia, com=com, position=pos,
                        orientation=quat_from_matrix(np.ascontiguousarray(R)),
                        where=self.at("body", name).split(": ")[0])

    def _add_static(self, b, name):
        """A body welded to the world (or the world's own geoms) as a static body in its own frame."""
        pos, R = self.d.xpos[b].copy(), self.d.xmat[b].reshape(3, 3).copy()
        shapes = self._geoms_of(b, pos, R, static=True)
        if b == 0 and not shapes:
            return
        self.b.add_body(name, shapes=shapes, static=True, position=pos,
                        orientation=quat_from_matrix(np.ascontiguousarray(R)),
                        where=self.at("body", name).split(": ")[0])

    def _geoms_of(self, b, pos, R, static):
        m = self.m
        shapes = []
        for gi in range(m.body_geomadr[b], m.body_geomadr[b] + m.body_geomnum[b]):
            shapes += self._geom(gi, pos, R, static=static)
        return shapes

    def _mass_properties(self, members, pos, R):
        m, d = self.m, self.d
        if len(members) == 1:
            b = members[0]
            return float(m.body_mass[b]), np.zeros(3), np.diag(m.body_inertia[b])
        parts = []
        for b in members:
            if m.body_mass[b] <= 0:
                continue
            Rb = R.T @ d.ximat[b].reshape(3, 3)
            parts.append((float(m.body_mass[b]), R.T @ (d.xipos[b] - pos), Rb @ np.diag(m.body_inertia[b]) @ Rb.T))
        mass = sum(p[0] for p in parts)
        com = sum(p[0] * p[1] for p in parts) / mass
        inertia = np.zeros((3, 3))
        for mb, c, I in parts:
            r = c - com
            inertia += I + mb * (np.dot(r, r) * np.eye(3) - np.outer(r, r))
        return mass, com, inertia

    def _geom(self, gi, pos, R, static):
        m, d, mj = self.m, self.d, self.mj
        T = mj.mjtGeom
        kind = int(m.geom_type[gi])
        size = m.geom_size[gi]
        gname = self._name(mj.mjtObj.mjOBJ_GEOM, gi, "geom")
        p = R.T @ (d.geom_xpos[gi] - pos)
        q = quat_from_matrix(np.ascontiguousarray(R.T @ d.geom_xmat[gi].reshape(3, 3)))
        material = self._material(gi)
        pose = dict(position=p, orientation=q, material=material)
        try:
            if kind == T.mjGEOM_PLANE:
                if not static:
                    self.report.note(f"{self.at('geom', gname)}: a plane on a moving body is not mapped")
                    return []
                shape = HalfSpace(**pose)
            elif kind == T.mjGEOM_SPHERE:
                shape = Sphere(radius=size[0], **pose)
            elif kind == T.mjGEOM_BOX:
                shape = Box(size=2 * size, **pose)
            elif kind == T.mjGEOM_CAPSULE:
                shape = Capsule(radius=size[0], length=2 * size[1], **pose)
            elif kind == T.mjGEOM_CYLINDER:
                shape = Cylinder(radius=size[0], length=2 * size[1], **pose)
            elif kind == T.mjGEOM_ELLIPSOID:
                shape = Ellipsoid(semi_axes=size.copy(), **pose)
            elif kind == T.mjGEOM_MESH:
                k = int(m.geom_dataid[gi])
                v = m.mesh_vert[m.mesh_vertadr[k]:m.mesh_vertadr[k] + m.mesh_vertnum[k]].astype(float)
                shape = ConvexHull(points=v, **pose)
            else:
                self.report.note(f"{self.at('geom', gname)}: {T(kind).name[7:].lower()} geoms are not mapped")
                return []
        except (ValueError, ModelError) as exc:
            raise FormatError(f"{self.at('geom', gname)}: {' '.join(str(exc).split())}") from None
        if m.geom_contype[gi] == 0 and m.geom_conaffinity[gi] == 0:
            self.report.visuals.append((self.group_body(int(m.geom_bodyid[gi])), shape))
            return []
        self.colliding_geoms.append(gi)
        return [shape]

    def _material(self, gi):
        mu = float(self.m.geom_friction[gi][0])
        name = f"mujoco_friction_{mu:g}"
        if name not in self.b.materials:
            self.b.add_material(name, static_friction=mu, dynamic_friction=mu, restitution=0.0)
        return name

    # joints -------------------------------------------------------------------------------------
    def _add_joints(self, root):
        m, d, mj = self.m, self.d, self.mj
        J = mj.mjtJoint
        name = self.body_name(root)
        parent = self.group_body(int(m.body_parentid[root]))
        joints = list(range(m.body_jntadr[root], m.body_jntadr[root] + m.body_jntnum[root]))
        kinds = [int(m.jnt_type[j]) for j in joints]
        where = self.at("body", name)
        line = where.split(": ")[0]
        for j in joints:
            self._note_joint_properties(j)
        if kinds == [J.mjJNT_FREE]:
            return
        if J.mjJNT_FREE in kinds:
            raise FormatError(f"{where}: a free joint together with other joints has no impulsim joint")
        anchors = [d.xanchor[j].copy() for j in joints]
        axes = [d.xaxis[j].copy() for j in joints]
        jn = [self.joint_name(j) for j in joints]
        pos, R = self.frames[root]
        try:
            if kinds == [J.mjJNT_HINGE]:
                self.b.add_hinge(jn[0], parent, name, anchor=anchors[0], axis=axes[0], where=line)
                self._limit(joints[0], jn[0], line)
            elif kinds == [J.mjJNT_SLIDE]:
                self.b.add_slider(jn[0], parent, name, anchor=anchors[0], axis=axes[0], where=line)
                self._limit(joints[0], jn[0], line)
            elif kinds == [J.mjJNT_BALL]:
                self.b.add_ball(jn[0], parent, name, anchor=anchors[0], where=line)
                if m.jnt_limited[joints[0]]:
                    self.report.note(f"{self.at('joint', jn[0])}: the ball joint's cone limit is not mapped")
            elif self._same_point(anchors) and kinds == [J.mjJNT_HINGE] * 2 and \
                    np.linalg.norm(np.cross(axes[0], axes[1])) > 1e-3:
                ppos, pR = self._parent_frame(parent)
                self.b.add_universal("+".join(jn), parent, name, anchor=anchors[0], axis_a=pR.T @ axes[0],
                                     axis_b=R.T @ axes[1], where=line)
                self._note_lost_limits(joints, jn, "universal")
            elif self._same_point(anchors) and kinds == [J.mjJNT_HINGE] * 3 and \
                    abs(np.linalg.det(np.array(axes))) > 1e-3:
                self.b.add_ball("+".join(jn), parent, name, anchor=anchors[0], where=line)
                self._note_lost_limits(joints, jn, "ball")
            elif sorted(kinds) == [int(J.mjJNT_SLIDE), int(J.mjJNT_SLIDE), int(J.mjJNT_HINGE)] and \
                    self._planar(kinds, axes):
                normal = axes[kinds.index(J.mjJNT_HINGE)]
                hinge_anchor = anchors[kinds.index(J.mjJNT_HINGE)]
                self.b.add_joint("point_on_plane", "+".join(jn), parent, name, anchor=hinge_anchor, axis=normal,
                                 where=line)
                self.b.add_joint("direction", "+".join(jn) + "/normal", parent, name, axis=normal, where=line)
                self._note_lost_limits(joints, jn, "planar (point-on-plane and direction)")
            elif kinds == [int(J.mjJNT_SLIDE)] * 2 and abs(np.dot(axes[0], axes[1])) < 1e-9:
                normal = np.cross(axes[0], axes[1])
                self.b.add_joint("point_on_plane", "+".join(jn), parent, name, anchor=anchors[0], axis=normal,
                                 where=line)
                self.b.add_joint("rotation_lock", "+".join(jn) + "/rotation", parent, name, where=line)
                self._note_lost_limits(joints, jn, "point-on-plane")
            elif sorted(kinds) == sorted([int(J.mjJNT_HINGE), int(J.mjJNT_SLIDE)]) and self._same_line(anchors, axes):
                self.b.add_cylindrical("+".join(jn), parent, name, anchor=anchors[kinds.index(J.mjJNT_HINGE)],
                                       axis=axes[0], where=line)
                self._note_lost_limits(joints, jn, "cylindrical")
            else:
                kinds_text = ", ".join(f'{J(k).name[6:].lower()} "{n}"' for k, n in zip(kinds, jn))
                raise FormatError(f"{where}: joints {kinds_text} have no single impulsim joint (mapped: one "
                                  f"hinge, slide, ball or free; two hinges through one point; three hinges "
                                  f"through one point; two perpendicular slides, with or without a hinge normal to "
                                  f"both; a hinge and a slide on one axis)")
        except ModelError as exc:
            if isinstance(exc, FormatError):
                raise
            raise FormatError(f"{where}: {' '.join(str(exc).split())}") from None

    def _parent_frame(self, parent):
        return self.frames_by_name[parent]

    @staticmethod
    def _planar(kinds, axes):
        """Two perpendicular slides and a hinge normal to both: motion in a plane, rotation about its normal
        (kinds as MuJoCo's integers: 2 slide, 3 hinge)."""
        hinge = axes[kinds.index(3)]
        slides = [a for k, a in zip(kinds, axes) if k == 2]
        return (abs(np.dot(slides[0], slides[1])) < 1e-9 and abs(np.dot(hinge, slides[0])) < 1e-9
                and abs(np.dot(hinge, slides[1])) < 1e-9)

    @staticmethod
    def _same_point(anchors):
        return all(np.linalg.norm(a - anchors[0]) < 1e-9 for a in anchors)

    @staticmethod
    def _same_line(anchors, axes):
        if np.linalg.norm(np.cross(axes[0], axes[1])) > 1e-9:
            return False
        return np.linalg.norm(np.cross(anchors[1] - anchors[0], axes[0])) < 1e-9

    def _limit(self, j, name, line):
        m = self.m
        if not m.jnt_limited[j]:
            return
        ref = float(m.qpos0[m.jnt_qposadr[j]])
        lo, hi = float(m.jnt_range[j][0]) - ref, float(m.jnt_range[j][1]) - ref
        if m.jnt_type[j] == self.mj.mjtJoint.mjJNT_HINGE:
            outside = [v for v in (lo, hi) if not -np.pi < v < np.pi]
            if outside:
                self.report.note(f"{self.at('joint', name)}: range bounds outside (-pi, pi) not mapped "
                                 f"({', '.join(f'{v:g}' for v in outside)} rad from the reference)")
                lo = lo if -np.pi < lo < np.pi else -np.inf
                hi = hi if -np.pi < hi < np.pi else np.inf
        if np.isinf(lo) and np.isinf(hi):
            return
        self.b.add_limit(f"{name}/limit", name, lo, hi, where=line)

    def _note_lost_limits(self, joints, names, kind):
        limited = [n for j, n in zip(joints, names) if self.m.jnt_limited[j]]
        if limited:
            self.report.note(f"{self.at('joint', limited[0])}: ranges of {', '.join(limited)} not mapped "
                             f"(the {kind} joint that stands for them has no coordinate limits)")

    _PROPERTIES = (("dof_damping", "damping"), ("dof_armature", "armature"), ("dof_frictionloss", "frictionloss"))

    def _note_joint_properties(self, j):
        m = self.m
        name = self.joint_name(j)
        adr = m.jnt_dofadr[j]
        n = {0: 6, 1: 3, 2: 1, 3: 1}[int(m.jnt_type[j])]
        lost = [label for key, label in self._PROPERTIES if np.any(getattr(m, key)[adr:adr + n] != 0)]
        if m.jnt_stiffness[j] != 0:
            lost.append("stiffness")
        if lost:
            self.report.note(f"{self.at('joint', name)}: {', '.join(lost)} not mapped")

    # equality, exclusions, actuators --------------------------------------------------------------
    def _eq_bodies(self, e):
        m, mj = self.m, self.mj
        b1, b2 = int(m.eq_obj1id[e]), int(m.eq_obj2id[e])
        if int(m.eq_objtype[e]) == int(mj.mjtObj.mjOBJ_SITE):
            return int(m.site_bodyid[b1]), int(m.site_bodyid[b2]), True
        return b1, b2, False

    def _equalities(self):
        m, d, mj = self.m, self.d, self.mj
        E = mj.mjtEq
        for e in range(m.neq):
            name = self._name(mj.mjtObj.mjOBJ_EQUALITY, e, "equality")
            kind = int(m.eq_type[e])
            tag = {int(E.mjEQ_CONNECT): "connect", int(E.mjEQ_WELD): "weld"}.get(kind, E(kind).name[5:].lower())
            where = self.at(tag, name)
            if kind not in (E.mjEQ_CONNECT, E.mjEQ_WELD):
                self.report.note(f"{where}: {tag} equality constraints are not mapped")
                continue
            if not m.eq_active0[e]:
                self.report.note(f"{where}: inactive at the start: not mapped")
                continue
            b1, b2, sites = self._eq_bodies(e)
            a, b = self.group_body(b1), self.group_body(b2)
            if a == b:
                self.report.note(f"{where}: joins a body to itself after welding: dropped")
                continue
            if sites:
                anchor = d.site_xpos[int(m.eq_obj1id[e])].copy()
            else:
                anchor = d.xpos[b1] + d.xmat[b1].reshape(3, 3) @ m.eq_data[e][0:3]
            line = where.split(": ")[0]
            try:
                if kind == E.mjEQ_CONNECT:
                    self.b.add_ball(name, a, b, anchor=anchor, where=line)
                else:
                    self.b.add_fixed(name, a, b, anchor=anchor, where=line)
            except ModelError as exc:
                raise FormatError(f"{where}: {exc}") from None
            if np.any(m.eq_solref[e] != (0.02, 1.0)):
                self.report.note(f"{where}: solref (soft constraint) not mapped: the joint is rigid")

    def _exclusions(self):
        m = self.m
        names = {s.name for s in self.b.bodies}
        for sig in np.asarray(m.exclude_signature).reshape(-1):
            a, b = self._shape_body(int(sig) >> 16), self._shape_body(int(sig) & 0xFFFF)
            if a != b and a in names and b in names:
                self.b.exclude_collision(a, b)
        self._bitmask_exclusions(names)

    def _bitmask_exclusions(self, names):
        """MuJoCo's contype/conaffinity filter as body-pair exclusions.

        Two geoms may touch when ``contype_a & conaffinity_b`` or ``contype_b & conaffinity_a`` is nonzero.
        impulsim filters whole bodies, so a pair of bodies none of whose geoms may touch is excluded; a pair
        where some geom pairs may touch and others may not cannot be told apart and collides as a whole (noted).
        """
        m = self.m
        by_body = {}
        for gi in self.colliding_geoms:
            body = self._shape_body(int(m.geom_bodyid[gi]))
            if body in names:
                by_body.setdefault(body, []).append(gi)
        static = {s.name for s in self.b.bodies if s.static}
        bodies = sorted(by_body)
        self.mixed_pairs = []
        for i, a in enumerate(bodies):
            for b in bodies[i + 1:]:
                if a in static and b in static:
                    continue
                touch = [bool((m.geom_contype[g] & m.geom_conaffinity[k]) or (m.geom_contype[k] & m.geom_conaffinity[g]))
                         for g in by_body[a] for k in by_body[b]]
                if not any(touch):
                    self.b.exclude_collision(a, b)
                elif not all(touch):
                    self.mixed_pairs.append((a, b))

    def _shape_body(self, i):
        """Impulsim body that carries MuJoCo body ``i``'s geoms."""
        w = int(self.weld[i])
        if w == 0:
            return "worldbody" if i == 0 else self.body_name(i)
        return self.body_name(w)

    def _actuators(self):
        m, mj = self.m, self.mj
        for i in range(m.nu):
            name = self._name(mj.mjtObj.mjOBJ_ACTUATOR, i, "actuator")
            where = self.at("actuator", name)
            if int(m.actuator_trntype[i]) != int(mj.mjtTrn.mjTRN_JOINT):
                self.report.note(f"{where}: only actuators on joints are mapped")
                continue
            j = int(m.actuator_trnid[i][0])
            jname = self.joint_name(j)
            if not any(s.name == jname for s in self.b.joints):
                self.report.note(f"{where}: its joint \"{jname}\" is not an impulsim joint of its own: not mapped")
                continue
            gear = float(m.actuator_gear[i][0])
            gain, bias = m.actuator_gainprm[i], m.actuator_biasprm[i]
            fixed_gain = int(m.actuator_gaintype[i]) == int(mj.mjtGain.mjGAIN_FIXED)
            no_dyn = int(m.actuator_dyntype[i]) == int(mj.mjtDyn.mjDYN_NONE)
            biastype = int(m.actuator_biastype[i])
            limit = np.inf
            if m.actuator_forcelimited[i]:
                limit = float(np.max(np.abs(m.actuator_forcerange[i])))
            hinge = int(m.jnt_type[j]) == int(mj.mjtJoint.mjJNT_HINGE)
            ref = float(m.qpos0[m.jnt_qposadr[j]])
            line = where.split(": ")[0]
            if fixed_gain and no_dyn and biastype == int(mj.mjtBias.mjBIAS_NONE):
                self.b.add_motor(name, jname, 0.0, where=line)
                self.report.note(f"{where}: the motor's effort is gear·ctrl = {gear:g}·ctrl; set it with "
                                 f"state.motor_effort (ctrlrange and forcerange not mapped)")
            elif fixed_gain and no_dyn and biastype == int(mj.mjtBias.mjBIAS_AFFINE) and bias[0] == 0 \
                    and abs(bias[1] + gain[0]) < 1e-12 * max(1.0, abs(gain[0])) and gain[0] > 0:
                self.b.add_servo(name, jname, "angle" if hinge else "position", kp=gear * gain[0],
                                 kd=-gear * bias[2], limit=limit, setpoints=((0.0, -ref),), where=line)
            elif fixed_gain and no_dyn and biastype == int(mj.mjtBias.mjBIAS_AFFINE) and bias[0] == 0 \
                    and bias[1] == 0 and abs(bias[2] + gain[0]) < 1e-12 * max(1.0, abs(gain[0])):
                self.b.add_servo(name, jname, "angular_velocity" if hinge else "velocity", kp=gear * gain[0],
                                 limit=limit, setpoints=((0.0, 0.0),), where=line)
            else:
                self.report.note(f"{where}: this actuator type (gain, bias or activation dynamics) is not mapped")

    def _note_rest(self):
        m, f = self.m, self.file
        for count, what in ((m.ntendon, "tendons"), (m.nsensor, "sensors"), (m.nkey, "keyframes (the model "
                            "starts at qpos0)"), (getattr(m, "nflex", 0), "flexes"), (m.nhfield, "height fields")):
            if count:
                self.report.note(f"{f}: {count} {what} not mapped")
        if m.ngeom and (np.any(m.geom_solref != m.geom_solref[0]) or np.any(m.geom_solref[:, 0] != 0.02)
                        or np.any(m.geom_solimp[:, :3] != np.array([0.9, 0.95, 0.001]))):
            self.report.note(f"{f}: geom solref/solimp (soft contact) not mapped: impulsim contacts are rigid")
        if self.mixed_pairs:
            a, b = self.mixed_pairs[0]
            self.report.note(f"{f}: contype/conaffinity allow only some geom pairs of {len(self.mixed_pairs)} body "
                             f"pairs (first: \"{a}\", \"{b}\"); impulsim collides such bodies as a whole")
