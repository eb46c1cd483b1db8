"""The live 3D view: a viser server showing the bodies, with controls that send commands.

The view only reads :class:`~impulsim.viewer.engine.Snapshot` objects and sends commands; it never
steps or changes the simulation itself.
"""
from __future__ import annotations

import threading
import time
from typing import Optional

import numpy as np

from impulsim.io.framing import frame_camera
from impulsim.io.shape_meshes import body_meshes, visual_meshes
from impulsim.methods.catalog import check_scene_method, methods_for
from impulsim.model.kinds import Prim
from impulsim.viewer.engine import SimulationThread
from impulsim.viewer.guard import LIMITS, Limit, OriginGuard, checked, guarded_input
from impulsim.viewer.panels import LivePlots, add_parameter_panel

FRAME_INTERVAL = 1.0 / 60.0
"""Wall time [s] between pose updates sent to the browser."""
DRAG_TIME = 0.25
"""A mouse drag of d metres gives the grabbed point the velocity d / DRAG_TIME [m/s] (Bender's impulse)."""
PLOT_EVERY = 10
"""Pose updates between two refreshes of the plots and the selected body's state (plots are heavier)."""
COLORS = ((90, 160, 230), (230, 140, 60), (110, 190, 110), (200, 90, 160), (220, 200, 80), (120, 120, 220))
STATIC_COLOR = (150, 150, 150)
VISUAL_COLOR = (205, 190, 160)
"""Colour of an imported model's display-only geometry (URDF visuals, MJCF geoms that never collide)."""
_LINKS = (int(Prim.DISTANCE), int(Prim.THREAD))
"""Basic constraints drawn as lines when they hold a point mass."""
PICK_THICKNESS = 0.04
"""Smallest thickness of a body's click target, as a share of the scene's size: thinner bodies get an
invisible, thicker box around them that takes their clicks and drags (and shows the hover outline)."""
PICK_OPACITY = 0.0
RUN_BUTTONS = ("Play", "Pause", "Step", "Reset")
REFUSAL_SHOWN = 5.0
"""Wall time [s] a refused input's message stays in the panel."""
CONTACT_MARKER = 0.5
"""Length of a contact normal's line as a share of the smaller body's size (dots are a quarter of it)."""


