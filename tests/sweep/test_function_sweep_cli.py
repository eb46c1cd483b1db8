"""``impulsim sweep --function MODULE:NAME`` and sweep files with ``function``: the same rows as
run_function_sweep, the function's warm-up called once before the cases, and one-line errors."""
import pytest

from impulsim.cli import main

pytest.importorskip("distributed")


def _run(argv, capsys):
    code = main(argv)
    return code, capsys.readouterr()


def test_a_function_sweeps_from_the_command_line_with_one_warm_up(tmp_path, capsys, monkeypatch):
    log = tmp_path / "warm.log"
    monkeypatch.setenv("SWEEP_WARM_UP_LOG", str(log))
    code, out = _run(["sweep", "--function", "tests.sweep.functions:counted_square", "--param", "x=1:4:4",
                      "--metric", "square", "--workers", "0", "-o", str(tmp_path / "s")], capsys)
    assert code == 0
    from impulsim.sweep import read_sweep
    rows = read_sweep(tmp_path / "s").to_pylist()
    assert sorted((r["x"], r["square"]) for r in rows) == [(1.0, 1.0), (2.0, 4.0), (3.0, 9.0), (4.0, 16.0)]
    assert log.read_text() == "warm\n"
    # a rerun finds every case done: no case runs, so no warm-up either
    assert _run(["sweep", "--function", "tests.sweep.functions:counted_square", "--param", "x=1:4:4",
                 "--metric", "square", "--workers", "0", "-o", str(tmp_path / "s")], capsys)[0] == 0
    assert log.read_text() == "warm\n"


def test_a_sweep_file_may_name_a_function(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("SWEEP_WARM_UP_LOG", str(tmp_path / "warm.log"))
    f = tmp_path / "sweep.yaml"
    f.write_text("function: tests.sweep.functions:projectile\nparams: {speed: [10, 20], angle_deg: [45]}\n"
                 "metrics: [range]\nkey: v1\nworkers: 0\nout: out\n")
    code, _ = _run(["sweep", "--file", str(f)], capsys)
    assert code == 0
    from impulsim.sweep import read_sweep
    ranges = sorted(r["range"] for r in read_sweep(tmp_path / "out").to_pylist())
    assert ranges == pytest.approx([100 / 9.81, 400 / 9.81], rel=1e-12)    # v² sin 90° / g


@pytest.mark.parametrize("argv, words", [
    (["--function", "tests.sweep.functions"], "expected MODULE:NAME"),
    (["--function", "tests.sweep.no_such_module:f"], "cannot import"),
    (["--function", "tests.sweep.functions:no_such"], "has no function 'no_such'"),
    (["--function", "tests.sweep.functions:projectile", "--method", "impulse"], "--method applies to a scene"),
    (["examples/pendulum.yaml", "--function", "tests.sweep.functions:projectile"], "not both"),
])
def test_function_sweep_mistakes_are_one_line_errors(tmp_path, capsys, argv, words):
    code, out = _run(["sweep", *argv, "--param", "speed=1,2", "-o", str(tmp_path / "x")], capsys)
    assert code != 0
    lines = [line for line in out.err.splitlines() if line.strip()]
    assert len(lines) == 1 and words in lines[0] and "Traceback" not in out.err


def test_a_sweep_file_with_function_refuses_scene_options(tmp_path, capsys):
    f = tmp_path / "sweep.yaml"
    f.write_text("function: tests.sweep.functions:projectile\nparams: {speed: [1]}\nh: 0.01\n")
    code, out = _run(["sweep", "--file", str(f)], capsys)
    assert code != 0 and "'h' applies to a scene sweep" in out.err
