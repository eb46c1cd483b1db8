"""The driving simulator's local server: the page, the track mesh, a WebSocket for driving and one for the
force-feedback signal, all on 127.0.0.1 and all behind a per-session token in the URL.

    GET  /?token=T            the page
    GET  /track.bin?token=T   the display mesh (see :func:`display_mesh`)
    WS   /ws?token=T          driving: commands from the page (JSON), frames to it (JSON, ~60 Hz)
    WS   /ff?token=T          force feedback: one JSON text message per 10 ms of simulated time,
                              {"t": s, "M_soll": N m, "F_soll": N}  (F_soll = M_soll / 0.1 m)
"""
from __future__ import annotations

import asyncio
import base64
import json
import math
import secrets
import struct
import threading
from dataclasses import asdict
from http import HTTPStatus
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import numpy as np
from websockets.exceptions import ConnectionClosed

from impulsim.apps.bobsleigh.drive.session import LEVER_ARM, DriveSession
from impulsim.apps.bobsleigh.drive.setup import DriveSetup, load_setup, save_setup

PAGE = Path(__file__).with_name("page.html")
BOXES = {   # body → (centre, half sizes) in the bob frame [m], for drawing only
    "rear_hull": ((-0.62, 0.0, 0.36), (0.66, 0.40, 0.24)),
    "rear_runner_left": ((-0.80, 0.335, 0.05), (0.40, 0.012, 0.05)),
    "rear_runner_right": ((-0.80, -0.335, 0.05), (0.40, 0.012, 0.05)),
    "crew": ((-0.55, 0.0, 0.78), (0.40, 0.22, 0.18)),
    "front_hull": ((0.72, 0.0, 0.30), (0.62, 0.38, 0.18)),
    "steering_head": ((0.78, 0.0, 0.20), (0.05, 0.05, 0.05)),
    "front_axle": ((0.78, 0.0, 0.12), (0.05, 0.33, 0.03)),
    "front_runner_left": ((0.78, 0.335, 0.05), (0.40, 0.012, 0.05)),
    "front_runner_right": ((0.78, -0.335, 0.05), (0.40, 0.012, 0.05)),
}


def display_mesh(track, ds: float = 1.0) -> tuple[np.ndarray, bytes]:
    """The running surface and boundary elements lofted every ``ds`` [m] (every 2nd section of the
    simulation's 0.5 m), shifted by ``origin`` (returned) so float32 keeps millimetres. Bytes: uint32
    vertex count, uint32 triangle count, float32 positions, float32 vertex normals, uint32 indices."""
    from impulsim.apps.bobsleigh.track import surface
    run = track.surface_mesh(ds)
    verts, tris, first = [run.vertices], [run.triangles], len(run.vertices)
    stations = track.stations(ds)
    for el in track.boundary:
        v, t = surface.boundary_strip(el, track.top_edge, stations, first)
        verts.append(v)
        tris.append(t)
        first += len(v)
    V, T = np.concatenate(verts), np.concatenate(tris).astype(np.uint32)
    origin = V.mean(axis=0)
    P = (V - origin).astype(np.float32)
    tn = np.cross(V[T[:, 1]] - V[T[:, 0]], V[T[:, 2]] - V[T[:, 0]])
    N = np.zeros_like(V)
    for j in range(3):
        np.add.at(N, T[:, j], tn)
    N /= np.maximum(np.linalg.norm(N, axis=1), 1e-12)[:, None]
    data = struct.pack("<II", len(P), len(T)) + P.tobytes() + N.astype(np.float32).tobytes() + T.tobytes()
    return origin, data


