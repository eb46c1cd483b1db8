"""The driving simulator without a browser: the steering lever, the real-time loop's sub-steps, the
per-pilot setup, the recorder read back, the line analysis, and the server's token and sockets."""
import asyncio
import json
import math
import struct
import urllib.error
import urllib.request

import numpy as np
import pytest

from impulsim.apps.bobsleigh.drive.analysis import compare
from impulsim.apps.bobsleigh.drive.record import load_run, runner_traces
from impulsim.apps.bobsleigh.drive.session import DriveSession, Lever
from impulsim.apps.bobsleigh.drive.setup import DriveSetup, load_setup, save_setup


def test_lever_moves_at_its_rate_and_stops_at_the_target():
    lv = Lever(rate=2.5)
    lv.set(1.0)
    assert lv.advance(0.1) == pytest.approx(0.25, abs=1e-12)
    for _ in range(10):
        lv.advance(0.1)
    assert lv.value == 1.0                     # held at the end stop, no overshoot
    lv.set(0.0)
    assert lv.advance(0.2) == pytest.approx(0.5, abs=1e-12)
    lv.set(7.0)                                # a controller axis beyond ±1 is clipped
    assert lv.target == 1.0


def test_setup_round_trip_and_bad_files(tmp_path):
    s = DriveSetup(start_speed=12.0, mu_t=0.005, spring_set="hard", directness=0.7)
    save_setup(tmp_path, "anna", s)
    assert load_setup(tmp_path, "anna") == s
    assert load_setup(tmp_path, "nobody") == DriveSetup()
    (tmp_path / "bad.json").write_text('{"start_speed": 10,\n "mu_t": }')
    with pytest.raises(ValueError, match=r"bad\.json:2: setup: not JSON"):
        load_setup(tmp_path, "bad")
    (tmp_path / "odd.json").write_text('{"wax": 1}')
    with pytest.raises(ValueError, match=r"odd\.json:1: setup: unknown key 'wax'"):
        load_setup(tmp_path, "odd")
    with pytest.raises(ValueError, match="pilot name"):
        save_setup(tmp_path, "../evil", s)
    with pytest.raises(ValueError, match="spring_set"):
        DriveSetup(spring_set="rubber")


def test_setup_applies_to_the_bob():
    from impulsim.apps.bobsleigh.bob import load_bob
    bob = load_bob("two_man")
    hard = DriveSetup(spring_set="hard", directness=0.6, eps_n=0.2, mu_b_max=0.08).apply(bob)
    for b0, b1 in zip(bob.bodies, hard.bodies):
        if b0["name"] in ("front_hull", "front_axle"):
            assert b1["spring"][1] == pytest.approx(1.4 * b0["spring"][1])
            assert b1["spring"][2] == pytest.approx(1.4 * b0["spring"][2])
        else:
            assert b1.get("spring") == b0.get("spring")
    assert hard.directness == 0.6 and hard.bumper["eps_n"] == 0.2 and hard.runner["mu_b_max"] == 0.08
    # the steering map with directness d: β = β_max |i|^(1/d)
    assert hard.steering(0.5) == pytest.approx(hard.beta_max * 0.5 ** (1 / 0.6))


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    """Two driven runs on the test chute: hands off, and a steering pulse to the left at 2 s."""
    d = tmp_path_factory.mktemp("runs")
    session = DriveSession("test_chute", runs_dir=d, reference=False)
    out = []
    for pulse in (False, True):
        session.start()
        while session.state == "driving":
            t = session.sim.system.t
            session.steer(0.4 if pulse and 2.0 <= t < 2.5 else 0.0)
            session.tick(1 / 60)
        out.append(session.last_result)
    return session, out


def test_frame_sub_steps_follow_the_frame_time(tmp_path):
    session = DriveSession("test_chute", runs_dir=tmp_path, reference=False)
    session.start()
    session.tick(1 / 60)                           # 83 sub-steps of 0.2 ms, as in the thesis at 60 Hz
    assert session.sim.system.t == pytest.approx(83 * 2e-4, abs=1e-12)
    session.tick(1 / 30)
    assert session.sim.system.t == pytest.approx((83 + 167) * 2e-4, abs=1e-12)
    session.tick(1.0)                              # a stalled frame simulates at most max_frame
    assert session.sim.system.t == pytest.approx((83 + 167 + 250) * 2e-4, abs=1e-12)
    assert len(session.rec.rows) == 10             # one recorder row per 10 ms of simulated time


