"""The scene-file format as a JSON Schema and as a Markdown reference, both made from the loader's tables.

The keys, the required keys and the value types come from the loader itself (``TOP_KEYS``, the
``*_READERS`` tables, ``JOINT_PARAMS``, ``SHAPE_TYPES``, the methods' options); only the one-line
descriptions below are written here, and :func:`missing_descriptions` names any key the loader reads
that has none (a test keeps it empty). Regenerate after changing the loader::

    python -m impulsim.io.schema            # writes docs/scene_reference.md, docs/scene.schema.json
    python -m impulsim.io.schema --check    # exit 1 if the committed files differ

Editors that understand JSON Schema complete and check scene files with it; for the YAML extension of
VS Code put ``# yaml-language-server: $schema=<path>/docs/scene.schema.json`` on a scene's first line.
"""
from __future__ import annotations

import enum
import json
import sys
from pathlib import Path
from typing import Any, Callable

from impulsim.io import elements, scene, settings, shapes
from impulsim.io import yamlnodes
from impulsim.io.rotations import orientation

SCHEMA_ID = "https://impulsim.invalid/scene.schema.json"
"""The schema's ``$id`` (a name, not a place to fetch it from)."""

NUMBER = {"type": "number"}
VEC3 = {"type": "array", "items": NUMBER, "minItems": 3, "maxItems": 3}
QUAT = {"type": "array", "items": NUMBER, "minItems": 4, "maxItems": 4}
NAME = {"type": "string"}

