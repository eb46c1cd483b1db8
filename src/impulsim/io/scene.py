"""Scene files: a YAML description of a model and how to run it.

Top-level keys (all optional except ``bodies``)::

    name: double pendulum          # default: the file name without extension
    description: free text
    gravity: [0, 0, -9.81]         # [m/s²], world frame
    settings: {h: 0.001, duration: 10, method: impulse, eps_d: 1.0e-6}   # see impulsim.io.settings
    materials: {steel: {density: 7800, restitution: 0.5}}
    bodies: [...]                  # see below
    joints: [...]
    motors: [...]
    limits: [...]                  # joint stops (hinge angle, slider position) with restitution
    servos: [...]
    springs: [...]
    collisions: {exclude: [[a, b]], allow: [[a, b]]}
    loads: [...]                   # timed external forces and torques
    templates: {link: &link {...}}  # not read: a place for YAML anchors that elements merge (<<: *link)

Bodies take ``name``; mass properties from ``mass`` + ``inertia`` (three principal moments or a 3×3
tensor about ``com``, user frame) or from ``shapes`` at ``density`` (``mass`` with shapes scales them);
``position`` [m], ``orientation`` (quaternion, axis-angle or roll-pitch-yaw, see
:mod:`impulsim.io.rotations`), ``velocity`` [m/s], ``angular_velocity`` [rad/s, world], ``static``,
``kinematic``, ``material``, ``collision_group``, ``collision_mask``.

Joints take ``name``, ``type`` (ball, distance, point_on_line, point_on_plane, rotation_lock, direction,
double_rotation, hinge, cylindrical, slider, universal, fixed, velocity, thread), ``bodies: [a, b]``
(``world`` for the ground) and, by type, ``anchor``/``axis`` in world coordinates at the initial pose or
``anchor_a``/``anchor_b``/``axis_a``/``axis_b`` in each body's user frame, ``length`` (distance, thread) and
``velocity``/``angular_velocity`` (velocity joints). Motors: ``name, joint, effort, coordinate``.
Limits: ``name, joint, lower, upper, restitution, coordinate`` (bounds in rad or m).
Servos: ``name, joint, mode, kp, ki, kd, limit, setpoints, interpolate`` with ``setpoints`` a number or
a list of ``[time, value]``. Springs: ``name, bodies, stiffness, damping, rest_length, anchor_a,
anchor_b``. Loads: ``body, force`` [N, world, at the centre of mass], ``torque`` [N m, world],
``start``, ``end`` [s]; each step applies a load's mean over the step, so its impulse is exact.
A body with ``point: true`` is a point mass (``mass`` only; joints act at the point; see docs/masspoint.md).

Any element of the list sections (bodies, joints, motors, limits, servos, springs, loads) may say
``active: false``: it stays in the file but is left out of the model (switched off while editing).

Every error is one line ``file:line: element: problem``; model-compiler errors carry the same prefix.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import numpy as np
from yaml.nodes import MappingNode, Node, ScalarNode

from impulsim.errors import ModelError
from impulsim.io import elements
from impulsim.io.settings import Settings, check_options, read_settings
from impulsim.io.overlaps import check_start_overlaps
from impulsim.io.yamlnodes import Element, Mapping, SceneError, boolean, compose, number, sequence, string, vector
from impulsim.methods import Method, make
from impulsim.model.builder import ModelBuilder
from impulsim.model.model import Model
from impulsim.model.state import State
from impulsim.simulation import Simulation

TOP_KEYS = ("name", "description", "gravity", "settings", "materials", "bodies", "joints", "motors",
            "limits", "servos", "springs", "collisions", "loads", "templates")

_LIST_SECTIONS = (("bodies", elements.add_body), ("joints", elements.add_joint),
                  ("motors", elements.add_motor), ("limits", elements.add_limit), ("servos", elements.add_servo),
                  ("springs", elements.add_spring))


@dataclass
class Load:
    """A force and torque on one body's centre of mass over a time window (world frame)."""
    body: str
    force: np.ndarray
    """Force [N], world frame, at the centre of mass."""
    torque: np.ndarray
    """Torque [N m], world frame."""
    start: float = 0.0
    """First time [s] the load acts."""
    end: float = float("inf")
    """Time [s] from which it no longer acts."""
    where: str = ""


@dataclass
class Scene:
    """A loaded scene: the builder it filled, the compiled model and initial state, and its settings."""
    name: str
    file: str
    builder: ModelBuilder
    model: Model
    state: State
    settings: Settings
    loads: list = field(default_factory=list)
    description: str = ""

    def make_method(self, method: Optional[str] = None, **options) -> Method:
        """The scene's method (or ``method``) with the scene's options updated by ``options``."""
        name = method or self.settings.method
        merged = {**(self.settings.options if name == self.settings.method else {}), **options}
        check_options(name, merged, self.settings.where)
        try:
            return make(name, self.model, **merged)
        except ModelError:
            raise
        except (TypeError, ValueError) as exc:
            raise SceneError(f"{self.settings.where or self.file}: settings: {exc}") from None

    def simulation(self, state: Optional[State] = None, h: Optional[float] = None,
                   method: Optional[str | Method] = None, **options) -> Simulation:
        """A :class:`Simulation` of this scene (a copy of the initial state unless ``state`` is given); the
        scene's timed loads are part of the model."""
        if not isinstance(method, Method):
            method = self.make_method(method, **options)
        return Simulation(self.model, self.state.copy() if state is None else state, method=method,
                          h=self.settings.h if h is None else h)


