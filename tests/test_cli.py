"""The `impulsim` command end to end: run, outputs, exact resume, one-line errors with exit code 2."""
import subprocess
import sys

import numpy as np
import pyarrow.parquet as pq
import pytest

from impulsim.cli import main
from impulsim.io.recording import read_metadata

SCENE = """\
settings: {h: 0.01, duration: 0.2, eps_d: 1.0e-6}
bodies:
  - name: rod
    shapes: [box: {size: [0.05, 0.05, 1.0]}]
    density: 1000
    position: [0, 0.5, 0]
    orientation: {axis: [1, 0, 0], angle_deg: -90}
joints:
  - {name: pivot, type: hinge, bodies: [world, rod], anchor: [0, 0, 0], axis: [1, 0, 0]}
"""


ROUNDING = 1e-9
"""Relative slack on eps_d: the free step reproduces the corrected prediction up to float round-off."""


@pytest.fixture
def scene_file(tmp_path):
    path = tmp_path / "rod.yaml"
    path.write_text(SCENE)
    return path


def test_run_writes_recording_checkpoint_plots_and_summary(scene_file, tmp_path, capsys):
    out = tmp_path / "out"
    code = main(["run", str(scene_file), "-o", str(out), "--plot", "--record-every", "4", "--eps-d", "1e-7"])
    assert code == 0
    printed = capsys.readouterr().out
    assert "rod: 20 steps" in printed and "ms/step" in printed
    assert "energy drift" in printed and "max constraint error" in printed and "(eps_d 1e-07)" in printed
    assert sorted(p.name for p in out.iterdir()) == ["constraint_error.png", "energy.png", "final_state.npz",
                                                    "momentum.png", "recording.parquet"]
    table = pq.read_table(out / "recording.parquet")
    assert table.column("step").to_pylist() == [0, 4, 8, 12, 16, 20]
    assert table.column("constraint_error").to_numpy().max() <= 1e-7 * (1 + ROUNDING)
    meta = read_metadata(out / "recording.parquet")
    assert meta["method"] == "impulse" and meta["h"] == 0.01 and meta["options"]["eps_d"] == 1e-7
    with np.load(out / "final_state.npz") as final:
        assert int(final["step_count"]) == 20


def test_resume_continues_bit_for_bit(scene_file, tmp_path):
    assert main(["run", str(scene_file), "-d", "0.4", "-o", str(tmp_path / "whole"), "-q"]) == 0
    assert main(["run", str(scene_file), "-d", "0.2", "-o", str(tmp_path / "first"), "-q"]) == 0
    assert main(["run", str(scene_file), "-d", "0.2", "-o", str(tmp_path / "second"), "-q",
                 "--resume", str(tmp_path / "first" / "final_state.npz")]) == 0
    with np.load(tmp_path / "whole" / "final_state.npz") as a, \
            np.load(tmp_path / "second" / "final_state.npz") as b:
        assert a.files == b.files
        for key in a.files:
            assert a[key].tobytes() == b[key].tobytes(), key
    # the resumed recording starts at the checkpoint and ends where the unbroken one does
    whole = pq.read_table(tmp_path / "whole" / "recording.parquet")
    second = pq.read_table(tmp_path / "second" / "recording.parquet")
    assert second.column("step")[0].as_py() == 20
    for name in ("t", "rod.y", "rod.qx", "energy"):
        assert whole.column(name).to_numpy()[20:].tobytes() == second.column(name).to_numpy().tobytes()