DESCRIPTIONS = {
    # top level
    "name": "name of the scene (default: the file name) or of the element",
    "description": "free text shown by impulsim check",
    "gravity": "gravitational acceleration [m/s²], world frame, z up (default [0, 0, -9.81])",
    "settings": "how to run the scene: step size, duration, method and its options",
    "materials": "named surface materials: restitution, friction, density",
    "joints": "joints between two bodies (or a body and the world)",
    "motors": "constant torques or forces along a joint's axis",
    "limits": "stops on a joint coordinate (hinge angle, slider position)",
    "servos": "PID controllers driving a joint coordinate or its rate to set-points",
    "springs": "spring-dampers between two body points",
    "collisions": "pairs of bodies never tested (exclude) or tested although jointed (allow)",
    "loads": "timed external forces and torques on bodies",
    "templates": "not read: a place for YAML anchors that elements merge with <<: *anchor",
    "bodies": "the two bodies [a, b]; world for the ground",
    # settings
    "h": "step size [s]",
    "duration": "simulated time [s] of impulsim run",
    "method": "solver method",
    "record_every": "record one row every this many steps",
    # materials
    "restitution": "coefficient of restitution e (0 plastic … 1 elastic)",
    "static_friction": "Coulomb static friction coefficient μ_s",
    "dynamic_friction": "Coulomb dynamic (sliding) friction coefficient μ_d ≤ μ_s",
    "density": "density [kg/m³] for mass from shapes",
    # bodies
    "shapes": "collision and display shapes; mass properties come from them at the density",
    "mass": "mass [kg]; with shapes it scales their mass properties",
    "inertia": "three principal moments [kg m²] or a 3×3 tensor about com, user frame",
    "com": "centre of mass [m] in the user frame (with mass and inertia)",
    "position": "origin of the user frame [m], world frame (for shapes: in the body's user frame)",
    "orientation": "rotation of the user frame: quaternion [w, x, y, z], {axis, angle | angle_deg} or "
                   "{rpy | rpy_deg}",
    "velocity": "velocity [m/s] of the user-frame origin, world frame (velocity joints: prescribed "
                "relative velocity of B's point minus A's)",
    "angular_velocity": "angular velocity [rad/s], world frame (velocity joints: prescribed, B minus A)",
    "static": "never moves (a ground)",
    "point": "a point mass: mass only, no inertia, shapes or rotation (for the masspoint method)",
    "file": "a file [path relative to the scene file]: a mesh (OBJ, STL, PLY, glTF) or a track",
    "scale": "scale factor of a mesh file's coordinates (one number, or one per axis)",
    "kinematic": "infinite mass, moves only with its given velocity",
    "material": "name of a material (default: default)",
    "collision_group": "bit mask of the groups the body is in",
    "collision_mask": "bit mask of the groups it collides with",
    # joints
    "type": "joint type",
    "bodies": "the two bodies [a, b]; world for the ground",
    "anchor": "joint point [m], world frame, at the initial pose",
    "anchor_a": "joint point [m] in body A's user frame",
    "anchor_b": "joint point [m] in body B's user frame",
    "axis": "joint axis (any non-zero length), world frame, at the initial pose",
    "axis_a": "joint axis in body A's user frame",
    "axis_b": "joint axis in body B's user frame",
    "length": "distance [m] to keep (default: the initial distance); for shapes: length [m] along z",
    # actuators
    "joint": "name of the joint",
    "effort": "torque [N m] or force [N] along the joint axis, + on B, − on A",
    "coordinate": "angle or position (cylindrical joints); auto for the joint's only one",
    "lower": "lower bound [rad or m]",
    "upper": "upper bound [rad or m]",
    "mode": "quantity the set-points give: angle [rad], position [m], angular_velocity [rad/s], "
            "velocity [m/s]",
    "kp": "proportional gain (effort per error)",
    "ki": "integral gain (effort per integrated error)",
    "kd": "derivative gain (effort per error rate)",
    "limit": "largest effort magnitude [N m or N] (.inf: none)",
    "setpoints": "a constant, or a list of [time [s], value] pairs",
    "interpolate": "interpolate linearly between set-points instead of holding each",
    "stiffness": "spring stiffness D [N/m]",
    "damping": "damping c [N s/m]",
    "rest_length": "rest length l [m] (default: the initial distance)",
    # collisions, loads
    "exclude": "pairs [a, b] whose shapes are never tested against each other",
    "allow": "pairs [a, b] tested although a joint connects them",
    "body": "name of the loaded body",
    "force": "force [N], world frame, at the centre of mass",
    "torque": "torque [N m], world frame",
    "start": "time [s] the load starts",
    "end": "time [s] the load ends (.inf: never)",
    # shapes
    "radius": "radius [m]",
    "size": "side lengths [m] along the shape's x, y, z",
    "semi_axes": "semi-axes [m] along the shape's x, y, z",
    "points": "points [m] whose convex hull is the shape",
    "vertices": "vertex positions [m]",
    "triangles": "vertex-index triples, counter-clockwise seen from outside",
}
"""One line per key the loader reads (the same key means the same thing wherever it appears)."""


TOP_DESCRIPTIONS = {"bodies": "the rigid bodies"}
"""Top-level keys whose meaning differs from the same key inside an element."""


def _choices(reader: Callable):
    """The allowed words of a reader made by ``elements._choice`` (None for other readers)."""
    for cell in getattr(reader, "__closure__", None) or ():
        if isinstance(cell.cell_contents, tuple) and all(isinstance(c, str) for c in cell.cell_contents):
            return list(cell.cell_contents)
    return None


