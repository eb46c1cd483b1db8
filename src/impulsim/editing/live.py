"""A running simulation that takes edits: the document, the compiled scene, the method and the state.

Every edit goes through :meth:`LiveScene.edit`: the command changes the document, the document is compiled,
the running state carries over by name (:mod:`~impulsim.editing.carry`) and a method of the same kind and
options is built for the new model. If any of that fails — a bad value, an element the method cannot honour
— the document is put back and the running simulation is untouched: the edit is refused with one line.
"""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from impulsim.editing import commands as C
from impulsim.editing.carry import carry_state
from impulsim.editing.document import DocumentError, SceneDocument, to_plain
from impulsim.errors import ImpulsimError
from impulsim.simulation import Simulation


class EditError(ImpulsimError, ValueError):
    """An edit that was refused; nothing changed."""


class LiveScene:
    """A scene document running under one method, editable while it runs.

    ``method``, ``h`` and the options default to the scene's settings. ``edit_seconds`` is the wall time the
    last edit took from the command to a simulation ready for its next step (compile, carry, method)."""

    def __init__(self, doc: SceneDocument, method: str | None = None, h: float | None = None, **options):
        self.doc = doc
        self.method_name, self.h_override, self.options = method, h, options
        self.scene = doc.compile()
        self.sim = self._simulation(self.scene, self.scene.state.copy())
        self._undo: list[C.Command] = []
        self._redo: list[C.Command] = []
        self.assembling = None
        self.edit_seconds = 0.0

    @classmethod
    def load(cls, path: str | Path, **kwargs) -> "LiveScene":
        return cls(SceneDocument.load(path), **kwargs)

    # ------------------------------------------------------------------ running
    @property
    def model(self):
        return self.scene.model

    @property
    def state(self):
        return self.sim.state

    @property
    def t(self) -> float:
        return self.sim.t

    def step(self):
        """One step (assembling mode and held handle forces included); returns the StepInfo."""
        hold = self._hold_assembling_body()
        try:
            info = self.sim.step()
        finally:
            if hold is not None:
                self.state.body_force[hold[0]] = hold[1]
        self._check_assembled()
        return info

    def run(self, duration: float) -> None:
        for _ in range(max(0, int(round(duration / self.sim.h)))):
            self.step()

    def _simulation(self, scene, state) -> Simulation:
        sim = scene.simulation(state=state, h=self.h_override, method=self.method_name, **self.options)
        # edits open joints on purpose (a joint added between bodies apart, assembling mode); the
        # correction closes them over the next steps, which is not the fault Simulation warns about
        sim.warn_open_joints = False
        return sim

    # ------------------------------------------------------------------ edits
    def edit(self, command: C.Command) -> None:
        """Apply one edit while running; refuse it (EditError, nothing changed) if it cannot be honoured."""
        inverse = self._apply(command)
        self._undo.append(inverse)
        self._redo.clear()

    def _apply(self, command: C.Command) -> C.Command:
        start = time.perf_counter()
        try:
            inverse = command.apply(self.doc)
        except (DocumentError, KeyError, IndexError) as exc:
            raise EditError(f"{command.label}: {_line(exc)}") from None
        try:
            scene = self.doc.compile()
            state = carry_state(self.scene.model, self.sim.state, self.scene.state, scene.model, scene.state)
            sim = self._simulation(scene, state)
        except Exception as exc:
            inverse.apply(self.doc)
            raise EditError(f"{command.label}: refused, nothing changed: {_line(exc)}") from None
        self.scene, self.sim = scene, sim
        self.edit_seconds = time.perf_counter() - start
        return inverse

    def undo(self) -> None:
        if not self._undo:
            raise EditError("nothing to undo")
        self._redo.append(self._apply(self._undo.pop()))

    def redo(self) -> None:
        if not self._redo:
            raise EditError("nothing to redo")
        self._undo.append(self._apply(self._redo.pop()))

    def reset(self) -> None:
        """Back to the start (Wagner's undo of a run): every body at its start in the document, time 0.
        The document keeps every edit: a body added while running starts where it was added."""
        self.scene = self.doc.compile()
        self.sim = self._simulation(self.scene, self.scene.state.copy())
        self.assembling = None

    # ------------------------------------------------------------------ element edits
    def set(self, path: str, value) -> None:
        """Set any value of the document by its path, e.g. ``bodies.ball.mass``, ``servos.s1.kp``."""
        self.edit(C.SetValue(path, value))

    def add(self, section: str, element: dict) -> None:
        """Add a body, joint, motor, limit, servo, spring or load (a scene-file element as a dict)."""
        self.edit(C.Insert(section, element))

    def remove(self, section: str, name) -> None:
        """Remove an element; a body takes its joints, springs and loads with it, a joint its motors,
        limits and servos."""
        self.edit(C.Compound(self._removal(section, name), f"remove {section} {name}"))

    def _removal(self, section, name) -> list:
        self.doc.index(section, name) if section in ("bodies", "joints") else None
        if section == "bodies":
            deps = self.doc.dependents(str(name))
        elif section == "joints":
            deps = self.doc.joint_dependents(str(name))
        else:
            deps = []
        # loads go by position: remove the later ones first so the earlier positions hold
        deps = sorted(deps, key=lambda d: (d[0] != "loads", -d[1] if isinstance(d[1], int) else 0))
        return [C.Remove(s, n) for s, n in deps] + [C.Remove(section, name)]

    # ------------------------------------------------------------------ switches
    def set_active(self, section: str, name: str, active: bool) -> None:
        """Switch a joint, spring, servo, motor, limit or load on or off (it stays in the document)."""
        path = f"{section}.{name}.active"
        element = self.doc.element(section, name)
        if active and "active" not in element:
            return                                   # active already
        self.edit(C.SetValue(path, False) if not active else C.Unset(path))

    def set_kinematic(self, body: str, kinematic: bool) -> None:
        """Make a body kinematic (infinite mass, moving at its present velocity, its joints kept, still
        colliding) or dynamic again."""
        self.edit(C.SetValue(f"bodies.{body}.kinematic", bool(kinematic)))

    def lock_components(self, joint: str, keep) -> None:
        """Keep only some world components of a ball joint (Wagner's component locking, Fig. 6.10):
        ``keep=("y", "z")`` lets the joint slide along x (a point on a line), ``keep=("z",)`` in the x-y
        plane (a point on a plane)."""
        element = self.doc.element("joints", joint)
        if str(element.get("type")) != "ball":
            raise EditError(f"lock {joint}: only ball joints can lock components, not {element.get('type')!r}")
        keep = sorted({str(k) for k in keep})
        axes = {"x": [1.0, 0.0, 0.0], "y": [0.0, 1.0, 0.0], "z": [0.0, 0.0, 1.0]}
        if not keep or not set(keep) <= set(axes) or len(keep) == 3:
            raise EditError(f"lock {joint}: keep one or two of x, y, z, got {keep}")
        free = [a for a in "xyz" if a not in keep]
        kind, direction = ("point_on_line", axes[free[0]]) if len(keep) == 2 else ("point_on_plane", axes[keep[0]])
        self.edit(C.Compound([C.SetValue(f"joints.{joint}.type", kind),
                              C.SetValue(f"joints.{joint}.axis", direction)], f"lock {joint} to {''.join(keep)}"))

    def assemble(self, joint: dict, tolerance: float | None = None) -> None:
        """Add a two-body joint in assembling mode (Wagner Fig. 6.11): the second body of
        ``joint["bodies"]`` is kept free of external forces until the joint is within ``tolerance``
        (default: the method's eps_d), then the first body's velocity is set to zero, and the second's
        (which floated on with the motion it had): the joint then starts with both at rest. Stopping the
        first alone left the joint the bodies' relative velocity (18 m/s after two balls fell for 2 s), more
        than the next step's correction may take (max_correction_speed), and it opened by 3 cm for a step."""
        first, last = (str(b) for b in joint["bodies"])
        self.add("joints", joint)
        eps = getattr(self.sim.method, "eps_d", 1e-6)
        self.assembling = (str(joint["name"]), first, last, eps if tolerance is None else tolerance)

    def _hold_assembling_body(self):
        """Cancel gravity on the assembling body for this step; returns (body, its own force) to restore."""
        if self.assembling is None:
            return None
        k = self.model.body(self.assembling[2])
        own = self.state.body_force[k].copy()
        self.state.body_force[k] = -self.model.body_mass[k] * np.asarray(self.model.gravity)
        return k, own

    def _check_assembled(self) -> None:
        if self.assembling is None:
            return
        name, first, last, tol = self.assembling
        if self.joint_error(name) <= tol:
            for body in (first, last):
                k = self.model.body(body)
                self.state.body_vel[k] = 0.0
                self.state.body_omega[k] = 0.0
            self.assembling = None

    def joint_error(self, joint: str) -> float:
        """The largest position error of the joint's basic constraints [m or rad]."""
        from impulsim.dynamics.diagnostics import constraint_errors
        j = self.model.joint_names.index(joint)
        start, stop = self.model.joint_prim_start[j], self.model.joint_prim_start[j + 1]
        errors = constraint_errors(self.model, self.state)[start:stop]
        return float(errors.max()) if errors.size else 0.0

    # ------------------------------------------------------------------ interaction
    def push(self, body: str, displacement, gain: float = 100.0) -> None:
        """An interactive force handle: a force gain·displacement [N] at the body's centre of mass, held
        until :meth:`release` (the joints stay satisfied, unlike moving the body)."""
        self.state.body_force[self.model.body(body)] = gain * np.asarray(displacement, float)

    def twist(self, body: str, rotation, gain: float = 10.0) -> None:
        """An interactive torque handle: gain·rotation [N m], held until :meth:`release`."""
        self.state.body_torque[self.model.body(body)] = gain * np.asarray(rotation, float)

    def release(self, body: str) -> None:
        k = self.model.body(body)
        self.state.body_force[k] = 0.0
        self.state.body_torque[k] = 0.0

    def perturb(self, bodies=None, translation: float = 1e-3, rotation: float = 1e-2, seed: int = 0) -> None:
        """Move bodies by a small random translation [m] and rotation [rad] (out of a singular pose);
        the method's joint correction then brings the joints back."""
        from impulsim.math.quaternion import quat_mul
        rng = np.random.default_rng(seed)
        names = bodies or [n for k, n in enumerate(self.model.body_names) if self.model.body_inv_mass[k] > 0]
        for name in names:
            k = self.model.body(name)
            self.state.body_pos[k] += rng.uniform(-translation, translation, 3)
            axis = rng.normal(size=3)
            angle = rng.uniform(-rotation, rotation)
            dq = np.concatenate([[np.cos(angle / 2)], np.sin(angle / 2) * axis / np.linalg.norm(axis)])
            q = quat_mul(dq, self.state.body_quat[k])
            self.state.body_quat[k] = q / np.linalg.norm(q)

    # ------------------------------------------------------------------ clipboard, save, merge
    def copy(self, bodies) -> dict:
        """The bodies and the elements among only them, as plain scene-file elements (their start in the
        document, not their present pose)."""
        names = {str(b) for b in bodies}
        plain = self.doc.active_plain()
        clip = {"bodies": [b for b in plain.get("bodies", []) if b.get("name") in names]}
        if len(clip["bodies"]) != len(names):
            raise EditError(f"copy: no body {sorted(names - {b['name'] for b in clip['bodies']})[0]!r}")
        clip["joints"] = [j for j in plain.get("joints", []) if set(j.get("bodies", [])) <= names]
        joints = {j["name"] for j in clip["joints"]}
        for section, key in (("motors", "joint"), ("limits", "joint"), ("servos", "joint")):
            clip[section] = [e for e in plain.get(section, []) if e.get(key) in joints]
        clip["springs"] = [s for s in plain.get("springs", []) if set(s.get("bodies", [])) <= names]
        return clip

    def cut(self, bodies) -> dict:
        clip = self.copy(bodies)
        self.edit(C.Compound([c for b in bodies for c in self._removal("bodies", b)], "cut"))
        return clip

    def paste(self, clip: dict, offset=(0.0, 0.0, 0.0), suffix: str = "_copy") -> None:
        """Insert a clipboard's elements, renamed with ``suffix`` and moved by ``offset`` [m]."""
        self.edit(C.Compound(_pasted(clip, np.asarray(offset, float), suffix), "paste"))

    def save(self, path: str | Path) -> Path:
        """Write the document (the scene's start with every edit) as a scene file."""
        return self.doc.save(path)

    def merge(self, path: str | Path, suffix: str = "") -> None:
        """Add every element of another scene file to the running one (one undoable edit); materials are
        added where new and must agree where they share a name."""
        other = SceneDocument.load(path)
        plain = other.active_plain()
        edits = []
        mats = plain.get("materials") or {}
        mine = to_plain(self.doc.root.get("materials") or {})
        for name, props in mats.items():
            if name in mine and mine[name] != props:
                raise EditError(f"merge {path}: material {name!r} differs from this scene's")
            if name not in mine:
                edits.append(C.SetValue(f"materials.{name}", props) if "materials" in self.doc.root
                             else C.SetValue("materials", {name: props}))
                mine[name] = props
        clip = {s: plain.get(s, []) for s in ("bodies", "joints", "motors", "limits", "servos", "springs")}
        edits += _pasted(clip, np.zeros(3), suffix)
        self.edit(C.Compound(edits, f"merge {Path(path).name}"))


def _pasted(clip: dict, offset: np.ndarray, suffix: str) -> list:
    """Insert commands for a clipboard: names get ``suffix``, references follow, positions and world
    anchors move by ``offset``."""
    import copy
    bodies = {b["name"] for b in clip.get("bodies", [])}
    joints = {j["name"] for j in clip.get("joints", [])}
    rename = lambda n: f"{n}{suffix}" if n in bodies or n in joints else n
    out = []
    for section in ("bodies", "joints", "motors", "limits", "servos", "springs"):
        for element in clip.get(section, []):
            e = copy.deepcopy(element)
            e["name"] = f"{e['name']}{suffix}"
            if "bodies" in e:
                e["bodies"] = [rename(b) for b in e["bodies"]]
            if "joint" in e:
                e["joint"] = rename(e["joint"])
            for key in ("position", "anchor"):
                if key in e and any(offset):
                    e[key] = [float(x) for x in np.asarray(e[key], float) + offset]
            out.append(C.Insert(section, e))
    return out


def _line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
