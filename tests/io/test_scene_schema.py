"""The scene reference and JSON Schema: generated from the loader, committed up to date, and in agreement
with the loader on the shipped examples and on broken variants of them."""
import copy
import json
from pathlib import Path

import pytest
import yaml

from impulsim.io import SceneError, scene_from_string
from impulsim.io import schema

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").rglob("*.yaml"))


def test_every_key_the_loader_reads_is_described():
    assert schema.missing_descriptions() == []


def test_committed_reference_and_schema_are_what_the_generator_makes():
    assert (ROOT / "docs" / "scene_reference.md").read_text(encoding="utf-8") == schema.scene_reference(), \
        "docs/scene_reference.md is out of date: run python -m impulsim.io.schema"
    assert (ROOT / "docs" / "scene.schema.json").read_text(encoding="utf-8") == schema.schema_text(), \
        "docs/scene.schema.json is out of date: run python -m impulsim.io.schema"
    assert schema.main(["--check", "--docs", str(ROOT / "docs")]) == 0


@pytest.fixture(scope="module")
def validator():
    jsonschema = pytest.importorskip("jsonschema", reason="validating needs the jsonschema package")
    committed = json.loads((ROOT / "docs" / "scene.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(committed)
    return jsonschema.Draft202012Validator(committed)


@pytest.mark.parametrize("path", EXAMPLES, ids=[str(p.relative_to(ROOT)) for p in EXAMPLES])
def test_every_shipped_example_validates(validator, path):
    errors = [f"{list(e.path)}: {e.message}" for e in validator.iter_errors(yaml.safe_load(path.read_text()))]
    assert errors == []


def _loads(data) -> bool:
    try:
        scene_from_string(yaml.safe_dump(data), "variant")
    except SceneError:
        return False
    return True


BROKEN = [
    ("a misspelt body key", lambda d: d["bodies"][0].update(mas=1.0)),
    ("an unknown top-level key", lambda d: d.update(bodys=[])),
    ("a hinge with a distance's length", lambda d: d["joints"][0].update(length=1.0)),
    ("an unknown joint type", lambda d: d["joints"][0].update(type="hinje")),
    ("a joint naming one body", lambda d: d["joints"][0].update(bodies=["world"])),
    ("a position of two numbers", lambda d: d["bodies"][0].update(position=[0.0, 1.0])),
    ("a negative density", lambda d: d["bodies"][0].update(density=-5.0)),
    ("a shape with two kinds", lambda d: d["bodies"][0].update(shapes=[{"box": {"size": [1, 1, 1]},
                                                                        "sphere": {"radius": 1}}])),
    ("an option of another method", lambda d: d["settings"].update(stabilization="baumgarte")),
    ("a step size of zero", lambda d: d["settings"].update(h=0)),
]


@pytest.mark.parametrize("what,change", BROKEN, ids=[b[0] for b in BROKEN])
def test_schema_and_loader_refuse_the_same_mistakes(validator, what, change):
    data = yaml.safe_load((ROOT / "examples" / "double_pendulum.yaml").read_text())
    assert _loads(copy.deepcopy(data)) and validator.is_valid(data)
    change(data)
    assert not validator.is_valid(data), what
    assert not _loads(data), what
