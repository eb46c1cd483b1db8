"""Runs on the test chute: reproducible, timed at the stations in order, recorded at 100 Hz."""
import numpy as np
import pyarrow.parquet as pq
import pytest

from impulsim.apps.bobsleigh.pilot import Pilot
from impulsim.apps.bobsleigh.run import run


@pytest.fixture(scope="module")
def chute():
    from impulsim.apps.bobsleigh.track import load_track
    return load_track("test_chute")


def test_run_is_reproducible_and_recorded(chute, tmp_path):
    """The same pilot, bob and start speed give the same 3 s to the last digit; the trace is sampled every
    10 ms, its stations increase, and it survives a round trip through Parquet."""
    a = run(chute, max_time=3.0, pilot=Pilot(gain=3.0))
    b = run(chute, max_time=3.0, pilot=Pilot(gain=3.0))
    assert a.outcome == "time limit"
    for k in a.trace:
        assert np.array_equal(a.trace[k], b.trace[k]), k
    t = a.trace["t"]
    assert np.allclose(np.diff(t), 0.01)
    assert np.all(np.diff(a.trace["s"]) > 0)
    a.to_parquet(tmp_path / "run.parquet")
    table = pq.read_table(tmp_path / "run.parquet")
    assert np.array_equal(table.column("speed").to_numpy(), a.trace["speed"])


@pytest.fixture(scope="module")
def full_run(chute):
    return run(chute, max_time=40.0)


def test_full_run_finishes_with_ordered_splits(chute, full_run):
    """Down the whole test chute: it finishes, every station is timed in order, the speed at the finish is
    that of the drop less friction and drag (between 0.5 and 1 of the frictionless v² = v0² + 2 g Δz)."""
    r = full_run
    assert r.outcome == "finish"
    assert np.all(np.isfinite(r.splits)) and np.all(np.diff(r.splits) > 0)
    z = chute.centerline(np.array([chute.start_s, chute.finish_s]))[:, 2]
    v_free = np.sqrt(10.0 ** 2 + 2 * 9.81 * (z[0] - z[1]))
    assert 0.5 * v_free < r.trace["speed"][-1] < v_free


def test_run_started_mid_track_times_only_the_stations_ahead(chute):
    """Started with the nose on the straight after the chute's second curve (s = 140 m, past the stations
    at 50 and 100 m) at 17 m/s, the bob is there heading along the track; the passed stations' splits stay
    NaN and the finish at 150 m is timed from 0 there, at about 10 m / 17 m/s."""
    s0 = 140.0
    r = run(chute, start_at=s0, start_speed=17.0, max_time=10.0)
    assert r.outcome == "finish"
    # the first row, 10 ms after the start: the nose 17 m/s × 10 ms ahead of where it started
    assert r.trace["t"][0] == pytest.approx(0.01, abs=1e-12)
    assert r.trace["s"][0] == pytest.approx(s0 + 0.17, abs=0.01)
    assert abs(r.trace["b"][0]) < 0.05 and r.trace["speed"][0] == pytest.approx(17.0, abs=0.3)
    assert np.all(np.isnan(r.splits[:-1]))
    assert r.splits[-1] == pytest.approx(10.0 / 17.0, rel=0.05)
    with pytest.raises(ValueError, match="start_at"):
        run(chute, start_at=float(chute.finish_s) + 1.0)


def test_a_bob_out_of_the_channel_ends_the_run_off_track(chute):
    """At 60 m/s, unsteered, the bob needs a banking of 87° in the chute's first curve (r = 20 m),
    more than its walls give, and flies over the outer wall; the run ends "off track" before the bob falls
    any further, and the finish is not timed."""
    r = run(chute, start_speed=60.0, max_time=20.0, pilot=Pilot(gain=0.0, damping=0.0))
    assert r.outcome == "off track", r.summary()
    assert np.isnan(r.splits[-1])
    assert r.trace["t"][-1] < 3.0            # ended while flying out, not after a long fall


def test_trace_rows_carry_the_station_at_their_time_and_pass_the_finish(chute, full_run):
    """Each row's station is the nose's at the row's time: the times at which the trace passes the timing
    stations, linear between rows, are the split times (to rounding), the last row lies past the finish
    and the one before it short of it; the line analysis of the run against itself gives Δt = 0 at the
    finish."""
    from impulsim.apps.bobsleigh.drive.analysis import compare
    r = full_run
    s, t = r.trace["s"], r.trace["t"]
    assert np.all(np.diff(s) > 0)
    np.testing.assert_allclose(np.interp(r.stations, s, t), r.splits, rtol=0, atol=1e-12)
    assert s[-2] < chute.finish_s <= s[-1]
    cmp = compare(r, r, float(chute.start_s), float(chute.finish_s))
    assert cmp["s"][-1] == float(chute.finish_s) and np.all(cmp["dt"] == 0.0)
