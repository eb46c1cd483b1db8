"""Track files: YAML with the construction parameters of a track, read with line-numbered one-line errors.

The layout is documented in docs/bobsleigh_track.md. Every problem is reported as
``file:line: element: problem`` (a :class:`TrackFileError`), like scene files.
"""
from __future__ import annotations

import math
import os
from importlib import resources
from pathlib import Path

import numpy as np

from impulsim.apps.bobsleigh.track import section as sec
from impulsim.apps.bobsleigh.track.height import HeightProfile, Station, vertical_curve
from impulsim.apps.bobsleigh.track.model import Track
from impulsim.apps.bobsleigh.track.profile import LEFT, RIGHT, Curve, ProfileLine
from impulsim.apps.bobsleigh.track.surface import BoundaryElement, SectionTable
from impulsim.io.yamlnodes import Element, Mapping, SceneError, compose, number, sequence, string

TOP_KEYS = ("name", "description", "sources", "profile", "timing", "curves", "height", "sections", "boundary")
CURVE_KEYS = ("hand", "s_b", "s_c", "l_cl_en", "A2_en", "l_circ", "r_c", "l_cl_ex", "A2_ex", "s_e", "name", "note")
SECTION_COLUMNS = ("s", "h_W", "r_0", "l_B", "d_C", "B", "A", "BT", "AT", "R1", "h_Z", "R2", "H2")
A2_RELATIVE_TOLERANCE = 1e-3
"""A² given in a file may differ from l_cl · r_c by this fraction (design tables round A² to about four
digits); the exact product is used so that curvature is continuous at the clothoid's end."""
BOUNDARY_KINDS = ("end_stop", "raised_wall", "entry_closure")


class TrackFileError(SceneError):
    """A track file is invalid; the message is one line starting with ``file:line:``."""


def shipped_tracks() -> list[str]:
    """Names of the tracks shipped with impulsim (load them with ``load_track(name)``)."""
    folder = resources.files("impulsim.apps.bobsleigh") / "tracks"
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".yaml"))


def track_path(path_or_name: str | os.PathLike) -> Path:
    """The file of a shipped track name ("whistler") or the given path."""
    text = str(path_or_name)
    if not text.endswith((".yaml", ".yml")) and os.sep not in text and "/" not in text:
        candidate = resources.files("impulsim.apps.bobsleigh") / "tracks" / f"{text}.yaml"
        if candidate.is_file():
            return Path(str(candidate))
        raise TrackFileError(f"{text}: no such track (shipped: {', '.join(shipped_tracks())})")
    return Path(text)


