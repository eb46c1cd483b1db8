"""The seven experiments of Schmitt & Thüring (2000, §5): run a scene, measure what the report measured.

Each ``run_*`` function returns a small result object with our figures; ``REPORT`` holds the report's
figures beside which they are printed (examples/masspoint), tested (tests/masspoint) and tabulated
(docs/masspoint.md). Energies are in J, angles in degrees, steps counted from 1 (step k ends at t = k h).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from impulsim.experiments import schmitt as scenes
from impulsim.methods.masspoint import MassPointMethod, Trajectory, analysis, record
from impulsim.methods.masspoint import diagnostics as dg
from impulsim.simulation import Simulation

REPORT = {
    "pendulum": {"T0": 2.0060666807, "T5": 2.0070219145, "T_sim(h=T5/100)": 2.006687,
                 "T_sim(h=T5/1000)": 2.00701857, "deficit % (h=0.02)": -0.1, "deficit % (h=0.0025)": -0.0015},
    "cube": {"deg/step": 20.09213, "E_kin with V": 100.88887682, "E_kin without V": 102.03840430,
             "distance [m]": 640.0, "float32 first failing step": 202, "float32 x_CM at failure": -128.96},
    "rigid_pendulum": {"E min": -1.345, "E min step": 778, "mean deficit %": -0.038},
    "thread_pendulum": {"first-swing E_kin max": 116.88, "late E_kin max": 23.91, "all taut from step": 3063,
                        "absorbed at 1269": 2.9, "absorbed at 1488": 6.5},
    "rail_pendulum": {"x_CM": 1.5},
    "closed_chain": {"mean deficit %": -0.089, "early E_kin peak": 140.0, "late E_kin max": 115.0,
                     "V-correction failures": 3, "mean V passes": 10.0},
    "top": {"rev/s at max tilt": 3.5944, "rev/s vertical": 3.5939, "max tilt deg": 12.83},
}
"""The report's figures (§5), keyed by experiment."""


def _simulate(scene, h, n_steps, **options):
    model, state = scene
    traj = record(Simulation(model, state, method=MassPointMethod(model, **options), h=h), n_steps)
    return model, traj


@dataclass
class EnergyRun:
    """A recorded run with its energies [J] per sample (index k = after step k)."""
    model: object
    traj: Trajectory
    energy: np.ndarray = field(init=False)
    kinetic: np.ndarray = field(init=False)

    def __post_init__(self):
        self.energy = dg.total_energy(self.model, self.traj.pos, self.traj.vel)
        self.kinetic = dg.kinetic_energy(self.model, self.traj.vel)

    def deficit_percent(self, reference_step: int = 0) -> np.ndarray:
        """100 (E − E[reference]) / E_kin per sample (NaN where E_kin = 0)."""
        return analysis.deficit_percent(self.energy, self.kinetic, self.energy[reference_step])


# 5.1 mathematical pendulum ------------------------------------------------------------------------
@dataclass
class PendulumResult:
    h: float
    n_steps: int
    period: float
    """Measured period [s] from the zero crossings of the bob's x."""
    theory: float
    """Exact period T5 [s] for the amplitude (elliptic integral)."""
    min_deficit_percent: float
    """Most negative E − E0, in % of the largest E_kin of the run."""
    fin_passes_max: int

    @property
    def error(self) -> float:
        """T_sim − T5 [s] (negative: the simulation runs fast)."""
        return self.period - self.theory


def run_pendulum(h: float, n_periods: float = 10.0, amplitude_deg: float = 5.0, **options) -> PendulumResult:
    """§5.1: the 1 m pendulum at ``amplitude_deg`` for ``n_periods`` exact periods at step h [s]."""
    theory = analysis.pendulum_period_theory(math.radians(amplitude_deg), 1.0, scenes.G)
    n = int(round(n_periods * theory / h))
    model, traj = _simulate(scenes.pendulum(amplitude_deg), h, n, **options)
    run = EnergyRun(model, traj)
    period = analysis.period_from_crossings(traj.t, traj.pos[:, model.body("bob"), 0])
    deficit = 100.0 * float(np.min(run.energy - run.energy[0])) / float(run.kinetic.max())
    return PendulumResult(h, n, period, theory, deficit, int(traj.fin_passes.max()))


