"""Editing the running scene from the live view (Wagner's EMPHAS workflow): a scene tree with selection,
one parameter panel for whatever is selected, the switches (a joint on or off, a body kinematic or dynamic,
components of a ball joint locked), a new two-body joint in assembling mode, removal, undo and redo, and
saving the edited scene.

Every change goes through :class:`~impulsim.editing.LiveScene` as one command, applied by the simulation
thread between two steps (so it is undoable, and the running state carries over by name). An edit the
scene or the method cannot honour is refused: nothing changes, and the page shows the one-line reason as a
notification and in the panel's message line.

    from impulsim.viewer.edit_panel import edit_scene
    viewer = edit_scene("examples/pendulum.yaml")      # prints nothing; open viewer.url
"""
from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Callable, Optional

import numpy as np

from impulsim.editing.document import LIST_SECTIONS, to_plain

TREE_LINES = 40
"""Elements listed per section in the scene tree's text (the selector lists them all)."""
EDIT_WAIT = 300.0
"""Longest wait [s] for the simulation thread to apply an edit (a 1000-body scene compiles in seconds;
a cold Numba cache may compile kernels for minutes)."""
NOTIFY_SECONDS = 10.0
"""Wall time [s] a refusal's notification stays on the page."""
BODY_MOTION = ("position", "orientation", "velocity", "angular_velocity")
"""A body's start in the document; the panel shows and writes the running values of all four together."""
SKIPPED_KEYS = {"name", "type", "bodies", "body", "joint", "active", "shapes", "kinematic", "static"}
"""Keys the parameter panel does not offer as a field (they have their own controls or define the element)."""
KEEP_CHOICES = ("y z", "x z", "x y", "z", "y", "x")
"""Ball-joint components that can be kept when locking: two keep a point on a line, one a point on a plane."""
JOINT_TYPES = ("hinge", "ball")
NOTHING = "(select)"
"""The scene tree's entry when nothing is selected."""


SINGULAR = {"bodies": "body", "joints": "joint", "motors": "motor", "limits": "limit", "servos": "servo",
            "springs": "spring", "loads": "load"}
SECTION_OF = {kind: section for section, kind in SINGULAR.items()}


def label_of(section: str, name) -> str:
    """The scene tree's label of an element, e.g. ``body: bob``."""
    return f"{SINGULAR[section]}: {name}"


def parse_label(label: str) -> tuple[str, str | int]:
    """(section, name) of a scene tree label; loads without a name go by position."""
    kind, _, name = label.partition(": ")
    section = SECTION_OF[kind]
    if section == "loads" and name.startswith("#"):
        return section, int(name[1:])
    return section, name


