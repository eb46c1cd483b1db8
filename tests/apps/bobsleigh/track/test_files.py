"""Track files: the shipped tracks' public facts and one-line errors for bad files."""
import re

import numpy as np
import pytest

from impulsim.apps.bobsleigh.track import TrackFileError, load_track, shipped_tracks, track_from_string
from impulsim.apps.bobsleigh.track.files import track_path

LENGTH_TOL = 1e-6
"""Plan-view length from chord sums every 1 and 2 cm, Richardson-extrapolated: a chord is shorter than its
arc by κ²l³/24 (4e-6 m summed over the curves at 1 cm), which the extrapolation removes to O(l⁴)."""


def _plan_length(track, a, b, step):
    s = np.linspace(a, b, int(round((b - a) / step)) + 1)
    return np.linalg.norm(np.diff(track.centerline(s)[:, :2], axis=0), axis=1).sum()


def test_shipped_tracks():
    assert {"test_chute", "whistler", "sanki"} <= set(shipped_tracks())


def test_whistler_like_length_drop_and_public_facts():
    t = load_track("whistler")
    assert t.length == 1450.0 and t.start_s == 0.0 and t.finish_s == 1450.0
    np.testing.assert_array_equal(t.timing_stations, [50, 280, 660, 960, 1244, 1450])
    fine, coarse = _plan_length(t, 0.0, 1450.0, 0.01), _plan_length(t, 0.0, 1450.0, 0.02)
    assert abs((4 * fine - coarse) / 3 - 1450.0) < LENGTH_TOL
    h = t.centerline([0.0, 1450.0])[:, 2]
    assert abs((h[0] - h[1]) - 152.0) <= 1.0
    assert len(t.curves) == 16
    for k, (a, b) in ((3, (280, 380)), (6, (550, 660))):
        assert t.curves[k].c == -1                         # right-handed
        assert abs(t.curves[k].s_b - a) <= 10 and abs(t.curves[k].s_e - b) <= 10
    assert t.curve_index([330.0])[0] == 3 and t.curve_index([600.0])[0] == 6
    assert t.curve_index([390.0])[0] == -1


def test_sanki_like_length_and_drop():
    t = load_track("sanki")
    h = t.centerline([0.0, 1814.0])[:, 2]
    assert t.length == 1814.0 and abs((h[0] - h[1]) - 150.0) <= 1.0
    assert abs(h[0] - 1365.0) < 0.01
    assert len(t.curves) == 16


GOOD = track_path("test_chute").read_text()


def _error(text):
    with pytest.raises(TrackFileError) as exc:
        track_from_string(text, "bad.yaml")
    msg = str(exc.value)
    assert "\n" not in msg
    m = re.match(r"bad\.yaml:(\d+): (.*)", msg)
    assert m, msg
    return int(m.group(1)), m.group(2)


def _line_of(text, needle):
    return next(i + 1 for i, line in enumerate(text.splitlines()) if needle in line)


def test_missing_field():
    bad = GOOD.replace("l_circ: 15, ", "")
    line, msg = _error(bad)
    assert line == _line_of(bad, "name: C1")
    assert msg.startswith('curves[0] "C1": missing required key "l_circ"')


def test_negative_radius():
    bad = GOOD.replace("r_c: 25,", "r_c: -25,")
    line, msg = _error(bad)
    assert line == _line_of(bad, "r_c: -25")
    assert msg.startswith('curves[1] "C2": r_c must be positive')


def test_inconsistent_clothoid_parameter():
    bad = GOOD.replace("A2_en: 300", "A2_en: 250")
    line, msg = _error(bad)
    assert line == _line_of(bad, "A2_en: 250")
    assert msg.startswith('curves[1] "C2": A2_en = 250') and "l_cl_en * r_c = 300" in msg


def test_yaml_syntax_error():
    bad = GOOD.replace("stations: [50, 100, 150]}", "stations: [50, 100, 150}")
    line, msg = _error(bad)
    assert line == _line_of(bad, "stations: [50, 100, 150}")
    assert msg.startswith("YAML syntax error")


@pytest.mark.parametrize("old, new, where, start", [
    ("{s: 60, slope_out: -0.08, radius: 400}", "{s: 60, slope_out: -0.08, radius: -400}", "radius: -400",
     "height: stations[1]: radius = -400 must be positive where the slope increases"),
    ("- [ 88, 0.6, 0.3, 0.4, 0.30, 1.8, 1.6, 1.1, 0.4, 1.0, 1.4, 0.6, 0.30, 62]",
     "- [ 88, 0.6, 0.3, 0.4, 0.30, 1.8, 1.6, 1.1, 0.4, 1.0, 1.4, 0.6, 0.30, 10]", "[ 88,",
     "sections: rows[6]: eps"),
    ("s_e: 70}", "s_e: 60}", "s_e: 60}", 'curves[0] "C1": s_e = 60 lies before the end of the exit clothoid'),
    ("kind: end_stop", "kind: endstop", "kind: endstop", 'boundary[0]: unknown kind "endstop"'),
])
def test_other_errors_name_line_and_element(old, new, where, start):
    bad = GOOD.replace(old, new)
    assert bad != GOOD
    line, msg = _error(bad)
    assert line == _line_of(bad, where)
    assert msg.startswith(start), msg


def test_unknown_track_name_and_missing_file(tmp_path):
    with pytest.raises(TrackFileError, match="no such track"):
        load_track("nowhere")
    with pytest.raises(TrackFileError, match="no such track file"):
        load_track(tmp_path / "nothing.yaml")
