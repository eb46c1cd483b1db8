"""Plain records the builder collects before compiling (user frames, user units)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np


@dataclass
class Material:
    """Surface material: restitution e and Coulomb friction coefficients (static ≥ dynamic)."""
    name: str = "default"
    restitution: float = 0.0
    static_friction: float = 0.0
    dynamic_friction: float = 0.0
    density: float = 1000.0
    """Density [kg/m³] used when a body's mass comes from its shapes."""


@dataclass
class BodySpec:
    name: str
    shapes: list
    mass: Optional[float]
    inertia: Optional[np.ndarray]
    com: Optional[np.ndarray]
    density: Optional[float]
    position: np.ndarray
    orientation: np.ndarray
    velocity: np.ndarray
    angular_velocity: np.ndarray
    static: bool
    kinematic: bool
    material: Optional[str]
    collision_group: int = 1
    collision_mask: int = -1
    where: str = ""
    point: bool = False
    """A point mass: mass only, no rotational inertia, no shapes; its orientation is never used."""


@dataclass
class JointSpec:
    name: str
    kind: int
    body_a: str
    body_b: str
    anchor: Optional[np.ndarray] = None
    anchor_a: Optional[np.ndarray] = None
    anchor_b: Optional[np.ndarray] = None
    axis: Optional[np.ndarray] = None
    axis_a: Optional[np.ndarray] = None
    axis_b: Optional[np.ndarray] = None
    length: Optional[float] = None
    velocity: Optional[np.ndarray] = None
    angular_velocity: Optional[np.ndarray] = None
    where: str = ""


@dataclass
class LimitSpec:
    name: str
    joint: str
    coordinate: int | None
    lower: float
    upper: float
    restitution: float
    where: str = ""


@dataclass
class MotorSpec:
    name: str
    joint: str
    coordinate: int
    effort: float
    where: str = ""


@dataclass
class ServoSpec:
    name: str
    joint: str
    mode: int
    kp: float
    ki: float
    kd: float
    limit: float
    setpoints: list = field(default_factory=list)  # [(t, value), ...]
    interpolate: bool = False
    where: str = ""


@dataclass
class SpringSpec:
    name: str
    body_a: str
    body_b: str
    anchor_a: Optional[np.ndarray]
    anchor_b: Optional[np.ndarray]
    stiffness: float
    damping: float
    rest_length: Optional[float]
    where: str = ""


@dataclass
class LoadSpec:
    body: str
    force: np.ndarray
    torque: np.ndarray
    start: float
    end: float
    where: str = ""
