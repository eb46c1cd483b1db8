"""Console helpers: the progress bar of long runs (``Simulation.run(progress=True)``, ``impulsim run``,
sweeps) and a quiet stdout for libraries that print."""
from __future__ import annotations

import contextlib
import io


def progress_bar(total: int, desc: str = "", unit: str = "step"):
    """A tqdm bar over ``total`` items on stderr, counted in ``unit`` ("step", "case"); it appears only
    after a second, so short runs show none, and it is removed when closed.

    The bar runs without tqdm's monitor thread (its only use is to redraw bars whose updates come rarely):
    a process with a second thread cannot safely fork, and the first contact step forks to compile on two
    cores (impulsim.forked_compile)."""
    from tqdm import tqdm

    class _Bar(tqdm):
        monitor_interval = 0

    return _Bar(total=total, desc=desc, unit=unit, mininterval=0.5, delay=1.0, leave=False)


@contextlib.contextmanager
def quiet_stdout():
    """Swallow what a library prints to stdout meanwhile (viser's "(viser) Server stopped")."""
    with contextlib.redirect_stdout(io.StringIO()):
        yield