class EditPanel:
    """The edit controls of a :class:`~impulsim.viewer.app.Viewer` whose engine runs a LiveScene."""

    def __init__(self, viewer):
        self.viewer, self.engine, self.gui = viewer, viewer.engine, viewer.server.gui
        if self.engine.live is None:
            raise ValueError("the edit panel needs an editable scene (engine.live)")
        self.selection: Optional[tuple[str, str | int]] = None
        self.fields: list = []
        self.picked_bodies: list[str] = []
        self.last_edit = ""
        self.refusals: list[str] = []
        """Edits refused so far (one line each), newest last."""
        self._lock = threading.Lock()
        self._build()
        viewer.select_hooks.append(self._clicked)
        self.refresh()

    # ------------------------------------------------------------------ layout
    def _build(self) -> None:
        gui = self.gui
        with gui.add_folder("Edit scene"):
            self.history = gui.add_button_group("History", ("Undo", "Redo"))
            self.history.on_click(lambda e: self.undo() if e.target.value == "Undo" else self.redo())
            self.tree = gui.add_dropdown("Scene tree", [NOTHING], initial_value=NOTHING, hint="select a body, joint, controller or load")
            self.tree.on_update(lambda _: self.select(self.tree.value))
            self.tree_text = gui.add_markdown("")
            self.edit_line = gui.add_markdown("")
        self.selected_folder = gui.add_folder("Selected element")
        with gui.add_folder("New joint", expand_by_default=False):
            self.new_type = gui.add_dropdown("Joint type", JOINT_TYPES, initial_value="hinge")
            self.new_a = gui.add_dropdown("Body A", ["world"])
            self.new_b = gui.add_dropdown("Body B", ["world"])
            self.new_name = gui.add_text("Joint name", "joint_1")
            self.new_anchor_a = gui.add_vector3("Anchor on A [m]", (0.0, 0.0, 0.0), step=0.01,
                                                hint="the joint point in body A's frame")
            self.new_anchor_b = gui.add_vector3("Anchor on B [m]", (0.0, 0.0, 0.0), step=0.01,
                                                hint="the joint point in body B's frame")
            self.new_axis = gui.add_vector3("Hinge axis (world)", (0.0, 0.0, 1.0), step=0.1,
                                            hint="the hinge axis in world coordinates, as the bodies are now")
            self.assembling = gui.add_checkbox("Assembling mode", True,
                                               hint="close the joint gently: B floats until it is within "
                                                    "tolerance, then A stops")
            add = gui.add_button("Add joint")
            add.on_click(lambda _: self.add_joint())
        with gui.add_folder("Save", expand_by_default=False):
            self.save_path = gui.add_text("Save as", "edited_scene.yaml")
            save = gui.add_button("Save scene")
            save.on_click(lambda _: self.save(self.save_path.value))

    # ------------------------------------------------------------------ running edits
    def _run(self, label: str, fn: Callable, after: Optional[Callable] = None) -> bool:
        """Apply ``fn(live)`` in the simulation thread; refused edits are shown and change nothing.
        Returns whether the edit was applied."""
        from impulsim.editing.live import EditError
        outcome: dict = {}

        def edit(live):
            try:
                outcome["value"] = fn(live)
            except (EditError, ValueError, KeyError, IndexError) as exc:
                outcome["refused"] = _line(exc)

        with self._lock:
            try:
                self.engine.send("edit", edit, wait=True, timeout=EDIT_WAIT)
            except TimeoutError as exc:
                outcome["refused"] = str(exc)
            if "refused" in outcome:
                self.refuse(f"{label}: {outcome['refused']}" if not outcome["refused"].startswith(label)
                            else outcome["refused"])
                self.refresh()
                return False
            live = self.engine.live
            self.last_edit = f"{label} ({1e3 * live.edit_seconds:.1f} ms)"
            self.refresh()
            if after is not None:
                after(outcome.get("value"))
            return True

    def refuse(self, message: str) -> None:
        """Show a refused edit: a notification on every open page and the panel's message line."""
        self.refusals.append(message)
        self.viewer.report(message)
        for client in self.viewer.server.get_clients().values():
            client.add_notification("Edit refused", message, auto_close_seconds=NOTIFY_SECONDS, color="red")

    def _read(self, fn: Callable):
        """``fn(live)`` evaluated in the simulation thread, between steps (a consistent view)."""
        out: dict = {}
        self.engine.send("call", lambda sim: out.setdefault("value", fn(self.engine.live)), wait=True,
                         timeout=EDIT_WAIT)
        return out.get("value")

    # ------------------------------------------------------------------ the scene tree
    def refresh(self) -> None:
        """Rebuild the tree's entries and text and the body choices from the document; show the selection
        again (or nothing, if it was removed)."""
        doc = self._read(lambda live: to_plain(live.doc.root))
        labels, lines = [], []
        bodies = [b for b in doc.get("bodies") or [] if isinstance(b, dict)]
        for section in LIST_SECTIONS:
            items = [i for i in doc.get(section) or [] if isinstance(i, dict)]
            if not items:
                continue
            lines.append(f"**{section.capitalize()}** ({len(items)})")
            for pos, item in enumerate(items):
                name = item.get("name", f"#{pos}")
                labels.append(label_of(section, name))
                if pos < TREE_LINES:
                    lines.append(f"- {_describe(section, item)}")
            if len(items) > TREE_LINES:
                lines.append(f"- … and {len(items) - TREE_LINES} more (in the selector)")
        names = ["world"] + [str(b["name"]) for b in bodies]
        self.tree_text.content = "\n".join(lines) or "(empty scene)"
        self.labels = labels
        current = label_of(*self.selection) if self.selection else None
        self.tree.options = [NOTHING] + labels
        for box in (self.new_a, self.new_b):
            keep = box.value
            box.options = names
            box.value = keep if keep in names else names[0]
        self.edit_line.content = f"Last edit: {self.last_edit}" if self.last_edit else ""
        if current in self.labels:
            self.select(current, force=True)
        else:
            self.selection = None
            self.tree.value = NOTHING
            self._clear_fields()

    def _clicked(self, body: int) -> None:
        """A body was clicked in the 3D view: select it in the tree."""
        name = self.viewer.model.body_names[body]
        label = label_of("bodies", name)
        if label in self.labels:
            self.tree.value = label
            self.select(label)

    def select(self, label: str, force: bool = False) -> None:
        """Show the parameter panel of the element with the tree label ``label``."""
        if label not in getattr(self, "labels", ()):
            return
        selection = parse_label(label)
        if selection == self.selection and not force:
            return
        self.selection = selection
        if self.tree.value != label:
            self.tree.value = label
        if selection[0] == "bodies":
            self.picked_bodies = ([n for n in self.picked_bodies if n != selection[1]] + [selection[1]])[-2:]
            if len(self.picked_bodies) == 2:
                self.new_a.value, self.new_b.value = self.picked_bodies
        self._show_fields(*selection)

    # ------------------------------------------------------------------ the parameter panel
    def _clear_fields(self) -> None:
        for handle in self.fields:
            handle.remove()
        self.fields = []

    def _show_fields(self, section: str, name) -> None:
        """One input per parameter of the selected element (uniform for every kind), then its switches."""
        element, now = self._read(lambda live: (to_plain(live.doc.element(section, name)),
                                                _running(live, section, name)))
        self._clear_fields()
        gui = self.gui
        with self.selected_folder:
            self.fields.append(gui.add_markdown(f"**{label_of(section, name)}**"
                                                + ("" if element.get("active", True) else " (switched off)")))
            if section == "bodies":
                self._body_fields(name, element, now)
            for key, value in element.items():
                if key in SKIPPED_KEYS or (section == "bodies" and (key in BODY_MOTION or key in ("mass", "material"))):
                    continue
                self._value_field(f"{section}.{name}.{key}", key, value)
            self._switches(section, name, element)

    def _body_fields(self, name: str, element: dict, now: dict) -> None:
        gui = self.gui
        if not element.get("static") and not element.get("kinematic"):
            mass = gui.add_number("Mass [kg]", float(now["mass"]), min=0.0, step=0.01)
            mass.on_update(lambda e: e.client is not None and self.set_mass(name, float(mass.value)))
            self.fields.append(mass)
        labels = {"position": "Position [m]", "velocity": "Velocity [m/s]",
                  "angular_velocity": "Angular velocity [rad/s]"}
        for key, text in labels.items():
            box = gui.add_vector3(text, tuple(float(x) for x in now[key]), step=0.01)
            box.on_update(lambda e, key=key, box=box: e.client is not None
                          and self.set_motion(name, key, [float(x) for x in box.value]))
            self.fields.append(box)
        quat = gui.add_text("Orientation (w, x, y, z)", ", ".join(f"{x:.6g}" for x in now["orientation"]))
        quat.on_update(lambda e: e.client is not None and self._orientation(name, quat.value))
        self.fields.append(quat)
        materials = ["default"] + [m for m in now["materials"] if m != "default"]
        current = str(element.get("material", "default"))
        material = gui.add_dropdown("Material", materials if current in materials else materials + [current],
                                    initial_value=current)
        material.on_update(lambda e: e.client is not None and self.set_value(
            f"bodies.{name}.material", material.value))
        self.fields.append(material)

    def _value_field(self, path: str, key: str, value) -> None:
        """A number, a 3-vector, a check box or a text (YAML) for one value of the document."""
        gui = self.gui
        if isinstance(value, bool):
            box = gui.add_checkbox(key, value)
            read = lambda: bool(box.value)
        elif isinstance(value, (int, float)):
            box = gui.add_number(key, float(value), step=0.01)
            read = lambda: float(box.value)
        elif isinstance(value, list) and len(value) == 3 and all(isinstance(x, (int, float)) for x in value):
            box = gui.add_vector3(key, tuple(float(x) for x in value), step=0.01)
            read = lambda: [float(x) for x in box.value]
        else:
            box = gui.add_text(key, value if isinstance(value, str) else json.dumps(value))
            read = lambda: _parsed(box.value, value)
        box.on_update(lambda e: e.client is not None and self.set_value(path, read()))
        self.fields.append(box)

    def _switches(self, section: str, name, element: dict) -> None:
        gui = self.gui
        if section == "bodies":
            if not element.get("static"):
                kinematic = bool(element.get("kinematic", False))
                button = gui.add_button("Make dynamic" if kinematic else "Make kinematic")
                button.on_click(lambda _: self.set_kinematic(name, not kinematic))
                self.fields.append(button)
        else:
            active = element.get("active", True) is not False
            button = gui.add_button("Switch off" if active else "Switch on")
            button.on_click(lambda _: self.set_active(section, name, not active))
            self.fields.append(button)
        if section == "joints":
            keep = gui.add_dropdown("Keep components", KEEP_CHOICES, initial_value="y z",
                                    hint="a ball joint keeps only these world components")
            lock = gui.add_button("Lock components")
            lock.on_click(lambda _: self.lock(name, keep.value.split()))
            self.fields += [keep, lock]
        remove = gui.add_button(f"Remove {SINGULAR[section]}")
        remove.on_click(lambda _: self.remove(section, name))
        self.fields.append(remove)

    # ------------------------------------------------------------------ the edits (also callable from Python)
    def set_value(self, path: str, value) -> bool:
        from impulsim.editing import commands as C
        return self._run(f"set {path}", lambda live: live.edit(C.SetValue(path, value)))

    def set_mass(self, body: str, mass: float) -> bool:
        """Set a body's mass [kg] (a density it had is replaced: the loader takes one of the two)."""
        from impulsim.editing import commands as C

        def edit(live):
            element = live.doc.element("bodies", body)
            cmds = [C.SetValue(f"bodies.{body}.mass", float(mass))]
            if "density" in element:
                cmds.insert(0, C.Unset(f"bodies.{body}.density"))
            live.edit(C.Compound(cmds, f"set bodies.{body}.mass"))
        return self._run(f"set bodies.{body}.mass", edit)

    def set_motion(self, body: str, key: str, value) -> bool:
        """Move a body or change its velocity: the document's start of the body becomes its running pose
        and velocities with ``key`` replaced (so the other three carry on as they are)."""
        from impulsim.editing import commands as C

        def edit(live):
            now = _running(live, "bodies", body)
            now[key] = value
            live.edit(C.Compound([C.SetValue(f"bodies.{body}.{k}", [float(x) for x in now[k]])
                                  for k in BODY_MOTION], f"set bodies.{body}.{key}"))
        return self._run(f"set bodies.{body}.{key}", edit)

    def _orientation(self, body: str, text: str) -> bool:
        try:
            q = [float(x) for x in text.replace("(", " ").replace(")", " ").replace(",", " ").split()]
        except ValueError:
            q = []
        if len(q) != 4 or not np.all(np.isfinite(q)) or np.linalg.norm(q) == 0:
            self.refuse(f"set bodies.{body}.orientation: four numbers w, x, y, z expected, got {text!r}")
            return False
        return self.set_motion(body, "orientation", q)

    def set_kinematic(self, body: str, kinematic: bool) -> bool:
        return self._run(f"{'kinematic' if kinematic else 'dynamic'} {body}",
                         lambda live: live.set_kinematic(body, kinematic))

    def set_active(self, section: str, name, active: bool) -> bool:
        return self._run(f"switch {'on' if active else 'off'} {SINGULAR[section]} {name}",
                         lambda live: live.set_active(section, name, active))

    def lock(self, joint: str, keep) -> bool:
        return self._run(f"lock {joint}", lambda live: live.lock_components(joint, keep))

    def remove(self, section: str, name) -> bool:
        return self._run(f"remove {SINGULAR[section]} {name}", lambda live: live.remove(section, name))

    def add_joint(self) -> bool:
        """Add the joint described in the "New joint" folder between body A and body B (assembling mode:
        B floats, free of its weight, until the joint is within tolerance; then A stops)."""
        kind, a, b, name = self.new_type.value, self.new_a.value, self.new_b.value, self.new_name.value.strip()
        anchor_a = [float(x) for x in self.new_anchor_a.value]
        anchor_b = [float(x) for x in self.new_anchor_b.value]
        axis = np.asarray(self.new_axis.value, float)
        if a == b:
            self.refuse(f"add joint {name}: body A and body B are both {a!r}")
            return False
        if kind == "hinge" and not np.linalg.norm(axis) > 0:
            self.refuse(f"add joint {name}: the hinge axis is zero")
            return False
        assembling = bool(self.assembling.value)

        def edit(live):
            joint = {"name": name, "type": kind, "bodies": [a, b], "anchor_a": anchor_a, "anchor_b": anchor_b}
            if kind == "hinge":
                joint["axis_a"], joint["axis_b"] = (_in_body_frame(live, body, axis) for body in (a, b))
            (live.assemble if assembling else lambda j: live.add("joints", j))(joint)

        def renamed(_):
            self.new_name.value = _next_name(name)
        return self._run(f"add joint {name}", edit, after=renamed)

    def undo(self) -> bool:
        return self._run("undo", lambda live: live.undo())

    def redo(self) -> bool:
        return self._run("redo", lambda live: live.redo())

    def save(self, path: str) -> bool:
        """Write the edited document (the scene's start with every edit) as a scene file: a ``.yaml`` or
        ``.yml`` path inside the directory the viewer was started in (a page cannot write elsewhere)."""
        target = save_target(path)
        if isinstance(target, str):
            self.refuse(f"save {path}: {target}")
            return False

        def edit(live):
            return live.save(target)

        def saved(written):
            self.last_edit = f"saved {written}"
            self.edit_line.content = f"Last edit: {self.last_edit}"
        return self._run(f"save {path}", edit, after=saved)


