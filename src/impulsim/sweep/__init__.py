"""Parameter sweeps and ensembles: many runs of one scene with changed parameters, on Dask.

A *design* (grid, list, random or Latin hypercube) turns parameter ranges into *cases*; each case is the
scene with its parameters set (:mod:`~impulsim.sweep.cases`), run for a duration with any method and
summarised by *metrics* (:mod:`~impulsim.sweep.metrics`). Cases run on a Dask ``LocalCluster`` (one
worker per core) or on any scheduler address; each finished case is written to disk at once, so a failed
case is a row with its error and a killed sweep resumes where it stopped (:mod:`~impulsim.sweep.store`).
:func:`run_function_sweep` does the same for a function of the case's values instead of a scene file (an
application's run, say).

    import impulsim.sweep
    table = impulsim.sweep("examples/falling_boxes.yaml",
                           {"materials.rubber.restitution": "0.2:0.9:8"}, duration=2.0,
                           metrics=["final.ball1.z", "energy.change"], out="out/sweep")
    table.to_pandas()
"""
import sys

from impulsim.sweep.design import Parameter, parse_parameter, make_design
from impulsim.sweep.runner import SweepError, run_sweep, run_function_sweep, read_sweep, load_sweep_file
from impulsim.sweep.plots import plot_sweep

__all__ = ["Parameter", "parse_parameter", "make_design", "SweepError", "run_sweep", "run_function_sweep",
           "read_sweep",
           "load_sweep_file", "plot_sweep"]


class _CallableModule(type(sys)):
    """Lets ``impulsim.sweep(...)`` stand for :func:`run_sweep` after ``import impulsim.sweep``."""

    def __call__(self, *args, **kwargs):
        return run_sweep(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