def _reader_schema(reader: Callable, key: str) -> dict:
    """The JSON Schema of the values one loader reader accepts."""
    choices = _choices(reader)
    if choices is not None:
        return {"type": "string", "enum": choices}
    known = {
        yamlnodes.string: NAME, yamlnodes.boolean: {"type": "boolean"},
        yamlnodes.integer: {"type": "integer"}, yamlnodes.vector: VEC3,
        yamlnodes.matrix3: {"type": "array", "items": VEC3, "minItems": 3, "maxItems": 3},
        elements._real: NUMBER, elements._positive: {"type": "number", "exclusiveMinimum": 0},
        elements._nonnegative: {"type": "number", "minimum": 0}, elements._direction: VEC3,
        elements._pair: {"type": "array", "items": NAME, "minItems": 2, "maxItems": 2},
        elements._inertia: {"oneOf": [VEC3, {"type": "array", "items": VEC3, "minItems": 3, "maxItems": 3}]},
        elements._shapes: {"type": "array", "items": {"$ref": "#/$defs/shape"}},
        elements._setpoints: {"oneOf": [NUMBER, {"type": "array", "minItems": 1, "items": {
            "type": "array", "items": NUMBER, "minItems": 2, "maxItems": 2}}]},
        orientation: {"$ref": "#/$defs/orientation"},
        shapes.positive: {"type": "number", "exclusiveMinimum": 0},
        shapes.nonnegative: {"type": "number", "minimum": 0},
        shapes.positive_vector: {"type": "array", "minItems": 3, "maxItems": 3,
                                 "items": {"type": "number", "exclusiveMinimum": 0}},
        shapes.points: {"type": "array", "minItems": 1, "items": VEC3},
        shapes.triangles: {"type": "array", "items": {"type": "array", "minItems": 3, "maxItems": 3,
                                                      "items": {"type": "integer", "minimum": 0}}},
    }
    if reader in known:
        return dict(known[reader])
    if reader is getattr(elements, "_mass", None):
        return {"type": "number", "exclusiveMinimum": 0}
    if getattr(reader, "__qualname__", "").startswith("_bounded_vector"):
        return VEC3
    if key == "limit":            # the servo's limit: a positive number, .inf allowed
        return {"type": "number", "exclusiveMinimum": 0}
    if key == "file":             # a mesh or track file (readers that resolve the path)
        return {"type": "string", "minLength": 1}
    if key == "scale":            # a mesh file's scale: one factor or one per axis
        return {"oneOf": [{"type": "number", "exclusiveMinimum": 0},
                          {"type": "array", "minItems": 3, "maxItems": 3,
                           "items": {"type": "number", "exclusiveMinimum": 0}}]}
    raise ValueError(f"no schema for the reader of {key!r}: add it to impulsim.io.schema")


def _described(schema: dict, key: str) -> dict:
    if key in DESCRIPTIONS:
        schema = {**schema, "description": DESCRIPTIONS[key]}
    return schema


def _element(readers: dict, required: tuple) -> dict:
    return {"type": "object", "additionalProperties": False, "required": list(required),
            "properties": {k: _described(_reader_schema(r, k), k) for k, r in readers.items()}}


def _option_schema(default: Any) -> dict:
    """A method option's schema, typed like its default as ``settings.read_option`` reads it."""
    if isinstance(default, enum.Enum):      # a named choice (a material rule): its name or its number
        return {"oneOf": [{"type": "string", "enum": [m.name.lower() for m in type(default)]},
                          {"type": "integer"}]}
    if isinstance(default, bool):
        return {"type": "boolean"}
    if isinstance(default, int):
        return {"type": "integer"}
    if isinstance(default, float):
        return {"type": "number"}
    if isinstance(default, str):
        return {"type": "string"}
    return {"type": ["boolean", "number", "string"]}


def _settings_schema() -> dict:
    from impulsim.methods.catalog import SUMMARIES, scene_methods
    props = {
        "h": _described({"type": "number", "exclusiveMinimum": 0}, "h"),
        "duration": _described({"type": "number", "minimum": 0}, "duration"),
        "method": _described({"type": "string", "enum": list(scene_methods()), "default": "impulse"},
                             "method"),
        "record_every": _described({"type": "integer", "minimum": 1}, "record_every"),
    }
    per_method = []
    for method in scene_methods():
        options = settings.method_options(method)
        for key, default in options.items():
            entry = props.setdefault(key, {**_option_schema(default), "description": ""})
            entry["description"] = (entry["description"] + "; " if entry["description"] else "") + \
                f"{method} (default {_show(default)})"
        allowed = list(settings.RUN_KEYS) + list(options)
        cond = {"required": ["method"], "properties": {"method": {"const": method}}}
        if method == "impulse":      # the default method when none is given
            cond = {"anyOf": [{"not": {"required": ["method"]}}, cond]}
        per_method.append({"if": cond, "then": {"propertyNames": {"enum": allowed}},
                           "$comment": SUMMARIES.get(method, "")})
    for key, entry in props.items():
        if key not in settings.RUN_KEYS:
            entry["description"] = "method option: " + entry["description"]
    return {"type": "object", "additionalProperties": False, "properties": props, "allOf": per_method}