def test_recorded_file_gives_the_runs_splits(two_runs):
    session, runs = two_runs
    for res, entry in zip(runs, [r for r in session.runs if r["name"].startswith("run_")]):
        assert res.outcome == "finish"
        back = load_run(entry["path"])
        np.testing.assert_array_equal(back.splits, res.splits)
        assert back.outcome == res.outcome and back.setup["drive_setup"]["start_speed"] == 10.0
        t = back.trace["t"]
        np.testing.assert_allclose(np.diff(t), 0.01, atol=1e-9)         # 100 Hz
        # the nose crosses each station between two rows of the recording
        for st, tt in zip(back.stations, back.splits):
            k = np.searchsorted(t, tt)
            assert back.trace["s"][k - 1] < st <= back.trace["s"][k]
        # runner traces lie on the ice: within 5 cm of the surface below them
        pts = runner_traces(back.trace)
        assert len(pts) > 8 * 0.5 * len(t)
        from impulsim.apps.bobsleigh.bob.sim import surface_offset
        up = np.array([0.0, 0.0, 1.0])
        sample = pts[:: max(1, len(pts) // 40)].astype(float)
        gaps = [surface_offset(session.mesh, p[None, :], up, reach=0.3) for p in sample]
        assert np.nanmax(np.abs(gaps)) < 0.05


def test_steering_pulse_changes_the_run(two_runs):
    session, (a, b) = two_runs
    assert np.abs(a.trace["beta"]).max() == 0.0
    # lever 0.4: β = β_max 0.4^(1/d), the session's directness d
    expected = 10 * math.pi / 180 * 0.4 ** (1.0 / session.setup.directness)
    assert b.trace["beta"].max() == pytest.approx(expected, rel=1e-9)
    assert abs(a.run_time - b.run_time) > 1e-4


def test_line_analysis_dt_at_the_finish_is_the_run_time_difference(two_runs, tmp_path):
    from impulsim.cli import main
    session, (a, b) = two_runs
    pa, pb = [r["path"] for r in session.runs if r["name"].startswith("run_")]
    cmp = compare(load_run(pb), load_run(pa), 0.0, 150.0)
    assert cmp["s"][-1] == 150.0
    assert cmp["dt"][-1] == pytest.approx(b.run_time - a.run_time, abs=1e-9)
    assert cmp["dt"][0] == pytest.approx(0.0, abs=1e-9)       # same start
    out = tmp_path / "c2.png"
    assert main(["bob", "analyse", pb, pa, "--curve", "2", "-o", str(out)]) == 0
    assert out.stat().st_size > 10_000
    # in curve 2 (s = 75 … 125 m): Δt at its end is the difference of the times at s = 125 m in the traces
    c2 = compare(load_run(pb), load_run(pa), 75.0, 125.0)
    ta = np.interp(125.0, a.trace["s"], a.trace["t"])
    tb = np.interp(125.0, b.trace["s"], b.trace["t"])
    assert c2["dt"][-1] == pytest.approx(tb - ta, abs=1e-9)
    assert main(["bob", "analyse", pb, pa, "--curve", "9", "-o", str(out)]) == 2     # one-line error


def test_line_analysis_against_the_pilot_model_ends_with_the_run_time_difference(two_runs):
    """The pilot model's run (``impulsim bob run``) and a driven run record each row's station at the row's
    time and end past the finish: from start to finish their line analysis gives, at the finish line, the
    difference of their run times, both ways round."""
    from impulsim.apps.bobsleigh.run import run
    session, (a, _) = two_runs
    model = run(session.track, bob=session.bob, start_speed=session.setup.start_speed, max_time=40.0)
    assert model.outcome == "finish"
    s0, s1 = float(session.track.start_s), float(session.track.finish_s)
    for x, y in ((a, model), (model, a)):
        cmp = compare(x, y, s0, s1)
        assert cmp["s"][-1] == s1
        assert cmp["dt"][-1] == pytest.approx(x.run_time - y.run_time, abs=1e-9)
    assert abs(a.run_time - model.run_time) > 1e-3      # the pilot steers: not the hands-off run


def test_server_token_mesh_and_force_feedback(tmp_path):
    from websockets.asyncio.client import connect

    from impulsim.apps.bobsleigh.drive.server import DriveServer
    session = DriveSession("test_chute", runs_dir=tmp_path, reference=False)
    srv = DriveServer(session, pilots_dir=tmp_path / "pilots").start()
    try:
        base = f"http://127.0.0.1:{srv.port}"
        for path in ("/", "/track.bin", "/?token=wrong"):
            with pytest.raises(urllib.error.HTTPError) as e:
                urllib.request.urlopen(base + path, timeout=10)
            assert e.value.code == 403
        page = urllib.request.urlopen(srv.url, timeout=10).read().decode()
        assert srv.token in page
        data = urllib.request.urlopen(f"{base}/track.bin?token={srv.token}", timeout=10).read()
        nv, nt = struct.unpack("<II", data[:8])
        assert len(data) == 8 + 24 * nv + 12 * nt
        idx = np.frombuffer(data, np.uint32, 3 * nt, 8 + 24 * nv)
        assert idx.max() == nv - 1
        n = np.frombuffer(data, np.float32, 3 * nv, 8 + 12 * nv).reshape(-1, 3)
        np.testing.assert_allclose(np.linalg.norm(n, axis=1), 1.0, atol=1e-5)
        # every 2nd section of the 0.5 m simulation mesh: about half its triangles
        full = len(session.track.mesh()[1])
        assert 0.4 * full < nt < 0.6 * full

        async def samples():
            async with connect(f"ws://127.0.0.1:{srv.port}/ff?token={srv.token}") as ws:
                session.start()
                return [json.loads(await asyncio.wait_for(ws.recv(), 30)) for _ in range(60)]

        got = asyncio.run(samples())
        t = np.array([g["t"] for g in got])
        np.testing.assert_allclose(np.diff(t), 0.01, atol=1e-9)     # every 10 ms, none lost
        for g in got:
            assert g["F_soll"] == pytest.approx(g["M_soll"] / 0.1)
        assert np.abs([g["M_soll"] for g in got]).max() > 0           # the contacts load the steering joint

        async def refused():
            async with connect(f"ws://127.0.0.1:{srv.port}/ws?token=nope"):
                pass
        with pytest.raises(Exception, match="403"):
            asyncio.run(refused())
    finally:
        srv.stop()


def test_driving_on_sanki_follows_the_channel(tmp_path):
    """Hands off for 3 s on the Sanki-like track: the bob slides down the channel (s grows, speed grows
    on the downhill start, it stays inside the channel) and the sub-steps add up to the frames' time."""
    session = DriveSession("sanki", runs_dir=tmp_path, reference=False)
    session.start()
    v0 = session.meas[3]
    for _ in range(180):
        session.tick(1 / 60)
    assert session.state == "driving"
    assert session.sim.system.t == pytest.approx(180 * 83 * 2e-4, abs=1e-9)
    s, b, h, v, _ = session.meas
    assert s > 20.0 and v > v0
    assert abs(b) < 1.5 and -0.5 < h < 2.0
    snap = session.snapshot
    assert len(snap["bodies"]) == len(session.bob.bodies) and snap["speed"] == pytest.approx(v, abs=1e-3)


def test_rollover_ends_the_run_and_it_is_recorded(tmp_path):
    """A pilot who throws the steering from lock to lock every second puts the bob on its side on the
    Whistler-like track (where depends on the track's layout and is not asserted): the moment a rollover
    contact closes the run ends with a message, no later step is taken, and the file holds the run up to
    the crash."""
    session = DriveSession("whistler", runs_dir=tmp_path, reference=False)
    session.start()
    frame = 0
    while session.state == "driving" and session.sim.system.t < 40.0:
        session.steer(1.0 if int(session.sim.system.t) % 2 == 0 else -1.0, frame)
        session.tick(1 / 60)
        frame += 1
    assert session.state == "crash" and "rollover" in session.message
    assert session.sim.crashed()
    t_end = session.sim.system.t
    session.tick(1 / 60)
    assert session.sim.system.t == t_end and session.state == "crash"
    back = load_run(session.runs[-1]["path"])
    assert back.outcome == "crash"
    assert back.trace["t"][-1] == pytest.approx(session.sim.system.t, abs=1e-9)
    assert np.isnan(back.splits[-1])                 # the finish was not reached


def test_a_bob_out_of_the_channel_ends_the_driven_run_off_track(tmp_path):
    """Started at 60 m/s hands off, the bob needs a banking of 87° in the test chute's first curve (r =
    20 m), more than its walls give, and flies over the outer wall (as in ``impulsim bob run``): the run
    ends "off track" with a message on the page, as soon as the nose is more than OFF_TRACK beside or below
    the channel, no later step is taken, and the run is recorded up to there without a finish time."""
    from impulsim.apps.bobsleigh.run import OFF_TRACK
    session = DriveSession("test_chute", runs_dir=tmp_path, reference=False, setup=DriveSetup(start_speed=60.0))
    session.start()
    while session.state == "driving" and session.sim.system.t < 20.0:
        session.tick(1 / 60)
    assert session.state == "off track", session.message
    assert "off the track" in session.message and session.snapshot["message"] == session.message
    assert session.snapshot["state"] == "off track" and "bodies" in session.snapshot
    s, b, h, _, _ = session.meas
    assert h < OFF_TRACK[0] or abs(b) > OFF_TRACK[1]
    t_end = session.sim.system.t
    assert t_end < 3.0                             # ended while flying out, not after a long fall
    session.tick(1 / 60)
    assert session.sim.system.t == t_end
    back = load_run(session.runs[-1]["path"])
    assert back.outcome == "off track" and np.isnan(back.splits[-1])
    assert back.trace["t"][-1] == pytest.approx(t_end, abs=1e-9)
    assert back.trace["b"][-1] == pytest.approx(b, abs=1e-12) and back.trace["h"][-1] == pytest.approx(h, abs=1e-12)
    assert session.run_list()[-1]["outcome"] == "off track"


def test_steering_and_run_list_do_not_wait_for_a_frame(tmp_path):
    """While a frame of the simulation holds the session (its lock), the server still takes a steering
    command, reads the run list and the force-feedback samples at once; the frame after it applies the
    command."""
    import threading
    import time
    session = DriveSession("test_chute", runs_dir=tmp_path, reference=False)
    session.start()
    session.tick(1 / 60)
    held, release = threading.Event(), threading.Event()

    def frame_in_progress():
        with session.lock:
            held.set()
            release.wait(30)
    th = threading.Thread(target=frame_in_progress)
    th.start()
    try:
        assert held.wait(30)
        t0 = time.perf_counter()
        session.steer(1.0, 7)
        runs = session.run_list()
        samples, _ = session.ff_samples(-1.0)
        assert time.perf_counter() - t0 < 0.5
        assert runs == [] and len(samples) == 1
    finally:
        release.set()
        th.join(30)
    session.tick(1 / 60)
    assert session.applied_seq == 7 and session.lever.value > 0 and len(session.steer_latency) == 1


def test_the_bob_steps_without_holding_the_interpreter(tmp_path):
    """The compiled sub-steps let go of Python's interpreter lock: while a thread steps the bob (2000
    sub-steps, tens of milliseconds), the server's thread (here the test's own) keeps running Python in the
    middle half of that call; with the lock held it could not run at all until the call returned."""
    import threading
    import time
    session = DriveSession("test_chute", runs_dir=tmp_path, reference=False)
    session.start()
    session.tick(1 / 60)                           # compiled and warm
    system = session.sim.system
    K = np.zeros((2000, system.nk))
    span, entered = {}, threading.Event()

    def step():
        entered.set()
        span["enter"] = time.perf_counter()
        system.advance(2e-4, K)
        span["exit"] = time.perf_counter()
    th = threading.Thread(target=step)
    stamps = []
    th.start()
    entered.wait(30)
    while th.is_alive():
        stamps.append(time.perf_counter())
        for _ in range(200):
            pass
    th.join()
    a, b = span["enter"], span["exit"]
    middle = [x for x in stamps if a + 0.25 * (b - a) < x < b - 0.25 * (b - a)]
    assert b - a > 0.02 and len(middle) > 10, (b - a, len(stamps), len(middle))


def test_the_default_setup_drives_the_bob_of_the_file():
    """The pilot's default setup changes nothing of the two-man bob as its file defines it."""
    from impulsim.apps.bobsleigh.bob.model import load_bob
    bob = load_bob()
    assert DriveSetup().apply(bob) == bob
