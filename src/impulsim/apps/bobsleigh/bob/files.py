"""Bob files (YAML): read with the line of every element, so that a bad value is reported as
``file:line: element: problem`` in one line."""
from __future__ import annotations

from pathlib import Path

import yaml

BOBS = Path(__file__).resolve().parent.parent / "bobs"
"""Directory of the shipped bob files."""


class BobFileError(ValueError):
    """A bob file that cannot be used; the message is ``file:line: element: problem``."""


class Located(dict):
    """A mapping that remembers the line of each key (``line_of``) and its own (``line``)."""
    line: int = 0
    lines: dict


class LocatedList(list):
    line: int = 0


class _Loader(yaml.SafeLoader):
    pass


def _mapping(loader, node):
    loader.flatten_mapping(node)
    out = Located()
    out.line = node.start_mark.line + 1
    out.lines = {}
    for k, v in node.value:
        key = loader.construct_object(k, deep=True)
        out[key] = loader.construct_object(v, deep=True)
        out.lines[key] = v.start_mark.line + 1
    return out


def _sequence(loader, node):
    out = LocatedList(loader.construct_object(v, deep=True) for v in node.value)
    out.line = node.start_mark.line + 1
    return out


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)
_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _sequence)


class Reader:
    """Typed access to a located mapping that raises :class:`BobFileError` with file and line."""

    def __init__(self, path: str, data, element: str):
        self.path, self.data, self.element = path, data, element
        if not isinstance(data, dict):
            self.fail(f"expected a mapping, got {type(data).__name__}", getattr(data, "line", 0))

    def line(self, key=None):
        if key is not None and hasattr(self.data, "lines") and key in self.data.lines:
            return self.data.lines[key]
        return getattr(self.data, "line", 0)

    def fail(self, problem, line=None, key=None):
        where = self.element + (f".{key}" if key else "")
        raise BobFileError(f"{self.path}:{line if line is not None else self.line(key)}: {where}: {problem}")

    def number(self, key, default=None, *, low=None, high=None, positive=False):
        if key not in self.data:
            if default is None:
                self.fail("missing", key=key)
            return float(default)
        v = self.data[key]
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            self.fail(f"expected a number, got {v!r}", key=key)
        v = float(v)
        if v != v or (positive and not v > 0) or (low is not None and v < low) or (high is not None and v > high):
            rng = "> 0" if positive else f"in [{low}, {high}]"
            self.fail(f"{v} out of range (need {rng})", key=key)
        return v

    def vector(self, key, default=None):
        if key not in self.data:
            if default is None:
                self.fail("missing", key=key)
            return tuple(float(x) for x in default)
        v = self.data[key]
        if not isinstance(v, list) or len(v) != 3 or any(isinstance(x, bool) or not isinstance(x, (int, float))
                                                          for x in v):
            self.fail(f"expected three numbers [x, y, z], got {v!r}", key=key)
        return tuple(float(x) for x in v)

    def text(self, key, default=None, choices=None):
        if key not in self.data:
            if default is None:
                self.fail("missing", key=key)
            return default
        v = self.data[key]
        if not isinstance(v, str) or (choices and v not in choices):
            self.fail(f"expected one of {', '.join(choices)}, got {v!r}" if choices else
                      f"expected text, got {v!r}", key=key)
        return v

    def sub(self, key, element=None, required=True):
        if key not in self.data:
            if required:
                self.fail("missing", key=key)
            return None
        name = element or (f"{self.element}.{key}" if self.element else key)
        return Reader(self.path, self.data[key], name)

    def items(self, key):
        v = self.data.get(key)
        if not isinstance(v, list) or not v:
            self.fail("expected a non-empty list", key=key)
        return [Reader(self.path, x, f"{key}[{i}]") for i, x in enumerate(v)]

    def check_keys(self, allowed):
        for k in self.data:
            if k not in allowed:
                self.fail(f"unknown key (allowed: {', '.join(sorted(allowed))})", key=k)


def read_yaml(path) -> tuple[str, Reader]:
    """(name shown in errors, top-level reader) of a bob file path or shipped name."""
    p = Path(path)
    if not p.suffix and not p.exists():
        p = BOBS / f"{path}.yaml"
    if not p.exists():
        raise BobFileError(f"{path}:0: file: not found (shipped bobs: "
                           f"{', '.join(sorted(x.stem for x in BOBS.glob('*.yaml')))})")
    text = p.read_text()
    try:
        data = yaml.load(text, Loader=_Loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark else 0
        raise BobFileError(f"{p}:{line}: file: not valid YAML ({getattr(exc, 'problem', exc)})") from None
    return str(p), Reader(str(p), data, "")
