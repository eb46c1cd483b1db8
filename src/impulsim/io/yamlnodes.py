"""Reading YAML with line numbers: composed nodes, typed value readers and one-line errors.

A scene file is composed (not loaded) with PyYAML, so every mapping, list and scalar keeps the line it
starts on. The readers here turn nodes into Python values and, on bad input, raise a
:class:`SceneError` whose message is one line: ``file:line: element: problem``.
"""
from __future__ import annotations

import difflib
import math
import re
from typing import Iterable, Iterator, Optional

import numpy as np
import yaml
from yaml.constructor import SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from impulsim.errors import ModelError
from impulsim import limits

_INT, _FLOAT, _BOOL, _NULL, _STR, _MERGE = (f"tag:yaml.org,2002:{t}" for t in
                                            ("int", "float", "bool", "null", "str", "merge"))


class SceneError(ModelError):
    """A scene file is invalid; the message is one line starting with ``file:line:``."""


# libyaml's loader when PyYAML was built with it (about 40 times faster on large scenes); same nodes and
# marks, except that plain scalars have style "" instead of None
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def compose(text: str, file: str) -> Node:
    """The YAML node tree of ``text``; syntax errors become a one-line :class:`SceneError`. The text's
    size, characters, nesting and expansion are held to :mod:`impulsim.limits`."""
    if len(text) > limits.MAX_SCENE_CHARS:
        raise SceneError(f"{file}: the scene file has {len(text)} characters, more than the limit "
                         f"{limits.MAX_SCENE_CHARS}")
    bad = _CONTROL.search(text)
    if bad is not None:
        line = text.count("\n", 0, bad.start()) + 1
        column = bad.start() - (text.rfind("\n", 0, bad.start()) + 1) + 1
        raise SceneError(f"{file}:{line}: control character U+{ord(bad.group()):04X} at column {column} "
                         f"(not allowed in a scene file)")
    try:
        root = yaml.compose(text, Loader=_LOADER)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = f"{file}:{mark.line + 1}" if mark is not None else file
        column = f" (column {mark.column + 1})" if mark is not None else ""
        problem = " ".join(str(exc.problem or exc.context or "invalid YAML").split())
        raise SceneError(f"{line}: YAML syntax error: {problem}{column}") from None
    except yaml.YAMLError as exc:
        raise SceneError(f"{file}: YAML error: {' '.join(str(exc).split())}") from None
    except RecursionError:
        raise SceneError(f"{file}: nested deeper than the limit {limits.MAX_YAML_DEPTH}") from None
    if root is None:
        raise SceneError(f"{file}:1: the scene file is empty")
    _check_shape(root, file)
    return root


def _check_shape(root: Node, file: str) -> None:
    """Refuse nesting deeper than MAX_YAML_DEPTH, lists longer than MAX_ELEMENTS and more than
    MAX_YAML_NODES nodes counting each use of an alias (a few aliases can stand for billions of nodes)."""
    stack = [(root, 1)]
    visits = 0
    while stack:
        node, depth = stack.pop()
        visits += 1
        if visits > limits.MAX_YAML_NODES:
            raise SceneError(f"{file}:{node.start_mark.line + 1}: the scene expands to more than "
                             f"{limits.MAX_YAML_NODES} nodes (aliases counted at each use)")
        if depth > limits.MAX_YAML_DEPTH:
            raise SceneError(f"{file}:{node.start_mark.line + 1}: nested deeper than the limit "
                             f"{limits.MAX_YAML_DEPTH}")
        if isinstance(node, SequenceNode):
            if len(node.value) > limits.MAX_ELEMENTS:
                raise SceneError(f"{file}:{node.start_mark.line + 1}: a list of {len(node.value)} items, "
                                 f"more than the limit {limits.MAX_ELEMENTS}")
            stack.extend((v, depth + 1) for v in node.value)
        elif isinstance(node, MappingNode):
            if len(node.value) > limits.MAX_ELEMENTS:
                raise SceneError(f"{file}:{node.start_mark.line + 1}: a mapping of {len(node.value)} keys, "
                                 f"more than the limit {limits.MAX_ELEMENTS}")
            for k, v in node.value:
                stack.append((k, depth + 1))
                stack.append((v, depth + 1))


