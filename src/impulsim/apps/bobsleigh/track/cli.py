"""``impulsim track TRACKFILE``: summary, plots and a glTF of a track's mesh.

The parser is added by :func:`add_parser` (called from :mod:`impulsim.cli`); errors in the track file are
one line (``file:line: element: problem``) like every ``impulsim`` command.
"""
from __future__ import annotations

import json
import struct
import time
from pathlib import Path

import numpy as np

from impulsim.io.gltf import ARRAY_BUFFER, ELEMENT_ARRAY_BUFFER, STATIC_COLOR, Z_UP_TO_Y_UP, _Buffer


def add_parser(sub, common) -> None:
    """The ``track`` sub-command."""
    p = sub.add_parser("track", parents=[common], help="build a bobsleigh track, print and plot it",
                       description="Read a track file (or a shipped track: test_chute, whistler, sanki), "
                                   "print a summary, write plan-view and height-profile plots and a glTF "
                                   "(.glb) of the ice channel's mesh.")
    p.add_argument("track", help="track file (YAML) or the name of a shipped track")
    p.add_argument("-o", "--output", help="output directory (default: out/<track name>)")
    p.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    p.add_argument("--no-gltf", action="store_true", help="skip the glTF file")
    p.set_defaults(func=cmd_track)


def cmd_track(args) -> int:
    """Build the track and write what was asked for."""
    from impulsim.apps.bobsleigh.track import load_track
    from impulsim.apps.bobsleigh.track import plots
    track = load_track(args.track)
    print(track.summary())
    t0 = time.perf_counter()
    v, t = track.mesh()
    print(f"  mesh: {len(v)} vertices, {len(t)} triangles, built in {time.perf_counter() - t0:.2f} s")
    out = Path(args.output or Path("out") / track.name)
    out.mkdir(parents=True, exist_ok=True)
    if not args.no_plots:
        for f in plots.write_all(track, out):
            print(f"  wrote {f}")
    if not args.no_gltf:
        path = out / f"{track.name}.glb"
        write_mesh_glb(path, v, t, track.name)
        print(f"  wrote {path}")
    return 0


def write_mesh_glb(path, vertices: np.ndarray, triangles: np.ndarray, name: str) -> None:
    """A static binary glTF with one mesh (world z-up turned to glTF's y-up by the root node)."""
    buf = _Buffer()
    prim = {"attributes": {"POSITION": buf.add(vertices.astype(np.float32), "VEC3", ARRAY_BUFFER, bounds=True)},
            "indices": buf.add(triangles.astype(np.uint32).ravel(), "SCALAR", ELEMENT_ARRAY_BUFFER),
            "material": 0}
    doc = {"asset": {"version": "2.0", "generator": "impulsim"}, "scene": 0,
           "materials": [{"name": "ice", "doubleSided": True, "pbrMetallicRoughness": {
               "baseColorFactor": [*STATIC_COLOR, 1.0], "metallicFactor": 0.0, "roughnessFactor": 0.4}}],
           "meshes": [{"name": name, "primitives": [prim]}],
           "nodes": [{"name": name, "mesh": 0}, {"name": "z-up", "rotation": Z_UP_TO_Y_UP, "children": [0]}],
           "scenes": [{"nodes": [1]}], "buffers": [{"byteLength": len(buf.data)}],
           "bufferViews": buf.views, "accessors": buf.accessors}
    text = json.dumps(doc, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 4)
    data = bytes(buf.data) + b"\0" * (-len(buf.data) % 4)
    with open(path, "wb") as f:
        f.write(struct.pack("<4sII", b"glTF", 2, 12 + 8 + len(text) + 8 + len(data)))
        f.write(struct.pack("<I4s", len(text), b"JSON") + text)
        f.write(struct.pack("<I4s", len(data), b"BIN\0") + data)
