"""The scene file as an editable document: read and written with ruamel.yaml so that comments, key order
and flow style of the parts an edit does not touch are kept.

The document is the scene's *start*: the initial poses and velocities and every element. Elements of the
list sections (``bodies``, ``joints``, ``motors``, ``limits``, ``servos``, ``springs``, ``loads``) are found by
their ``name`` (loads by position). An element with ``active: false`` stays in the document (and in saved
files) but is left out of the compiled model.
"""
from __future__ import annotations

import copy
import io
from pathlib import Path

from impulsim.errors import ImpulsimError

LIST_SECTIONS = ("bodies", "joints", "motors", "limits", "servos", "springs", "loads")
# sections whose elements name the bodies or joints they act on
BODY_REFERENCES = {"joints": ("bodies",), "springs": ("bodies",), "loads": ("body",)}
JOINT_REFERENCES = {"motors": "joint", "limits": "joint", "servos": "joint"}


class DocumentError(ImpulsimError, ValueError):
    """A document path or element that does not exist, or an edit that would break the document."""


def _yaml():
    try:
        from ruamel.yaml import YAML
    except ImportError:
        raise ImportError("editing needs ruamel.yaml: pip install 'impulsim[editing]'") from None
    y = YAML()
    y.preserve_quotes = True
    y.width = 110
    return y


