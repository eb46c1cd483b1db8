"""Recordings: named columns, values equal to the state and diagnostics, thinning, readers, metadata."""
import numpy as np
import pyarrow.parquet as pq
import pytest

import impulsim as ims
from impulsim.io import scene_from_string
from impulsim.io import runner
from impulsim.io.recording import BODY_SUFFIXES, Recorder, column_units, read_metadata, read_recording

SCENE = """
settings: {h: 0.002}
bodies:
  - {name: base, static: true, position: [0, 0, 0]}
  - {name: arm, shapes: [box: {size: [0.05, 0.05, 0.5]}], density: 1000, position: [0, 0, -0.25]}
  - {name: carriage, shapes: [box: {size: [0.1, 0.1, 0.1]}], mass: 1, position: [0, 0, -0.55]}
joints:
  - {name: hinge, type: hinge, bodies: [base, arm], anchor: [0, 0, 0], axis: [1, 0, 0]}
  - {name: rail, type: slider, bodies: [arm, carriage], anchor: [0, 0, -0.55], axis: [0, 0, 1]}
servos:
  - {name: lift, joint: rail, mode: position, kp: 50, kd: 5, setpoints: 0.1}
  - {name: swing, joint: hinge, mode: angle, kp: 20, kd: 2, setpoints: 0.3}
"""


@pytest.fixture(scope="module")
def scene():
    return scene_from_string(SCENE, "rec.yaml")


def test_columns_are_named_after_the_scene_elements(scene):
    rec = Recorder(scene.model)
    bodies = [f"{b}.{s}" for b in ("arm", "carriage") for s in BODY_SUFFIXES]   # static base left out
    assert rec.columns[:2] == ["step", "t"]
    assert rec.columns[2:2 + len(bodies)] == bodies
    for name in ("hinge.angle", "rail.position", "lift.effort", "swing.effort", "energy", "energy_kinetic",
                 "energy_potential", "momentum.x", "angular_momentum.z", "constraint_error", "velocity_error",
                 "iters_pos", "iters_vel", "residual_pos", "residual_vel", "clamped"):
        assert name in rec.columns
    assert not any(c.startswith("base.") for c in rec.columns)


def test_rows_hold_the_state_and_its_diagnostics(scene):
    sim = scene.simulation()
    rec = Recorder(scene.model)
    result = runner.run(sim, 0.05, rec)
    table = rec.table()
    last = {name: table.column(name)[-1].as_py() for name in table.column_names}
    s, m = sim.state, scene.model
    k = m.body("carriage")
    assert last["step"] == result.steps == 25 and last["t"] == s.t
    assert [last[f"carriage.{a}"] for a in ("x", "y", "z")] == list(s.body_pos[k])
    assert [last[f"carriage.q{a}"] for a in "wxyz"] == list(s.body_quat[k])
    assert [last[f"carriage.w{a}"] for a in "xyz"] == list(s.body_omega[k])
    assert last["energy"] == ims.diagnostics.total_energy(m, s)
    assert last["hinge.angle"] == ims.diagnostics.joint_coordinate(m, s, "hinge")
    assert last["lift.effort"] == s.servo_effort[0]
    assert last["constraint_error"] == ims.diagnostics.constraint_errors(m, s).max()
    assert last["iters_pos"] == sim.last_info.iters_pos
    assert table.schema.field("step").type == "int64" and table.schema.field("iters_vel").type == "int64"


def test_record_every_thins_rows_but_keeps_start_and_end(scene):
    rec = Recorder(scene.model)
    runner.run(scene.simulation(), 0.02, rec, every=3)       # 10 steps
    assert rec.table().column("step").to_pylist() == [0, 3, 6, 9, 10]


def test_pandas_and_polars_read_the_parquet_file(scene, tmp_path):
    pd = pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    rec = Recorder(scene.model, metadata={"scene": "rec", "h": 0.002})
    runner.run(scene.simulation(), 0.01, rec)
    path = tmp_path / "r.parquet"
    rec.write(path)
    arrow = read_recording(path)
    frame = pd.read_parquet(path)
    polars_frame = pl.read_parquet(path)
    assert list(frame.columns) == polars_frame.columns == arrow.column_names == rec.columns
    np.testing.assert_array_equal(frame["arm.z"].to_numpy(), arrow.column("arm.z").to_numpy())
    np.testing.assert_array_equal(polars_frame["energy"].to_numpy(), arrow.column("energy").to_numpy())
    meta = read_metadata(path)
    assert meta.pop("units") == column_units(rec.columns)      # every column's unit
    assert meta == {"scene": "rec", "h": 0.002}
    assert pq.read_metadata(path).num_rows == 6
