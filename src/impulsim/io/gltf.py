"""Export a recording as an animated glTF 2.0 binary (.glb): bodies as nodes with their meshes.

Blender (File > Import > glTF 2.0) and three.js read it. glTF's world is y-up; a root node turns
impulsim's z-up world into it, so the bodies' own translations and rotations stay those of the
recording (principal frames, world coordinates).

    impulsim export gltf SCENE RECORDING OUT.glb [--fps 60]
"""
from __future__ import annotations

import json
import os
import struct
from typing import Optional

import numpy as np

from impulsim.io.shape_meshes import body_meshes

FLOAT, UINT32 = 5126, 5125            # glTF accessor component types
ARRAY_BUFFER, ELEMENT_ARRAY_BUFFER = 34962, 34963
Z_UP_TO_Y_UP = [-0.7071067811865476, 0.0, 0.0, 0.7071067811865476]   # −90° about x, (x, y, z, w)
COLORS = ((0.35, 0.63, 0.9), (0.9, 0.55, 0.24), (0.43, 0.75, 0.43), (0.78, 0.35, 0.63),
          (0.86, 0.78, 0.31), (0.47, 0.47, 0.86))
STATIC_COLOR = (0.6, 0.6, 0.6)


class _Buffer:
    """The binary chunk under construction, with its buffer views and accessors."""

    def __init__(self):
        self.data = bytearray()
        self.views: list[dict] = []
        self.accessors: list[dict] = []

    def add(self, array: np.ndarray, kind: str, target: Optional[int] = None, bounds: bool = False) -> int:
        """Append ``array`` (float32 or uint32) as one accessor of type ``kind``; returns its index."""
        array = np.ascontiguousarray(array)
        self.data += b"\0" * (-len(self.data) % 4)
        view = {"buffer": 0, "byteOffset": len(self.data), "byteLength": array.nbytes}
        if target is not None:
            view["target"] = target
        self.data += array.tobytes()
        self.views.append(view)
        acc = {"bufferView": len(self.views) - 1, "count": int(array.shape[0]), "type": kind,
               "componentType": UINT32 if array.dtype == np.uint32 else FLOAT}
        if bounds:
            flat = array.reshape(array.shape[0], -1)
            acc["min"], acc["max"] = flat.min(axis=0).tolist(), flat.max(axis=0).tolist()
        self.accessors.append(acc)
        return len(self.accessors) - 1