# 5.2 cube ---------------------------------------------------------------------------------------------
@dataclass
class CubeResult:
    model: object
    traj: Trajectory
    velocity_correction: bool
    degrees_per_step: np.ndarray
    """Turn of a corner about the vertical through the centre of mass in steps 2..n [deg]."""
    kinetic: np.ndarray
    """E_kin after steps 2..n [J] (step 1 carries the kick)."""
    com: np.ndarray
    """Centre of mass after every step [m], shape [n + 1, 3]."""
    failed_steps: np.ndarray
    """Steps whose fin loop hit its cap (1-based)."""

    @property
    def closed_form_kinetic(self) -> float:
        """E_kin implied by the mean turn θ per step for a rigid rotor stepped as this method does [J]:
        |p|²/2M + Σ ½ m_i r_i² (s/h)², r_i the distance from the spin axis, with s = sin θ after the
        velocity correction (velocities ⟂ links) and s = 2 sin(θ/2) without it (chord velocities)."""
        h = float(self.traj.t[2] - self.traj.t[1])
        theta = math.radians(float(np.mean(self.degrees_per_step)))
        s = math.sin(theta) if self.velocity_correction else 2.0 * math.sin(theta / 2.0)
        m = dg.masses(self.model)
        p = dg.linear_momentum(self.model, self.traj.vel[-1])
        r2 = np.sum((self.traj.pos[-1, :, :2] - self.com[-1, :2]) ** 2, axis=1)
        return float(p @ p / (2.0 * m.sum()) + 0.5 * np.sum(m * r2) * (s / h) ** 2)

    @property
    def first_failure(self):
        """First step whose fin loop hit its cap, or None."""
        return int(self.failed_steps[0]) if self.failed_steps.size else None


def run_cube(h: float = 0.16, n_steps: int = 1000, velocity_correction: bool = True, **options) -> CubeResult:
    """§5.2: the kicked weightless cube, 1000 steps of 0.16 s (options: eps, precision, weight, ...)."""
    model, traj = _simulate(scenes.cube(h), h, n_steps, velocity_correction=velocity_correction, **options)
    com = dg.centre_of_mass(model, traj.pos)
    corner = model.body(scenes.cube_corner_name(-1, -1, -1))
    turn = np.degrees(analysis.turn_angles_about_z(traj.pos[:, corner], com))[1:]
    kinetic = dg.kinetic_energy(model, traj.vel)[2:]
    return CubeResult(model, traj, velocity_correction, turn, kinetic, com,
                      np.nonzero(~traj.fin_converged)[0] + 1)


# 5.3 - 5.5 triple pendulums ---------------------------------------------------------------------------
@dataclass
class TriplePendulumResult:
    run: EnergyRun

    def min_energy(self, first: int = 0, last: int | None = None) -> tuple[float, int]:
        """Lowest E_kin + E_pot [J] among steps first..last and the step where it occurs."""
        e = self.run.energy[first:last]
        k = int(np.argmin(e))
        return float(e[k]), first + k

    @property
    def mean_deficit_percent(self) -> float:
        """Mean over steps of 100 E / E_kin (the pendulums start with E = 0)."""
        return float(np.nanmean(self.run.deficit_percent()[1:]))


def run_rigid_pendulum(n_steps: int = 2000, h: float = 0.01, **options) -> TriplePendulumResult:
    """§5.3: the rigid triple pendulum released horizontally, 2000 steps of 0.01 s."""
    return TriplePendulumResult(EnergyRun(*_simulate(scenes.rigid_pendulum(), h, n_steps, **options)))


def run_rail_pendulum(n_steps: int = 2000, h: float = 0.01, **options) -> TriplePendulumResult:
    """§5.5: the rigid triple pendulum hung in a rail along x (the report gives neither h nor length)."""
    return TriplePendulumResult(EnergyRun(*_simulate(scenes.rail_pendulum(), h, n_steps, **options)))


