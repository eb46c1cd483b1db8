"""Side panels of the live view: parameters (editable while running), servo set-points, live plots.

Every edit becomes a command for the simulation thread, so it applies between two steps.
"""
from __future__ import annotations

import numpy as np

from impulsim.viewer.guard import LIMITS, Limit, guarded_input

PLOT_POINTS = 400
"""Samples shown in the live plots (the newest ones)."""


def add_parameter_panel(gui, model, engine, report=lambda message: None) -> dict:
    """Gravity, springs, servo gains and set-points, motor efforts, each as an input that sends a command.

    Every value a browser sends is checked on the server against :data:`~impulsim.viewer.guard.LIMITS`
    (a value outside is refused, the input reset and ``report(message)`` called). Returns the gravity
    input as ``{"gravity": handle}``."""
    with gui.add_folder("Parameters", expand_by_default=False):
        lim = LIMITS["gravity"]
        g = gui.add_number("Gravity z [m/s²]", initial_value=float(model.gravity[2]), step=0.01,
                           min=lim.lo, max=lim.hi)
        guarded_input(g, "gravity", lambda gz: engine.send("set_params",
                                                           {"gravity": [*model.gravity[:2], gz]}), report)
        for s, name in enumerate(model.spring_names):
            _array_input(gui, engine, report, f"{name}: stiffness [N/m]", "spring_stiffness", s,
                         model.spring_stiffness[s])
            _array_input(gui, engine, report, f"{name}: damping [N s/m]", "spring_damping", s,
                         model.spring_damping[s])
        for s, name in enumerate(model.servo_names):
            for c, gain in enumerate(("kp", "ki", "kd")):
                _gain_input(gui, engine, report, f"{name}: {gain}", s, c, model.servo_gains[s, c])
        for i, name in enumerate(model.motor_names):
            _motor_input(gui, engine, report, name, i, model.motor_effort[i])
    if model.n_servos:
        with gui.add_folder("Servo set-points"):
            for s, name in enumerate(model.servo_names):
                _setpoint_slider(gui, model, engine, report, s, name)
    return {"gravity": g}


def _array_input(gui, engine, report, label: str, key: str, index: int, value: float) -> None:
    """A number input bound to element ``index`` of the live model array ``key``."""
    lim = LIMITS["stiffness"]
    box = gui.add_number(label, initial_value=float(value), min=lim.lo, max=lim.hi, step=0.01)

    def apply(x):
        def call(sim):
            arr = getattr(sim.model, key).copy()
            arr[index] = x
            sim.set_params(**{key: arr})
        engine.send("call", call)

    guarded_input(box, "stiffness", apply, report)


def _gain_input(gui, engine, report, label: str, servo: int, column: int, value: float) -> None:
    lim = LIMITS["gain"]
    box = gui.add_number(label, initial_value=float(value), min=lim.lo, max=lim.hi, step=0.1)

    def apply(x):
        def call(sim):
            gains = sim.model.servo_gains.copy()
            gains[servo, column] = x
            sim.set_params(servo_gains=gains)
        engine.send("call", call)

    guarded_input(box, "gain", apply, report)


def _motor_input(gui, engine, report, name: str, motor: int, value: float) -> None:
    lim = LIMITS["effort"]
    box = gui.add_number(f"{name}: effort [N m or N]", initial_value=float(value), step=0.1,
                         min=lim.lo, max=lim.hi)

    def apply(x):
        def call(sim):
            sim.state.motor_effort[motor] = x
        engine.send("call", call)

    guarded_input(box, "effort", apply, report)


def _setpoint_slider(gui, model, engine, report, servo: int, name: str) -> None:
    """A slider that replaces the servo's set-point table by one constant value."""
    a, b = model.servo_sp_start[servo], model.servo_sp_start[servo + 1]
    values = model.servo_sp_value[a:b]
    span = max(float(np.max(np.abs(values))), 1.0) * 2.0
    slider = gui.add_slider(name, min=-span, max=span, step=span / 200, initial_value=float(values[0]))

    def apply(x):
        def call(sim):
            sp = sim.model.servo_sp_value.copy()
            sp[a:b] = x
            sim.set_params(servo_sp_value=sp)
        engine.send("call", call)

    guarded_input(slider, f"{name} set-point", apply, report, Limit(-span, span))


class LivePlots:
    """uPlot charts of energy, momentum, largest constraint error and position iterations over time."""

    SERIES = (("Energy [J]", 1, "#1f77b4"), ("Momentum |p| [kg m/s]", 4, "#9467bd"),
              ("Constraint error [m or rad]", 2, "#d62728"), ("Iterations (position)", 3, "#2ca02c"))

    def __init__(self, gui):
        from viser import uplot
        self.plots = []
        with gui.add_folder("Plots", expand_by_default=False):
            for label, column, color in self.SERIES:
                data = (np.zeros(1), np.zeros(1))
                series = (uplot.Series(label="t [s]"), uplot.Series(label=label, stroke=color, width=2))
                # time: False -- the x values are simulated seconds, not calendar timestamps
                self.plots.append((column, gui.add_uplot(data, series, aspect=2.0, title=label,
                                                         scales={"x": uplot.Scale(time=False)})))

    def update(self, history: list) -> None:
        """Show the newest ``PLOT_POINTS`` samples of the engine's history (t, energy, error, iters, |p|)."""
        if len(history) < 2:
            return
        rows = np.asarray(history[-PLOT_POINTS:], float)
        for column, handle in self.plots:
            handle.data = (rows[:, 0], rows[:, column])
