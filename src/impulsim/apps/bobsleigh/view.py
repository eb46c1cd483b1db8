"""What a pilot (and the timing) needs of the track, fast: the discrete track profile sampled once, and
local projections of the bob's points onto it (station s, lateral offset b to the left, height h above the
centre line, as Track.project defines them: b horizontal, h vertical)."""
from __future__ import annotations

import math

import numpy as np


class TrackView:
    """Centre line, tangents and horizontal left directions every ``ds`` [m]; projections search near the
    last station found, so one query costs microseconds."""

    def __init__(self, track, ds: float = 0.25):
        s0, s1 = float(track.s_min), float(track.s_max)
        self.s = np.arange(s0, s1 + 1e-9, ds)
        origin, tangent, lateral, _ = track.frame(self.s)
        self.c = np.asarray(origin, float)
        self.t = np.asarray(tangent, float)
        lat = np.asarray(lateral, float).copy()
        lat[:, 2] = 0.0
        self.lat = lat / np.linalg.norm(lat, axis=1)[:, None]
        self.ds = ds
        self.last = 0
        self._track = track
        self._sections = {}

    def index(self, s):
        return min(max(int((s - self.s[0]) // self.ds), 0), len(self.s) - 2)

    def turn_rate(self, s, speed):
        """Rate [rad/s] at which the plan-view heading of the track turns at s for a bob at ``speed``."""
        i = self.index(s)
        t0, t1 = self.t[i], self.t[i + 1]
        return speed * math.atan2(t0[0] * t1[1] - t0[1] * t1[0], t0[0] * t1[0] + t0[1] * t1[1]) / self.ds

    def point(self, s, b=0.0, h=0.0):
        """World point c(s) + b e_lat + h e_z (linear between samples)."""
        i = self.index(s)
        f = (s - self.s[i]) / self.ds
        c = (1 - f) * self.c[i] + f * self.c[i + 1]
        lat = (1 - f) * self.lat[i] + f * self.lat[i + 1]
        return c + b * lat + np.array([0.0, 0.0, h])

    def frame(self, s):
        """(origin, unit tangent, unit horizontal left) at s."""
        i = self.index(s)
        f = (s - self.s[i]) / self.ds
        t = (1 - f) * self.t[i] + f * self.t[i + 1]
        lat = (1 - f) * self.lat[i] + f * self.lat[i + 1]
        return self.point(s), t / np.linalg.norm(t), lat / np.linalg.norm(lat)

    def seek(self, s):
        """Start the next local search at station s [m]."""
        self.last = self.index(s)

    def project(self, p, window: int = 20):
        """(s, b, h) of world point p, searching ±window samples around the last result."""
        lo = max(self.last - window, 0)
        hi = min(self.last + window, len(self.s) - 1)
        d = self.c[lo:hi + 1] - p
        # the section whose vertical plane holds p: (p − c_i)·t_i changes sign between i and i + 1
        along = -np.einsum("ij,ij->i", d, self.t[lo:hi + 1])
        k = int(np.argmin(np.abs(along) + 1e-3 * np.linalg.norm(d, axis=1)))
        i = lo + k
        if along[k] < 0 and i > 0:
            i -= 1
        i = min(i, len(self.s) - 2)
        a0 = float((p - self.c[i]) @ self.t[i])
        a1 = float((p - self.c[i + 1]) @ self.t[i + 1])
        f = float(np.clip(a0 / (a0 - a1), 0.0, 1.0)) if a0 != a1 else 0.0
        self.last = i
        s = self.s[i] + f * self.ds
        c = (1 - f) * self.c[i] + f * self.c[i + 1]
        lat = (1 - f) * self.lat[i] + f * self.lat[i + 1]
        lat /= np.linalg.norm(lat)
        return s, float((p - c) @ lat), float(p[2] - c[2])

    SECTION_DS = 1.0
    """Spacing [m] of the cross-sections the riding place is read from."""

    def _section(self, s):
        """(b, h, slope) [m, m, rad] of 81 points across the section nearest to s, left to right."""
        key = int(round(s / self.SECTION_DS))
        sec = self._sections.get(key)
        if sec is None:
            st = min(max(key * self.SECTION_DS, float(self._track.s_min)), float(self._track.s_max))
            pts = self._track.section_points(st, 81)
            origin, _, lateral, up = self._track.frame([st])
            d = pts - origin[0]
            b, h = d @ lateral[0], d @ up[0]
            slope = np.arctan2(np.abs(np.gradient(h)), np.abs(np.gradient(b)))
            sec = self._sections[key] = (b, h, slope, float(self._track.curvature(np.array([st]))[0]))
        return sec

    def riding_place(self, s, speed, g=9.81):
        """Where a bob at ``speed`` [m/s] rides in the section at s without steering: (b, h) [m] of the
        point on the curve's outer wall whose slope equals the banking atan(v² κ / g) at which the ice's
        normal force balances gravity and the centripetal force; the lowest point of the floor where the
        channel is straight."""
        b, h, slope, kappa = self._section(s)
        flat = np.flatnonzero(h <= h.min() + 1e-3)
        low = int(flat[np.argmin(np.abs(b[flat]))])             # the floor's lowest point nearest the centre
        bank = math.atan(speed * speed * abs(kappa) / g)
        side = range(low, len(b)) if kappa > 0 else range(low, -1, -1)    # outer wall: right in a left curve
        prev = low
        for j in side:
            if slope[j] >= bank:
                if j == low:
                    break
                f = (bank - slope[prev]) / max(slope[j] - slope[prev], 1e-9)
                return (float(b[prev] + f * (b[j] - b[prev])), float(h[prev] + f * (h[j] - h[prev])))
            prev = j
        else:
            return float(b[prev]), float(h[prev])
        return float(b[low]), float(h[low])
