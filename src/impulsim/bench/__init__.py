"""Benchmark harness behind ``impulsim bench NAME``.

Each benchmark is a function ``run(quick: bool) -> list[dict]`` registered under a name; its records
are printed as a Markdown table and optionally written as JSON. Benchmarks time many steps after a
warm-up, report medians and compile time apart, put the source documents' figures beside ours and run
peer engines (MuJoCo …, the ``bench`` extra) on the same scene in the same process where possible.
"""
from __future__ import annotations

import importlib
import json
from typing import Callable

# name -> "module:function"; modules are imported only when their benchmark runs
REGISTRY: dict[str, str] = {}


def register(name: str, target: str) -> None:
    """Make ``impulsim bench name`` call ``target`` ("package.module:function")."""
    REGISTRY[name] = target


def resolve(name: str) -> Callable:
    try:
        module, func = REGISTRY[name].split(":")
    except KeyError:
        raise KeyError(f"unknown benchmark {name!r} (available: {', '.join(sorted(REGISTRY)) or 'none'})") \
            from None
    return getattr(importlib.import_module(module), func)


def first_line(exc: BaseException) -> str:
    """An exception as one short line for a record ("Type: first line of the message")."""
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"[:160]


def markdown_tables(records: list[dict]) -> str:
    """Records as Markdown: one table per value of their "table" key (first-seen order, each under a
    heading, without that column), records without the key first in a table of their own."""
    groups: dict = {}
    for r in records:
        groups.setdefault(r.get("table"), []).append({k: v for k, v in r.items() if k != "table"})
    if list(groups) == [None]:
        return markdown_table(records)
    parts = [markdown_table(rows) if name is None else f"### {name}\n\n{markdown_table(rows)}"
             for name, rows in groups.items()]
    return "\n\n".join(parts)


def markdown_table(records: list[dict]) -> str:
    """Records as a Markdown table with the union of their keys as columns (first-seen order)."""
    if not records:
        return "(no records)"
    cols: list[str] = []
    for r in records:
        cols += [k for k in r if k not in cols]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for r in records:
        lines.append("| " + " | ".join(_fmt(r.get(c, "")) for c in cols) + " |")
    return "\n".join(lines)


def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def run(name: str, quick: bool = False, json_path: str | None = None) -> list[dict]:
    """Run one benchmark, print its tables, optionally write its records as JSON."""
    records = resolve(name)(quick=quick)
    print(markdown_tables(records))
    if json_path:
        with open(json_path, "w") as fh:
            json.dump(records, fh, indent=2)
    return records


# registered benchmarks (each line names a module of impulsim.bench or another package)
register("collision", "impulsim.bench.collision:run")
register("masspoint", "impulsim.bench.masspoint:run")
register("methods", "impulsim.bench.lagrange:run")
register("chain", "impulsim.bench.bender:chain")
register("tree", "impulsim.bench.bender:tree")
register("loops", "impulsim.bench.bender:loops")
register("bender", "impulsim.bench.bender:bender")
register("order", "impulsim.bench.convergence:run")
register("contact", "impulsim.bench.contact:run")
