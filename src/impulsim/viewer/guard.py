"""What the viewer accepts from a browser: only pages it served itself, and only values within its limits.

A viser server answers any WebSocket. Without a check, a web page the user happens to visit could open
``ws://127.0.0.1:8080`` and drive the simulation (any step size, a NaN gravity, reset, another method).
:class:`OriginGuard` refuses such connections: the handshake's ``Origin`` must be the page's own origin
(``http://`` + the ``Host`` the browser connected to), and that host must be an IP address or
``localhost``, so that a foreign domain resolving to this machine (DNS rebinding) is refused too.
Messages from a refused connection are dropped before any handler sees them.

:data:`LIMITS` are the panel's limits, checked again on the server for every value a browser sends
(:func:`checked`), since a client can send any value (and can even change an input's min and max).
"""
from __future__ import annotations

import ipaddress
import math
from dataclasses import dataclass
from typing import Optional
from urllib.parse import urlsplit

REFUSED = 1008
"""WebSocket close code for a refused connection (policy violation)."""


@dataclass(frozen=True)
class Limit:
    """Closed range [lo, hi] of one input, in the input's unit."""
    lo: float
    hi: float
    unit: str = ""
    what: str = ""
    """What the value is, for messages ("the step size"); default: the key."""


LIMITS = {
    "h": Limit(1e-6, 0.1, "s", "the step size"),
    "speed": Limit(0.05, 4.0, "", "the real-time factor"),
    "gravity": Limit(-100.0, 100.0, "m/s²", "gravity"),
    "gain": Limit(0.0, 1e9, "", "a servo gain"),
    "stiffness": Limit(0.0, 1e9, "", "a spring's stiffness or damping"),
    "effort": Limit(-1e6, 1e6, "N m or N", "a motor's effort"),
    "ghost_offset": Limit(-1e3, 1e3, "m", "the ghost's offset"),
}
"""Server-side limits of the viewer's inputs (the panel shows the same ones)."""


def checked(key: str, value, limit: Optional[Limit] = None) -> float:
    """``value`` as a float if it is a finite number within ``limit`` (default ``LIMITS[key]``); else
    ValueError naming ``key``."""
    limit = LIMITS[key] if limit is None else limit
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{limit.what or key}: {value!r} is not a number") from None
    if not (math.isfinite(x) and limit.lo <= x <= limit.hi):
        unit = f" {limit.unit}" if limit.unit else ""
        raise ValueError(f"{limit.what or key} must be between {limit.lo:g} and {limit.hi:g}{unit}, "
                         f"got {value!r}")
    return x


def origin_allowed(origin: Optional[str], host: Optional[str]) -> bool:
    """Whether a WebSocket handshake with these ``Origin`` and ``Host`` headers comes from our own page.

    A handshake without an Origin does not come from a web page (browsers always send one); it is a
    program on this machine, which could reach the simulation anyway, and is let in.
    """
    if origin is None:
        return True
    if not host:
        return False
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https") or parts.netloc.lower() != host.lower():
        return False
    name = (urlsplit(f"//{host}").hostname or "").lower()
    if name == "localhost":
        return True
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def guarded_input(handle, key: str, apply, report, limit: Optional[Limit] = None) -> None:
    """Call ``apply(value)`` when a browser changes the input ``handle`` to a value within the limits;
    otherwise put the last good value back and ``report(message)``."""
    last = [handle.value]

    def on_update(_) -> None:
        try:
            value = checked(key, handle.value, limit)
        except ValueError as exc:
            handle.value = last[0]
            report(str(exc))
            return
        last[0] = value
        apply(value)

    handle.on_update(on_update)


class OriginGuard:
    """Refuses WebSocket connections of a viser server that do not come from the page it served."""

    def __init__(self, server):
        self.refused = 0
        """Connections refused so far."""
        self._trusted: set[int] = set()
        self._ws = server._websock_server
        self._ws._client_connect_cb.insert(0, self._on_connect)   # before viser's own callbacks
        self._ws.on_client_disconnect(self._on_disconnect)
        dispatch = self._ws._handle_incoming_message

        async def gated(client_id, message) -> None:
            if client_id in self._trusted:
                await dispatch(client_id, message)

        self._ws._handle_incoming_message = gated

    async def _on_connect(self, conn) -> None:
        ws = self._ws._live_connections.get(conn.client_id)
        headers = ws.request.headers if ws is not None and ws.request is not None else {}
        if ws is not None and origin_allowed(headers.get("Origin"), headers.get("Host")):
            self._trusted.add(conn.client_id)
            return
        self.refused += 1
        if ws is not None:
            await ws.close(REFUSED, "origin not allowed")

    def _on_disconnect(self, conn) -> None:
        self._trusted.discard(conn.client_id)