def _show(value: Any) -> str:
    if isinstance(value, tuple):
        return "[]" if not value else str(list(value))
    import enum
    if isinstance(value, enum.Enum):
        return value.name.lower()
    return "none" if value is None else str(value)


def _shape_schema() -> dict:
    shapes.load_shape_plugins()          # the kinds applications add (the bobsleigh's track)
    common = {k: _described(_reader_schema(r, k), k) for k, r in shapes._POSE_READERS.items()}
    kinds = []
    for kind, spec in shapes.SHAPE_TYPES.items():
        params = {k: _described(_reader_schema(r, k), k) for k, r in spec.params.items()}
        body = {"type": "object", "additionalProperties": False, "required": list(spec.required),
                "properties": {**params, **common}}
        value = body if spec.required else {"oneOf": [{"type": "null"}, body]}
        kinds.append({"type": "object", "additionalProperties": False, "required": [kind],
                      "properties": {kind: value}, "description": f"a {kind.replace('_', ' ')}"})
    return {"oneOf": kinds}


def _joint_schema() -> dict:
    params = sorted({p for keys in elements.JOINT_PARAMS.values() for p in keys})
    props = {"name": _described(NAME, "name"),
             "type": _described({"type": "string", "enum": list(elements.JOINT_PARAMS)}, "type"),
             "bodies": _described(_reader_schema(elements._pair, "bodies"), "bodies")}
    props.update({k: _described(_reader_schema(elements.JOINT_READERS[k], k), k) for k in params})
    per_type = [{"if": {"properties": {"type": {"const": kind}}},
                 "then": {"propertyNames": {"enum": ["name", "type", "bodies", *keys]}}}
                for kind, keys in elements.JOINT_PARAMS.items()]
    return {"type": "object", "additionalProperties": False, "required": ["name", "type", "bodies"],
            "properties": props, "allOf": per_type}


def scene_schema() -> dict:
    """The JSON Schema (draft 2020-12) of a scene file, from the loader's tables."""
    material = {"type": "object", "additionalProperties": False,
                "properties": {k: _described({"type": "number", "minimum": 0}, k) for k in elements.MATERIAL_KEYS}}
    pairs = {"type": "array", "items": _reader_schema(elements._pair, "pair")}
    load_readers = {"body": yamlnodes.string, "force": yamlnodes.vector, "torque": yamlnodes.vector,
                    "start": elements._real, "end": elements._real}
    assert tuple(load_readers) == scene._LOAD_KEYS, "the loads' keys changed: update scene_schema"
    top = {
        "name": NAME, "description": {"type": "string"}, "gravity": VEC3,
        "settings": {"$ref": "#/$defs/settings"},
        "materials": {"type": "object", "additionalProperties": material},
        "bodies": {"type": "array", "items": {"$ref": "#/$defs/body"}},
        "joints": {"type": "array", "items": {"$ref": "#/$defs/joint"}},
        "motors": {"type": "array", "items": {"$ref": "#/$defs/motor"}},
        "limits": {"type": "array", "items": {"$ref": "#/$defs/limit"}},
        "servos": {"type": "array", "items": {"$ref": "#/$defs/servo"}},
        "springs": {"type": "array", "items": {"$ref": "#/$defs/spring"}},
        "collisions": {"type": "object", "additionalProperties": False,
                       "properties": {"exclude": _described(pairs, "exclude"),
                                      "allow": _described(pairs, "allow")}},
        "loads": {"type": "array", "items": {"$ref": "#/$defs/load"}},
        "templates": {},
    }
    assert tuple(top) == scene.TOP_KEYS, "the scene's top-level keys changed: update scene_schema"
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID,
        "title": "impulsim scene file",
        "description": "A rigid multibody scene for impulsim (YAML). Generated by python -m impulsim.io.schema.",
        "type": "object", "additionalProperties": False, "required": ["bodies"],
        "properties": {k: {**v, "description": TOP_DESCRIPTIONS.get(k, DESCRIPTIONS.get(k, ""))}
                       for k, v in top.items()},
        "$defs": {
            "settings": _settings_schema(),
            "orientation": {"oneOf": [
                QUAT,
                {"type": "object", "additionalProperties": False, "required": ["axis"],
                 "properties": {"axis": VEC3, "angle": NUMBER, "angle_deg": NUMBER},
                 "oneOf": [{"required": ["angle"]}, {"required": ["angle_deg"]}]},
                {"type": "object", "additionalProperties": False,
                 "properties": {"rpy": VEC3, "rpy_deg": VEC3},
                 "oneOf": [{"required": ["rpy"]}, {"required": ["rpy_deg"]}]}]},
            "shape": _shape_schema(),
            "body": _element(elements.BODY_READERS, ("name",)),
            "joint": _joint_schema(),
            "motor": _element(elements.MOTOR_READERS, ("name", "joint")),
            "limit": _element(elements.LIMIT_READERS, ("name", "joint")),
            "servo": _element(elements.SERVO_READERS, ("name", "joint", "kp")),
            "spring": _element(elements.SPRING_READERS, ("name", "bodies", "stiffness")),
            "load": _element(load_readers, ("body",)),
        },
    }


