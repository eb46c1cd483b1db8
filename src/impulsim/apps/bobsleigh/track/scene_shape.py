"""The ``track`` shape of scene files: a static body's ``shapes: [track: {file: whistler.yaml}]`` becomes the
track's :class:`~impulsim.TriangleMesh` (running surface and boundary elements).

``file`` is a path relative to the scene file, or the name of a shipped track (``whistler``). Errors in
the track file are reported with the track file's own ``file:line``.
"""
from __future__ import annotations

from pathlib import Path

from impulsim.io.shapes import register_shape_type
from impulsim.io.yamlnodes import string


def _track_file(el, node, what):
    """The track file named in a scene, resolved against the scene file's folder."""
    name = string(el, node, what)
    if not name.endswith((".yaml", ".yml")):
        return name                                   # a shipped track
    path = Path(name)
    if not path.is_absolute() and el.file and not el.file.startswith("<"):
        path = Path(el.file).parent / path
    return str(path)


def track_shape(file: str, **pose):
    """The TriangleMesh of the track in ``file`` (the scene reader's constructor for ``track:``)."""
    from impulsim.apps.bobsleigh.track.files import load_track
    return load_track(file).triangle_mesh(**pose)


register_shape_type("track", track_shape, {"file": _track_file}, ("file",))