def load_scene(path: str | os.PathLike) -> Scene:
    """Read, validate and compile a scene file; raises :class:`SceneError` (one line) on bad input.

    A URDF (``.urdf``) or MJCF (``.xml``, ``.mjcf``) file is imported instead (see
    :func:`impulsim.io.formats.load_model_file`), so one call opens every model file the CLI opens."""
    path = Path(path)
    from impulsim.io.formats import load_model_file, model_kind
    if model_kind(path) != "scene":
        return load_model_file(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SceneError(f"{path}: no such scene file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SceneError(f"{path}: cannot read the scene file ({exc})") from None
    return scene_from_string(text, str(path), default_name=path.stem)


def scene_from_string(text: str, name: str = "<scene>", default_name: Optional[str] = None) -> Scene:
    """Parse scene YAML ``text``; ``name`` stands for the file in error messages.

    The scene is called by its ``name:`` key, else ``default_name``, else ``name`` without extension.
    """
    root = compose(text, name)
    top = Mapping(Element(name, root, ""), root, "a scene file")
    top.check_keys(TOP_KEYS, ("bodies",), what="top-level key")
    el = Element(name, root, "")
    scene_name = string(el, top.value("name"), "name") if "name" in top else (default_name or Path(name).stem)
    gravity = vector(el, top.value("gravity"), "gravity") if "gravity" in top else (0.0, 0.0, -9.81)
    builder = ModelBuilder(scene_name, gravity=gravity)
    _fill_builder(builder, name, top)
    loads = _read_loads(builder, name, top.get("loads"))
    settings = read_settings(name, top.value("settings")) if "settings" in top else Settings(where=name)
    model, state = _compile(builder, name)
    check_start_overlaps(model, state, {b.name: b.where for b in builder.bodies}, name)
    description = string(el, top.value("description"), "description") if "description" in top else ""
    return Scene(scene_name, name, builder, model, state, settings, loads, description)


def active_element(file: str, node: Node, section: str, index: int) -> Optional[Node]:
    """An element of a list section without its ``active`` key, or None when it says ``active: false``
    (switched off: kept in the file, left out of the model)."""
    if not isinstance(node, MappingNode):
        return node
    for key, value in node.value:
        if isinstance(key, ScalarNode) and key.value == "active":
            el = Element(file, node, f"{section}[{index}]")
            if not boolean(el, value, "active"):
                return None
            return MappingNode(node.tag, [(k, v) for k, v in node.value if k is not key], node.start_mark,
                               node.end_mark, node.flow_style)
    return node


def _fill_builder(builder: ModelBuilder, file: str, top: Mapping) -> None:
    if "materials" in top:
        elements.add_materials(builder, file, top.value("materials"))
    for section, add in _LIST_SECTIONS:
        if section in top:
            for i, node in enumerate(sequence(Element(file, top.value(section), ""), top.value(section),
                                              section)):
                node = active_element(file, node, section, i)
                if node is not None:
                    add(builder, file, node, i)
    if "collisions" in top:
        elements.add_collision_rules(builder, file, top.value("collisions"))


def _compile(builder: ModelBuilder, file: str):
    """Build the model; compiler errors without a location get the file name in front."""
    try:
        return builder.build()
    except ModelError as exc:
        msg = str(exc)
        if msg.startswith(file):
            raise SceneError(msg) from None
        raise SceneError(f"{file}: {msg}") from None


_LOAD_KEYS = ("body", "force", "torque", "start", "end")


def _read_loads(builder: ModelBuilder, file: str, node: Optional[Node]) -> list:
    if node is None:
        return []
    known = elements.body_names(builder)
    loads = []
    for i, item in enumerate(sequence(Element(file, node, ""), node, "loads")):
        item = active_element(file, item, "loads", i)
        if item is None:
            continue
        el = Element(file, item, f"loads[{i}]")
        m = Mapping(el, item, "a load")
        m.check_keys(_LOAD_KEYS, ("body",))
        body = string(el, m.value("body"), "body")
        elements.check_body(el, m.value("body"), body, known)
        if body == "world" or _is_fixed(builder, body):
            raise el.fail(m.value("body"), f'body "{body}" is static or kinematic and takes no loads')
        zero = np.zeros(3)
        loads.append(Load(
            body=body,
            force=vector(el, m.value("force"), "force") if "force" in m else zero,
            torque=vector(el, m.value("torque"), "torque") if "torque" in m else zero.copy(),
            start=number(el, m.value("start"), "start") if "start" in m else 0.0,
            end=number(el, m.value("end"), "end", finite=False) if "end" in m else float("inf"),
            where=el.where))
        try:
            builder.add_load(body, force=loads[-1].force, torque=loads[-1].torque, start=loads[-1].start,
                             end=loads[-1].end, where=el.where)
        except ModelError as exc:
            raise SceneError(str(exc)) from None
    return loads


def _is_fixed(builder: ModelBuilder, name: str) -> bool:
    spec = next(b for b in builder.bodies if b.name == name)
    return spec.static or spec.kinematic
