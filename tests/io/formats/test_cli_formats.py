"""The command line with robot files: run and check by suffix, compare against MuJoCo."""
import re

import numpy as np
import pytest

from impulsim.cli import main
from tests.io.formats.sources import DATA, mjcf_path

pytest.importorskip("yourdfpy")
pytest.importorskip("mujoco")


def test_check_urdf_prints_counts_and_each_unmapped_element(capsys):
    assert main(["check", str(DATA / "double_pendulum.urdf")]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("double_pendulum: 2 bodies, 2 joints (4 primitives)")
    assert err.strip() == (f"impulsim: not mapped: {DATA / 'double_pendulum.urdf'}: joints \"shoulder\": effort and "
                           f"velocity limits not mapped (impulsim joints have neither; a servo's limit bounds its effort)")


def test_run_mjcf_writes_a_recording_at_the_files_timestep(tmp_path, capsys):
    import pyarrow.parquet as pq
    assert main(["run", str(mjcf_path("inverted_pendulum.xml")), "-d", "0.1", "-q", "-o", str(tmp_path)]) == 0
    table = pq.read_table(tmp_path / "recording.parquet")
    t = np.asarray(table.column("t"))
    assert np.allclose(np.diff(t), 0.02)          # inverted_pendulum.xml: <option timestep="0.02"/>
    assert "not mapped" in capsys.readouterr().err


def test_compare_prints_each_method_against_mujoco(capsys):
    assert main(["compare", str(DATA / "double_pendulum.xml"), "--methods", "lagrange,featherstone,impulse",
                 "-d", "0.5"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = {l.split()[0]: l.split() for l in lines[2:]}
    assert set(rows) == {"mujoco", "lagrange", "featherstone", "impulse"}
    # default tolerances of the methods over 0.5 s: the RK4 methods stay within 1e-8 rad of MuJoCo's RK4
    # (measured 5e-11 and 4e-14), the second-order impulse method within 1e-5 rad (measured 4.2e-6: its h²
    # truncation error, see test_pendulum_vs_mujoco.py)
    assert float(rows["lagrange"][2]) < 1e-8 and float(rows["featherstone"][2]) < 1e-8
    assert float(rows["impulse"][2]) < 1e-5
    assert all(float(rows[m][3]) > 0 for m in rows)
    assert re.search(r"contacts off, joint limits on", lines[2])