def recording_poses(model, table, static_state) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Times [s] and every body's centre and orientation per row: shapes [n], [n, nb, 3], [n, nb, 4].

    Bodies not in the recording (static ones) keep their pose in ``static_state``.
    """
    t = np.asarray(table.column("t").to_numpy(), float)
    pos = np.repeat(static_state.body_pos[None], len(t), axis=0).astype(float)
    quat = np.repeat(static_state.body_quat[None], len(t), axis=0).astype(float)
    names = set(table.column_names)
    for k, name in enumerate(model.body_names):
        if f"{name}.x" in names:
            pos[:, k] = np.stack([table.column(f"{name}.{c}").to_numpy() for c in "xyz"], axis=1)
            quat[:, k] = np.stack([table.column(f"{name}.q{c}").to_numpy() for c in "wxyz"], axis=1)
        elif not model.body_static[k]:
            raise ValueError(f"the recording has no columns for body {name!r}: is it from this scene?")
    return t, pos, quat


def resample(t: np.ndarray, fps: Optional[float]) -> np.ndarray:
    """Row indices about 1/fps apart (all rows if fps is None), first and last row always kept."""
    if fps is None or len(t) < 3:
        return np.arange(len(t))
    if not fps > 0:
        raise ValueError(f"fps must be positive, got {fps}")
    grid = np.arange(t[0], t[-1], 1.0 / fps)
    idx = np.unique(np.clip(np.searchsorted(t, grid), 0, len(t) - 1))
    return np.unique(np.append(idx, len(t) - 1))


def _continuous(quats: np.ndarray) -> np.ndarray:
    """Flip signs so consecutive quaternions lie in one hemisphere (no long-way interpolation)."""
    q = quats.copy()
    for i in range(1, len(q)):
        if np.dot(q[i], q[i - 1]) < 0:
            q[i] = -q[i]
    return q


def gltf_document(model, table, static_state, fps: Optional[float] = 60.0) -> tuple[dict, bytes]:
    """The glTF JSON and its binary chunk for ``table`` (a recording of ``model``)."""
    t, pos, quat = recording_poses(model, table, static_state)
    if len(t) == 0:
        raise ValueError("the recording has no rows")
    rows = resample(t, fps)
    t, pos, quat = t[rows] - t[rows[0]], pos[rows], quat[rows]
    buf, doc = _Buffer(), {"asset": {"version": "2.0", "generator": "impulsim"}, "scene": 0,
                           "meshes": [], "materials": [], "nodes": []}
    animated = []
    for i, mesh in enumerate(body_meshes(model)):
        k, static = mesh.body, bool(model.body_static[mesh.body])
        doc["materials"].append({"name": mesh.name, "pbrMetallicRoughness": {
            "baseColorFactor": [*(STATIC_COLOR if static else COLORS[i % len(COLORS)]), 1.0],
            "metallicFactor": 0.0, "roughnessFactor": 0.7}})
        prim = {"attributes": {"POSITION": buf.add(mesh.vertices.astype(np.float32), "VEC3", ARRAY_BUFFER,
                                                   bounds=True)},
                "indices": buf.add(mesh.faces.astype(np.uint32).ravel(), "SCALAR", ELEMENT_ARRAY_BUFFER),
                "material": len(doc["materials"]) - 1}
        doc["meshes"].append({"name": mesh.name, "primitives": [prim]})
        q = quat[0, k]
        doc["nodes"].append({"name": mesh.name, "mesh": len(doc["meshes"]) - 1,
                             "translation": pos[0, k].tolist(), "rotation": [*q[1:], q[0]]})
        if not static:
            animated.append((len(doc["nodes"]) - 1, k))
    body_nodes = list(range(len(doc["nodes"])))
    doc["nodes"].append({"name": model.name or "scene", "rotation": Z_UP_TO_Y_UP, "children": body_nodes})
    doc["scenes"] = [{"nodes": [len(doc["nodes"]) - 1]}]
    if animated and len(t) > 1:
        doc["animations"] = [_animation(buf, t, pos, quat, animated)]
    doc["buffers"] = [{"byteLength": len(buf.data)}]
    doc["bufferViews"], doc["accessors"] = buf.views, buf.accessors
    return doc, bytes(buf.data)


def _animation(buf: _Buffer, t, pos, quat, animated) -> dict:
    """One animation: a translation and a rotation channel per moving body, linear in time."""
    times = buf.add(t.astype(np.float32), "SCALAR", bounds=True)
    samplers, channels = [], []
    for node, k in animated:
        xyzw = _continuous(quat[:, k])[:, [1, 2, 3, 0]]
        for path, values, kind in (("translation", pos[:, k], "VEC3"), ("rotation", xyzw, "VEC4")):
            samplers.append({"input": times, "output": buf.add(values.astype(np.float32), kind),
                             "interpolation": "LINEAR"})
            channels.append({"sampler": len(samplers) - 1, "target": {"node": node, "path": path}})
    return {"name": "recording", "samplers": samplers, "channels": channels}


def write_glb(path: str | os.PathLike, model, table, static_state, fps: Optional[float] = 60.0) -> None:
    """Write the recording ``table`` of ``model`` as an animated binary glTF file."""
    doc, data = gltf_document(model, table, static_state, fps)
    text = json.dumps(doc, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 4)
    data += b"\0" * (-len(data) % 4)
    total = 12 + 8 + len(text) + 8 + len(data)
    with open(path, "wb") as f:
        f.write(struct.pack("<4sII", b"glTF", 2, total))
        f.write(struct.pack("<I4s", len(text), b"JSON") + text)
        f.write(struct.pack("<I4s", len(data), b"BIN\0") + data)