# ---------------------------------------------------------------------- helpers
def save_target(path: str, root: Optional[Path] = None):
    """The file a page may save to (a Path), or the reason it may not (a str): a scene file name ending in
    .yaml or .yml, inside ``root`` (default: the working directory)."""
    root = (root or Path.cwd()).resolve()
    text = str(path).strip()
    if not text:
        return "give a file name"
    target = (root / text).resolve()
    if target.suffix.lower() not in (".yaml", ".yml"):
        return "a scene file name ends in .yaml or .yml"
    if root != target and root not in target.parents:
        return f"only files inside {root} can be saved from the page"
    return target


def _running(live, section: str, name) -> dict:
    """The running values of a body: user-frame pose, velocity of the user-frame origin, angular velocity,
    mass, and the scene's materials (empty for other elements)."""
    if section != "bodies":
        return {}
    from impulsim.dynamics.diagnostics import body_user_pose
    m, s = live.model, live.state
    name = str(name)
    if name not in m.body_names:          # switched off or not compiled: the document's start
        element = to_plain(live.doc.element("bodies", name))
        return {"mass": element.get("mass", 0.0), "position": element.get("position", [0, 0, 0]),
                "orientation": element.get("orientation", [1, 0, 0, 0]),
                "velocity": element.get("velocity", [0, 0, 0]),
                "angular_velocity": element.get("angular_velocity", [0, 0, 0]),
                "materials": list(to_plain(live.doc.root.get("materials") or {}))}
    k = m.body(name)
    pos, quat = body_user_pose(m, s, k)
    omega = s.body_omega[k]
    return {"mass": float(m.body_mass[k]), "position": [float(x) for x in pos],
            "orientation": [float(x) for x in quat],
            "velocity": [float(x) for x in s.body_vel[k] + np.cross(omega, pos - s.body_pos[k])],
            "angular_velocity": [float(x) for x in omega],
            "materials": list(to_plain(live.doc.root.get("materials") or {}))}


