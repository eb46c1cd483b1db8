"""Mesh files (OBJ, STL, PLY, glTF/GLB, DAE) as impulsim shapes, read with trimesh.

A mesh on a static body becomes a :class:`~impulsim.geometry.TriangleMesh` (any shape, open or closed).
A moving body needs convex pieces: a convex mesh becomes one :class:`~impulsim.geometry.ConvexHull`; a
non-convex one becomes the convex parts CoACD finds (``convex="decompose"``, when the ``coacd`` package is
installed) or its convex hull (``convex="hull"``), and either way the caller is told in one line.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from impulsim.geometry import ConvexHull, TriangleMesh

MESH_SUFFIXES = (".obj", ".stl", ".ply", ".gltf", ".glb", ".dae", ".off")


class MeshFileError(ValueError):
    """A mesh file is missing or unreadable (the message names the file)."""


def read_mesh(path: str | os.PathLike, scale=1.0) -> tuple[np.ndarray, np.ndarray]:
    """(vertices [nv, 3] in m, triangles [nt, 3]) of a mesh file, every part merged, times ``scale``
    (a number or three per-axis factors)."""
    try:
        import trimesh
    except ImportError:
        raise MeshFileError("mesh files need trimesh: pip install 'impulsim[formats]'") from None
    path = Path(path)
    if not path.is_file():
        raise MeshFileError(f"mesh file {str(path)!r} does not exist")
    try:
        mesh = trimesh.load(str(path), force="mesh", process=True)
    except Exception as exc:   # trimesh raises many kinds for bad files
        raise MeshFileError(f"cannot read mesh file {str(path)!r} ({type(exc).__name__}: {exc})") from None
    if hasattr(mesh, "nondegenerate_faces") and len(getattr(mesh, "faces", ())):
        mesh.update_faces(mesh.nondegenerate_faces())      # zero-area triangles carry no surface
        mesh.remove_unreferenced_vertices()
    verts = np.asarray(getattr(mesh, "vertices", np.zeros((0, 3))), float)
    tris = np.asarray(getattr(mesh, "faces", np.zeros((0, 3))), np.int64)
    if verts.shape[0] < 4 or tris.shape[0] < 1:
        raise MeshFileError(f"mesh file {str(path)!r} holds no triangles")
    scale = np.broadcast_to(np.asarray(scale, float).reshape(-1), (3,)) if np.size(scale) in (1, 3) else None
    if scale is None or not np.all(np.isfinite(scale)) or np.any(scale == 0):
        raise MeshFileError(f"mesh scale must be one or three non-zero numbers")
    verts = verts * scale
    if np.prod(np.sign(scale)) < 0:          # a mirroring scale turns the winding inside out
        tris = tris[:, ::-1].copy()
    return verts, tris


def is_convex(verts, tris) -> bool:
    """Whether the closed triangle mesh is convex (trimesh's test)."""
    import trimesh
    return bool(trimesh.Trimesh(verts, tris, process=False).is_convex)


def decompose(verts, tris, threshold: float = 0.05):
    """Convex parts [(vertices, triangles), ...] by CoACD, or None if coacd is not installed."""
    try:
        import coacd
    except ImportError:
        return None
    coacd.set_log_level("error")
    parts = coacd.run_coacd(coacd.Mesh(np.asarray(verts, float), np.asarray(tris, np.int64)),
                            threshold=threshold)
    return [(np.asarray(v, float), np.asarray(t, np.int64)) for v, t in parts]


def mesh_shapes(path, *, scale=1.0, moving: bool, position=(0, 0, 0), orientation=(1, 0, 0, 0),
                material=None, convex: str = "hull", notes=None) -> list:
    """Shapes for one mesh file on a body: a TriangleMesh on a static body, convex pieces on a moving one.

    ``convex`` chooses what a non-convex mesh on a moving body becomes: "hull" (its convex hull) or
    "decompose" (CoACD's parts; the hull if coacd is not installed). Each such approximation is
    appended as one line to ``notes`` (a list) when given.
    """
    if convex not in ("hull", "decompose"):
        raise ValueError(f'convex must be "hull" or "decompose", got {convex!r}')
    verts, tris = read_mesh(path, scale)
    pose = dict(position=np.asarray(position, float), orientation=np.asarray(orientation, float),
                material=material)
    if not moving:
        return [TriangleMesh(vertices=verts, triangles=tris, **pose)]
    hull = _hull_points(verts)
    if is_convex(verts, tris):
        return [ConvexHull(points=hull, **pose)]
    parts = decompose(verts, tris) if convex == "decompose" else None
    if parts:
        if notes is not None:
            notes.append(f"mesh {Path(path).name} is not convex: {len(parts)} convex parts (CoACD)")
        return [ConvexHull(points=v, **pose) for v, _ in parts]
    if notes is not None:
        why = "" if convex == "hull" else " (coacd is not installed)"
        notes.append(f"mesh {Path(path).name} is not convex: its convex hull collides{why}")
    return [ConvexHull(points=hull, **pose)]


def _hull_points(verts):
    """The corners of the convex hull (qhull through trimesh): fewer points for the hull builder."""
    import trimesh
    try:
        return np.asarray(trimesh.convex.convex_hull(verts).vertices, float)
    except Exception:      # flat or degenerate point sets: let ConvexHull report the problem
        return verts


@dataclass
class VisualMesh:
    """Display-only mesh reference: file, scale and pose in the body's user frame (not loaded here)."""
    file: str
    scale: np.ndarray
    position: np.ndarray
    orientation: np.ndarray


def scene_mesh(file=None, scale=1.0, vertices=None, triangles=None, **pose):
    """The ``mesh`` shape of a scene file: inline ``vertices`` + ``triangles``, or a mesh ``file`` (path
    already made relative to the scene file) times ``scale``. A file's mesh is read as a triangle mesh and
    remembers its file, so that a moving body can trade it for convex pieces (:func:`convex_pieces`)."""
    if file is None:
        if vertices is None or triangles is None:
            raise ValueError("a mesh needs file, or vertices and triangles")
        return TriangleMesh(vertices=vertices, triangles=triangles, **pose)
    if vertices is not None or triangles is not None:
        raise ValueError("a mesh takes file or vertices and triangles, not both")
    verts, tris = read_mesh(file, scale)
    mesh = TriangleMesh(vertices=verts, triangles=tris, **pose)
    mesh.source_file = str(file)
    return mesh


def convex_pieces(shapes, convex: str = "decompose", notes=None) -> list:
    """``shapes`` with every mesh read from a file replaced by its convex piece(s), for a moving body:
    one hull if the mesh is convex, else CoACD's parts (or the hull when coacd is missing)."""
    out = []
    for s in shapes:
        if getattr(s, "source_file", None) is None:
            out.append(s)
            continue
        local = []
        hull = _hull_points(s.vertices)
        if is_convex(s.vertices, s.triangles):
            out.append(ConvexHull(points=hull, position=s.position, orientation=s.orientation, material=s.material))
            continue
        parts = decompose(s.vertices, s.triangles) if convex == "decompose" else None
        name = Path(s.source_file).name
        if parts:
            local = [ConvexHull(points=v, position=s.position, orientation=s.orientation, material=s.material)
                     for v, _ in parts]
            if notes is not None:
                notes.append(f"mesh {name} is not convex: {len(parts)} convex parts (CoACD)")
        else:
            local = [ConvexHull(points=hull, position=s.position, orientation=s.orientation, material=s.material)]
            if notes is not None:
                notes.append(f"mesh {name} is not convex: its convex hull collides"
                             + ("" if convex == "hull" else " (coacd is not installed)"))
        out.extend(local)
    return out


def moving_body_shapes(shapes, where: str) -> list:
    """:func:`convex_pieces` for a scene file's moving body; each approximation warned in one line."""
    import warnings
    from impulsim.io.formats import FormatWarning
    notes = []
    out = convex_pieces(shapes, notes=notes)
    for n in notes:
        warnings.warn(f"{where}: {n}", FormatWarning, stacklevel=2)
    return out