def load_track(path_or_name: str | os.PathLike) -> Track:
    """Read a track file (or a shipped track by name) and build the :class:`Track`."""
    path = track_path(path_or_name)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise TrackFileError(f"{path}: no such track file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise TrackFileError(f"{path}: cannot read the track file ({exc})") from None
    return track_from_string(text, str(path))


def track_from_string(text: str, file: str = "<track>") -> Track:
    """Parse track YAML ``text``; ``file`` stands for the file in error messages."""
    try:
        return _read(text, file)
    except TrackFileError:
        raise
    except SceneError as exc:
        raise TrackFileError(str(exc)) from None


def _read(text: str, file: str) -> Track:
    root = compose(text, file)
    el = Element(file, root, "")
    top = Mapping(el, root, "a track file")
    top.check_keys(TOP_KEYS, ("name", "profile", "timing", "curves", "height", "sections"), what="top-level key")
    name = string(el, top.value("name"), "name")
    description = string(el, top.value("description"), "description") if "description" in top else ""
    s_min, s_max = _read_profile_range(el.child(top.value("profile"), "profile"), top.value("profile"))
    curves = _read_curves(el, top.value("curves"), s_min, s_max)
    start_s, stations = _read_timing(el.child(top.value("timing"), "timing"), top.value("timing"), s_min, s_max)
    height = _read_height(el.child(top.value("height"), "height"), top.value("height"), s_min)
    sections = _read_sections(el.child(top.value("sections"), "sections"), top.value("sections"), curves)
    boundary = _read_boundary(el, top.get("boundary"), s_min, s_max)
    profile = ProfileLine(curves, s_min, s_max)
    return Track(name, profile, height, sections, boundary, stations, start_s, stations[-1], description, file)


def _read_profile_range(el: Element, node) -> tuple[float, float]:
    m = Mapping(el, node, "profile")
    m.check_keys(("start", "end"), ("start", "end"))
    s_min, s_max = number(el, m.value("start"), "start"), number(el, m.value("end"), "end")
    if not s_max > s_min:
        raise el.fail(m.value("end"), f"end ({s_max:g}) must lie after start ({s_min:g})")
    return s_min, s_max


def _read_timing(el: Element, node, s_min: float, s_max: float) -> tuple[float, np.ndarray]:
    m = Mapping(el, node, "timing")
    m.check_keys(("start", "stations"), ("stations",))
    start = number(el, m.value("start"), "start") if "start" in m else 0.0
    items = sequence(el, m.value("stations"), "stations")
    if not items:
        raise el.fail(m.value("stations"), "stations must list at least the finish")
    stations = np.array([number(el, x, "stations entries") for x in items])
    prev = start
    for x, node_x in zip(stations, items):
        if not prev < x <= s_max:
            raise el.fail(node_x, f"station {x:g} must lie after {prev:g} and not beyond the profile end {s_max:g}")
        prev = x
    if not s_min <= start:
        raise el.fail(m.value("start"), f"start {start:g} lies before the profile start {s_min:g}")
    return start, stations


def _read_curves(top: Element, node, s_min: float, s_max: float) -> list[Curve]:
    curves, prev_end = [], s_min
    for i, item in enumerate(sequence(top, node, "curves")):
        el = top.child(item, f"curves[{i}]")
        m = Mapping(el, item, "a curve")
        if "name" in m:
            el.relabel(f'{el.label} "{string(el, m.value("name"), "name")}"')
        m.check_keys(CURVE_KEYS, ("hand", "s_b", "s_c", "l_cl_en", "l_circ", "r_c", "l_cl_ex", "s_e"))
        hand = LEFT if string(el, m.value("hand"), "hand", ("left", "right")) == "left" else RIGHT
        v = {k: number(el, m.value(k), k) for k in ("s_b", "s_c", "s_e")}
        for k in ("l_cl_en", "l_circ", "l_cl_ex"):
            v[k] = number(el, m.value(k), k, nonnegative=True)
        v["r_c"] = number(el, m.value("r_c"), "r_c", positive=True)
        for end in ("en", "ex"):
            v[f"A2_{end}"] = _clothoid_parameter(el, m, end, v[f"l_cl_{end}"], v["r_c"])
        cu = Curve(hand, v["s_b"], v["s_c"], v["l_cl_en"], v["A2_en"], v["l_circ"], v["r_c"], v["l_cl_ex"],
                   v["A2_ex"], v["s_e"])
        _check_curve_order(el, m, cu, prev_end, s_max)
        curves.append(cu)
        prev_end = cu.s_e
    return curves


def _clothoid_parameter(el: Element, m: Mapping, end: str, length: float, r_c: float) -> float:
    """A² = l_cl · r_c; a given A² must agree (an entry clothoid ends at the arc's curvature)."""
    exact = length * r_c
    key = f"A2_{end}"
    if key in m:
        given = number(el, m.value(key), key, nonnegative=True)
        if abs(given - exact) > A2_RELATIVE_TOLERANCE * max(exact, 1e-12):
            raise el.fail(m.value(key), f"{key} = {given:g} m^2 but l_cl_{end} * r_c = {exact:g} m^2 "
                                        f"(the clothoid must reach the arc's radius)")
    return exact if exact > 0 else 1.0          # A² of an absent clothoid is never used


def _check_curve_order(el: Element, m: Mapping, cu: Curve, prev_end: float, s_max: float) -> None:
    if cu.s_b < prev_end:
        raise el.fail(m.value("s_b"), f"s_b = {cu.s_b:g} lies before the previous curve's end or the profile "
                                      f"start ({prev_end:g})")
    if cu.s_c < cu.s_b:
        raise el.fail(m.value("s_c"), f"s_c = {cu.s_c:g} lies before s_b = {cu.s_b:g}")
    if cu.s_e < cu.s_curved_end - 1e-9:
        raise el.fail(m.value("s_e"), f"s_e = {cu.s_e:g} lies before the end of the exit clothoid "
                                      f"({cu.s_curved_end:g}); the exit straight would be negative")
    if cu.s_e > s_max:
        raise el.fail(m.value("s_e"), f"s_e = {cu.s_e:g} lies beyond the profile end {s_max:g}")


def _read_height(el: Element, node, s_min: float) -> HeightProfile:
    m = Mapping(el, node, "height")
    m.check_keys(("start", "stations"), ("start", "stations"))
    start = Mapping(el, m.value("start"), "start")
    start.check_keys(("s", "h"), ("s", "h"))
    s0, h0 = number(el, start.value("s"), "s"), number(el, start.value("h"), "h")
    stations, prev_slope = [], None
    s_b, h_b = s0, h0
    for i, item in enumerate(sequence(el, m.value("stations"), "stations")):
        sel = el.child(item, f"stations[{i}]")
        sm = Mapping(sel, item, "a station")
        sm.check_keys(("s", "slope_in", "slope_out", "radius"), ("s", "slope_out", "radius"))
        s = number(sel, sm.value("s"), "s")
        if "slope_in" in sm:
            m_en = number(sel, sm.value("slope_in"), "slope_in")
            if prev_slope is not None and abs(m_en - prev_slope) > 1e-12:
                raise sel.fail(sm.value("slope_in"), f"slope_in = {m_en:g} differs from the previous slope_out "
                                                     f"{prev_slope:g}")
        elif prev_slope is None:
            raise sel.fail(item, 'missing required key "slope_in" (the first station needs it)')
        else:
            m_en = prev_slope
        m_ex = number(sel, sm.value("slope_out"), "slope_out")
        r = number(sel, sm.value("radius"), "radius")
        if r == 0 or (m_ex != m_en and np.sign(r) != np.sign(m_ex - m_en)):
            raise sel.fail(sm.value("radius"), f"radius = {r:g} must be positive where the slope increases "
                                               f"and negative where it decreases ({m_en:g} -> {m_ex:g})")
        st = Station(s, m_en, m_ex, r)
        vc = vertical_curve(s_b, h_b, st)
        if vc.s_c < s_b - 1e-9:
            raise sel.fail(item, f"the vertical curve starts at s = {vc.s_c:.3f}, before the previous one ends "
                                 f"({s_b:.3f}); the radius is too large or the stations too close")
        stations.append(st)
        s_b, h_b, prev_slope = vc.s_e, vc.h_e, m_ex
    return HeightProfile(s0, h0, stations)


def _read_sections(el: Element, node, curves: list[Curve]) -> SectionTable:
    m = Mapping(el, node, "sections")
    m.check_keys(("columns", "rows"), ("columns", "rows"))
    cols_node = m.value("columns")
    columns = [string(el, c, "columns entries") for c in sequence(el, cols_node, "columns")]
    eps_key = "eps" if "eps" in columns else "eps1"
    want = list(SECTION_COLUMNS) + [eps_key]
    if sorted(columns) != sorted(want):
        missing = [c for c in want if c not in columns]
        extra = [c for c in columns if c not in want]
        raise el.fail(cols_node, f"columns must be {', '.join(want)} in any order (eps may be eps1); "
                                 f"missing: {', '.join(missing) or 'none'}, unknown: {', '.join(extra) or 'none'}")
    s_list, dims, hands, prev = [], [], [], -math.inf
    for i, row in enumerate(sequence(el, m.value("rows"), "rows")):
        rel = el.child(row, f"rows[{i}]")
        cells = sequence(rel, row, "a row")
        if len(cells) != len(columns):
            raise rel.fail(row, f"a row has {len(columns)} values (columns), got {len(cells)}")
        v = {c: number(rel, x, c) for c, x in zip(columns, cells)}
        if not v["s"] > prev:
            raise rel.fail(row, f"s = {v['s']:g} must be larger than the previous row's {prev:g}")
        prev = v["s"]
        for key in ("h_W", "r_0", "l_B", "B", "R1", "h_Z", "R2", "H2"):
            if not v[key] > 0:
                raise rel.fail(row, f"{key} must be positive, got {v[key]:g}")
        eps = (math.radians(v["eps"]) if eps_key == "eps" else sec.epsilon_from_design(v["eps1"]))
        design = sec.DesignSection(v["h_W"], v["r_0"], v["l_B"], v["d_C"], v["B"], v["A"], v["BT"], v["AT"],
                                   v["R1"], v["h_Z"], v["R2"], v["H2"], eps)
        try:
            d = sec.reconstruct(design, eps)
            sec.section_curve(d, 1)
        except ValueError as exc:
            raise rel.fail(row, str(exc)) from None
        s_list.append(v["s"])
        dims.append(d)
        hands.append(hand_at(curves, v["s"]))
    if not s_list:
        raise el.fail(m.value("rows"), "rows must list at least one section")
    return SectionTable(np.array(s_list), dims, np.array(hands))


def hand_at(curves: list[Curve], s: float) -> int:
    """The hand c of the curve whose extent [s_b, s_e) holds s, else of the nearest curve (+1 if none).

    Where one curve ends at the station where the next begins, a section there belongs to the curve that
    begins: taken with the ending curve's hand it would face the next curve's sections across a change of
    hand, and the surface would jump from one section to the other halfway between them."""
    if not curves:
        return LEFT
    key = [(max(cu.s_b - s, s - cu.s_e, 0.0), 0 if cu.s_b <= s < cu.s_e else 1) for cu in curves]
    return curves[min(range(len(curves)), key=key.__getitem__)].c


def _read_boundary(top: Element, node, s_min: float, s_max: float) -> list[BoundaryElement]:
    if node is None:
        return []
    out = []
    for i, item in enumerate(sequence(top, node, "boundary")):
        el = top.child(item, f"boundary[{i}]")
        m = Mapping(el, item, "a boundary element")
        m.check_keys(("kind", "side", "from", "to", "height", "note"), ("kind", "side", "from", "to", "height"))
        kind = string(el, m.value("kind"), "kind", BOUNDARY_KINDS)
        side = string(el, m.value("side"), "side", ("left", "right"))
        a, b = number(el, m.value("from"), "from"), number(el, m.value("to"), "to")
        if not s_min <= a < b <= s_max:
            raise el.fail(item, f"from/to ({a:g}, {b:g}) must be increasing within the profile {s_min:g} .. {s_max:g}")
        out.append(BoundaryElement(kind, side, a, b, number(el, m.value("height"), "height", positive=True)))
    return out