def to_plain(node):
    """A ruamel node tree as plain dicts, lists and scalars."""
    if isinstance(node, dict):
        return {str(k): to_plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [to_plain(v) for v in node]
    if isinstance(node, bool) or type(node).__name__ == "ScalarBoolean":
        return bool(node)
    for kind in (int, float, str):
        if isinstance(node, kind):
            return kind(node)
    return node


class SceneDocument:
    """An editable scene: ``root`` is the ruamel mapping of the whole file."""

    def __init__(self, root, file: str = "<scene>"):
        if not isinstance(root, dict):
            raise DocumentError(f"{file}: a scene is a mapping")
        self.root = root
        self.file = file

    # ------------------------------------------------------------------ reading and writing
    @classmethod
    def load(cls, path: str | Path) -> "SceneDocument":
        """Read a scene file (it is first loaded as a scene, so a broken file gives its one-line error)."""
        from impulsim.io import load_scene
        load_scene(path)
        return cls.from_text(Path(path).read_text(encoding="utf-8"), str(path))

    @classmethod
    def from_text(cls, text: str, file: str = "<scene>") -> "SceneDocument":
        return cls(_yaml().load(text), file)

    def text(self) -> str:
        """The document as scene-file text (comments and order kept)."""
        out = io.StringIO()
        _yaml().dump(self.root, out)
        return out.getvalue()

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.write_text(self.text(), encoding="utf-8")
        return path

    def copy(self) -> "SceneDocument":
        return SceneDocument(copy.deepcopy(self.root), self.file)

    # ------------------------------------------------------------------ what is compiled
    def active_plain(self) -> dict:
        """The document as plain data without inactive elements and without the ``active`` keys."""
        plain = to_plain(self.root)
        for section in LIST_SECTIONS:
            items = plain.get(section) or []
            kept = [{k: v for k, v in item.items() if k != "active"} for item in items
                    if not (isinstance(item, dict) and item.get("active") is False)]
            if section in plain:
                plain[section] = kept
        return _drop_dangling(plain)

    def compile(self):
        """The compiled :class:`~impulsim.io.Scene` of the active part of the document."""
        import yaml
        from impulsim.io import scene_from_string
        return scene_from_string(yaml.safe_dump(self.active_plain(), sort_keys=False), self.file,
                                 default_name=Path(self.file).stem)

    # ------------------------------------------------------------------ elements
    def section(self, name: str, create: bool = False):
        if name not in LIST_SECTIONS:
            raise DocumentError(f"unknown section {name!r} (sections: {', '.join(LIST_SECTIONS)})")
        if name not in self.root or self.root[name] is None:
            if not create:
                return []
            from ruamel.yaml.comments import CommentedSeq
            self.root[name] = CommentedSeq()
        return self.root[name]

    def index(self, section: str, name) -> int:
        """Position of the element called ``name`` (or at position ``name`` for an int) in a section."""
        items = self.section(section)
        if isinstance(name, int):
            if 0 <= name < len(items):
                return name
        else:
            for i, item in enumerate(items):
                if isinstance(item, dict) and str(item.get("name")) == name:
                    return i
        raise DocumentError(f"{section}: no element {name!r}")

    def element(self, section: str, name):
        return self.section(section)[self.index(section, name)]

    def names(self, section: str) -> list[str]:
        return [str(i.get("name")) for i in self.section(section) if isinstance(i, dict) and "name" in i]

    def dependents(self, body: str) -> list[tuple[str, str | int]]:
        """(section, name) of every element that acts on ``body``, and of the motors, limits and servos of
        the joints among them: what a removal of the body takes with it."""
        out, joints = [], set()
        for section, keys in BODY_REFERENCES.items():
            for i, item in enumerate(self.section(section)):
                refs = [item.get(k) for k in keys]
                refs = [r for ref in refs for r in (ref if isinstance(ref, list) else [ref])]
                if body in refs:
                    out.append((section, str(item["name"]) if "name" in item else i))
                    if section == "joints":
                        joints.add(str(item["name"]))
        for section, key in JOINT_REFERENCES.items():
            for item in self.section(section):
                if str(item.get(key)) in joints:
                    out.append((section, str(item["name"])))
        return out

    def joint_dependents(self, joint: str) -> list[tuple[str, str]]:
        """(section, name) of the motors, limits and servos on ``joint``."""
        return [(section, str(item["name"])) for section, key in JOINT_REFERENCES.items()
                for item in self.section(section) if str(item.get(key)) == joint]

    # ------------------------------------------------------------------ paths
    def get(self, path: str):
        node, _ = self._walk(path)
        return node

    def _walk(self, path: str):
        """(value at path, (parent, key)) for a dotted path through mappings and named list items."""
        node, parent = self.root, None
        for key in path.split("."):
            parent = (node, key)
            node = self._child(node, key, path)
        return node, parent

    def _child(self, node, key: str, path: str):
        if isinstance(node, list):
            for item in node:
                if isinstance(item, dict) and str(item.get("name")) == key:
                    return item
            if key.lstrip("-").isdigit() and -len(node) <= int(key) < len(node):
                return node[int(key)]
        elif isinstance(node, dict) and key in node:
            return node[key]
        raise DocumentError(f"{path}: no {key!r} in the scene")

    def set(self, path: str, value):
        """Set the value at ``path`` (a new key of a mapping is added); returns the old value, or a
        marker for "was absent"."""
        keys = path.split(".")
        parent = self.get(".".join(keys[:-1])) if len(keys) > 1 else self.root
        last = keys[-1]
        if isinstance(parent, list):
            target = self._child(parent, last, path)
            i = parent.index(target)
            old, parent[i] = parent[i], value
            return old
        if not isinstance(parent, dict):
            raise DocumentError(f"{path}: {'.'.join(keys[:-1])} is a value, not a mapping or list")
        old = parent[last] if last in parent else ABSENT
        parent[last] = value
        return old

    def unset(self, path: str) -> None:
        keys = path.split(".")
        parent = self.get(".".join(keys[:-1])) if len(keys) > 1 else self.root
        if isinstance(parent, dict) and keys[-1] in parent:
            del parent[keys[-1]]


class _Absent:
    def __repr__(self):
        return "ABSENT"


ABSENT = _Absent()


def _drop_dangling(plain: dict) -> dict:
    """Leave out motors, limits and servos of inactive joints (they have nothing to act on)."""
    joints = {str(j.get("name")) for j in plain.get("joints") or []}
    for section, key in JOINT_REFERENCES.items():
        if section in plain:
            plain[section] = [item for item in plain[section] if str(item.get(key)) in joints]
    return plain
