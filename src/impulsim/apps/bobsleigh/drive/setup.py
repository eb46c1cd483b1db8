"""The pilot's setup: start speed, friction, bumper restitution, spring set and directness, kept per pilot
in a small JSON file (``<dir>/<pilot>.json``)."""
from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, fields
from pathlib import Path

SPRING_SETS = {"soft": 0.7, "standard": 1.0, "hard": 1.4}
"""Factor on the stiffness of the centre separation (α) and front axle (γ) double springs."""
SPRUNG_JOINTS = ("front_hull", "front_axle")


@dataclass
class DriveSetup:
    """What the pilot may change before a run (SI; directness without unit)."""
    start_speed: float = 10.0
    """Speed at the start line [m/s]."""
    mu_t: float = 0.004
    """Runner friction along the runner."""
    mu_b_min: float = 0.02
    """Lateral runner friction at no load."""
    mu_b_max: float = 0.1
    """Lateral runner friction at and above lam_n_max."""
    eps_n: float = 0.05
    """Bumper restitution (extended Newton law)."""
    spring_set: str = "standard"
    """One of SPRING_SETS."""
    directness: float = 0.6667
    """Steering map exponent d: β = β_max sign(i) |i|^(1/d); the default is the two-man bob file's, so that
    the default setup drives exactly the bob of the file."""

    def __post_init__(self):
        for f in fields(self):
            if f.name != "spring_set":
                setattr(self, f.name, float(getattr(self, f.name)))
        if self.spring_set not in SPRING_SETS:
            raise ValueError(f"setup: spring_set must be one of {', '.join(SPRING_SETS)}, got {self.spring_set!r}")
        if not (self.start_speed >= 0 and self.mu_t >= 0 and 0 <= self.mu_b_min <= self.mu_b_max
                and 0 <= self.eps_n <= 1 and 0 < self.directness <= 2):
            raise ValueError("setup: need start_speed ≥ 0, mu_t ≥ 0, 0 ≤ mu_b_min ≤ mu_b_max, eps_n in [0, 1] "
                             f"and directness in (0, 2]; got {asdict(self)}")

    @classmethod
    def from_dict(cls, d: dict) -> DriveSetup:
        known = {f.name for f in fields(cls)}
        bad = sorted(set(d) - known)
        if bad:
            raise ValueError(f"setup: unknown key {bad[0]!r} (known: {', '.join(sorted(known))})")
        return cls(**d)

    def apply(self, bob):
        """A copy of ``bob`` with this setup."""
        out = bob.with_setup(directness=self.directness,
                             runner={"mu_t": self.mu_t, "mu_b_min": self.mu_b_min, "mu_b_max": self.mu_b_max},
                             bumper={"eps_n": self.eps_n})
        k = SPRING_SETS[self.spring_set]
        for b in out.bodies:
            if b["name"] in SPRUNG_JOINTS and len(b.get("spring", ())) > 2:
                sp = list(b["spring"])
                sp[1], sp[2] = sp[1] * k, sp[2] * k
                b["spring"] = tuple(sp)
        return out


def _pilot_file(directory, pilot: str) -> Path:
    if not re.fullmatch(r"[A-Za-z0-9_.-]{1,40}", pilot or "") or pilot.startswith("."):
        raise ValueError(f"pilot name {pilot!r}: use 1–40 letters, digits, '_', '-', '.'")
    return Path(directory) / f"{pilot}.json"


def save_setup(directory, pilot: str, setup: DriveSetup) -> Path:
    """Write the pilot's setup as JSON; returns the file."""
    path = _pilot_file(directory, pilot)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(asdict(setup), indent=1))
    return path


def load_setup(directory, pilot: str) -> DriveSetup:
    """The pilot's saved setup, or the defaults when there is none."""
    path = _pilot_file(directory, pilot)
    if not path.exists():
        return DriveSetup()
    try:
        data = json.loads(path.read_text())
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}:{e.lineno}: setup: not JSON ({e.msg})") from None
    try:
        return DriveSetup.from_dict(data)
    except (TypeError, ValueError) as e:
        raise ValueError(f"{path}:1: {e}") from None
