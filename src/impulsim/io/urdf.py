"""URDF import: links, joints, inertials and collision geometry into a :class:`ModelBuilder`.

The file is parsed by ``yourdfpy`` (the ``formats`` extra); lxml keeps the line of every element for error
messages. How URDF maps onto impulsim:

- Links joined by ``fixed`` joints are one rigid body: their masses, centres and inertia tensors are
  combined exactly (parallel-axis theorem). The body carries the name of the group's first link, and its
  user frame is that link's frame at the zero configuration.
- A link's ``<inertial>`` inertia is about its centre of mass in the inertial frame (``origin`` rpy); it is
  rotated into the link frame, ``I_link = R I R^T``; the model compiler then finds the principal frame.
- The root link is fixed to the world (a static body) unless ``floating_base=True`` (a free body). A root
  link called ``world`` is the world itself.
- revolute / continuous → hinge (revolute bounds → a joint limit when they lie in (−π, π)); prismatic →
  slider with a limit; fixed → merged (see above); floating → no joint (a free body); planar → a
  point-on-plane joint plus a direction joint (normal = the axis).
- ``<collision>`` box, cylinder, sphere and mesh become shapes (meshes: a triangle mesh on static bodies, a
  convex hull or convex parts on moving ones, see :mod:`impulsim.io.meshfiles`); ``<visual>`` geometry goes to
  :attr:`ImportReport.visuals` for viewers. ``package://NAME/...`` is looked up in the ancestors of the
  URDF's folder and in ``ROS_PACKAGE_PATH``; other paths are relative to the URDF's folder.
- Not mapped, each said in one line (:class:`~impulsim.io.formats.FormatWarning`): effort and velocity
  limits, joint damping and friction, mimic joints, transmissions, safety controllers, calibration,
  ``<gazebo>`` extensions, bounds outside (−π, π).
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from impulsim.errors import ModelError
from impulsim.io.formats import FormatError, ImportReport
from impulsim.io.meshfiles import MeshFileError, VisualMesh, mesh_shapes
from impulsim.geometry import Box, Cylinder, Sphere
from impulsim.math import quat_from_matrix

JOINT_TYPES = ("revolute", "continuous", "prismatic", "fixed", "floating", "planar")


@dataclass
class _Xml:
    """Source lines of the file's elements, for messages ``file:line: element: problem``."""
    file: str
    links: dict
    joints: dict
    root_line: int

    def at(self, kind: str, name: str) -> str:
        line = (self.links if kind == "link" else self.joints).get(name, self.root_line)
        return f'{self.file}:{line}: {kind} "{name}"'


def load_urdf(path, *, floating_base: bool = False, convex: str = "hull", gravity=(0.0, 0.0, -9.81),
              name: str | None = None):
    """A :class:`~impulsim.model.builder.ModelBuilder` filled from the URDF file ``path``.

    ``convex`` ("hull" or "decompose") says what a non-convex collision mesh of a moving link becomes.
    The builder's ``import_report`` (:class:`ImportReport`) lists what was not mapped and the visuals.
    Raises :class:`FormatError` (one line: file, line, element) on a bad file.
    """
    from impulsim.model.builder import ModelBuilder
    path = Path(path)
    file = str(path)
    xml, root_el = _read_xml(path)
    _check_elements(xml, root_el)
    robot = _parse(path, xml)
    report = ImportReport(file)
    builder = ModelBuilder(name or robot.name or path.stem, gravity=gravity)
    builder.import_report = report
    _Importer(robot, xml, report, builder, path.parent, floating_base, convex).run()
    _note_extras(root_el, xml, report)
    return builder


# ------------------------------------------------------------------------------------------- reading


