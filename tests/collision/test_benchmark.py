"""The collision benchmark's pipeline on a small heap: recording (cached by recipe), timing beside MuJoCo,
and the re-check, which must find no pair within eps_c that impulsim misses and no depth it gets wrong."""
import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco", reason="the benchmark compares with MuJoCo (the 'bench' extra)")

from impulsim.bench import collision as bench  # noqa: E402


def test_small_heap_is_recorded_once_and_checks_clean(tmp_path, monkeypatch):
    monkeypatch.setenv("IMPULSIM_CACHE", str(tmp_path))
    frames = bench.record_heap(27, 1.5)
    assert frames.shape == (30, 27, 7)
    assert len(list(tmp_path.glob("heap_27_*.npz"))) == 1
    np.testing.assert_array_equal(bench.record_heap(27, 1.5), frames)      # from the cache
    assert frames[-1][:, 2].min() > 0.05                                      # resting on the ground
    rows, _ = bench.time_heap(27, frames[::3], repeats=1)
    busy = [r for r in rows if r["pairs"] > 0]
    assert len(busy) >= 3
    for r in busy:
        assert r["check"]["both"] > 0
        assert all(d > bench.EPS_C for d in r["check"]["only_mj_exact"])    # nothing within eps_c missed
        assert all(abs(x) < 1e-12 for x in r["check"]["disputes"])          # depths attained
        assert r["max_dist"] <= bench.EPS_C
    records = bench._heap_records(27, rows, 0.0, "test heap")
    ratio = next(r for r in records if r["quantity"].startswith("time ratio"))
    assert all(float(x) > 0 for x in ratio["impulsim"].split(";"))