class DriveServer:
    """Serves one :class:`DriveSession` on 127.0.0.1:port (0: any free port) in its own thread."""

    def __init__(self, session: DriveSession, port: int = 0, pilots_dir="out/drive/pilots"):
        self.session = session
        self.port = port
        self.token = secrets.token_urlsafe(16)
        self.pilots_dir = Path(pilots_dir)
        self.origin, self.mesh_bytes = display_mesh(session.track)
        self._ready = threading.Event()
        self._thread = None
        self.loop = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/?token={self.token}"

    def start(self):
        self._frame_events = set()
        self.session.on_snapshot.append(self._new_snapshot)
        self.session.start_loop()
        self._thread = threading.Thread(target=lambda: asyncio.run(self._main()), daemon=True)
        self._thread.start()
        if not self._ready.wait(30):
            raise RuntimeError("drive: the server did not start")
        return self

    def _new_snapshot(self):
        """From the simulation's thread: wake the pages' senders, so a frame goes out as soon as it is made."""
        loop = self.loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(lambda: [e.set() for e in self._frame_events])

    def stop(self):
        if self._new_snapshot in self.session.on_snapshot:
            self.session.on_snapshot.remove(self._new_snapshot)
        if self.loop is not None:
            self.loop.call_soon_threadsafe(self._stop_event.set)
        if self._thread:
            self._thread.join(timeout=5)
        self.session.stop_loop()

    async def _main(self):
        from websockets.asyncio.server import serve
        self.loop = asyncio.get_running_loop()
        self._stop_event = asyncio.Event()
        async with serve(self._handler, "127.0.0.1", self.port, process_request=self._http,
                         max_size=2 ** 20) as server:
            self.port = server.sockets[0].getsockname()[1]
            self._ready.set()
            await self._stop_event.wait()

    # --- HTTP ----------------------------------------------------------------------------------------
    def _authorised(self, path) -> bool:
        q = parse_qs(urlsplit(path).query)
        return secrets.compare_digest(q.get("token", [""])[0], self.token)

    def _http(self, connection, request):
        from websockets.datastructures import Headers
        from websockets.http11 import Response
        path = urlsplit(request.path).path
        if path == "/favicon.ico":
            return connection.respond(HTTPStatus.NOT_FOUND, "not found\n")
        if not self._authorised(request.path):
            return connection.respond(HTTPStatus.FORBIDDEN, "token missing or wrong\n")
        if path in ("/ws", "/ff"):
            return None         # go on with the WebSocket handshake
        if path == "/":
            body, ctype = PAGE.read_bytes().replace(b"__TOKEN__", self.token.encode()), "text/html; charset=utf-8"
        elif path == "/track.bin":
            body, ctype = self.mesh_bytes, "application/octet-stream"
        else:
            return connection.respond(HTTPStatus.NOT_FOUND, "not found\n")
        headers = Headers([("Content-Type", ctype), ("Content-Length", str(len(body))),
                           ("Cache-Control", "no-store")])
        return Response(200, "OK", headers, body)

    # --- WebSockets ------------------------------------------------------------------------------------
    async def _handler(self, ws):
        path = urlsplit(ws.request.path).path
        if path == "/ff":
            await self._force_feedback(ws)
        else:
            await self._drive(ws)

    async def _force_feedback(self, ws):
        """100 Hz samples of the steering moment, in order, as the simulation produces them."""
        last_t = -1.0
        try:
            while True:
                new, _ = self.session.ff_samples(last_t)     # a new run: all of it (its clock restarted)
                for t, m in new:
                    await ws.send(json.dumps({"t": t, "M_soll": m, "F_soll": m / LEVER_ARM}))
                    last_t = t
                await asyncio.sleep(0.01)
        except ConnectionClosed:       # the device went away
            return

    def _init_message(self):
        s = self.session
        names = [b["name"] for b in s.bob.bodies]
        boxes = []
        for b in s.bob.bodies:
            c, half = BOXES.get(b["name"], (b["com"], (0.05, 0.05, 0.05)))
            boxes.append({"name": b["name"], "centre": (np.array(c) - np.array(b["com"])).tolist(),
                          "half": list(half)})
        stations = np.asarray(s.track.timing_stations, float)
        marks = [s.view.point(float(x)).tolist() for x in stations]
        return {"type": "init", "origin": self.origin.tolist(), "bodies": names, "boxes": boxes,
                "stations": stations.tolist(), "station_points": marks, "track": s.track.name,
                "curves": len(s.track.curves), "pilot": s.pilot_name, "setup": asdict(s.setup),
                "runs": s.run_list(), "directness": s.setup.directness, "beta_max": s.bob.beta_max}

    async def _drive(self, ws):
        await ws.send(json.dumps(self._init_message()))
        sender = asyncio.create_task(self._frames(ws))
        try:
            async for text in ws:
                try:
                    msg = json.loads(text)
                    if msg.get("cmd") == "steer":       # at once: it only sets the lever's target
                        reply = self._command(msg)
                    else:                               # may wait for a frame of the simulation, or plot
                        reply = await asyncio.to_thread(self._command, msg)
                except (ValueError, KeyError, TypeError, IndexError) as e:
                    reply = {"type": "error", "message": str(e)}
                if reply is not None:
                    await ws.send(json.dumps(reply))
        except ConnectionClosed:      # the page went away
            pass
        finally:
            sender.cancel()

    async def _frames(self, ws):
        """Each new snapshot to the page as soon as the simulation has made it, and the run list when it
        changes."""
        last_runs, last_id = None, None
        new = asyncio.Event()
        self._frame_events.add(new)
        try:
            while True:
                snap = self.session.snapshot
                if snap and snap["id"] != last_id:
                    await ws.send(json.dumps({"type": "frame", **snap}))
                    last_id = snap["id"]
                runs = self.session.run_list()
                if runs is not last_runs:
                    await ws.send(json.dumps({"type": "runs", "runs": runs}))
                    last_runs = runs
                try:
                    await asyncio.wait_for(new.wait(), 0.1)
                except asyncio.TimeoutError:
                    pass
                new.clear()
        finally:
            self._frame_events.discard(new)

    def _command(self, msg):
        s, cmd = self.session, msg.get("cmd")
        if cmd == "steer":
            s.steer(float(msg["target"]), int(msg.get("seq", 0)))
            return None
        if cmd == "start":
            s.start()
            return None
        if cmd == "setup":
            setup = DriveSetup.from_dict(msg["setup"])
            s.set_setup(setup)
            path = save_setup(self.pilots_dir, s.pilot_name, setup)
            return {"type": "setup", "setup": asdict(setup), "saved": str(path)}
        if cmd == "load_setup":
            setup = load_setup(self.pilots_dir, s.pilot_name)
            s.set_setup(setup)
            return {"type": "setup", "setup": asdict(setup)}
        if cmd == "ghost":
            s.set_ghost(None if msg.get("id") is None else int(msg["id"]))
            return {"type": "ghost", "id": msg.get("id")}
        if cmd == "replay":
            pts = s.start_replay(int(msg["id"])) - self.origin
            return {"type": "traces", "points": pts.astype(np.float32).round(3).ravel().tolist()}
        if cmd == "analyse":
            return self._analyse([int(x) for x in msg["ids"]], msg.get("curve"))
        raise ValueError(f"unknown command {cmd!r}")

    def _analyse(self, ids, curve):
        import io

        from impulsim.apps.bobsleigh.drive.analysis import compare, curve_range, plot
        s = self.session
        if len(ids) != 2:
            raise ValueError("analyse: choose two runs")
        with s.lock:
            a, r = (s.runs[i] for i in ids)
        curve = int(curve) if curve not in (None, "", 0) else None
        s0, s1 = curve_range(s.track, curve)
        cmp = compare(a["result"], r["result"], s0, s1)
        buf = io.BytesIO()
        plot(cmp, (a["name"], r["name"]), f"{s.track.name}, {f'curve {curve}' if curve else 'start to finish'}: "
             f"{a['name']} against {r['name']}", buf)
        dt_end = float(cmp["dt"][-1])
        return {"type": "analysis", "png": base64.b64encode(buf.getvalue()).decode(),
                "dt_end": None if math.isnan(dt_end) else dt_end}
