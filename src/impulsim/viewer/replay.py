"""Replay of recordings in the live view: a timeline scrubber, and a second recording as a ghost.

``impulsim view SCENE --replay RECORDING [--ghost OTHER]``: no simulation runs; the time slider picks
the recorded row nearest to it, Play advances it with the wall clock. The ghost (e.g. the same scene
with another method or step size) is drawn transparent at its own row nearest to the same time,
shifted by an adjustable offset so both can be seen beside each other.
"""
from __future__ import annotations

import os
import threading
import time
from typing import Optional

import numpy as np

from impulsim.io.gltf import recording_poses
from impulsim.io.framing import frame_camera
from impulsim.io.shape_meshes import body_meshes
from impulsim.viewer.guard import OriginGuard, guarded_input

GHOST_OPACITY = 0.35
COLORS = ((90, 160, 230), (230, 140, 60), (110, 190, 110), (200, 90, 160), (220, 200, 80), (120, 120, 220))
STATIC_COLOR = (150, 150, 150)


class Track:
    """One recording's poses and the mesh nodes that show them."""

    def __init__(self, server, model, table, static_state, prefix: str, opacity: Optional[float]):
        self.model = model
        self.t, self.pos, self.quat = recording_poses(model, table, static_state)
        if len(self.t) == 0:
            raise ValueError(f"{prefix}: the recording has no rows")
        self.offset = np.zeros(3)
        self.handles = {}
        for i, mesh in enumerate(body_meshes(model)):
            k, static = mesh.body, bool(model.body_static[mesh.body])
            color = STATIC_COLOR if static else COLORS[i % len(COLORS)]
            self.handles[k] = server.scene.add_mesh_simple(
                f"/{prefix}/{mesh.name}", mesh.vertices.astype(np.float32), mesh.faces, color=color,
                opacity=opacity, flat_shading=True, position=self.pos[0, k], wxyz=self.quat[0, k])

    def row(self, t: float) -> int:
        """Index of the recorded row nearest to time t [s]."""
        i = int(np.clip(np.searchsorted(self.t, t), 1, len(self.t) - 1)) if len(self.t) > 1 else 0
        return i - 1 if i > 0 and t - self.t[i - 1] < self.t[i] - t else i

    def show(self, t: float) -> int:
        """Place the bodies at the row nearest to t; returns the row."""
        r = self.row(t)
        for k, handle in self.handles.items():
            handle.position = self.pos[r, k] + self.offset
            handle.wxyz = self.quat[r, k]
        return r


class ReplayViewer:
    """A recording (and optionally a ghost recording) of one scene, scrubbed in the browser."""

    def __init__(self, model, static_state, table, ghost_table=None, *, port: int = 8080,
                 host: str = "127.0.0.1", title: str = "impulsim replay"):
        import viser
        self.host = host
        self.server = viser.ViserServer(host=host, port=port, label=title, verbose=False)
        self.guard = OriginGuard(self.server)
        self.refusals: list[str] = []
        self.server.scene.set_up_direction("+z")
        self.main = Track(self.server, model, table, static_state, "bodies", None)
        self.ghost = None if ghost_table is None else Track(self.server, model, ghost_table, static_state,
                                                            "ghost", GHOST_OPACITY)
        frame_camera(self.server, model, self.main.pos[0], self.main.quat[0])
        self._playing = threading.Event()
        self._stop = threading.Event()
        self._add_controls()
        self._player = threading.Thread(target=self._play_loop, name="impulsim-replay", daemon=True)

    @property
    def port(self) -> int:
        return self.server.get_port()

    @property
    def url(self) -> str:
        """The page's address."""
        from impulsim.viewer.app import page_url
        return page_url(self.host, self.port)

    def start(self) -> "ReplayViewer":
        self._player.start()
        return self

    def stop(self) -> None:
        from impulsim.progress import quiet_stdout
        self._stop.set()
        self._player.join(timeout=5.0)
        with quiet_stdout():     # viser prints "Server stopped"; the command says it itself
            self.server.stop()

    def _add_controls(self) -> None:
        gui, t = self.server.gui, self.main.t
        step = float(np.min(np.diff(t))) if len(t) > 1 else 1.0
        self.slider = gui.add_slider("Time [s]", min=float(t[0]), max=float(max(t[-1], t[0] + step)),
                                     step=step, initial_value=float(t[0]))
        from impulsim.viewer.guard import Limit
        guarded_input(self.slider, "time", self.show_time, self.refusals.append,
                      Limit(self.slider.min, self.slider.max, "s"))
        buttons = gui.add_button_group("Replay", ("Play", "Pause"))
        buttons.on_click(lambda e: self._playing.set() if e.target.value == "Play" else self._playing.clear())
        # two lines (time and row; the ghost's row) so that nothing is cut off in the panel's width
        self.status = gui.add_text("Row", "", disabled=True, multiline=True)
        if self.ghost is not None:
            offset = gui.add_number("Ghost offset x [m]", initial_value=0.0, step=0.1, min=-1e3, max=1e3)
            guarded_input(offset, "ghost_offset", self._set_ghost_offset, self.refusals.append)
        self.show_time(float(t[0]))

    def _set_ghost_offset(self, dx: float) -> None:
        self.ghost.offset[0] = float(dx)
        self.show_time(self.time)

    def show_time(self, t: float) -> None:
        """Show both recordings at time t [s]."""
        self.time = float(t)
        with self.server.atomic():
            r = self.main.show(t)
            text = f"t = {self.main.t[r]:.6f} s  row {r}"
            if self.ghost is not None:
                g = self.ghost.show(t)
                text += f"\nghost row {g}"
            self.status.value = text

    def _play_loop(self) -> None:
        """Advance the slider with the wall clock while playing; loop at the end."""
        last = time.perf_counter()
        while not self._stop.is_set():
            time.sleep(1.0 / 30.0)
            now = time.perf_counter()
            if self._playing.is_set():
                t = self.time + (now - last)
                t = t if t <= self.slider.max else self.slider.min
                self.slider.value = t
                self.show_time(t)
            last = now


def replay_scene(scene_path: str, recording: str, ghost: Optional[str] = None, *, port: int = 8080,
                 open_browser: bool = True, host: str = "127.0.0.1") -> ReplayViewer:
    """Load a scene and its recording(s) and serve the replay view; returns the started viewer."""
    from impulsim.io import load_scene
    from impulsim.io.recording import read_recording
    scene = load_scene(scene_path)
    tables = []
    for path in (recording, ghost):
        if path is None:
            continue
        if not os.path.isfile(path):
            raise ValueError(f"{path}: no such recording")
        tables.append(read_recording(path))
        recording_poses(scene.model, tables[-1], scene.state)      # fails early if from another scene
    table, ghost_table = tables[0], (tables[1] if len(tables) > 1 else None)
    viewer = ReplayViewer(scene.model, scene.state, table, ghost_table, port=port, host=host,
                          title=f"{scene.name} (replay)").start()
    if open_browser:
        import webbrowser
        webbrowser.open(viewer.url)
    return viewer
