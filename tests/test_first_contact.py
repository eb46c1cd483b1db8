"""What a new user meets first: the command's help and version, exports as subcommands, the run summary's
words for energy, the builder's signatures, the recording's units and the Recorder as an observer."""
import inspect
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import impulsim as ims
from impulsim.cli import build_parser, main
from impulsim.io import scene_from_string
from impulsim.io.energy import energy_sources
from impulsim.io.recording import Recorder, column_units, read_metadata, read_recording
from impulsim.methods import METHODS

ROOT = Path(__file__).resolve().parents[1]

ROD = """\
settings: {h: 0.01, duration: 0.2}
bodies:
  - {name: rod, shapes: [box: {size: [0.05, 0.05, 1.0]}], density: 1000, position: [0, 0, -0.5]}
joints:
  - {name: pivot, type: hinge, bodies: [world, rod], anchor: [0, 0, 0], axis: [1, 0, 0]}
"""
SERVO = ROD + "servos:\n  - {name: hold, joint: pivot, mode: angle, kp: 50, kd: 5, setpoints: 0.5}\n"
DAMPED = ROD.replace("{h: 0.01, duration: 0.2}", "{h: 0.01, duration: 0.2}") + \
    "springs:\n  - {name: s, bodies: [world, rod], stiffness: 10, damping: 2, anchor_b: [0, 0, -0.5]}\n"


def test_version(capsys):
    with pytest.raises(SystemExit) as ex:
        main(["--version"])
    assert ex.value.code == 0
    assert capsys.readouterr().out.startswith(f"impulsim {ims.__version__} (Python ")