@dataclass
class ThreadPendulumResult:
    run: EnergyRun
    first_swing_kinetic: float
    """Largest E_kin in the first 2 s [J]."""
    late_kinetic: float
    """Largest E_kin from step 4760 on (the report's last figure) [J]."""
    drops: list
    """(step, ΔE) of the thread-tightening events that absorbed more than 0.5 J."""
    last_slack_step: int
    """Last step at which some thread was shorter than its length by more than eps."""


def run_thread_pendulum(n_steps: int = 5000, h: float = 0.01, eps: float = 1e-5, **options):
    """§5.4: the triple pendulum on threads, 5000 steps (h assumed 0.01 s as in §5.3)."""
    model, traj = _simulate(scenes.thread_pendulum(), h, n_steps, eps=eps, **options)
    run = EnergyRun(model, traj)
    slack = (dg.link_lengths(traj.system, traj.pos) < traj.system.con_length - eps).any(axis=1)
    last_slack = int(np.nonzero(slack)[0].max()) if slack.any() else 0
    late = run.kinetic[min(4760, n_steps):]
    return ThreadPendulumResult(run, float(run.kinetic[:int(round(2.0 / h)) + 1].max()),
                                float(late.max()) if late.size else float("nan"),
                                analysis.energy_drops(run.energy, 0.5), last_slack)


def velocity_correction_position_gap(scene, h: float, n_steps: int, eps: float) -> float:
    """Largest |P_with − P_without| [m] between runs with and without the velocity correction (§3.3)."""
    pos = [_simulate(scene(), h, n_steps, eps=eps, velocity_correction=vc)[1].pos for vc in (True, False)]
    return float(np.abs(pos[0] - pos[1]).max())


# 5.6 closed chain ---------------------------------------------------------------------------------------
@dataclass
class ClosedChainResult:
    run: EnergyRun

    @property
    def mean_deficit_percent(self) -> float:
        return float(np.nanmean(self.run.deficit_percent()[1:]))

    @property
    def early_peak_kinetic(self) -> float:
        """Largest E_kin in the first 3 s [J]."""
        return float(self.run.kinetic[:301].max())

    @property
    def late_peak_kinetic(self) -> float:
        """Largest E_kin after the first 3 s [J]."""
        return float(self.run.kinetic[301:].max())

    @property
    def velocity_failures(self) -> np.ndarray:
        """Steps whose velocity correction hit its cap (1-based)."""
        return np.nonzero(~self.run.traj.vel_converged)[0] + 1


def run_closed_chain(n_steps: int = 1200, h: float = 0.01, **options) -> ClosedChainResult:
    """§5.6: the chain between two fixed points, 1200 steps of 0.01 s."""
    return ClosedChainResult(EnergyRun(*_simulate(scenes.closed_chain(), h, n_steps, **options)))


# 5.7 top -----------------------------------------------------------------------------------------------
@dataclass
class TopResult:
    run: EnergyRun
    spin: np.ndarray
    """Spin about the top's axis in steps 2..n [rev/s]."""
    tilt: np.ndarray
    """Angle between axis and vertical after steps 1..n [deg]."""

    @property
    def max_tilt_step(self) -> int:
        return int(np.argmax(self.tilt)) + 1

    @property
    def vertical_step(self) -> int:
        """Step (after the first swing out) at which the axis comes closest to the vertical."""
        settle = int(np.argmax(self.tilt > 1.0))
        return settle + int(np.argmin(self.tilt[settle:])) + 1

    def spin_at(self, step: int) -> float:
        return float(self.spin[step - 2])

    def deficit_at(self, step: int) -> float:
        """E − E(after the kick) at a step, in % of E_kin there."""
        return float(self.run.deficit_percent(reference_step=1)[step])


def run_top(n_steps: int = 2233, h: float = 0.005, height: float = 1.0, **options) -> TopResult:
    """§5.7: the kicked top, 2233 steps of 0.005 s."""
    model, traj = _simulate(scenes.top(height, h), h, n_steps, **options)
    p = traj.pos
    frames = analysis.body_frames(*(p[:, model.body(name)] for name in ("p1", "p2", "p3")))
    spin = analysis.spin_per_step(frames)[1:] / (2.0 * math.pi * h)
    tilt = np.degrees(analysis.tilt_from_vertical(frames))[1:]
    return TopResult(EnergyRun(model, traj), spin, tilt)
