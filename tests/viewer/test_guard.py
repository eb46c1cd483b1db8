"""The viewer's server side: WebSockets from foreign pages are refused, and every value a page sends is
checked against the panel's limits, whatever the page claims the limits are."""
import math
import time
from pathlib import Path

import pytest

viser = pytest.importorskip("viser", reason="the viewer needs viser (pip install 'impulsim[viewer]')")
ws_client = pytest.importorskip("websockets.sync.client")
msgspec = pytest.importorskip("msgspec")

from impulsim.viewer.guard import LIMITS, checked, origin_allowed  # noqa: E402
from tests.viewer.browser import free_port  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
WAIT = 20.0


@pytest.mark.parametrize("origin,host,allowed", [
    ("http://127.0.0.1:8080", "127.0.0.1:8080", True),
    ("http://localhost:8080", "localhost:8080", True),
    ("http://[::1]:8080", "[::1]:8080", True),
    ("http://192.168.1.5:8080", "192.168.1.5:8080", True),          # --host 0.0.0.0, opened by address
    (None, "127.0.0.1:8080", True),                                   # not a web page: a local program
    ("https://evil.example", "127.0.0.1:8080", False),                # another site's page
    ("http://127.0.0.1:9999", "127.0.0.1:8080", False),               # another local server's page
    ("http://evil.example:8080", "evil.example:8080", False),         # DNS rebinding: a name, not us
    ("null", "127.0.0.1:8080", False),                                # sandboxed frame, file:// page
    ("http://127.0.0.1:8080", None, False),
])
def test_origin_rule(origin, host, allowed):
    assert origin_allowed(origin, host) is allowed


def test_limits_refuse_out_of_range_and_non_numbers():
    assert checked("h", "0.002") == 0.002
    for key, bad in (("h", 5.0), ("h", 0.0), ("h", math.nan), ("speed", -1.0), ("gravity", math.inf),
                     ("gravity", -101.0), ("h", "fast")):
        with pytest.raises(ValueError):
            checked(key, bad)
    assert LIMITS["h"].hi == 0.1


@pytest.fixture(scope="module")
def viewer():
    from impulsim.viewer.app import view_scene
    v = view_scene(str(EXAMPLES / "pendulum.yaml"), port=free_port(), open_browser=False)
    yield v
    v.stop()


def _connect(viewer, origin):
    """A WebSocket as the page opens it; like the page, it first reports its camera (viser counts a
    connection as a client from then on)."""
    conn = ws_client.connect(f"ws://127.0.0.1:{viewer.port}", origin=origin, open_timeout=WAIT,
                             subprotocols=[f"viser-v{viser.__version__}"], max_size=None)
    camera = {"type": "ViewerCameraMessage", "wxyz": [1.0, 0.0, 0.0, 0.0], "position": [3.0, 3.0, 3.0],
              "fov": 1.3, "near": 0.01, "far": 1000.0, "image_height": 700, "image_width": 1000,
              "look_at": [0.0, 0.0, 0.0], "up_direction": [0.0, 0.0, 1.0]}
    from websockets.exceptions import ConnectionClosed
    try:
        conn.send(msgspec.msgpack.encode(camera))
    except ConnectionClosed:
        pass                                         # refused at once
    return conn


def _send(conn, handle, value):
    """What the page sends when the user sets an input: a GuiUpdateMessage for the input's id."""
    msg = {"type": "GuiUpdateMessage", "uuid": handle._impl.uuid, "updates": {"value": value}}
    conn.send(msgspec.msgpack.encode(msg))


def _until(cond, timeout=WAIT):
    end = time.time() + timeout
    while time.time() < end:
        if cond():
            return True
        time.sleep(0.05)
    return False


def test_page_of_another_site_is_refused_and_cannot_change_anything(viewer):
    h0, refused0 = viewer.engine.snapshot().h, viewer.guard.refused
    from websockets.exceptions import ConnectionClosed
    conn = _connect(viewer, "https://evil.example")
    try:
        try:
            _send(conn, viewer.inputs["h"], 0.05)    # a value the panel itself would accept
        except ConnectionClosed:
            pass                                     # already refused
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                conn.recv(timeout=WAIT)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008   # policy violation
    finally:
        conn.close()
    assert viewer.guard.refused == refused0 + 1
    time.sleep(0.5)
    assert viewer.engine.snapshot().h == h0


def test_own_page_is_served_but_out_of_range_values_are_refused_on_the_server(viewer):
    port = viewer.port
    with _connect(viewer, f"http://127.0.0.1:{port}") as conn:
        assert _until(lambda: len(viewer.server.get_clients()) >= 1)
        refusals = len(viewer.refusals)
        _send(conn, viewer.inputs["h"], 5.0)                      # above the box's maximum of 0.1 s
        _send(conn, viewer.inputs["gravity"], float("nan"))
        _send(conn, viewer.inputs["method"], "masspoint")         # not offered: no scene files
        _send(conn, viewer.inputs["speed"], 400.0)
        assert _until(lambda: len(viewer.refusals) >= refusals + 4), viewer.refusals
        snap = viewer.engine.snapshot()
        assert snap.h == pytest.approx(0.001) and snap.method == "impulse" and snap.speed == 1.0
        assert viewer.inputs["h"].value == pytest.approx(0.001)   # the box is put back
        _send(conn, viewer.inputs["h"], 0.002)                    # within the limits: applied
        assert _until(lambda: viewer.engine.snapshot().h == pytest.approx(0.002))
