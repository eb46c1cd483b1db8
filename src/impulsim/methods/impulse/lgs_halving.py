"""Step halving for the joint correction under fast motion (LGS joints; iterative ones too, see
:class:`HalvingStepper` for their budget).

The joint correction looks for impulses at t0 that close every joint after a free step of h. When bodies
turn by a sizeable angle in one step (Bender's 255-body tree with every joint spinning at ~1.6 rad/s,
h = 1/30 s: leaves at up to 9 rad/s) that system can have no solution near the start: the largest error
stalls at ~2e-3 m under the plain iteration, under Anderson acceleration and under Newton's method with
the exact (finite-difference) Jacobian alike, while the impulses grow. No faster iteration fixes that; a
shorter step does (the same tree at h = 1/60 s needs at most 3 solves a step). :class:`HalvingStepper`
therefore tries the whole step with a small solve budget and, if the joints are not closed, takes it as
two half steps instead (recursively, to a depth limit). A step that converges within the budget is the
method's own step, bit for bit.
"""
from __future__ import annotations

from dataclasses import dataclass

from impulsim.methods.base import StepInfo
from impulsim.methods.impulse.lgs import CorrectionDiverged

SOLVE_BUDGET = 8
"""Solves a step may take before it is halved. A converging correction gains a factor ~10 a solve (the
iteration matrix of tree 255 at a fast step has spectral radius 0.09), so 8 solves take an error of
max_correction_speed·h to below 1e-6 m; the gentle Bender cases take 1–3."""

MAX_HALVINGS = 4
"""Deepest halving (h / 16); the last level runs with the method's own solve cap (anytime)."""

RETRY_AFTER = 8
"""Steps at a halving level before the stepper tries one level coarser again. Fast motion lasts many steps,
so a step starts at the level its predecessor needed instead of paying a failed attempt every step."""


@dataclass
class HalvingInfo:
    """What one halving step did: the solves of every attempt and the substeps that made the step."""
    solves_pos: int = 0
    """Joint-correction solves (LGS) or sweeps (iterative) of all attempts, the discarded ones included."""
    solves_vel: int = 0
    substeps: int = 0
    converged_pos: bool = True
    residual_pos: float = 0.0


class HalvingStepper:
    """Steps an impulse-method model with step halving when the joint correction does not converge within
    ``budget`` solves or diverges (CorrectionDiverged). ``step(state, h)`` advances ``state`` by h [s] in
    place and returns a :class:`HalvingInfo`; on an error the state is left as it was (the method's steps
    are transactional).

    The default budget is SOLVE_BUDGET solves when the model has LGS chains. A method whose joints are all
    corrected iteratively needs hundreds to thousands of sweeps on a long chain even at a step that converges
    (Gauss–Seidel gains little a sweep), so a small budget would halve every step: its default budget is the
    method's own cap (``max_iter_pos``), and a step is halved when its correction diverges or stops at that
    cap."""

    def __init__(self, method, budget: int | None = None, max_halvings: int = MAX_HALVINGS,
                 retry_after: int = RETRY_AFTER):
        if budget is None:      # see the class docstring: LGS solves, or the iterative sweeps' own cap
            budget = SOLVE_BUDGET if getattr(method, "_lgs", True) is not None else method.max_iter_pos
        if budget < 1 or max_halvings < 0 or retry_after < 1:
            raise ValueError(f"budget and retry_after must be >= 1 and max_halvings >= 0 (got {budget}, "
                             f"{retry_after}, {max_halvings})")
        self.method = method
        self.budget = int(budget)
        self.max_halvings = int(max_halvings)
        self.retry_after = int(retry_after)
        self.level = 0
        """Halvings the last step needed: the next step starts with 2^level substeps."""
        self._steady = 0
        self._saved = []
        """Start of the step and of the attempt at each level (states allocated once, overwritten)."""

    def _save(self, slot, s):
        while len(self._saved) <= slot:
            self._saved.append(s.copy())
        self._saved[slot].assign_motion(s)
        return self._saved[slot]

    def step(self, state, h: float) -> HalvingInfo:
        out = HalvingInfo()
        backup = self._save(0, state)
        start = self.level
        if start > 0 and self._steady >= self.retry_after:
            start -= 1
        deepest = start
        try:
            for _ in range(2 ** start):
                deepest = max(deepest, self._advance(state, h / 2 ** start, start, out))
        except BaseException:
            state.assign_motion(backup)
            raise
        self._steady = self._steady + 1 if deepest == self.level else 0
        self.level = deepest
        return out

    def _advance(self, s, h, level, out) -> int:
        """Advance s by h at halving ``level``; returns the deepest level used."""
        if level == self.max_halvings:
            self._record(self.method.step(s, h), out)
            return level
        start = self._save(level + 1, s)
        info = self._capped_step(s, h)
        out.solves_pos += info.iters_pos
        if info.converged_pos:
            out.solves_vel += info.iters_vel
            out.substeps += 1
            out.residual_pos = max(out.residual_pos, info.residual_pos)
            return level
        s.assign_motion(start)
        a = self._advance(s, 0.5 * h, level + 1, out)
        return max(a, self._advance(s, 0.5 * h, level + 1, out))

    def _capped_step(self, s, h) -> StepInfo:
        """The method's step with at most ``budget`` solves; a step whose correction diverged (the method
        raised and left ``s`` as it was) counts as not converged after the solves it took."""
        m = self.method
        cap = m.max_iter_pos
        m.max_iter_pos = min(cap, self.budget)
        try:
            return m.step(s, h)
        except CorrectionDiverged as exc:
            return StepInfo(iters_pos=exc.solves, residual_pos=exc.residual, converged_pos=False)
        finally:
            m.max_iter_pos = cap

    @staticmethod
    def _record(info, out):
        out.solves_pos += info.iters_pos
        out.solves_vel += info.iters_vel
        out.substeps += 1
        out.converged_pos = out.converged_pos and info.converged_pos
        out.residual_pos = max(out.residual_pos, info.residual_pos)