def _read_xml(path: Path):
    try:
        from lxml import etree
    except ImportError:
        raise FormatError(f"{path}: URDF import needs yourdfpy: pip install 'impulsim[formats]'") from None
    if not path.is_file():
        raise FormatError(f"{path}: no such file")
    try:
        tree = etree.parse(str(path), etree.XMLParser(remove_comments=True))
    except etree.XMLSyntaxError as exc:
        line = exc.lineno or (exc.position[0] if exc.position else 0)
        raise FormatError(f"{path}:{line}: XML: {exc.msg}") from None
    root = tree.getroot()
    if root.tag != "robot":
        raise FormatError(f"{path}:{root.sourceline}: <{root.tag}>: a URDF file's root element is <robot>")
    links = {e.get("name"): e.sourceline for e in root.findall("link")}
    joints = {e.get("name"): e.sourceline for e in root.findall("joint")}
    return _Xml(str(path), links, joints, root.sourceline), root


def _check_elements(xml: _Xml, root) -> None:
    """What yourdfpy passes over: unknown joint types, missing names and links, bad numbers."""
    for e in root.findall("link"):
        if not e.get("name"):
            raise FormatError(f"{xml.file}:{e.sourceline}: <link>: has no name")
    for e in root.findall("joint"):
        name = e.get("name")
        where = f'{xml.file}:{e.sourceline}: joint "{name}"'
        if not name:
            raise FormatError(f"{xml.file}:{e.sourceline}: <joint>: has no name")
        kind = e.get("type")
        if kind not in JOINT_TYPES:
            raise FormatError(f"{where}: unknown joint type {kind!r} (URDF has {', '.join(JOINT_TYPES)})")
        for tag in ("parent", "child"):
            ref = e.find(tag)
            link = None if ref is None else ref.get("link")
            if link is None:
                raise FormatError(f"{where}: needs <{tag} link=...>")
            if link not in xml.links:
                raise FormatError(f'{where}: {tag} link "{link}" does not exist')
        if kind in ("revolute", "prismatic") and e.find("limit") is None:
            raise FormatError(f"{where}: a {kind} joint needs <limit> (URDF requires it)")
    if not root.get("name"):
        raise FormatError(f"{xml.file}:{root.sourceline}: <robot>: has no name")
    for e in root.iter(*_NUMERIC):
        for key, value in e.attrib.items():
            if key in _NUMERIC[e.tag]:
                try:
                    numbers = [float(x) for x in value.split()]
                except ValueError:
                    numbers = [float("nan")]
                if not numbers or not np.all(np.isfinite(numbers)):
                    raise FormatError(f"{xml.file}:{e.sourceline}: <{e.tag}>: {key}={value!r} is not a "
                                      f"number list")


