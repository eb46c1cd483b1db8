"""Edits as commands: each ``apply(document)`` changes the document and returns the command that undoes it.

Commands change only the document; :class:`~impulsim.editing.live.LiveScene` compiles the result and
carries the running state over.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field

from impulsim.editing.document import ABSENT, SceneDocument


class Command:
    """One edit of a scene document."""
    label = "edit"

    def apply(self, doc: SceneDocument) -> "Command":
        raise NotImplementedError


@dataclass
class SetValue(Command):
    """Set the value at a dotted path (``bodies.ball.mass``, ``settings.h``)."""
    path: str
    value: object

    @property
    def label(self):
        return f"set {self.path}"

    def apply(self, doc):
        old = doc.set(self.path, copy.deepcopy(self.value))
        return Unset(self.path) if old is ABSENT else SetValue(self.path, old)


@dataclass
class Unset(Command):
    """Remove a key from a mapping (the loader's default applies again)."""
    path: str

    @property
    def label(self):
        return f"unset {self.path}"

    def apply(self, doc):
        old = doc.get(self.path)
        doc.unset(self.path)
        return SetValue(self.path, old)


@dataclass
class Insert(Command):
    """Add an element to a list section, at ``index`` (default: the end)."""
    section: str
    element: dict
    index: int | None = None

    @property
    def label(self):
        return f"add {self.section} {self.element.get('name', '')}".rstrip()

    def apply(self, doc):
        created = self.section not in doc.root or doc.root[self.section] is None
        items = doc.section(self.section, create=True)
        name = self.element.get("name")
        if name is not None and str(name) in doc.names(self.section):
            from impulsim.editing.document import DocumentError
            raise DocumentError(f"{self.section}: an element {name!r} exists already")
        at = len(items) if self.index is None else self.index
        items.insert(at, copy.deepcopy(self.element))
        remove = Remove(self.section, str(name) if name is not None else at)
        return Compound([remove, Unset(self.section)], f"remove {self.section}") if created else remove


@dataclass
class Remove(Command):
    """Remove one element of a list section by name (or position)."""
    section: str
    name: str | int

    @property
    def label(self):
        return f"remove {self.section} {self.name}"

    def apply(self, doc):
        at = doc.index(self.section, self.name)
        element = doc.section(self.section).pop(at)
        return Insert(self.section, element, at)


@dataclass
class Compound(Command):
    """Several commands as one edit (one undo step)."""
    commands: list = field(default_factory=list)
    name: str = "edit"

    @property
    def label(self):
        return self.name

    def apply(self, doc):
        inverses = []
        try:
            for command in self.commands:
                inverses.append(command.apply(doc))
        except Exception:
            for inverse in reversed(inverses):     # leave the document as it was
                inverse.apply(doc)
            raise
        return Compound(list(reversed(inverses)), f"undo {self.name}")