def _in_body_frame(live, body: str, axis: np.ndarray) -> list:
    """A world direction in the body's user frame as it is now (world: unchanged)."""
    from impulsim.dynamics.diagnostics import body_user_pose
    from impulsim.math.quaternion import quat_rotate_inv
    axis = axis / np.linalg.norm(axis)
    if body == "world" or body not in live.model.body_names:
        return [float(x) for x in axis]
    _, quat = body_user_pose(live.model, live.state, body)
    return [float(x) for x in quat_rotate_inv(quat, axis)]


def _describe(section: str, item: dict) -> str:
    name = item.get("name", "")
    off = "" if item.get("active", True) is not False else " (off)"
    if section == "bodies":
        kind = "static" if item.get("static") else "kinematic" if item.get("kinematic") else \
            f"{item['mass']} kg" if "mass" in item else "dynamic"
        return f"{name} ({kind})"
    if section in ("joints", "springs"):
        return f"{name}: {item.get('type', SINGULAR[section])} {' – '.join(map(str, item.get('bodies', [])))}{off}"
    if section == "loads":
        return f"{name or 'load'} on {item.get('body')}{off}"
    return f"{name} on {item.get('joint')}{off}"


def _parsed(text: str, old):
    """A text field's value: a string stays a string; anything else is read as YAML (``[1, 2]``, ``{a: 1}``)."""
    if isinstance(old, str):
        return text
    import yaml
    return yaml.safe_load(text)