def test_python_dash_m_runs_the_command_line_and_passes_on_its_exit_code(tmp_path):
    """``python -m impulsim`` is the console script where the script is not on PATH."""
    done = subprocess.run([sys.executable, "-m", "impulsim", "--version"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"impulsim {ims.__version__} (Python "), done.stdout
    missing = tmp_path / "missing.yaml"
    done = subprocess.run([sys.executable, "-m", "impulsim", "check", str(missing)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == f"impulsim: error: {missing}: no such scene file"


def test_run_help_lists_every_scene_method_with_a_summary():
    text = build_parser()._subparsers._group_actions[0].choices["run"].format_help()
    for name in METHODS:
        assert f"  {name} " in text, name


def test_bench_list_describes_every_registered_benchmark(capsys):
    from impulsim import bench
    assert main(["bench", "--list"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert sorted(line.split()[0] for line in lines) == sorted(bench.REGISTRY)
    assert all(len(line.split(None, 1)) == 2 and len(line.split(None, 1)[1]) > 20 for line in lines)


def test_masspoint_on_a_rigid_body_scene_names_what_it_cannot_step(tmp_path, capsys):
    path = tmp_path / "rod.yaml"
    path.write_text(ROD)
    assert main(["run", str(path), "--method", "masspoint", "-q"]) == 2
    err = capsys.readouterr().err
    # one line naming the first element the mass-point method cannot step (the rod's hinge)
    assert err.count("\n") == 1 and "method 'masspoint' does not honour" in err and '"pivot"' in err


def _summary(tmp_path, capsys, text, name):
    path = tmp_path / f"{name}.yaml"
    path.write_text(text)
    assert main(["run", str(path), "-o", str(tmp_path / name)]) == 0
    return capsys.readouterr().out


def test_energy_drift_only_where_energy_should_be_conserved(tmp_path, capsys):
    out = _summary(tmp_path, capsys, ROD, "rod")
    assert "energy drift:" in out and "energy change" not in out
    out = _summary(tmp_path, capsys, SERVO, "servo")
    assert "energy change:" in out and "(servos)" in out and "energy drift" not in out
    out = _summary(tmp_path, capsys, DAMPED, "damped")
    assert "energy change:" in out and "damped springs" in out


def test_energy_sources_see_contacts_in_the_recording():
    scene = scene_from_string(ROD, "rod")
    rec = Recorder(scene.model)
    rec.record(scene.state)
    assert energy_sources(scene.model, rec.table()) == []
    info = ims.StepInfo(n_contacts=3)
    rec.record(scene.state, info)
    assert energy_sources(scene.model, rec.table()) == ["contacts"]


def test_export_subcommands_write_files_and_html_prints_no_server_banner(tmp_path):
    pytest.importorskip("viser", reason="the HTML export needs viser")
    path = tmp_path / "rod.yaml"
    path.write_text(ROD)
    assert main(["run", str(path), "-o", str(tmp_path / "out"), "-q"]) == 0
    rec = str(tmp_path / "out" / "recording.parquet")
    for kind, name in (("gltf", "rod.glb"), ("html", "rod.html")):
        done = subprocess.run([sys.executable, "-m", "impulsim.cli", "export", kind, str(path), rec,
                               str(tmp_path / name)], capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == f"wrote {tmp_path / name}", done.stdout   # one line, no banner
        assert (tmp_path / name).stat().st_size > 1000
    assert (tmp_path / "rod.glb").read_bytes()[:4] == b"glTF"


JOINT_HELPERS = ("add_ball", "add_distance", "add_hinge", "add_slider", "add_cylindrical", "add_universal",
                 "add_fixed", "add_velocity_joint")


BUILDER_METHODS = [(cls, n) for cls in (ims.ModelBuilder, ims.MassPointBuilder) for n in dir(cls)
                   if n.startswith("add_")]


@pytest.mark.parametrize("cls, name", BUILDER_METHODS, ids=[f"{c.__name__}.{n}" for c, n in BUILDER_METHODS])
def test_every_builder_method_has_explicit_annotated_documented_parameters(cls, name):
    """Every parameter is named, typed and described: an editor can complete it and a typo fails at once."""
    method = getattr(cls, name)
    params = inspect.signature(method).parameters
    for p in params.values():
        assert p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL), f"{name} hides its parameters in {p}"
        if p.name != "self":
            assert p.annotation is not p.empty, f"{cls.__name__}.{name}: parameter {p.name} has no type"
    doc = inspect.getdoc(method) or ""
    for p in params:
        if p not in ("self", "where", "name", "body_a", "body_b", "joint"):
            assert p in doc, f"{name}: parameter {p} is not in the docstring"


@pytest.mark.parametrize("add", [lambda b: b.add_joint("hinge", "j", "world", "rod", axes=(1, 0, 0)),
                                 lambda b: b.add_hinge("j", "world", "rod", axes=(1, 0, 0))])
def test_an_unknown_builder_keyword_is_a_type_error_that_names_it(add):
    b = ims.ModelBuilder()
    b.add_body("rod", mass=1.0, inertia=(1.0, 1.0, 1.0))
    with pytest.raises(TypeError, match="'axes'"):
        add(b)
    assert b.joints == []


def test_joint_helpers_build_the_same_model_as_add_joint():
    """Same behaviour as before: a helper is add_joint with its kind (a hinge pendulum swings the same)."""
    from impulsim.model.kinds import JointKind

    def pendulum(use_helper):
        b = ims.ModelBuilder()
        b.add_body("rod", shapes=[ims.Box(size=(0.05, 0.05, 1.0))], density=1000, position=(0, 0.5, 0))
        if use_helper:
            b.add_hinge("pivot", "world", "rod", anchor=(0, 0, 0), axis=(1, 0, 0))
        else:
            b.add_joint(JointKind.HINGE, "pivot", "world", "rod", anchor=(0, 0, 0), axis=(1, 0, 0))
        model, state = b.build()
        sim = ims.Simulation(model, state, method="impulse", h=1e-3)
        sim.run(0.2)
        return sim.state.body_pos.copy()

    assert np.array_equal(pendulum(True), pendulum(False))
    with pytest.raises(TypeError):
        ims.ModelBuilder().add_hinge("j", "world", "rod", anchr=(0, 0, 0))   # a typo is caught at the call


def test_recording_units_and_recorder_as_observer(tmp_path):
    scene = scene_from_string(SERVO, "servo")
    sim = scene.simulation()
    rec = Recorder(scene.model)
    rec.record(sim)
    sim.run(0.1, every=2, observer=rec.record)       # as Simulation.run's docstring says
    rec.write(tmp_path / "r.parquet")
    table = read_recording(tmp_path / "r.parquet")
    assert table.column("step").to_pylist() == [0, 2, 4, 6, 8, 10]
    units = read_metadata(tmp_path / "r.parquet")["units"]
    assert set(units) == set(table.column_names)
    assert (units["t"], units["rod.x"], units["rod.wz"], units["pivot.angle"], units["hold.effort"],
            units["energy"], units["momentum.x"], units["n_contacts"], units["rod.qw"]) == \
        ("s", "m", "rad/s", "rad", "N m or N", "J", "kg m/s", "", "")
    assert column_units(["angular_momentum.z"])["angular_momentum.z"] == "kg m^2/s"


def test_one_progress_bar_helper():
    """Runs and sweeps show the same bar (delay, refresh, removal): only impulsim/progress.py makes one."""
    src = ROOT / "src" / "impulsim"
    makers = [str(p.relative_to(src)) for p in src.rglob("*.py") if "tqdm" in p.read_text()]
    assert makers == ["progress.py"]
    import impulsim.io.runner as runner
    import impulsim.simulation as simulation
    import impulsim.sweep.runner as sweep
    for module in (runner, simulation, sweep):
        assert "progress_bar(" in inspect.getsource(module), module.__name__


def test_the_sweep_bar_counts_cases(monkeypatch):
    import impulsim.sweep.runner as sweep
    bars = []
    monkeypatch.setattr(sweep, "progress_bar", lambda *a, **kw: bars.append((a, kw)) or None)
    assert sweep._bar(7, False) is None and bars == []
    sweep._bar(7, True)
    assert bars == [((7, "sweep"), {"unit": "case"})]
    from impulsim.progress import progress_bar
    bar = progress_bar(7, "sweep", unit="case")
    assert (bar.total, bar.unit, bar.desc) == (7, "case", "sweep")
    bar.close()