BAD = {
    "missing body": (SCENE.replace("bodies: [world, rod]", "bodies: [world, rood]"), 9,
                     'joints[0] "pivot": body "rood" does not exist'),
    "negative mass": (SCENE.replace("density: 1000", "mass: -1"), 5, 'bodies[0] "rod": mass must be positive'),
    "zero-length axis": (SCENE.replace("axis: [1, 0, 0]}", "axis: [0, 0, 0]}"), 9,
                         'joints[0] "pivot": axis has zero length'),
    "YAML syntax": (SCENE.replace("position: [0, 0.5, 0]", "position: [0, 0.5, 0"), 7, "YAML syntax error"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_scene_exits_2_with_one_line(case, tmp_path, capsys):
    text, line, message = BAD[case]
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    assert main(["run", str(path), "-o", str(tmp_path / "out")]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err
    assert captured.err.startswith(f"impulsim: error: {path}:{line}: ")
    assert message in captured.err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("args, message", [
    (["--set", "eps_dd=1"], "has no option 'eps_dd'"),
    (["--eps-d", "small"], "option 'eps_d' must be a float"),
    (["--method", "magic"], "unknown method 'magic'"),
    (["--h", "-1"], "--h must be a positive number"),
    (["--resume", "nowhere.npz"], "no such checkpoint file"),
])
def test_bad_options_exit_2_with_one_line(args, message, scene_file, tmp_path, capsys):
    assert main(["run", str(scene_file), "-o", str(tmp_path / "o"), *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


def test_debug_shows_the_traceback(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(BAD["negative mass"][0])
    from impulsim.io import SceneError
    with pytest.raises(SceneError):
        main(["run", str(path), "--debug"])
    with pytest.raises(SceneError):
        main(["--debug", "run", str(path)])


def test_check_prints_the_scene_contents(scene_file, capsys):
    assert main(["check", str(scene_file)]) == 0
    out = capsys.readouterr().out
    assert "rod: 1 bodies, 1 joints (2 primitives)" in out and "h = 0.01 s" in out


def test_console_script_exit_code_and_one_line_error(tmp_path):
    """`impulsim` is the console script for impulsim.cli:main; in a fresh process an error is one line."""
    from importlib.metadata import entry_points
    assert [e.value for e in entry_points(group="console_scripts", name="impulsim")] == ["impulsim.cli:main"]
    path = tmp_path / "bad.yaml"
    path.write_text(BAD["missing body"][0])
    proc = subprocess.run([sys.executable, "-m", "impulsim.cli", "run", str(path)], capture_output=True,
                          text=True, cwd=tmp_path, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [f'impulsim: error: {path}:9: joints[0] "pivot": body "rood" '
                                                f"does not exist"]


def test_bench_lists_the_registered_benchmarks(capsys):
    from impulsim import bench
    assert main(["bench", "--list"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()       # "name  what it measures"
    assert [line.split()[0] for line in lines] == sorted(bench.REGISTRY)


def test_failed_step_keeps_the_outputs_up_to_the_last_good_step(tmp_path, capsys):
    """A spring far too stiff for the step size (ωh = 1e5) overflows; the run stops with exit code 2,
    one error line, and a recording and checkpoint that end at the last finite state."""
    path = tmp_path / "boom.yaml"
    path.write_text("settings: {h: 0.1, duration: 10}\n"
                    "bodies: [{name: b, shapes: [sphere: {radius: 0.1}], mass: 1, position: [0, 0, -1.1]}]\n"
                    "springs: [{name: k, bodies: [world, b], stiffness: 1.0e12, rest_length: 1.0}]\n")
    out = tmp_path / "out"
    assert main(["run", str(path), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "diverged" in err and "Traceback" not in err
    steps = pq.read_table(out / "recording.parquet").column("step").to_pylist()
    with np.load(out / "final_state.npz") as final:
        assert np.isfinite(final["body_pos"]).all()
        assert int(final["step_count"]) == steps[-1] < 100


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pseudo-terminals as on Linux")
def test_a_command_on_a_terminal_leaves_no_stray_escape_code(tmp_path):
    """Numba's error colours (colorama) wrote a reset code to the terminal at the exit of every command."""
    import os
    import pty
    from pathlib import Path
    root = Path(__file__).resolve().parents[1]
    main_fd, sub_fd = pty.openpty()
    env = dict(os.environ, PYTHONPATH=str(root / "src"))
    env.pop("NUMBA_DISABLE_ERROR_MESSAGE_HIGHLIGHTING", None)
    proc = subprocess.Popen([sys.executable, "-m", "impulsim", "run", str(root / "examples" / "pendulum.yaml"),
                             "--duration", "0.01", "-o", str(tmp_path / "out"), "-q"],
                            stdin=sub_fd, stdout=sub_fd, stderr=sub_fd, env=env, cwd=tmp_path)
    os.close(sub_fd)
    seen = b""
    while True:
        try:
            chunk = os.read(main_fd, 4096)
        except OSError:             # the terminal closed with the process
            break
        if not chunk:
            break
        seen += chunk
    assert proc.wait(timeout=300) == 0, seen.decode(errors="replace")[-2000:]
    os.close(main_fd)
    assert b"\x1b[0m" not in seen, seen[-200:]