class Viewer:
    """A scene shown live in the browser; ``make_sim(state, h, method)`` builds its Simulation."""

    def __init__(self, make_sim, model, *, h: float, method: str, port: int = 8080,
                 host: str = "127.0.0.1", title: str = "impulsim", builder=None, options=None):
        import viser

        self.model, self.host = model, host
        compile_before_threads(make_sim, h, method)
        self.engine = SimulationThread(make_sim, h, method, builder=builder, options=options)
        self.server = viser.ViserServer(host=host, port=port, label=title, verbose=False)
        self.guard = OriginGuard(self.server)
        self.server.scene.set_up_direction("+z")
        self.meshes = body_meshes(model)
        self.body_size = body_sizes(model, self.meshes)
        self.handles: dict[int, object] = {}
        self.frames_sent = 0
        self.refusals: list[str] = []
        """Inputs refused so far (out of range, not a number, not offered), newest last."""
        self._refused_at = -np.inf
        self._last_snapshot = None
        self._stop = threading.Event()
        self.select_hooks: list = []
        """Functions ``hook(body)`` called when a body is clicked (the edit panel's scene tree follows)."""
        self._add_bodies()
        self._add_visuals(getattr(builder, "import_report", None))
        self.joint_frames = self._add_joint_frames()
        self.framing = self.frame_camera(clients=False)
        self._add_controls(h, method)
        self._pusher = threading.Thread(target=self._push_loop, name="impulsim-view", daemon=True)

    @property
    def port(self) -> int:
        """The port the server listens on."""
        return self.server.get_port()

    @property
    def url(self) -> str:
        """The page's address."""
        return page_url(self.host, self.port)

    def start(self) -> "Viewer":
        """Start the simulation thread (paused) and the pose updates."""
        self.engine.start()
        self._pusher.start()
        return self

    def stop(self) -> None:
        """Stop both threads and the server."""
        from impulsim.progress import quiet_stdout
        self._stop.set()
        self.engine.stop()
        self._pusher.join(timeout=5.0)
        with quiet_stdout():     # viser prints "Server stopped"; the command says it itself
            self.server.stop()

    # scene ------------------------------------------------------------------------------------
    def _add_bodies(self, state=None) -> None:
        """One mesh node per body, placed at the body's principal frame."""
        state = state or self.engine.snapshot()
        thick = PICK_THICKNESS * _scene_size(state.body_pos)
        self.pick_targets = {}
        for i, mesh in enumerate(self.meshes):
            k = mesh.body
            static = bool(self.model.body_static[k])
            handle = self.server.scene.add_mesh_simple(
                f"/bodies/{mesh.name}", mesh.vertices.astype(np.float32), mesh.faces,
                color=STATIC_COLOR if static else COLORS[i % len(COLORS)], flat_shading=True,
                position=state.body_pos[k], wxyz=state.body_quat[k])
            targets = [handle]
            lo, hi = mesh.vertices.min(axis=0), mesh.vertices.max(axis=0)
            if not static and float(np.min(hi - lo)) < thick:
                proxy = self.server.scene.add_box(
                    f"/bodies/{mesh.name}/pick", color=(255, 255, 255), opacity=PICK_OPACITY,
                    dimensions=tuple(np.maximum(hi - lo, thick)), position=tuple(0.5 * (lo + hi)),
                    cast_shadow=False, receive_shadow=False)
                targets.append(proxy)
                self.pick_targets[k] = proxy
            for target in targets:
                if not static and self.model.body_inv_mass[k] > 0:
                    self._make_draggable(target, k)
                target.on_click(lambda event, k=k: self._select(k))
            self.handles[k] = handle

    def _add_visuals(self, report) -> None:
        """An imported model's display geometry, each body's as a child of its node (a bare frame where the
        body has no collision shapes) so that it moves with the body; hidden with the bodies."""
        self.visual_handles = []
        if report is None or not report.visuals:
            return
        state = self.engine.snapshot()
        names = {mesh.body: mesh.name for mesh in self.meshes}
        for mesh in visual_meshes(self.model, report.visuals):
            k = mesh.body
            if k not in self.handles:
                names[k] = self.model.body_names[k]
                self.handles[k] = self.server.scene.add_frame(
                    f"/bodies/{names[k]}", show_axes=False, position=state.body_pos[k], wxyz=state.body_quat[k])
            self.visual_handles.append(self.server.scene.add_mesh_simple(
                f"/bodies/{names[k]}/visual", mesh.vertices.astype(np.float32), mesh.faces, color=VISUAL_COLOR,
                flat_shading=False))
        self.show_collision_shapes(False)

    def _add_joint_frames(self, snap=None) -> list:
        """A small axes triad at every joint anchor, z along the joint axis, attached to a body's node."""
        m, snap, frames = self.model, snap or self.engine.snapshot(), []
        size = 0.1 * _scene_size(snap.body_pos)
        for j, name in enumerate(m.joint_names):
            side = _frame_body(m, self.handles, j)
            if side is None:
                continue
            k, anchor, axis = side
            pose = {"position": anchor, "wxyz": _z_to(axis)}
            if k in self.handles:
                parent = f"/bodies/{m.body_names[k]}"
            else:    # a static body without shapes (the world): place the frame in world coordinates
                parent = "/joints"
                pose = {"position": snap.body_pos[k] + _rotate(snap.body_quat[k], anchor),
                        "wxyz": _quat_mul(snap.body_quat[k], pose["wxyz"])}
            frames.append(self.server.scene.add_frame(f"{parent}/joint_{name}", axes_length=size,
                                                      axes_radius=0.04 * size, visible=False, **pose))
        return frames

    def _toggle_contacts(self, on: bool) -> None:
        self.engine.send("contacts", bool(on))
        if not on:
            self.server.scene.remove_by_name("/contacts")

    def _show_contacts(self, snap) -> None:
        """Contact points as dots and normals as short lines (re-added each time: counts change)."""
        if snap.contact_points is None:
            return
        if len(snap.contact_points) == 0:
            self.server.scene.remove_by_name("/contacts")
            return
        length = contact_marker_length(self.body_size, snap.contact_bodies)
        p, n = snap.contact_points.astype(np.float32), snap.contact_normals.astype(np.float32)
        self.server.scene.add_point_cloud("/contacts/points", p, (220, 30, 30), point_size=0.25 * length,
                                          point_shape="circle")
        self.server.scene.add_line_segments("/contacts/normals", np.stack([p, p + length * n], axis=1),
                                            (220, 30, 30), thickness=0.1 * length)

    def _show_links(self, snap) -> None:
        """Distances and threads at point masses as lines between their two ends: a set of points has no
        other outline (re-added each time, like the contacts)."""
        m = self.model
        links = [p for p in range(m.n_prims) if int(m.prim_kind[p]) in _LINKS
                 and (m.body_point[m.prim_body_a[p]] or m.body_point[m.prim_body_b[p]])]
        if not links:
            return
        ends = [[snap.body_pos[k[p]] + _rotate(snap.body_quat[k[p]], anchor[p]) for k, anchor in
                 ((m.prim_body_a, m.prim_anchor_a), (m.prim_body_b, m.prim_anchor_b))] for p in links]
        self.server.scene.add_line_segments("/links", np.asarray(ends, np.float32), (90, 90, 90),
                                            thickness=0.01 * _scene_size(snap.body_pos))

    def show_joint_frames(self, visible: bool) -> None:
        """Show or hide the joint anchors and axes."""
        for frame in self.joint_frames:
            frame.visible = bool(visible)

    def frame_camera(self, clients: bool = True):
        """Look at the moving bodies' meshes as they are now, from the front right, near enough that they
        fill the view; with ``clients`` also move the camera of every open page (the "Frame scene"
        button). Returns the :class:`~impulsim.io.framing.Framing`."""
        snap = self.engine.snapshot()
        return frame_camera(self.server, self.model, snap.body_pos, snap.body_quat, clients=clients)

    def _make_draggable(self, handle, body: int) -> None:
        """Left-drag on a body: impulse on release; shift + left-drag: grab through a velocity joint."""
        self._make_impulse_drag(handle, body)

        @handle.on_drag("left", modifier="shift")
        async def _(event) -> None:
            if event.phase == "start":
                self.engine.send("grab", body, np.asarray(event.start_position, float))
            elif event.phase == "update":
                self.engine.send("move_grab", np.asarray(event.end_position, float))
            else:
                self.engine.send("release")

    def _make_impulse_drag(self, handle, body: int) -> None:
        """Left-drag on a body: on release apply the impulse that moves the grabbed point along the drag."""
        grab: dict = {}

        @handle.on_drag("left")
        async def _(event) -> None:
            if event.phase == "start":
                grab["start"] = np.asarray(event.start_position, float)
            elif event.phase == "end" and "start" in grab:
                start = grab.pop("start")
                mass = 1.0 / self.model.body_inv_mass[body]
                p = mass * (np.asarray(event.end_position, float) - start) / DRAG_TIME
                self.engine.send("impulse", body, start, p)

    def _select(self, body: int) -> None:
        self.selected_body = body
        self._show_selected(self.engine.snapshot())
        for hook in self.select_hooks:
            hook(body)
        if self.manipulate.value:
            self._attach_manipulator(body)

    def _attach_manipulator(self, body: Optional[int]) -> None:
        """Translate/rotate gizmo at the body's centre; dragging it holds the body through a velocity joint
        (position and orientation) that follows the gizmo."""
        if self.manipulator is not None:
            self.manipulator.remove()
            self.manipulator = None
        if body is None or self.model.body_inv_mass[body] == 0:
            return
        snap = self.engine.snapshot()
        size = 0.8 * _scene_size(snap.body_pos)
        gizmo = self.server.scene.add_transform_controls(
            "/manipulator", scale=size, depth_test=False, position=snap.body_pos[body],
            wxyz=snap.body_quat[body])
        gizmo.on_drag_start(lambda _: self.engine.send("grab", body, np.asarray(gizmo.position, float), True))
        gizmo.on_update(lambda _: self.engine.send("move_grab", np.asarray(gizmo.position, float),
                                                   np.asarray(gizmo.wxyz, float)))
        gizmo.on_drag_end(lambda _: self._release_manipulator(body))
        self.manipulator = gizmo

    def _release_manipulator(self, body: int) -> None:
        self.engine.send("release")
        snap = self.engine.snapshot()
        if self.manipulator is not None:     # back on the body, wherever its joints let it go
            self.manipulator.position, self.manipulator.wxyz = snap.body_pos[body], snap.body_quat[body]

    def _show_selected(self, snap) -> None:
        """The clicked body's mass and pose in the panel."""
        k = getattr(self, "selected_body", None)
        if k is None:
            return
        m = self.model
        mass = "static" if m.body_static[k] else f"{m.body_mass[k]:.4g} kg"
        x = ", ".join(f"{v:.4f}" for v in snap.body_pos[k])
        self.selected.content = f"**{m.body_names[k]}**: {mass}, centre ({x}) m"

    # controls ---------------------------------------------------------------------------------
    def _add_controls(self, h: float, method: str) -> None:
        gui = self.server.gui
        self.status = gui.add_text("Time", _status_text(self.engine.snapshot()), disabled=True)
        buttons = gui.add_button_group("Run", RUN_BUTTONS)
        buttons.on_click(lambda event: self._run_button(event.target.value))
        frame = gui.add_button("Frame scene", hint="point the camera at the bodies as they are now")
        frame.on_click(lambda _: self.frame_camera(clients=True))
        self.message = gui.add_markdown("")
        lim_speed, lim_h = LIMITS["speed"], LIMITS["h"]
        speed = gui.add_slider("Real-time factor", min=lim_speed.lo, max=lim_speed.hi, step=0.05,
                               initial_value=1.0)
        guarded_input(speed, "speed", lambda x: self.engine.send("speed", x), self.report)
        # the scene's own h may exceed the panel's usual range (the mass-point cube: 0.16 s)
        lim_h = Limit(lim_h.lo, max(lim_h.hi, float(h)), lim_h.unit, lim_h.what)
        h = checked("h", h, lim_h)
        step_size = gui.add_number("Step size h [s]", initial_value=float(h), min=lim_h.lo, max=lim_h.hi,
                                   step=1e-4)
        guarded_input(step_size, "h", lambda x: self.engine.send("h", x), self.report, lim_h)
        # only the methods that can run this model are offered (the others would refuse it), and the
        # scene's own, which may run with options (ignore=) that the others would need too
        able = methods_for(self.engine.sim.model)
        self.method_names = able if method in able else tuple(sorted((*able, method)))
        chooser = gui.add_dropdown("Method", self.method_names, initial_value=method)
        chooser.on_update(lambda _: self._choose_method(chooser, method))
        self.inputs = {"speed": speed, "h": step_size, "method": chooser, "run": buttons, "frame": frame}
        """The panel's inputs by name (tests drive them through the page's own messages)."""
        bodies = gui.add_checkbox("Show bodies", True)
        bodies.on_update(lambda _: self.show_bodies(bodies.value))
        if self.visual_handles:
            shapes = gui.add_checkbox("Collision shapes", False,
                                      hint="the shapes contacts use, drawn over the imported display meshes")
            shapes.on_update(lambda _: self.show_collision_shapes(shapes.value))
            self.inputs["collision shapes"] = shapes
        self.manipulator = None
        self.manipulate = gui.add_checkbox("Manipulator", False,
                                           hint="click a body to move and turn it with a gizmo")
        self.manipulate.on_update(lambda _: self._attach_manipulator(
            getattr(self, "selected_body", None) if self.manipulate.value else None))
        contacts = gui.add_checkbox("Contacts", False, hint="contact points and normals (red)")
        contacts.on_update(lambda _: self._toggle_contacts(contacts.value))
        frames = gui.add_checkbox("Joint frames", False)
        frames.on_update(lambda _: self.show_joint_frames(frames.value))
        self.selected = gui.add_markdown("Click a body to see its state.")
        self.inputs.update(add_parameter_panel(gui, self.model, self.engine, self.report))
        self.plots = LivePlots(gui)

    def report(self, message: str) -> None:
        """Show a refused input in the panel until the next snapshot says otherwise."""
        self.refusals.append(message)
        self._refused_at = time.perf_counter()
        self.message.content = f"**Refused:** {message}"

    def _run_button(self, label: str) -> None:
        if label not in RUN_BUTTONS:
            self.report(f"unknown button {label!r}")
            return
        self.engine.send(label.lower())

    def _choose_method(self, chooser, last: str) -> None:
        """Switch the method if the browser chose one of the offered ones; otherwise put it back."""
        if chooser.value not in self.method_names:
            self.report(f"method {chooser.value!r} is not one of {', '.join(self.method_names)}")
            chooser.value = self.engine.snapshot().method
            return
        self.engine.send("method", chooser.value)

    def show_collision_shapes(self, visible: bool) -> None:
        """Draw the bodies' collision shapes (True) or only the imported display meshes (False). Hidden
        shapes stay in the scene, transparent, so that clicking and dragging a body still finds it."""
        for mesh in self.meshes:
            handle = self.handles.get(mesh.body)
            if handle is not None and hasattr(handle, "opacity"):
                handle.opacity = 1.0 if visible else 0.0
                handle.cast_shadow = bool(visible)

    def show_bodies(self, visible: bool) -> None:
        """Show or hide every body (the grid stays)."""
        for handle in self.handles.values():
            handle.visible = bool(visible)

    # pose updates -----------------------------------------------------------------------------
    def _push_loop(self) -> None:
        """Send the bodies' poses and the status whenever a new snapshot has been published."""
        while not self._stop.is_set():
            tick = time.perf_counter()
            snap = self.engine.snapshot()
            if snap is not self._last_snapshot:     # every command and every batch publishes anew
                self._push(snap)
                if self.frames_sent % PLOT_EVERY == 0:
                    self.plots.update(list(self.engine.history))
                    self._show_selected(snap)
            time.sleep(max(0.0, FRAME_INTERVAL - (time.perf_counter() - tick)))

    def _push(self, snap) -> None:
        if snap.model is not None and snap.model is not self.model:     # an edit changed the scene
            from impulsim.viewer.edit_view import follow_model
            follow_model(self, snap)
        with self.server.atomic():
            for k, handle in self.handles.items():
                if not self.model.body_static[k]:
                    handle.position = snap.body_pos[k]
                    handle.wxyz = snap.body_quat[k]
            self.status.value = _status_text(snap)
            self._show_contacts(snap)
            self._show_links(snap)
            if snap.error:
                self.message.content = f"**Error:** {snap.error}"
            elif time.perf_counter() - self._refused_at > REFUSAL_SHOWN:
                self.message.content = ""
        self._last_snapshot = snap
        self.frames_sent += 1


