"""A case: the scene document with some values set by dotted paths, compiled into a scene.

A path walks the scene file's YAML: mapping keys by name (``settings.h``, ``gravity.2``), list items by
their ``name`` (``bodies.ball1.velocity.0``, ``joints.elbow.axis``) or by index (``bodies.0.mass``,
``bodies.ball1.shapes.0.sphere.radius``). When a path reaches a material *name* (a body's or a shape's
``material: rubber``) and goes on, it continues in ``materials.rubber`` — a material is shared by every
body that names it, so ``bodies.ball1.material.restitution`` changes the restitution of all rubber.
Setting a key that does not exist yet in a mapping adds it (``settings.eps_d``).
"""
from __future__ import annotations

import copy
from pathlib import Path

import yaml

from impulsim.io import scene_from_string


class CaseError(ValueError):
    """A parameter path that does not lead into the scene; the message is one line."""


def _step(doc: dict, node, key: str, path: str, done: str):
    """The child of ``node`` at ``key`` (following a material name into ``materials``)."""
    if isinstance(node, list):
        for item in node:
            if isinstance(item, dict) and str(item.get("name")) == key:
                return item
        if key.lstrip("-").isdigit() and -len(node) <= int(key) < len(node):
            return node[int(key)]
        names = [str(i.get("name")) for i in node if isinstance(i, dict) and "name" in i]
        raise CaseError(f"parameter {path}: {done or 'the scene'} has no item {key!r}"
                        + (f" (names: {', '.join(names[:12])})" if names else ""))
    if isinstance(node, dict):
        if key not in node:
            raise CaseError(f"parameter {path}: {done or 'the scene'} has no key {key!r} "
                            f"(keys: {', '.join(map(str, node))})")
        return node[key]
    raise CaseError(f"parameter {path}: {done} is a value, not a mapping or list")


def set_path(doc: dict, path: str, value) -> None:
    """Set the value at the dotted ``path`` of the scene document ``doc`` in place."""
    keys = path.split(".")
    node, done = doc, ""
    for i, key in enumerate(keys[:-1]):
        child = _step(doc, node, key, path, done)
        if isinstance(child, str) and child in (doc.get("materials") or {}):
            child, done = doc["materials"][child], f"materials.{child}"
        else:
            done = ".".join(keys[:i + 1])
        node = child
    last = keys[-1]
    if isinstance(node, list):
        target = _step(doc, node, last, path, done)
        node[node.index(target)] = value
    elif isinstance(node, dict):
        node[last] = value
    else:
        raise CaseError(f"parameter {path}: {done} is a value, not a mapping or list")


def case_text(base: dict, values: dict) -> str:
    """The scene file text of the base document with ``values`` ({path: value}) set."""
    doc = copy.deepcopy(base)
    for path, value in values.items():
        set_path(doc, path, value)
    return yaml.safe_dump(doc, sort_keys=False)


def read_document(path: str | Path) -> tuple[str, dict]:
    """The scene file's text and its document (anchors and merges resolved). The file is first loaded as
    a scene, so that a broken file gives its usual one-line error before any case runs."""
    from impulsim.io import load_scene
    load_scene(path)
    text = Path(path).read_text(encoding="utf-8")
    return text, yaml.safe_load(text)


def build_case(base: dict, values: dict, file: str):
    """The compiled scene of one case; ``file`` names the base scene (relative paths resolve from it)."""
    return scene_from_string(case_text(base, values), file, default_name=Path(file).stem)
