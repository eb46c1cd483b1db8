"""``impulsim bob run``: a recording is written; bad parameters are one-line errors with exit code 2."""
import pyarrow.parquet as pq

from impulsim.cli import main


def test_bob_run_writes_a_recording(tmp_path, capsys):
    out = tmp_path / "run.parquet"
    code = main(["bob", "run", "test_chute", "--max-time", "1.0", "--pilot", "gain=2", "--setup",
                 "directness=0.7", "-o", str(out)])
    assert code == 1                                   # stopped by --max-time, not at the finish
    table = pq.read_table(out)
    assert table.num_rows == 100
    assert "time limit" in capsys.readouterr().out


def test_bad_parameters_are_one_line_errors(capsys):
    assert main(["bob", "run", "test_chute", "--pilot", "grip=3"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "grip" in err
    assert main(["bob", "run", "test_chute", "--setup", "mu_t=fast"]) == 2
    assert "mu_t" in capsys.readouterr().err
