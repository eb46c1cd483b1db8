"""The ``settings`` block of a scene file: step size, duration, method and the method's options.

``settings`` is flat: besides ``h`` [s], ``duration`` [s], ``method`` and ``record_every`` (recorded
steps), every key is an option of the chosen method (for ``impulse``: solver, eps_d, eps_v,
max_iter_pos, max_iter_vel, integrator, …). The options a method takes are read from its constructor's
keyword arguments, and each value is checked against the type of the option's default, so a new method
or option needs no change here.
"""
from __future__ import annotations

import enum
import inspect
from dataclasses import dataclass, field
from typing import Any

from yaml.nodes import Node

from impulsim import limits
from impulsim.io.yamlnodes import Element, Mapping, SceneError, boolean, integer, number, string
from impulsim.methods import METHODS

DEFAULT_H = 1e-3
"""Step size [s] when the scene gives none."""
DEFAULT_DURATION = 1.0
"""Simulated time [s] when neither the scene nor the command line gives one."""
RUN_KEYS = ("h", "duration", "method", "record_every")


@dataclass
class Settings:
    """How a scene is meant to be run; the command line may override every field."""
    h: float = DEFAULT_H
    """Step size [s]."""
    duration: float = DEFAULT_DURATION
    """Simulated time [s]."""
    method: str = "impulse"
    options: dict = field(default_factory=dict)
    """Keyword options for the method's constructor."""
    record_every: int = 1
    """Record one row every this many steps."""
    where: str = ""
    """``file:line`` of the settings block (for errors raised when the method is built)."""


def method_options(method: str) -> dict[str, Any]:
    """Option name -> default value of a method's constructor (its keyword arguments), plus the options a
    method passes on to a stage (``extra_option_defaults()``, e.g. the impulse method's contact options)."""
    cls = METHODS[method]
    options = _keyword_defaults(cls.__init__)
    if hasattr(cls, "extra_option_defaults"):
        options.update(cls.extra_option_defaults())
    return options


def _keyword_defaults(func) -> dict[str, Any]:
    params = inspect.signature(func).parameters.values()
    return {p.name: p.default for p in params
            if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD) and p.name not in ("self", "model")}


def read_settings(file: str, node: Node) -> Settings:
    """Settings from the YAML ``settings`` mapping."""
    el = Element(file, node, "settings")
    m = Mapping(el, node, "settings")
    method = string(el, m.value("method"), "method", sorted(METHODS)) if "method" in m else "impulse"
    defaults = method_options(method)
    m.check_keys(RUN_KEYS + tuple(defaults), what="setting")
    s = Settings(method=method, where=el.where)
    if "h" in m:
        s.h = number(el, m.value("h"), "h", positive=True)
    if "duration" in m:
        s.duration = number(el, m.value("duration"), "duration", nonnegative=True)
    if "record_every" in m:
        s.record_every = integer(el, m.value("record_every"), "record_every", minimum=1)
    if s.duration / s.h > limits.MAX_STEPS:
        raise el.fail(m.get("duration") or m.get("h") or node, f"duration / h = {s.duration / s.h:.3g} steps, more "
                                                               f"than the limit {limits.MAX_STEPS:g} of one run")
    for key in m:
        if key not in RUN_KEYS:
            s.options[key] = read_option(el, m.value(key), key, defaults[key])
    return s


def read_option(el: Element, node: Node, key: str, default: Any) -> Any:
    """One method option, typed like its default (bool, int, float, text, or an enum's member by name)."""
    if isinstance(default, enum.Enum):     # e.g. restitution_rule: geometric
        try:
            return integer(el, node, key)
        except SceneError:
            return string(el, node, key)
    if isinstance(default, bool):
        return boolean(el, node, key)
    if isinstance(default, int):
        return integer(el, node, key)
    if isinstance(default, float):
        return number(el, node, key, finite=False)
    if isinstance(default, str):
        return string(el, node, key)
    try:        # no typed default (None): a switch, a number or a text, as written
        return boolean(el, node, key)
    except SceneError:
        pass
    try:
        return number(el, node, key, finite=False)
    except SceneError:
        return string(el, node, key)


def parse_option(method: str, key: str, text: str) -> Any:
    """A method option given as text on the command line, typed like its default."""
    defaults = method_options(method)
    if key not in defaults:
        raise ValueError(f"method {method!r} has no option {key!r} (options: {', '.join(defaults)})")
    default = defaults[key]
    if isinstance(default, enum.Enum):
        return text
    try:
        if isinstance(default, enum.Enum):
            return int(text) if text.lstrip("-").isdigit() else text
        if isinstance(default, bool):
            if text.lower() not in ("true", "false", "1", "0", "yes", "no"):
                raise ValueError
            return text.lower() in ("true", "1", "yes")
        if isinstance(default, int):
            return int(text)
        if isinstance(default, float):
            return float(text)
        if default is None:          # untyped: a switch or a number if it reads as one
            if text.lower() in ("true", "false"):
                return text.lower() == "true"
            return float(text) if _is_number(text) else text
    except ValueError:
        raise ValueError(f"option {key!r} must be a {type(default).__name__}, got {text!r}") from None
    return text


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def check_options(method: str, options: dict, where: str = "") -> None:
    """Refuse options the method does not take (e.g. after the command line changed the method)."""
    defaults = method_options(method)
    for key in options:
        if key not in defaults:
            prefix = f"{where}: " if where else ""
            raise SceneError(f"{prefix}settings: method {method!r} has no option {key!r} "
                             f"(options: {', '.join(defaults)})")