def describe(node: Node) -> str:
    """A short description of what a node holds, for error messages."""
    if isinstance(node, ScalarNode):
        return "nothing" if node.tag == _NULL else repr(_short(node.value))
    if isinstance(node, SequenceNode):
        return f"a list of {len(node.value)} items"
    return "a mapping"


class Element:
    """One element of the scene (a body, a joint, the settings …): its label and where it starts.

    ``label`` reads like the builder's (``bodies[2] "arm"``) so that errors found here and errors the
    model compiler finds look alike.
    """

    def __init__(self, file: str, node: Node, label: str):
        self.file = file
        self.node = node
        self.label = label

    @property
    def line(self) -> int:
        """1-based line the element starts on."""
        return self.node.start_mark.line + 1

    @property
    def where(self) -> str:
        """``file:line`` of the element, as passed to the builder's ``where=``."""
        return f"{self.file}:{self.line}"

    def fail(self, node: Optional[Node], problem: str) -> SceneError:
        """The error to raise for ``problem`` found at ``node`` (or at the element itself)."""
        line = (node if node is not None else self.node).start_mark.line + 1
        prefix = f"{self.label}: " if self.label else ""
        return SceneError(f"{self.file}:{line}: {prefix}{problem}")

    def child(self, node: Node, label: str) -> "Element":
        """A sub-element (e.g. a body's shape) whose label extends this one's."""
        return Element(self.file, node, f"{self.label}: {label}" if self.label else label)

    def relabel(self, label: str) -> None:
        """Change the label, e.g. once the element's name is known."""
        self.label = label


class Mapping:
    """A YAML mapping with string keys, its duplicates refused and merge keys (``<<``) applied."""

    def __init__(self, el: Element, node: Node, what: str = ""):
        if not isinstance(node, MappingNode):
            raise el.fail(node, f"{what or 'this'} must be a mapping (key: value), got {describe(node)}")
        self.el = el
        self.node = node
        self.items: dict[str, tuple[Node, Node]] = {}
        for key, value in _flatten_merges(el, node):
            if not isinstance(key, ScalarNode) or key.tag not in (_STR, _INT, _FLOAT, _BOOL):
                raise el.fail(key, f"keys must be plain names, got {describe(key)}")
            if key.value in self.items:
                raise el.fail(key, f'duplicate key "{key.value}"')
            self.items[key.value] = (key, value)

    def __contains__(self, key: str) -> bool:
        return key in self.items

    def __iter__(self) -> Iterator[str]:
        return iter(self.items)

    def value(self, key: str) -> Node:
        return self.items[key][1]

    def get(self, key: str) -> Optional[Node]:
        """The value node of ``key``, or None when the key is absent."""
        pair = self.items.get(key)
        return None if pair is None else pair[1]

    def check_keys(self, allowed: Iterable[str], required: Iterable[str] = (), what: str = "key") -> None:
        """Refuse keys outside ``allowed`` (suggesting the closest) and report missing required ones."""
        allowed = list(allowed)
        for key, (key_node, _) in self.items.items():
            if key not in allowed:
                close = difflib.get_close_matches(key, allowed, n=1)
                hint = f' (did you mean "{close[0]}"?)' if close else f" (allowed: {', '.join(allowed)})"
                raise self.el.fail(key_node, f'unknown {what} "{key}"{hint}')
        for key in required:
            if key not in self.items:
                raise self.el.fail(self.node, f'missing required key "{key}"')


def _flatten_merges(el: Element, node: MappingNode) -> list[tuple[Node, Node]]:
    """Key/value pairs with YAML merge keys expanded; explicit keys win over merged ones."""
    own, merged = [], []
    for key, value in node.value:
        if isinstance(key, ScalarNode) and key.tag == _MERGE:
            sources = value.value if isinstance(value, SequenceNode) else [value]
            for src in sources:
                if not isinstance(src, MappingNode):
                    raise el.fail(src, "a merge key (<<) needs a mapping or a list of mappings")
                merged.extend(_flatten_merges(el, src))
        else:
            own.append((key, value))
    names = {k.value for k, _ in own if isinstance(k, ScalarNode)}
    seen: set = set()
    extra = []
    for key, value in merged:
        if key.value not in names and key.value not in seen:
            seen.add(key.value)
            extra.append((key, value))
    return extra + own


def sequence(el: Element, node: Node, what: str) -> list[Node]:
    """The item nodes of a YAML list."""
    if not isinstance(node, SequenceNode):
        raise el.fail(node, f"{what} must be a list, got {describe(node)}")
    return list(node.value)


