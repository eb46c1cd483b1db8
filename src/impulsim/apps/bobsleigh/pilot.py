"""A reproducible pilot: steers from what a pilot sees, the track ahead and where the bob is in the channel.

Every 10 ms the pilot picks an aim point ``look_ahead`` seconds ahead along the track (at least
``min_distance`` metres), between the place where the bob will ride there and the chosen line (offset
``line_offset`` on the floor, h = 0). The riding place is where the section's outer wall is banked at
atan(v² κ / g) for the present speed v and the curvature κ at the aim station (the floor on straights), the
place an unsteered bob settles at: it rises up the wall into a curve and comes down at its exit, ahead of
the bob, as a pilot anticipates it. ``line_pull`` = 0 aims at the riding place; 1 aims at the line itself. The steering input is proportional to the angle between the bob's heading and the aim
point, seen in the bob's own plane, minus a damping of the yaw rate relative to the channel:

    i = clip(gain · angle − damping · (ω_z − v κ), −1, 1),    β = β_max sign(i) |i|^(1/d)

Same track, bob, pilot and start speed give the same run to the last digit.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, fields



@dataclass(frozen=True)
class Pilot:
    """Parameters of the pilot (see the module docstring)."""
    look_ahead: float = 0.6
    """Time ahead of the aim point [s]."""
    min_distance: float = 6.0
    """Least distance of the aim point [m]."""
    gain: float = 3.0
    """Steering input per radian of heading error [1/rad]."""
    damping: float = 0.3
    """Steering input per rad/s of yaw rate relative to the channel [s/rad]."""
    line_offset: float = 0.0
    """The chosen line's lateral offset from the centre line [m], positive left."""
    line_pull: float = 0.3
    """How much the aim point moves from the present offset to the line, in [0, 1]."""

    def __post_init__(self):
        if not (self.look_ahead >= 0 and self.min_distance > 0 and self.gain >= 0 and self.damping >= 0
                and 0 <= self.line_pull <= 1):
            raise ValueError(f"pilot: need look_ahead ≥ 0, min_distance > 0, gain ≥ 0, damping ≥ 0 and "
                             f"line_pull in [0, 1]; got {self}")

    @classmethod
    def from_text(cls, text: str) -> "Pilot":
        """``"gain=3,look_ahead=0.5"`` → Pilot (unknown names are an error)."""
        names = {f.name for f in fields(cls)}
        values = {}
        for item in filter(None, (x.strip() for x in (text or "").split(","))):
            key, _, val = item.partition("=")
            if key not in names:
                raise ValueError(f"pilot: unknown parameter {key!r} (known: {', '.join(sorted(names))})")
            try:
                values[key] = float(val)
            except ValueError:
                raise ValueError(f"pilot: {key} needs a number, got {val!r}") from None
        return cls(**values)

    def steer(self, view, s, b, h, nose, R, speed, yaw_rate):
        """Steering input i ∈ [−1, 1] from the bob's station s, offset b, height h [m], nose point and
        rotation R (columns forward, left, up), speed [m/s] and yaw rate about its up axis [rad/s]."""
        dist = max(self.look_ahead * speed, self.min_distance)
        b_ride, h_ride = view.riding_place(s + dist, speed)
        b_aim = b_ride + self.line_pull * (self.line_offset - b_ride)
        h_aim = (1.0 - self.line_pull) * h_ride
        aim = view.point(s + dist, b_aim, h_aim)
        d = R.T @ (aim - nose)
        angle = math.atan2(d[1], d[0])
        i = self.gain * angle - self.damping * (yaw_rate - view.turn_rate(s, speed))
        return min(max(float(i), -1.0), 1.0)