def _frame_body(model, handles, j: int):
    """(body, anchor, axis) of joint j on a body whose node can carry the frame, or None."""
    for k, anchor, axis in ((model.joint_body_a[j], model.joint_anchor_a[j], model.joint_axis_a[j]),
                            (model.joint_body_b[j], model.joint_anchor_b[j], model.joint_axis_b[j])):
        if k in handles or model.body_static[k]:
            return int(k), np.asarray(anchor, float), np.asarray(axis, float)
    return None


def _z_to(axis: np.ndarray) -> np.ndarray:
    """The unit quaternion (w, x, y, z) turning the z axis onto ``axis`` (identity for a zero axis)."""
    n = np.linalg.norm(axis)
    if n == 0.0:
        return np.array([1.0, 0.0, 0.0, 0.0])
    a = axis / n
    w = 1.0 + a[2]                       # q = (1 + z·a, z × a), normalized: the half-way rotation
    if w < 1e-9:                         # a = −z: half a turn about x
        return np.array([0.0, 1.0, 0.0, 0.0])
    q = np.array([w, -a[1], a[0], 0.0])
    return q / np.linalg.norm(q)


def _rotate(q, v):
    from impulsim.math.quaternion import quat_rotate
    return np.asarray(quat_rotate(np.asarray(q, float), np.asarray(v, float)))


