"""Side panels of the live view: parameters (editable while running), servo set-points, live plots.

Every edit becomes a command for the simulation thread, so it applies between two steps.
"""
from __future__ import annotations

import numpy as np

PLOT_POINTS = 400
"""Samples shown in the live plots (the newest ones)."""


def add_parameter_panel(gui, model, engine) -> None:
    """Gravity, springs, servo gains and set-points, motor efforts, each as an input that sends a command."""
    with gui.add_folder("Parameters", expand_by_default=False):
        g = gui.add_number("Gravity z [m/s²]", initial_value=float(model.gravity[2]), step=0.01)
        g.on_update(lambda _: engine.send("set_params", {"gravity": [*model.gravity[:2], g.value]}))
        for s, name in enumerate(model.spring_names):
            _array_input(gui, engine, f"{name}: stiffness [N/m]", "spring_stiffness", s,
                         model.spring_stiffness[s])
            _array_input(gui, engine, f"{name}: damping [N s/m]", "spring_damping", s,
                         model.spring_damping[s])
        for s, name in enumerate(model.servo_names):
            for c, gain in enumerate(("kp", "ki", "kd")):
                _gain_input(gui, engine, f"{name}: {gain}", s, c, model.servo_gains[s, c])
        for i, name in enumerate(model.motor_names):
            _motor_input(gui, engine, name, i, model.motor_effort[i])
    if model.n_servos:
        with gui.add_folder("Servo set-points"):
            for s, name in enumerate(model.servo_names):
                _setpoint_slider(gui, model, engine, s, name)


def _array_input(gui, engine, label: str, key: str, index: int, value: float) -> None:
    """A number input bound to element ``index`` of the live model array ``key``."""
    box = gui.add_number(label, initial_value=float(value), min=0.0, step=0.01)

    def apply(sim):
        arr = getattr(sim.model, key).copy()
        arr[index] = box.value
        sim.set_params(**{key: arr})

    box.on_update(lambda _: engine.send("call", apply))


def _gain_input(gui, engine, label: str, servo: int, column: int, value: float) -> None:
    box = gui.add_number(label, initial_value=float(value), min=0.0, step=0.1)

    def apply(sim):
        gains = sim.model.servo_gains.copy()
        gains[servo, column] = box.value
        sim.set_params(servo_gains=gains)

    box.on_update(lambda _: engine.send("call", apply))


def _motor_input(gui, engine, name: str, motor: int, value: float) -> None:
    box = gui.add_number(f"{name}: effort [N m or N]", initial_value=float(value), step=0.1)

    def apply(sim):
        sim.state.motor_effort[motor] = box.value

    box.on_update(lambda _: engine.send("call", apply))


def _setpoint_slider(gui, model, engine, servo: int, name: str) -> None:
    """A slider that replaces the servo's set-point table by one constant value."""
    a, b = model.servo_sp_start[servo], model.servo_sp_start[servo + 1]
    values = model.servo_sp_value[a:b]
    span = max(float(np.max(np.abs(values))), 1.0) * 2.0
    slider = gui.add_slider(name, min=-span, max=span, step=span / 200, initial_value=float(values[0]))

    def apply(sim):
        sp = sim.model.servo_sp_value.copy()
        sp[a:b] = slider.value
        sim.set_params(servo_sp_value=sp)

    slider.on_update(lambda _: engine.send("call", apply))


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
                self.plots.append((column, gui.add_uplot(data, series, aspect=2.0, title=label)))

    def update(self, history: list) -> None:
        """Show the newest ``PLOT_POINTS`` samples of the engine's history (t, energy, error, iters, |p|)."""
        if len(history) < 2:
            return
        rows = np.asarray(history[-PLOT_POINTS:], float)
        for column, handle in self.plots:
            handle.data = (rows[:, 0], rows[:, column])
