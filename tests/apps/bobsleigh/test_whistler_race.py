"""The Whistler-like track with the default bob and pilot: the run reaches the finish without the bob ever
touching the ice with a rollover point, in a time near the 2010 Olympic race's mean (Rempfler 2015,
Table 6.1); it passes the exit of curve 2, where every run used to end on the bob's side; and the pilot's
riding place matches where an unsteered bob rides."""
import numpy as np
import pytest

from impulsim.apps.bobsleigh.pilot import Pilot
from impulsim.apps.bobsleigh.run import run
from impulsim.apps.bobsleigh.track import load_track
from impulsim.apps.bobsleigh.view import TrackView


@pytest.fixture(scope="module")
def whistler():
    return load_track("whistler")


RACE_MEAN = np.array([4.87, 16.29, 30.27, 39.19, 46.94, 52.33])
"""Mean split and run times [s] of the 2010 Olympic two-man race at Whistler (Rempfler 2015, Table 6.1)."""


@pytest.fixture(scope="module")
def full_run(whistler):
    return run(whistler, pilot=Pilot(), start_speed=10.0, max_time=80.0)


@pytest.mark.slow
def test_default_pilot_reaches_the_finish_upright(full_run, whistler):
    """The whole run, 1450 m: it ends at the finish; no rollover point ever carried a force (a closed
    rollover contact would also have ended the run as a crash); the nose stays inside the channel (|b| <
    1.6 m, the outer walls' half width at their top, and h above −5 cm); every station is timed in order."""
    r = full_run
    assert r.outcome == "finish", r.summary()
    bob_contacts = [k for k in r.trace if k.startswith("contact") and "_rollover_" in k]
    assert len(bob_contacts) == 15 and all(np.all(r.trace[k] == 0.0) for k in bob_contacts)
    assert np.abs(r.trace["b"]).max() < 1.6 and r.trace["h"].min() > -0.05
    assert np.all(np.isfinite(r.splits)) and np.all(np.diff(r.splits) > 0)


@pytest.mark.slow
def test_run_time_and_top_speed_near_the_race(full_run):
    """Without any tuning to race times the run time is within 3 % of the race mean 52.33 s, the splits
    after the start within 5 % (the start split is not compared: the run starts at 10 m/s on the start
    line, where the crews push from rest), and the top speed within 10 % of the 150 km/h bobs reach at
    Whistler."""
    r = full_run
    err = r.splits / RACE_MEAN - 1.0
    assert abs(err[-1]) < 0.03, r.summary()
    assert np.all(np.abs(err[1:]) < 0.05), r.summary()
    assert 135.0 < 3.6 * r.trace["speed"].max() < 165.0


@pytest.mark.slow
def test_pilot_run_passes_curve_2(full_run):
    """Default bob and pilot from the start line at 10 m/s for 14.5 s: no crash, the nose is in curve 3's
    arc (s > 230 m; curve 2 ends at 190 m), and the bob is upright on the floor between the curves (hull
    tilt below 20°, nose height within 0.2 m of the centre line at s = 195–200 m).

    The 14.5 s run is the whole run's first rows, to the last digit: ``run`` takes the same steps whatever
    its ``max_time``, which only ends its loop before a row whose start is at 14.5 s or later (checked once,
    all 74 columns of the 1451 rows equal), so those rows are read from the whole run instead of being
    simulated again. That the whole run went on past them is what "no crash, no other end" means for the
    14.5 s run."""
    r = full_run
    t = r.trace["t"]
    rows = np.concatenate([[0.0], t[:-1]]) < 14.5       # rows whose 10 ms began before 14.5 s
    assert rows.sum() < len(t), r.summary()              # nothing ended the run there
    s = r.trace["s"][rows]
    assert s[-1] > 230.0
    x, y = (r.trace[k][rows] for k in ("qx", "qy"))
    tilt = np.degrees(np.arccos(np.clip(1 - 2 * (x * x + y * y), -1, 1)))   # angle of the hull's up axis
    exit_ = (s > 195) & (s < 200)
    assert exit_.any() and tilt[exit_].max() < 20.0
    assert abs(r.trace["h"][rows][exit_]).max() < 0.2


def test_riding_place_rises_with_speed_and_falls_at_the_exit(whistler):
    """In curve 2 (right-handed, r = 25 m) the riding place is on the left (outer) wall and higher at
    25 m/s than at 15 m/s; the wall's slope there is the banking atan(v²/(g r)) within the sampling of
    the section (81 points); on the straight after the curve it is the floor (h = 0)."""
    view = TrackView(whistler)
    b15, h15 = view.riding_place(160.0, 15.0)
    b25, h25 = view.riding_place(160.0, 25.0)
    assert b15 > 0.3 and b25 > b15 and h25 > h15 > 0.0
    b, h, slope, kappa = view._section(160.0)
    assert kappa == pytest.approx(-1 / 25.0, rel=1e-6)
    j = int(np.argmin(np.hypot(b - b25, h - h25)))
    assert np.degrees(slope[j]) == pytest.approx(np.degrees(np.arctan(25.0**2 / 25.0 / 9.81)), abs=4.0)
    assert view.riding_place(197.0, 25.0)[1] == pytest.approx(0.0, abs=1e-3)
