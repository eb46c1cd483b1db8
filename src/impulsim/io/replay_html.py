"""A standalone replay page: one HTML file that plays a recording offline, without a Python process.

The page is viser's own static player with the scene (body meshes, then their poses at ``fps`` frames
per second of simulated time) embedded; it has a timeline to scrub and loops. Needs viser.

    impulsim export html SCENE RECORDING OUT.html [--fps 30]
"""
from __future__ import annotations

import os
import socket
from typing import Optional

import numpy as np

from impulsim.io.gltf import recording_poses, resample
from impulsim.io.shape_meshes import body_meshes

COLORS = ((90, 160, 230), (230, 140, 60), (110, 190, 110), (200, 90, 160), (220, 200, 80), (120, 120, 220))
STATIC_COLOR = (150, 150, 150)


def replay_html(model, table, static_state, fps: float = 30.0, dark_mode: bool = False) -> str:
    """The HTML text of a self-contained page replaying ``table`` (a recording of ``model``)."""
    import viser

    from impulsim.progress import quiet_stdout

    t, pos, quat = recording_poses(model, table, static_state)
    if len(t) == 0:
        raise ValueError("the recording has no rows")
    rows = resample(t, fps)
    with quiet_stdout():       # no server banner: this server only ever serves this function
        server = viser.ViserServer(host="127.0.0.1", port=_free_port(), verbose=False)
    try:
        server.scene.set_up_direction("+z")
        frame_camera(server, model, pos[rows[0]], quat[rows[0]])
        serializer = server.get_scene_serializer()
        handles = _add_meshes(server, model, pos[rows[0]], quat[rows[0]])
        for prev, row in zip(rows[:-1], rows[1:]):
            serializer.insert_sleep(float(t[row] - t[prev]))
            for k, handle in handles.items():
                if not model.body_static[k]:
                    handle.position, handle.wxyz = pos[row, k], quat[row, k]
        return serializer.as_html(dark_mode=dark_mode)
    finally:
        from impulsim.progress import quiet_stdout
        with quiet_stdout():      # no server banner: this server only ever served this function
            server.stop()


def _add_meshes(server, model, pos: np.ndarray, quat: np.ndarray) -> dict:
    handles = {}
    for i, mesh in enumerate(body_meshes(model)):
        k, static = mesh.body, bool(model.body_static[mesh.body])
        handles[k] = server.scene.add_mesh_simple(
            f"/bodies/{mesh.name}", mesh.vertices.astype(np.float32), mesh.faces, flat_shading=True,
            color=STATIC_COLOR if static else COLORS[i % len(COLORS)], position=pos[k], wxyz=quat[k])
    return handles


def frame_camera(server, model, pos: np.ndarray, quat: Optional[np.ndarray] = None) -> None:
    """Look at the moving bodies (centres ``pos`` [m], orientations ``quat``) from the front right; a
    grid under them where the scene has no floor of its own (see :mod:`impulsim.io.framing`)."""
    from impulsim.io.framing import frame_camera as _frame
    _frame(server, model, pos, quat)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write_replay_html(path: str | os.PathLike, model, table, static_state, fps: float = 30.0) -> None:
    """Write the standalone replay page of a recording to ``path``."""
    with open(path, "w", encoding="utf-8") as f:
        f.write(replay_html(model, table, static_state, fps))
