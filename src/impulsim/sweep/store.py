"""Where a sweep's rows go: one Parquet file per finished case, written at once and atomically.

    OUT/manifest.json               the sweep: scene, design, parameters, method, metrics, case count
    OUT/cases/case-000012.parquet   one row per case, written when the case finishes
    OUT/results.parquet             every row, written when the sweep ends

A case file carries the case's key (a hash of the scene text, its parameter values, method, options,
duration, step size and metric names): a rerun of the same sweep skips every case whose file holds the
same key, so a killed sweep resumes where it stopped and a changed sweep recomputes what changed.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq


def case_key(scene_text: str, values: dict, run: dict) -> str:
    """A hash of everything that decides a case's result."""
    blob = json.dumps({"scene": scene_text, "values": values, "run": run}, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:24]


class Store:
    """The output directory of one sweep."""

    def __init__(self, out: str | Path):
        self.out = Path(out)
        self.cases = self.out / "cases"
        self.cases.mkdir(parents=True, exist_ok=True)

    def case_path(self, index: int) -> Path:
        return self.cases / f"case-{index:06d}.parquet"

    def done(self, index: int, key: str) -> dict | None:
        """The stored row of case ``index`` if it was computed with this key, else None."""
        path = self.case_path(index)
        if not path.exists():
            return None
        try:
            row = pq.read_table(path).to_pylist()[0]
        except Exception:            # a torn or foreign file: compute the case again
            return None
        return row if row.get("key") == key else None

    def write_case(self, index: int, row: dict) -> None:
        """Write one case's row: to a temporary file first, then renamed, so a kill leaves no torn file."""
        path = self.case_path(index)
        tmp = path.with_suffix(".parquet.tmp")
        pq.write_table(pa.Table.from_pylist([row]), tmp)
        os.replace(tmp, path)

    def write_manifest(self, manifest: dict) -> None:
        tmp = self.out / "manifest.json.tmp"
        tmp.write_text(json.dumps(manifest, indent=2, default=str))
        os.replace(tmp, self.out / "manifest.json")

    def write_results(self, rows: list[dict], parameters=(), metrics=(), design=None) -> pa.Table:
        table = rows_table(rows, parameters, metrics, design)
        pq.write_table(table, self.out / "results.parquet")
        return table


def rows_table(rows: list[dict], parameters=(), metrics=(), design: str | None = None) -> pa.Table:
    """Rows as a table with every row's columns (missing values null), ordered by case; the schema's
    metadata names the parameter and metric columns and the design (grid, list, random, lhs)."""
    columns: list[str] = []
    for row in rows:
        columns += [c for c in row if c not in columns]
    rows = sorted(rows, key=lambda r: r["case"])
    data = {c: [r.get(c) for r in rows] for c in columns}
    for c, values in data.items():      # a parameter given as 1, 2.5 is one float column
        kinds = {type(v) for v in values if v is not None}
        if kinds == {int, float}:
            data[c] = [None if v is None else float(v) for v in values]
    meta = {"parameters": json.dumps(list(parameters)), "metrics": json.dumps(list(metrics))}
    if design:
        meta["design"] = design
    return pa.table(data).replace_schema_metadata(meta)
