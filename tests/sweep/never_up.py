"""A Dask worker preload that keeps its worker from ever coming up, for the start-up deadline tests: it
writes the worker's process id into the folder named by the Dask config key ``impulsim-test.never-up-dir``
and then blocks the worker's start for an hour, or, if the key ``impulsim-test.fail`` is set, ends the
worker process at once."""
import os
import time

import dask


def dask_setup(worker):
    folder = dask.config.get("impulsim-test.never-up-dir")
    with open(os.path.join(folder, f"{os.getpid()}.pid"), "w") as f:
        f.write(str(os.getpid()))
    if dask.config.get("impulsim-test.fail", False):
        os._exit(3)                  # the worker process ends while it starts
    time.sleep(3600)
