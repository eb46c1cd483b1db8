"""The simulation thread of the viewer, decoupled from the view as in Bender's environment (sec. 1.4).

The view never touches the :class:`~impulsim.Simulation`: it puts commands into a queue, and the
simulation thread applies them between steps; after each batch of steps the thread publishes a
:class:`Snapshot` (copies of the poses and diagnostics) into a data store the view reads.
"""
from __future__ import annotations

import queue
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

from impulsim.dynamics import diagnostics
from impulsim.math.linalg import inertia_world
from impulsim.math.quaternion import quat_to_matrix
from impulsim.methods.catalog import scene_methods
from impulsim.viewer.guard import checked

MAX_BATCH_WALL = 0.05
"""Longest wall time [s] the thread steps before publishing, so the view stays fresh under load."""
VIEW_CHUNK = 10
"""Most steps the thread takes in one call of Method.run (a compiled loop cannot be interrupted; ten steps of
a contact pile take about a millisecond)."""
IDLE_WAIT = 0.05
"""How long [s] a paused thread waits for a command before looking again."""
HISTORY = 2000
"""Diagnostic samples kept for the live plots."""


@dataclass
class Snapshot:
    """A consistent copy of what the view shows, published by the simulation thread."""
    t: float
    step: int
    body_pos: np.ndarray
    body_quat: np.ndarray
    playing: bool
    speed: float
    h: float
    method: str
    energy: float = 0.0
    constraint_error: float = 0.0
    iters_pos: int = 0
    error: Optional[str] = None
    momentum: float = 0.0
    """Magnitude of the total linear momentum [kg m/s]."""
    contact_points: Optional[np.ndarray] = None
    """Contact points (midway between the two surfaces) [m], world, shape [n, 3]; None when not shown."""
    contact_normals: Optional[np.ndarray] = None
    """Unit contact normals, world, shape [n, 3]."""
    contact_bodies: Optional[np.ndarray] = None
    """The two bodies of each contact, shape [n, 2], int."""
    steps_per_second: float = 0.0
    model: object = None
    """The model the poses belong to, when the scene can be edited while it runs (else None: it never
    changes); the view rebuilds its bodies when it differs from the one it shows."""


@dataclass
class Command:
    """One request from the view; ``name`` selects the handler ``SimulationThread._do_<name>``."""
    name: str
    args: tuple = ()
    done: Optional[threading.Event] = field(default=None, repr=False)