def missing_descriptions() -> list[str]:
    """Keys the loader reads that have no line in :data:`DESCRIPTIONS` (should be none)."""
    keys = set(scene.TOP_KEYS) | set(settings.RUN_KEYS) | set(elements.MATERIAL_KEYS)
    for table in (elements.BODY_READERS, elements.JOINT_READERS, elements.MOTOR_READERS,
                  elements.LIMIT_READERS, elements.SERVO_READERS, elements.SPRING_READERS,
                  shapes._POSE_READERS):
        keys |= set(table)
    shapes.load_shape_plugins()
    for spec in shapes.SHAPE_TYPES.values():
        keys |= set(spec.params)
    keys |= set(scene._LOAD_KEYS) | {"exclude", "allow", "type", "bodies"}
    return sorted(keys - set(DESCRIPTIONS))


# ---------------------------------------------------------------------------------------- Markdown


def _type_text(s: dict) -> str:
    if "$ref" in s:
        return s["$ref"].rsplit("/", 1)[-1]
    if "enum" in s:
        return " \\| ".join(f"`{c}`" for c in s["enum"])
    if "oneOf" in s:
        return " or ".join(_type_text(o) for o in s["oneOf"])
    t = s.get("type", "any")
    if t == "array":
        n = s.get("minItems")
        inner = _type_text(s.get("items", {}))
        return f"[{n} × {inner}]" if n is not None and n == s.get("maxItems") else f"list of {inner}"
    if isinstance(t, list):
        return " or ".join(t)
    bound = (" > 0" if "exclusiveMinimum" in s else f" ≥ {s['minimum']}" if "minimum" in s else "")
    return f"{t}{bound}"


def _table(props: dict, required=()) -> list[str]:
    rows = ["| key | type | meaning |", "|---|---|---|"]
    for key, s in props.items():
        req = " (required)" if key in required else ""
        text = s.get("description", "").replace("|", "\\|")
        rows.append(f"| `{key}`{req} | {_type_text(s)} | {text} |")
    return rows