def _next_name(name: str) -> str:
    stem, _, number = name.rpartition("_")
    return f"{stem}_{int(number) + 1}" if stem and number.isdigit() else f"{name}_2"


def _line(exc: BaseException) -> str:
    text = (exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)).strip().splitlines()
    return str(text[0]) if text else type(exc).__name__


def edit_scene(path: str, *, port: int = 8080, open_browser: bool = True, h: Optional[float] = None,
               method: Optional[str] = None, host: str = "127.0.0.1"):
    """Show a scene file live and editable (see the module's docstring); returns the started Viewer, with
    its edit panel as ``viewer.edit_panel``."""
    from impulsim.editing import LiveScene
    from impulsim.methods.catalog import check_scene_method
    from impulsim.viewer.app import Viewer

    live = LiveScene.load(path, method=method, h=h)
    method = method or live.scene.settings.method
    check_scene_method(method)
    viewer = Viewer(live_simulations(live), live.model, h=live.sim.h, method=method, port=port, host=host,
                    title=live.scene.name, builder=live.scene.builder, options=live.scene.settings.options)
    viewer.engine.live = live
    viewer.engine.sim = live.sim
    viewer.engine.method_name = method
    viewer.start()
    viewer.edit_panel = EditPanel(viewer)
    if open_browser:
        import webbrowser
        webbrowser.open(viewer.url)
    return viewer


def live_simulations(live) -> Callable:
    """The viewer's ``make_sim(state, h, method)`` for a LiveScene: a reset goes back to the document's
    start (with every edit), a method change keeps the state; both on the edited scene's model."""
    def make_sim(state, h, name):
        live.method_name, live.h_override = name, h
        if state is None:
            live.reset()
        else:
            live.sim = live._simulation(live.scene, state.copy())
        return live.sim
    return make_sim