def _quat_mul(p, q):
    from impulsim.math.quaternion import quat_mul
    return np.asarray(quat_mul(np.asarray(p, float), np.asarray(q, float)))


def body_sizes(model, meshes) -> np.ndarray:
    """A size [m] per body: the middle edge of its mesh's bounding box (so a rod's size is its thickness
    times a few, a plate's its width); inf for bodies without shapes."""
    size = np.full(model.n_bodies, np.inf)
    for mesh in meshes:
        edges = np.sort(mesh.vertices.max(axis=0) - mesh.vertices.min(axis=0))
        size[mesh.body] = float(edges[1])
    return size


def contact_marker_length(body_size: np.ndarray, bodies: Optional[np.ndarray]) -> float:
    """Length [m] of the contact normals drawn: CONTACT_MARKER times the median over the contacts of the
    smaller of the two bodies' sizes (a ground has no size of its own; its partner's counts)."""
    if bodies is None or len(bodies) == 0:
        return CONTACT_MARKER * float(np.min(body_size[np.isfinite(body_size)], initial=1.0))
    smaller = np.min(body_size[np.asarray(bodies, int)], axis=1)
    smaller = smaller[np.isfinite(smaller)]
    return CONTACT_MARKER * (float(np.median(smaller)) if len(smaller) else 1.0)