class SimulationThread:
    """Owns a Simulation and steps it in its own thread, driven by commands from a queue.

    ``make_sim(state, h, method)`` builds a Simulation (state None: the initial state); it is used at
    the start, on reset and when the method changes.
    """

    def __init__(self, make_sim: Callable, h: float, method: str, speed: float = 1.0, builder=None,
                 options: Optional[dict] = None):
        self.make_sim = make_sim
        self.builder, self.options = builder, dict(options or {})
        self.grab = None
        self.contacts_on = False
        self._detector = None
        self.live = None
        """An editable :class:`~impulsim.editing.LiveScene` (see :mod:`.edit_panel`): stepped through its own
        ``step`` (assembling mode) and changed by ``edit`` commands; None for a fixed scene."""
        self.sim = make_sim(None, h, method)
        self.method_name = self._scene_method = method
        self.commands: "queue.Queue[Command]" = queue.Queue()
        self.playing = False
        self.speed = float(speed)
        self.error: Optional[str] = None
        self.history: list[tuple] = []
        self._lock = threading.Lock()
        self._snapshot = self._take_snapshot(0.0)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="impulsim-simulation", daemon=True)

    # the view's side --------------------------------------------------------------------------
    def start(self) -> "SimulationThread":
        """Start stepping (paused until a ``play`` command)."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop the thread and wait for it."""
        self._stop.set()
        self._thread.join(timeout=5.0)

    def send(self, name: str, *args, wait: bool = False, timeout: float = 30.0) -> None:
        """Queue a command; with ``wait`` block until the thread has applied it (at most ``timeout`` s)."""
        if not hasattr(self, f"_do_{name}"):
            raise ValueError(f"unknown viewer command {name!r}")
        done = threading.Event() if wait else None
        self.commands.put(Command(name, args, done))
        if done is not None and not done.wait(timeout=timeout):
            raise TimeoutError(f"the simulation thread did not apply {name!r} within {timeout:g} s")

    def snapshot(self) -> Snapshot:
        """The latest published snapshot (never a half-written one)."""
        with self._lock:
            return self._snapshot

    # the thread's side ------------------------------------------------------------------------
    def _loop(self) -> None:
        wall0, sim_t0 = time.perf_counter(), self.sim.t
        while not self._stop.is_set():
            was_playing = self.playing
            self._drain(block=not self.playing)
            if self.playing and not was_playing:
                wall0, sim_t0 = time.perf_counter(), self.sim.t
            if self.playing:
                target = sim_t0 + self.speed * (time.perf_counter() - wall0)
                steps = self._advance_until(target)
                if steps == 0:
                    time.sleep(min(0.002, self.sim.h / max(self.speed, 1e-9)))
                elif self.sim.t < target - 1.0:     # cannot keep up: drop the backlog, do not spiral
                    wall0, sim_t0 = time.perf_counter(), self.sim.t

    def _drain(self, block: bool) -> None:
        """Apply all queued commands (waiting briefly for one when paused)."""
        try:
            cmd = self.commands.get(timeout=IDLE_WAIT) if block else self.commands.get_nowait()
        except queue.Empty:
            return
        while True:
            self._apply(cmd)
            try:
                cmd = self.commands.get_nowait()
            except queue.Empty:
                return

    def _apply(self, cmd: Command) -> None:
        try:
            getattr(self, f"_do_{cmd.name}")(*cmd.args)
        except Exception as exc:   # a bad command must not kill the thread: show it in the view
            text = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
            self.error = f"{cmd.name}: {text}"
        finally:
            self._publish(0.0)
            if cmd.done is not None:
                cmd.done.set()

    def _advance_until(self, target: float) -> int:
        """Step while behind ``target`` [s] for at most MAX_BATCH_WALL of wall time; publish."""
        start, n = time.perf_counter(), 0
        while self.sim.t + 0.5 * self.sim.h <= target and time.perf_counter() - start < MAX_BATCH_WALL:
            behind = int((target - self.sim.t) / self.sim.h + 0.5)
            done = self._step_batch(max(1, min(VIEW_CHUNK, behind)))
            n += done
            if not done or not self.playing:       # a failed step pauses
                break
        if n:
            self._publish(n / max(time.perf_counter() - start, 1e-9))
        return n

    def _step_batch(self, k: int) -> int:
        """Up to ``k`` steps, in one call of Method.run where nothing needs single steps (no editing session,
        callbacks or event hooks): its compiled loop where the method has one, the same steps as ``k`` calls of
        step. Returns the steps taken; a failed step pauses and is shown as :meth:`_step_once` shows it."""
        if k == 1 or self.live is not None or not self.sim.batchable:
            return int(self._step_once())
        before = self.sim.state.step_count
        try:
            self.sim.run_steps(k)
        except Exception as exc:   # as _step_once: the state is that of the last good step
            self.playing = False
            self.error = f"step {self.sim.state.step_count}: {exc}"
        return self.sim.state.step_count - before

    def _step_once(self) -> bool:
        try:
            if self.live is not None and self.grab is None:
                self.live.sim = self.sim          # after a release or a method change: the same model
                self.live.step()
            else:
                self.sim.step()
            return True
        except Exception as exc:   # SimulationError and friends: pause and show the message
            self.playing = False
            self.error = f"step {self.sim.state.step_count}: {exc}"
            return False

    def _publish(self, rate: float) -> None:
        snap = self._take_snapshot(rate)
        self.history.append((snap.t, snap.energy, snap.constraint_error, snap.iters_pos, snap.momentum))
        del self.history[:-HISTORY]
        with self._lock:
            self._snapshot = snap

    def _take_snapshot(self, rate: float) -> Snapshot:
        s, m, info = self.sim.state, self.sim.model, self.sim.last_info
        err = diagnostics.constraint_errors(m, s)
        points, normals, pairs = self._contacts() if self.contacts_on else (None, None, None)
        return Snapshot(s.t, s.step_count, s.body_pos.copy(), s.body_quat.copy(), self.playing, self.speed,
                        self.sim.h, self.method_name, diagnostics.total_energy(m, s),
                        float(err.max(initial=0.0)), 0 if info is None else int(info.iters_pos),
                        error=self.error, steps_per_second=rate,
                        momentum=float(np.linalg.norm(diagnostics.linear_momentum(m, s))),
                        contact_points=points, contact_normals=normals, contact_bodies=pairs,
                        model=self._shown_model())

    def _shown_model(self):
        """The scene's own model (without a grab's mouse body) for an editable scene, else None."""
        if self.live is None:
            return None
        return self.sim.model if self.grab is None else self.grab.base_model

    def _contacts(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Contacts of the current state from a detector of our own (the same for every method): points,
        normals and the two bodies of each."""
        from impulsim.collision import Detector
        if self._detector is None or self._detector.model is not self.sim.model:
            self._detector = Detector(self.sim.model)
        c = self._detector.detect(self.sim.state)
        return 0.5 * (c.point_a + c.point_b), c.normal.copy(), np.stack([c.body_a, c.body_b], axis=1)

    # command handlers (run in the simulation thread, between steps) ---------------------------
    def _do_play(self) -> None:
        self.playing = True

    def _do_pause(self) -> None:
        self.playing = False

    def _do_step(self, n: int = 1) -> None:
        self.playing = False
        for _ in range(int(n)):
            if not self._step_once():
                break

    def _do_reset(self) -> None:
        self.grab = None
        self.sim = self.make_sim(None, self.sim.h, self.method_name)
        self.error = None

    def _do_speed(self, factor: float) -> None:
        self.speed = checked("speed", factor)

    def _do_h(self, h: float) -> None:
        self.sim.h = checked("h", h)

    def _do_method(self, name: str) -> None:
        if name not in scene_methods():
            raise ValueError(f"unknown method {name!r} (available: {', '.join(scene_methods())})")
        self._do_release()
        self.sim = self.make_sim(self.sim.state, self.sim.h, name)
        self.method_name = name

    def _do_impulse(self, body: int, point, impulse) -> None:
        """Apply the impulse p [N s] (world) at the world point ``point`` [m] of ``body``."""
        apply_impulse(self.sim.model, self.sim.state, int(body), np.asarray(point, float),
                      np.asarray(impulse, float))

    def _do_grab(self, body: int, point, rotate: bool = False) -> None:
        """Hold ``body`` at the world ``point`` [m] through a velocity joint (see :mod:`.grab`);
        with ``rotate`` also hold its orientation (manipulators)."""
        from impulsim.viewer.grab import Grab
        if self.builder is None:
            raise ValueError("grabbing needs the scene's builder")
        if self.grab is not None:
            self._do_release()
        options = self.options if self.method_name == self._scene_method else {}
        self.grab = Grab(self.sim, self.builder, int(body), point, self.method_name, options, rotate)
        self.sim = self.grab.sim

    def _do_move_grab(self, point, quat=None) -> None:
        """Move the target of the active grab to the world ``point`` [m] (and orientation ``quat``)."""
        if self.grab is not None:
            self.grab.target[:] = point
            if quat is not None and self.grab.target_quat is not None:
                self.grab.target_quat[:] = quat

    def _do_release(self) -> None:
        if self.grab is not None:
            self.sim = self.grab.release()
            self.grab = None

    def _do_contacts(self, on: bool) -> None:
        """Publish the contact points and normals with every snapshot (or stop)."""
        self.contacts_on = bool(on)

    def _do_set_params(self, arrays: dict) -> None:
        if "gravity" in arrays:
            arrays = {**arrays, "gravity": [checked("gravity", g) for g in arrays["gravity"]]}
        self.sim.set_params(**arrays)

    def _do_edit(self, fn: Callable) -> None:
        """Run ``fn(live)`` on the editable scene between two steps (an edit, undo, redo, save); the thread
        goes on with the edited scene's simulation. A grab is released first (its model is the old one)."""
        if self.live is None:
            raise ValueError("this view shows a fixed scene: start it with an editable one to edit")
        self._do_release()
        self.live.sim = self.sim
        self.live.method_name, self.live.h_override = self.method_name, self.sim.h
        try:
            fn(self.live)
        finally:
            self.sim, self.builder = self.live.sim, self.live.scene.builder

    def _do_call(self, fn: Callable) -> None:
        """Run ``fn(sim)`` in the simulation thread (scripts from the view's side)."""
        fn(self.sim)


def apply_impulse(model, state, body: int, point: np.ndarray, p: np.ndarray) -> None:
    """Change a body's velocities by the impulse p at a world point: Δv = p/m, Δω = I⁻¹ (r × p)."""
    if model.body_inv_mass[body] == 0.0:
        raise ValueError(f"body {model.body_names[body]!r} is static or kinematic: an impulse cannot move it")
    r = point - state.body_pos[body]
    inv_inertia = inertia_world(quat_to_matrix(state.body_quat[body]), model.body_inv_inertia[body])
    state.body_vel[body] += model.body_inv_mass[body] * p
    state.body_omega[body] += inv_inertia @ np.cross(r, p)