def scene_reference(schema: dict | None = None) -> str:
    """The Markdown reference of the scene format (docs/scene_reference.md)."""
    s = scene_schema() if schema is None else schema
    d = s["$defs"]
    out = ["# Scene file reference", "",
           "<!-- Generated by `python -m impulsim.io.schema` from the loader's tables; do not edit. -->", "",
           "A scene file is YAML. Units are SI, the world frame is right-handed with z up. Only `bodies` "
           "is required. Unknown keys are errors (the message suggests the closest known key). The same "
           "format as a JSON Schema, for editors: [`scene.schema.json`](scene.schema.json) (VS Code with "
           "the YAML extension: put `# yaml-language-server: $schema=<path to>/docs/scene.schema.json` on "
           "the first line).", "", "## Top level", ""]
    out += _table(s["properties"], s["required"])
    sections = (("settings", "Settings (`settings:`)", "Run settings and the chosen method's options. "
                 "Only the options of the method named (default `impulse`) are allowed; "
                 "[choose_a_method.md](choose_a_method.md) says what the methods are good at."),
                ("body", "Bodies (`bodies:` items)", ""),
                ("joint", "Joints (`joints:` items)", ""),
                ("motor", "Motors (`motors:` items)", ""), ("limit", "Limits (`limits:` items)", ""),
                ("servo", "Servos (`servos:` items)", ""), ("spring", "Springs (`springs:` items)", ""),
                ("load", "Loads (`loads:` items)", "A load acts during each step whose midpoint lies in "
                 "[start, end)."))
    for key, title, text in sections:
        out += ["", f"## {title}", ""] + ([text, ""] if text else [])
        out += _table(d[key]["properties"], d[key].get("required", ()))
        if key == "joint":
            out += ["", "Keys by joint type (besides `name`, `type`, `bodies`):", "",
                    "| type | keys |", "|---|---|"]
            for rule in d["joint"]["allOf"]:
                kind = rule["if"]["properties"]["type"]["const"]
                keys = [k for k in rule["then"]["propertyNames"]["enum"] if k not in ("name", "type", "bodies")]
                out.append(f"| `{kind}` | {', '.join(f'`{k}`' for k in keys) or '—'} |")
    out += ["", "## Shapes (`shapes:` items of a body)", "",
            "Each item is one key naming the kind. Every kind also takes `position`, `orientation` (in "
            "the body's user frame) and `material`.", "", "| kind | parameters |", "|---|---|"]
    for option in d["shape"]["oneOf"]:
        (kind, value), = option["properties"].items()
        body = value if "properties" in value else value["oneOf"][1]
        params = [f"`{k}` ({_type_text(v)}, {v.get('description', '')})" for k, v in body["properties"].items()
                  if k not in shapes._POSE_READERS]
        out.append(f"| `{kind}` | {'; '.join(params) or 'none (everything below z = 0 of the shape frame)'} |")
    out += ["", "## Orientations", "",
            "`orientation` is one of: a quaternion `[w, x, y, z]` (normalized on reading); `{axis: [x, y, z], "
            "angle: a}` (radians; `angle_deg` for degrees); `{rpy: [roll, pitch, yaw]}` (fixed-axis x-y-z "
            "angles in radians, R = Rz(yaw) Ry(pitch) Rx(roll); `rpy_deg` for degrees).", "",
            "## Materials (`materials:` values)", ""]
    out += _table(s["properties"]["materials"]["additionalProperties"]["properties"])
    out += ["", "## Collisions (`collisions:`)", ""]
    out += _table(s["properties"]["collisions"]["properties"])
    return "\n".join(out) + "\n"


def schema_text() -> str:
    """The JSON Schema as the committed file holds it."""
    return json.dumps(scene_schema(), indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write (or with --check compare) docs/scene_reference.md and docs/scene.schema.json."""
    import argparse
    p = argparse.ArgumentParser(prog="python -m impulsim.io.schema", description=main.__doc__)
    p.add_argument("--docs", default=str(Path(__file__).resolve().parents[3] / "docs"),
                   help="the docs folder (default: the repository's)")
    p.add_argument("--check", action="store_true", help="only compare; exit 1 if a file is out of date")
    args = p.parse_args(argv)
    missing = missing_descriptions()
    if missing:
        print(f"keys without a description in impulsim.io.schema.DESCRIPTIONS: {', '.join(missing)}",
              file=sys.stderr)
        return 1
    stale = []
    for name, text in (("scene_reference.md", scene_reference()), ("scene.schema.json", schema_text())):
        path = Path(args.docs) / name
        if args.check:
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                stale.append(str(path))
        else:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path}")
    if stale:
        print(f"out of date (run python -m impulsim.io.schema): {', '.join(stale)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
