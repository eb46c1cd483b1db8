"""The bobsleigh simulator's part of ``impulsim warmup`` (entry-point group ``impulsim.warmup``).

The bob steps in minimal coordinates (:mod:`impulsim.methods.moreau_minimal`) with contacts against the track's
mesh: kernels no scene file of the library reaches. One task runs a fraction of a second of a pilot's run
down the test chute (the code of ``impulsim bob run`` and of a sweep of bob setups) and a frame of the driving
page's session (which also reads the bob's kinematics from Python), so that their first run loads its kernels
from the cache instead of compiling them (about 35 s of CPU on an empty cache).
"""
from __future__ import annotations

import tempfile

from impulsim.warmup import WarmupTask

SECONDS = 0.05
"""Simulated time of the warm-up run [s]: five pilot decisions and recorder rows, with the runners on the ice."""


def _short_run_and_a_frame() -> None:
    from impulsim.apps.bobsleigh.drive.session import DriveSession
    from impulsim.apps.bobsleigh.run import run
    run("test_chute", max_time=SECONDS)
    with tempfile.TemporaryDirectory() as runs:
        session = DriveSession("test_chute", runs_dir=runs, reference=False)
        session.start()
        session.tick(1 / 60)


def warmup_tasks() -> list[WarmupTask]:
    """The tasks ``impulsim warmup`` runs for the bobsleigh simulator (group ``bobsleigh``)."""
    return [WarmupTask("bobsleigh run and driving frame", "bobsleigh", action=_short_run_and_a_frame,
                       cpu_s=35.0)]
