"""A running simulation: model + state + method + step size, with hooks and a run loop."""
from __future__ import annotations

import math
from typing import Callable, Optional

from impulsim.methods import make, Method, StepInfo
from impulsim.model.model import Model
from impulsim.model.state import State


class Simulation:
    """Steps a model with one method at a fixed step size h [s].

    ``before_step`` / ``after_step`` hold callbacks ``fn(sim)`` (after-step ones get ``fn(sim, info)``);
    they may read and change the state and the method's options between steps.
    """

    def __init__(self, model: Model, state: Optional[State] = None, method: str | Method = "impulse",
                 h: float = 1e-3, **method_options):
        self.model = model
        if state is None:
            raise ValueError("Simulation needs the initial State returned by ModelBuilder.build()")
        self.state = state
        self.method = method if isinstance(method, Method) else make(method, model, **method_options)
        self.h = float(h)
        self.before_step: list[Callable] = []
        self.after_step: list[Callable] = []
        self.last_info: Optional[StepInfo] = None

    @property
    def t(self) -> float:
        return self.state.t

    def step(self) -> StepInfo:
        """One step of size h; hooks run around it."""
        for fn in self.before_step:
            fn(self)
        info = self.method.step(self.state, self.h)
        self.last_info = info
        for fn in self.after_step:
            fn(self, info)
        return info

    def run(self, duration: float, *, progress: bool = False, every: int = 1,
            observer: Optional[Callable] = None) -> int:
        """Advance by ``duration`` [s] (rounded to whole steps); returns the number of steps taken.

        ``observer(sim, info)`` is called every ``every`` steps (e.g. a recorder).
        """
        n = max(0, int(math.floor(duration / self.h + 0.5)))
        bar = _progress(n, progress, self.model.name)
        for i in range(n):
            info = self.step()
            if observer is not None and (i + 1) % every == 0:
                observer(self, info)
            if bar is not None:
                bar.update(1)
        if bar is not None:
            bar.close()
        return n


def _progress(n, enabled, name):
    if not enabled:
        return None
    from tqdm import tqdm
    return tqdm(total=n, desc=name, unit="step", mininterval=0.5, leave=False)
