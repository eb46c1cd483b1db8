"""What the robot-format importers share: the import report, the error type and the suffix dispatch.

``load_model_file(path)`` reads a scene file (``.yaml``/``.yml``), a URDF file (``.urdf``) or an MJCF file
(``.xml``/``.mjcf``) into a :class:`~impulsim.io.scene.Scene`; the command line uses it for ``run``,
``check`` and ``compare``. Elements an importer cannot map are never dropped silently: each one is a line
in :attr:`ImportReport.unmapped`, and each line is also issued once as a :class:`FormatWarning`.
"""
from __future__ import annotations

import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from impulsim.errors import ModelError


class FormatError(ModelError):
    """A robot or mesh file is invalid; the message is one line ``file:line: element: problem``."""


class FormatWarning(UserWarning):
    """An element of an imported file has no counterpart in impulsim (one line: file, line, element, what)."""


@dataclass
class ImportReport:
    """What an import did not map, and what it keeps for display only.

    ``unmapped`` holds one line per element (or per kind of attribute) that the model does not carry;
    ``visuals`` holds ``(body name, shape)`` pairs of display geometry in the body's user frame (URDF
    ``<visual>``, MJCF geoms that never collide), for viewers.
    """
    file: str
    unmapped: list = field(default_factory=list)
    visuals: list = field(default_factory=list)

    def note(self, line: str) -> None:
        """Record one unmapped element and warn about it."""
        self.unmapped.append(line)
        warnings.warn(line, FormatWarning, stacklevel=3)

    @property
    def complete(self) -> bool:
        """True if every element of the file was mapped."""
        return not self.unmapped


MODEL_SUFFIXES = {".urdf": "urdf", ".xml": "mjcf", ".mjcf": "mjcf"}


def model_kind(path) -> str:
    """"urdf", "mjcf" or "scene" by the file's suffix."""
    return MODEL_SUFFIXES.get(Path(path).suffix.lower(), "scene")


def builder_from_file(path, **options):
    """A :class:`~impulsim.model.builder.ModelBuilder` filled from a URDF or MJCF file (by suffix)."""
    kind = model_kind(path)
    if kind == "urdf":
        from impulsim.io.urdf import load_urdf
        return load_urdf(path, **options)
    if kind == "mjcf":
        from impulsim.io.mjcf import load_mjcf
        return load_mjcf(path, **options)
    raise FormatError(f"{path}: not a URDF (.urdf) or MJCF (.xml, .mjcf) file")


def load_model_file(path: str | os.PathLike, **options):
    """A :class:`~impulsim.io.scene.Scene` from a scene, URDF or MJCF file, chosen by the suffix.

    Imported models get the default settings (see :class:`~impulsim.io.settings.Settings`) with one change:
    the impulse method solves their joints with LGS (``solver: lgs``), as a robot's tree of joints wants. Its
    joint limits, which URDF and MJCF put on most joints, are then solved together through the joints
    (methods/impulse/limit_coupling.py): a six-link arm resting on its stops takes 50 µs a step instead of
    1760 with the iterative solver. An MJCF file's ``<option timestep>`` becomes the step size. Links of one
    robot whose shapes overlap in the file's pose do not collide with each other (reported; see
    :func:`_exclude_overlapping_links`).
    """
    from impulsim.io.scene import Scene, load_scene
    from impulsim.io.settings import Settings
    if model_kind(path) == "scene":
        return load_scene(path)
    if not Path(path).is_file():
        raise FormatError(f"{path}: no such file")
    builder = builder_from_file(path, **options)
    model, state = _build(builder, path)
    if _exclude_overlapping_links(builder, model, state, path):
        model, state = _build(builder, path)
    settings = Settings(where=str(path), options={"solver": "lgs"})
    h = getattr(builder, "import_timestep", None)
    if h:
        settings.h = float(h)
    return Scene(builder.name, str(path), builder, model, state, settings)


def _build(builder, path):
    """builder.build() with a model error as one FormatError line naming the file."""
    try:
        return builder.build()
    except FormatError:
        raise
    except ModelError as exc:
        msg = " ".join(str(exc).split())
        raise FormatError(msg if msg.startswith(str(path)) else f"{path}: {msg}") from None


def _exclude_overlapping_links(builder, model, state, path) -> bool:
    """Take out of collision detection each pair of links of one robot (bodies joined to each other by joints)
    whose shapes overlap in the file's pose, and report each pair (``import_report``). Robot files come with
    collision meshes that overlap where links meet two joints apart (Franka's link 5 and link 7 by 6 cm);
    their designers disable such pairs (an SRDF), and MuJoCo's soft contacts push them apart slowly. Here
    such a contact would be corrected at once, by impulses that made 5 of 12 example-robot-data arms fly
    apart within 0.14 s. A URDF file holds one robot, so its fixed base (the static geometry the import
    merges) counts with every link; in an MJCF file static geometry may be a floor, and only links joined to
    each other count. Pairs of different robots, or a robot and a free object, keep their contacts.
    Returns whether a pair was taken out."""
    from impulsim.collision import Detector
    from impulsim.contact.default import joint_components, model_has_contacts
    if not model_has_contacts(model):
        return False
    robot = joint_components(model, np.arange(model.n_bodies) != 0)   # joined by joints, not through the world
    base = (model.body_static != 0) if model_kind(path) == "urdf" else np.zeros(model.n_bodies, bool)
    found = Detector(model).detect(state)
    deepest: dict = {}
    for a, b, d in zip(found.body_a, found.body_b, found.distance):
        a, b = int(a), int(b)
        if d < 0.0 and a != 0 and b != 0 and (robot[a] == robot[b] or base[a] or base[b]):
            key = (min(a, b), max(a, b))
            deepest[key] = min(deepest.get(key, 0.0), float(d))
    report = getattr(builder, "import_report", None)
    for (a, b), d in sorted(deepest.items()):
        na, nb = model.body_names[a], model.body_names[b]
        builder.exclude_collision(na, nb)
        line = (f"{path}: links {na!r} and {nb!r} overlap by {-d * 1000:.3g} mm in the file's pose: their "
                f"contacts are off (ModelBuilder.exclude_collision)")
        if report is not None:
            report.note(line)
    return bool(deepest)


def load_model_file_reporting(path, stream=None):
    """:func:`load_model_file` for the command line: each unmapped element printed as one line
    ``impulsim: not mapped: file:line: element: what`` on ``stream`` (stderr) instead of a Python warning."""
    import sys
    stream = sys.stderr if stream is None else stream
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FormatWarning)
        scene = load_model_file(path)
    report = getattr(scene.builder, "import_report", None)
    for line in (report.unmapped if report else []):
        print(f"impulsim: not mapped: {line}", file=stream)
    return scene
