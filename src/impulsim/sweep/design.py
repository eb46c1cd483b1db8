"""Designs: parameter ranges into a list of cases (one dict of parameter values per case).

A parameter is a dotted path into the scene document (see :mod:`impulsim.sweep.cases`) with its values:
``0.001,0.002`` (a list), ``0.2:0.9:8`` (8 evenly spaced values from 0.2 to 0.9, both included) or, for the
random designs, ``0.2:0.9`` (a range to sample). Designs:

* ``grid`` — every combination of the parameters' values (the Cartesian product, last parameter fastest);
* ``list`` — the i-th value of every parameter together (all lists of one length);
* ``random`` — ``samples`` points drawn uniformly from the parameters' ranges (seeded);
* ``lhs`` — ``samples`` points of a Latin hypercube over the ranges (SciPy's ``qmc.LatinHypercube``, seeded).
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

DESIGNS = ("grid", "list", "random", "lhs")


class DesignError(ValueError):
    """A parameter or design that cannot be read; the message is one line."""


@dataclass(frozen=True)
class Parameter:
    """A dotted path into the scene and either its values or a range [low, high] to sample."""
    path: str
    values: tuple = ()
    low: float | None = None
    high: float | None = None

    def sample(self, u: np.ndarray) -> np.ndarray:
        """Values at the unit-interval points ``u`` (for random and Latin-hypercube designs)."""
        if self.low is None:
            lo, hi = min(self.values), max(self.values)
        else:
            lo, hi = self.low, self.high
        return lo + (hi - lo) * u


def _value(text: str, where: str):
    """A number if the text reads as one, else the text itself (a material or method name, say)."""
    text = text.strip()
    try:
        value = float(text)
    except ValueError:
        if not text:
            raise DesignError(f"{where}: an empty value") from None
        return text
    if not math.isfinite(value):
        raise DesignError(f"{where}: {text!r} is not a finite number")
    return int(value) if value.is_integer() and "." not in text and "e" not in text.lower() else value


def parse_parameter(spec: str) -> Parameter:
    """``PATH=V1,V2,...``, ``PATH=LOW:HIGH:N`` or ``PATH=LOW:HIGH`` into a :class:`Parameter`."""
    path, sep, rhs = spec.partition("=")
    path = path.strip()
    if not sep or not path or not rhs.strip():
        raise DesignError(f"--param {spec!r}: expected PATH=VALUES (e.g. settings.h=0.001,0.002 or "
                          f"materials.rubber.restitution=0.2:0.9:8)")
    return parameter_from(path, rhs.strip())


def parameter_from(path: str, values) -> Parameter:
    """A parameter from its path and its values as a string (see :func:`parse_parameter`), a list, or a
    mapping ``{from, to, num}`` (a sweep file's form)."""
    where = f"parameter {path}"
    if isinstance(values, dict):
        unknown = set(values) - {"from", "to", "num"}
        if unknown or not {"from", "to"} <= set(values):
            raise DesignError(f"{where}: a range is {{from: LOW, to: HIGH, num: N}}")
        values = f"{values['from']}:{values['to']}" + (f":{values['num']}" if "num" in values else "")
    if isinstance(values, (list, tuple)):
        if not values:
            raise DesignError(f"{where}: no values")
        return Parameter(path, tuple(_value(str(v), where) for v in values))
    if not isinstance(values, str):
        return Parameter(path, (_value(str(values), where),))
    if ":" in values:
        parts = values.split(":")
        if len(parts) not in (2, 3):
            raise DesignError(f"{where}: a range is LOW:HIGH or LOW:HIGH:N, got {values!r}")
        low, high = (_value(p, where) for p in parts[:2])
        if not all(isinstance(x, (int, float)) for x in (low, high)):
            raise DesignError(f"{where}: a range needs numbers, got {values!r}")
        if len(parts) == 2:
            return Parameter(path, (), float(low), float(high))
        n = _value(parts[2], where)
        if not isinstance(n, int) or n < 1 or n > 100_000:
            raise DesignError(f"{where}: the number of values must be a whole number from 1 to 100000, "
                              f"got {parts[2]!r}")
        return Parameter(path, tuple(float(x) for x in np.linspace(float(low), float(high), n)),
                         float(low), float(high))
    return Parameter(path, tuple(_value(v, where) for v in values.split(",")))


def make_design(params: list[Parameter], design: str = "grid", samples: int | None = None,
                seed: int = 0) -> list[dict]:
    """The cases of a design: a list of {path: value} dicts, in a fixed order."""
    if design not in DESIGNS:
        raise DesignError(f"unknown design {design!r} (available: {', '.join(DESIGNS)})")
    if not params:
        return [{}]
    paths = [p.path for p in params]
    if len(set(paths)) != len(paths):
        raise DesignError("a parameter is given twice: " + ", ".join(sorted({p for p in paths if paths.count(p) > 1})))
    if design == "grid":
        for p in params:
            if not p.values:
                raise DesignError(f"parameter {p.path}: a grid needs values (LOW:HIGH:N or a list)")
        return [dict(zip(paths, combo)) for combo in itertools.product(*(p.values for p in params))]
    if design == "list":
        lengths = {len(p.values) for p in params}
        if len(lengths) != 1 or 0 in lengths:
            raise DesignError("a list design needs every parameter with the same number of values, got "
                              + ", ".join(f"{p.path}: {len(p.values)}" for p in params))
        return [dict(zip(paths, combo)) for combo in zip(*(p.values for p in params))]
    if samples is None or samples < 1:
        raise DesignError(f"a {design} design needs --samples N (N >= 1)")
    for p in params:
        if not all(isinstance(v, (int, float)) for v in p.values):
            raise DesignError(f"parameter {p.path}: a {design} design needs numeric ranges")
    if design == "random":
        u = np.random.default_rng(seed).random((samples, len(params)))
    else:
        from scipy.stats import qmc
        u = qmc.LatinHypercube(d=len(params), seed=seed).random(samples)
    columns = [p.sample(u[:, i]) for i, p in enumerate(params)]
    return [{path: float(col[k]) for path, col in zip(paths, columns)} for k in range(samples)]