def _scalar_number(node: Node) -> Optional[float]:
    """The number a scalar node holds, or None. Plain ``1e-6`` (a string in YAML 1.1) counts too."""
    if not isinstance(node, ScalarNode):
        return None
    if node.tag in (_INT, _FLOAT, _STR) and len(node.value) > limits.MAX_NUMBER_CHARS:
        return None
    if node.tag in (_INT, _FLOAT):
        return float(SafeConstructor().construct_object(node))
    if node.tag == _STR and not node.style:       # plain (unquoted) text
        try:
            return float(node.value)
        except ValueError:
            return None
    return None


def number(el: Element, node: Node, what: str, *, positive: bool = False, nonnegative: bool = False,
           finite: bool = True) -> float:
    """A real number; optionally positive or non-negative; finite unless ``finite=False``."""
    value = _scalar_number(node)
    if value is None:
        if isinstance(node, ScalarNode) and len(node.value) > limits.MAX_NUMBER_CHARS:
            raise el.fail(node, f"{what} must be a number of at most {limits.MAX_NUMBER_CHARS} characters, "
                                f"got {len(node.value)}")
        raise el.fail(node, f"{what} must be a number, got {describe(node)}")
    if math.isnan(value) or (finite and not math.isfinite(value)):
        raise el.fail(node, f"{what} must be a finite number, got {_short(node.value)}")
    if math.isfinite(value) and abs(value) > limits.MAX_ABS_NUMBER:
        raise el.fail(node, f"{what} must lie within ±{limits.MAX_ABS_NUMBER:g}, got {_short(node.value)}")
    if positive and not value > 0:
        raise el.fail(node, f"{what} must be positive, got {node.value}")
    if nonnegative and not value >= 0:
        raise el.fail(node, f"{what} must not be negative, got {node.value}")
    return value


def _short(text: str) -> str:
    return text if len(text) <= 40 else text[:37] + "..."


def integer(el: Element, node: Node, what: str, *, minimum: Optional[int] = None) -> int:
    """A whole number, optionally at least ``minimum``."""
    if not (isinstance(node, ScalarNode) and node.tag == _INT):
        raise el.fail(node, f"{what} must be a whole number, got {_short(describe(node))}")
    if len(node.value) > 20:
        raise el.fail(node, f"{what} must be a whole number of at most 20 digits, got {len(node.value)}")
    value = int(SafeConstructor().construct_object(node))
    if minimum is not None and value < minimum:
        raise el.fail(node, f"{what} must be at least {minimum}, got {value}")
    return value


def boolean(el: Element, node: Node, what: str) -> bool:
    """true or false."""
    if not (isinstance(node, ScalarNode) and node.tag == _BOOL):
        raise el.fail(node, f"{what} must be true or false, got {describe(node)}")
    return bool(SafeConstructor().construct_object(node))


def string(el: Element, node: Node, what: str, choices: Optional[Iterable[str]] = None) -> str:
    """A non-empty text; optionally one of ``choices``."""
    if not (isinstance(node, ScalarNode) and node.tag in (_STR, _INT, _FLOAT)) or node.value == "":
        raise el.fail(node, f"{what} must be a text, got {describe(node)}")
    value = node.value
    if choices is not None:
        choices = list(choices)
        if value not in choices:
            close = difflib.get_close_matches(value, choices, n=1)
            hint = f' (did you mean "{close[0]}"?)' if close else f" (use one of: {', '.join(choices)})"
            raise el.fail(node, f'unknown {what} "{value}"{hint}')
    return value


def vector(el: Element, node: Node, what: str, n: int = 3) -> np.ndarray:
    """A list of ``n`` finite numbers."""
    items = node.value if isinstance(node, SequenceNode) else None
    if items is None or len(items) != n:
        raise el.fail(node, f"{what} must be a list of {n} numbers, got {describe(node)}")
    return np.array([number(el, item, f"{what} entries") for item in items])


def matrix3(el: Element, node: Node, what: str) -> np.ndarray:
    """A 3×3 matrix written as a list of three rows of three numbers."""
    rows = sequence(el, node, what)
    if len(rows) != 3:
        raise el.fail(node, f"{what} must have 3 rows, got {len(rows)}")
    return np.array([vector(el, row, f"{what} rows") for row in rows])