_NUMERIC = {"origin": ("xyz", "rpy"), "axis": ("xyz",), "box": ("size",), "cylinder": ("radius", "length"),
            "sphere": ("radius",), "mass": ("value",), "limit": ("lower", "upper", "effort", "velocity"),
            "dynamics": ("damping", "friction"), "mesh": ("scale",),
            "inertia": ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")}


def _parse(path: Path, xml: _Xml):
    try:
        import yourdfpy
    except ImportError:
        raise FormatError(f"{path}: URDF import needs yourdfpy: pip install 'impulsim[formats]'") from None
    try:
        urdf = yourdfpy.URDF.load(str(path), build_scene_graph=False, load_meshes=False,
                                  filename_handler=lambda fname: fname)
    except Exception as exc:     # yourdfpy reports malformed elements with several exception types
        raise FormatError(f"{path}:{xml.root_line}: <robot>: {type(exc).__name__}: "
                          f"{' '.join(str(exc).split())}") from None
    return urdf.robot


def resolve_mesh(filename: str, urdf_dir: Path) -> Path:
    """The file a URDF mesh reference names: ``package://PKG/rest`` searched in the URDF folder's
    ancestors (a folder called PKG) and ``ROS_PACKAGE_PATH``; ``file://`` and relative paths as files."""
    if filename.startswith("package://"):
        pkg, _, rest = filename[len("package://"):].partition("/")
        roots = [d for d in [urdf_dir.resolve(), *urdf_dir.resolve().parents]]
        for base in os.environ.get("ROS_PACKAGE_PATH", "").split(os.pathsep):
            if base:
                roots.append(Path(base))
        for d in roots:
            for candidate in (d / pkg / rest, d / rest) if d.name != pkg else (d / rest,):
                if candidate.is_file():
                    return candidate
        return urdf_dir / pkg / rest
    if filename.startswith("file://"):
        filename = filename[len("file://"):]
    p = Path(filename)
    return p if p.is_absolute() else urdf_dir / p


# ------------------------------------------------------------------------------------------- mapping


def _rot(T):
    return np.asarray(T, float)[:3, :3]


def _pose(T):
    T = np.asarray(T, float)
    return T[:3, 3].copy(), quat_from_matrix(np.ascontiguousarray(T[:3, :3]))


def _origin(T):
    return np.eye(4) if T is None else np.asarray(T, float)


class _Importer:
    def __init__(self, robot, xml, report, builder, urdf_dir, floating_base, convex):
        self.robot, self.xml, self.report, self.b = robot, xml, report, builder
        self.dir, self.floating, self.convex = urdf_dir, floating_base, convex
        self.links = {l.name: l for l in robot.links}
        self.joints = list(robot.joints)

    def run(self):
        self._tree()
        self._world_poses()
        self._groups()
        for group in self.group_order:
            self._add_body(group)
        for j in self.joints:
            self._add_joint(j)
        self._note_joint_extras()

    # structure --------------------------------------------------------------------------------
    def _tree(self):
        self.parent_joint = {}
        for j in self.joints:
            if j.child in self.parent_joint:
                raise FormatError(f'{self.xml.at("joint", j.name)}: link "{j.child}" already has a parent '
                                  f'(joint "{self.parent_joint[j.child].name}"); URDF is a tree')
            self.parent_joint[j.child] = j
        roots = [name for name in self.links if name not in self.parent_joint]
        if len(roots) != 1:
            first = roots[1] if len(roots) > 1 else next(iter(self.links), "?")
            raise FormatError(f'{self.xml.at("link", first)}: the links form {len(roots)} trees '
                              f"(roots: {', '.join(roots[:5])}); a URDF has exactly one root link")
        self.root = roots[0]
        self.children = {}
        for j in self.joints:
            self.children.setdefault(j.parent, []).append(j)

    def _world_poses(self):
        """Each link's frame in the world at the zero configuration (4×4)."""
        self.T = {self.root: np.eye(4)}
        stack = [self.root]
        seen = {self.root}
        while stack:
            link = stack.pop()
            for j in self.children.get(link, []):
                if j.child in seen:
                    raise FormatError(f'{self.xml.at("joint", j.name)}: closes a loop; URDF is a tree')
                seen.add(j.child)
                self.T[j.child] = self.T[link] @ _origin(j.origin)
                stack.append(j.child)

    def _groups(self):
        """Links joined by fixed joints form one body; the world group is the root's when it is fixed."""
        self.group = {}
        self.group_order = []
        order = [self.root]
        for link in order:
            j = self.parent_joint.get(link)
            if j is not None and j.type == "fixed":
                self.group[link] = self.group[j.parent]
            else:
                self.group[link] = link
                self.group_order.append(link)
            order.extend(c.child for c in self.children.get(link, []))
        self.members = {g: [l for l in order if self.group[l] == g] for g in self.group_order}
        self.static_group = None if self.floating else self.root
        self.body_name = {g: g for g in self.group_order}
        if self.static_group is not None and self.root == "world":
            self.body_name[self.root] = "world"

    # bodies -----------------------------------------------------------------------------------
    def _add_body(self, group):
        T0 = self.T[group]
        inv = np.linalg.inv(T0)
        static = group == self.static_group
        shapes = []
        for link in self.members[group]:
            T_rel = inv @ self.T[link]
            for k, c in enumerate(self.links[link].collisions):
                shapes += self._shapes(link, c, T_rel @ _origin(c.origin), moving=not static,
                                       what=f"collision[{k}]")
            for k, v in enumerate(self.links[link].visuals):
                for s in self._shapes(link, v, T_rel @ _origin(v.origin), moving=False, what=f"visual[{k}]",
                                      visual=True):
                    self.report.visuals.append((self.body_name[group], s))
        pos, quat = _pose(T0)
        if static:
            if self.body_name[group] == "world":
                if shapes:
                    self.b.add_body("world_geometry", shapes=shapes, static=True, where=self._where(group))
                return
            self.b.add_body(self.body_name[group], shapes=shapes, static=True, position=pos, orientation=quat,
                            where=self._where(group))
            return
        mass, com, inertia = self._mass_properties(group, inv)
        self.b.add_body(self.body_name[group], shapes=shapes, mass=mass, inertia=inertia, com=com,
                        position=pos, orientation=quat, where=self._where(group))

    def _where(self, link):
        return f"{self.xml.file}:{self.xml.links.get(link, self.xml.root_line)}"

    def _mass_properties(self, group, inv):
        """Mass, centre and inertia tensor about it of a group of links, in the group's user frame."""
        parts = []
        for link in self.members[group]:
            inertial = self.links[link].inertial
            if inertial is None or not inertial.mass:
                continue
            T = inv @ self.T[link] @ _origin(inertial.origin)
            R = _rot(T)
            I = np.zeros((3, 3)) if inertial.inertia is None else np.asarray(inertial.inertia, float)
            parts.append((float(inertial.mass), T[:3, 3], R @ I @ R.T))
        mass = sum(p[0] for p in parts)
        if not parts or not mass > 0:
            raise FormatError(f"{self.xml.at('link', group)}: a moving link needs a positive mass in "
                              f"<inertial> (neither it nor the links fixed to it have one)")
        com = sum(m * c for m, c, _ in parts) / mass
        inertia = np.zeros((3, 3))
        for m, c, I in parts:
            r = c - com
            inertia += I + m * (np.dot(r, r) * np.eye(3) - np.outer(r, r))
        if np.any(np.linalg.eigvalsh(0.5 * (inertia + inertia.T)) <= 0):
            raise FormatError(f"{self.xml.at('link', group)}: the inertia tensor is not positive definite "
                              f"(about its centre of mass; a moving body needs one)")
        return mass, com, inertia

    def _shapes(self, link, element, T, *, moving, what, visual=False):
        g = element.geometry
        pos, quat = _pose(T)
        where = f"{self.xml.at('link', link)}: {what}"
        if g is None:
            raise FormatError(f"{where}: has no <geometry>")
        try:
            if g.box is not None:
                return [Box(size=np.asarray(g.box.size, float), position=pos, orientation=quat)]
            if g.cylinder is not None:
                return [Cylinder(radius=g.cylinder.radius, length=g.cylinder.length, position=pos,
                                 orientation=quat)]
            if g.sphere is not None:
                return [Sphere(radius=g.sphere.radius, position=pos, orientation=quat)]
            if g.mesh is not None:
                file = resolve_mesh(g.mesh.filename, self.dir)
                scale = 1.0 if g.mesh.scale is None else g.mesh.scale
                if visual:
                    return [VisualMesh(str(file), np.broadcast_to(np.asarray(scale, float), (3,)).copy(),
                                       pos, quat)]
                notes = []
                shapes = mesh_shapes(file, scale=scale, moving=moving, position=pos, orientation=quat,
                                     convex=self.convex, notes=None if visual else notes)
                for n in notes:
                    self.report.note(f"{where}: {n}")
                return shapes
        except MeshFileError as exc:
            raise FormatError(f"{where}: mesh {g.mesh.filename!r}: {exc}") from None
        except (ValueError, ModelError) as exc:
            raise FormatError(f"{where}: {' '.join(str(exc).split())}") from None
        raise FormatError(f"{where}: <geometry> has no box, cylinder, sphere or mesh")

    # joints -----------------------------------------------------------------------------------
    def _body_of(self, link):
        g = self.group[link]
        return "world" if g == self.static_group and self.body_name[g] == "world" else self.body_name[g]

    def _add_joint(self, j):
        if j.type in ("fixed", "floating"):
            return        # fixed: merged into one body; floating: a free body
        where = self.xml.at("joint", j.name)
        a, b = self._body_of(j.parent), self._body_of(j.child)
        Tc = self.T[j.child]
        anchor = Tc[:3, 3].copy()
        axis_local = np.array([1.0, 0, 0]) if j.axis is None else np.asarray(j.axis, float)
        n = np.linalg.norm(axis_local)
        if not n > 1e-12:
            raise FormatError(f"{where}: axis has zero length")
        axis = _rot(Tc) @ (axis_local / n)
        line = where.split(": ")[0]
        try:
            if j.type in ("revolute", "continuous"):
                self.b.add_hinge(j.name, a, b, anchor=anchor, axis=axis, where=line)
                if j.type == "revolute":
                    self._limit(j, where, line, angle=True)
            elif j.type == "prismatic":
                self.b.add_slider(j.name, a, b, anchor=anchor, axis=axis, where=line)
                self._limit(j, where, line, angle=False)
            elif j.type == "planar":
                self.b.add_joint("point_on_plane", j.name, a, b, anchor=anchor, axis=axis, where=line)
                self.b.add_joint("direction", f"{j.name}/normal", a, b, axis=axis, where=line)
        except ModelError as exc:
            raise FormatError(f"{where}: {exc}") from None

    def _limit(self, j, where, line, angle):
        lim = j.limit
        lo = -np.inf if lim is None or lim.lower is None else float(lim.lower)
        hi = np.inf if lim is None or lim.upper is None else float(lim.upper)
        if angle:
            outside = [v for v in (lo, hi) if np.isfinite(v) and not -np.pi < v < np.pi]
            if outside:
                self.report.note(f"{where}: angle bounds outside (-pi, pi) not mapped "
                                 f"({', '.join(f'{v:g}' for v in outside)} rad): no stop there")
                lo = lo if -np.pi < lo < np.pi else -np.inf
                hi = hi if -np.pi < hi < np.pi else np.inf
        if not lo < hi:
            if np.isfinite(lo) or np.isfinite(hi):
                self.report.note(f"{where}: limit lower={lo:g} is not below upper={hi:g}: not mapped")
            return
        if np.isinf(lo) and np.isinf(hi):
            return
        self.b.add_limit(f"{j.name}/limit", j.name, lo, hi, where=line)

    def _note_joint_extras(self):
        effort = [j.name for j in self.joints if j.limit is not None and j.type != "fixed"
                  and ((j.limit.effort or 0) > 0 or (j.limit.velocity or 0) > 0)]
        if effort:
            self.report.note(f"{self.xml.file}: joints {_names(effort)}: effort and velocity limits not mapped "
                             f"(impulsim joints have neither; a servo's limit bounds its effort)")
        damped = [j.name for j in self.joints if j.dynamics is not None and j.type != "fixed"
                  and ((j.dynamics.damping or 0) != 0 or (j.dynamics.friction or 0) != 0)]
        if damped:
            self.report.note(f"{self.xml.file}: joints {_names(damped)}: <dynamics> damping and friction not "
                             f"mapped (featherstone's damping option is one value for every joint)")
        for j in self.joints:
            if j.mimic is not None:
                self.report.note(f"{self.xml.at('joint', j.name)}: <mimic> of \"{j.mimic.joint}\" not mapped: "
                                 f"the joint moves freely")


def _names(names, most=6):
    shown = ", ".join(f'"{n}"' for n in names[:most])
    return shown + (f" and {len(names) - most} more" if len(names) > most else "")


_EXTRA_TAGS = {"transmission": "transmissions (impulsim motors and servos are added in code or scene files)",
               "gazebo": "<gazebo> extensions", "safety_controller": "safety controllers",
               "calibration": "calibration"}


def _note_extras(root, xml, report):
    for tag, what in _EXTRA_TAGS.items():
        found = list(root.iter(tag))
        if found:
            report.note(f"{xml.file}:{found[0].sourceline}: <{tag}>: {len(found)} {what} not mapped")
