"""Shared helpers of the Featherstone examples: run a Holck scene and report a check."""
from __future__ import annotations

import impulsim as ims
from impulsim.methods.featherstone import FeatherstoneMethod


def simulate(scene, h, **extra):
    """A Simulation of ``scene`` = (model, state, options) with the Featherstone method."""
    model, state, options = scene
    options = {**options, **extra}
    return ims.Simulation(model, state, method=FeatherstoneMethod(model, **options), h=h)


def report(name: str, ok: bool, text: str) -> int:
    """Print one result line; returns 1 on failure (summed into the exit code)."""
    print(f"{name}: {text} -> {'ok' if ok else 'FAILED'}")
    return 0 if ok else 1


class LimitWatch:
    """Runs a simulation and records, per joint, the range of its coordinate, the largest rise of the total
    energy within a step and the largest displacement of any joint over the last ``window`` seconds (how
    far from rest the links are; the end-of-step rate of a link held on a stop by impulses is ½ h |q̈|,
    not 0, so the displacement is the measure of rest)."""

    def __init__(self, sim, joints, window=0.5):
        from impulsim.dynamics import diagnostics
        from impulsim.dynamics.diagnostics import joint_coordinate
        self.sim, self.joints, self.window = sim, list(joints), window
        self._energy = lambda: diagnostics.total_energy(sim.model, sim.state)
        self._q = lambda: [joint_coordinate(sim.model, sim.state, j) for j in self.joints]
        q = self._q()
        self.low, self.high = list(q), list(q)
        self.energy0 = self.energy = self._energy()
        self.rise = 0.0
        self.history = []

    def run(self, duration):
        sim = self.sim
        while sim.t < duration - 1e-12:
            sim.step()
            q = self._q()
            self.low = [min(a, b) for a, b in zip(self.low, q)]
            self.high = [max(a, b) for a, b in zip(self.high, q)]
            energy = self._energy()
            self.rise = max(self.rise, energy - self.energy)
            self.energy = energy
            self.history.append((sim.t, q))
        return self

    def drift(self):
        """Largest |Δq| of any joint between the start of the last window and any later step [rad or m]."""
        end = self.history[-1][0]
        recent = [q for t, q in self.history if t >= end - self.window]
        return max(abs(a - b) for q in recent for a, b in zip(q, recent[0]))

    def overshoot(self, bounds):
        """Largest crossing of the bounds {joint: (lower, upper)} seen [rad or m] (0 if never crossed)."""
        worst = 0.0
        for j, lo, hi in zip(self.joints, self.low, self.high):
            lower, upper = bounds[j]
            worst = max(worst, lower - lo, hi - upper)
        return worst