def _scene_size(pos: np.ndarray) -> float:
    """Extent [m] of the body centres, at least 0.5 m."""
    return max(float(np.max(pos.max(axis=0) - pos.min(axis=0))), 0.5)


def _status_text(snap) -> str:
    """The status line; tests read it from the page, so its format is part of the interface."""
    state = "playing" if snap.playing else "paused"
    return f"t = {snap.t:.6f} s  step {snap.step}  ({state})"


def view_scene(path: str, *, port: int = 8080, open_browser: bool = True, h: Optional[float] = None,
               method: Optional[str] = None, host: str = "127.0.0.1") -> Viewer:
    """Load a scene, URDF or MJCF file and show it at ``viewer.url``; returns the started :class:`Viewer`.

    The server listens on ``host`` (default 127.0.0.1: this machine only; "0.0.0.0" for every network
    interface) and accepts only pages it served itself (see :mod:`impulsim.viewer.guard`)."""
    from impulsim.io.formats import load_model_file_reporting

    scene = load_model_file_reporting(path)      # scene file, URDF or MJCF (unmapped elements listed)
    h = scene.settings.h if h is None else h
    method = method or scene.settings.method
    check_scene_method(method)

    def make_sim(state, step, name):
        return scene.simulation(state=None if state is None else state.copy(), h=step, method=name)

    viewer = Viewer(make_sim, scene.model, h=h, method=method, port=port, host=host, title=scene.name,
                    builder=scene.builder, options=scene.settings.options).start()
    if open_browser:
        import webbrowser
        webbrowser.open(viewer.url)
    return viewer


def compile_before_threads(make_sim, h: float, method: str) -> bool:
    """On an empty kernel cache, take the first step of a throwaway copy of the simulation now, before the
    viewer's threads start: a contact scene's first step then compiles on two cores in a fork of this process
    (see impulsim.forked_compile), and the page opens ready to play. Beside the viewer's threads a fork is not
    safe, and the first step after Play would start a new interpreter for the second core instead, which
    takes a second or two more. Returns whether it stepped. A step that fails here is left for the viewer's
    own simulation to report, where its first step fails the same way."""
    from impulsim import forked_compile
    from impulsim.contact.rehearsal import detection_uncompiled
    if forked_compile.why_not() is not None or not detection_uncompiled():
        return False
    sim = make_sim(None, h, method)
    if sim.method.contact_detector() is None:
        return False
    try:
        sim.step()
    except Exception:               # noqa: BLE001 - reported by the viewer's simulation (see above)
        pass
    return True


def page_url(host: str, port: int) -> str:
    """The address to open for a server listening on ``host``:``port``."""
    if host in ("0.0.0.0", "::", ""):
        host = "127.0.0.1"
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"
