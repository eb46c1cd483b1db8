"""Interactive viewer: a live 3D view in the browser (viser) over a simulation thread.

``impulsim view SCENE`` or :func:`view_scene`. Needs the ``viewer`` extra (viser).
"""
from impulsim.viewer.engine import SimulationThread, Snapshot, apply_impulse


def view_scene(*args, **kwargs):
    """Load a scene file and show it live in the browser (see :func:`impulsim.viewer.app.view_scene`)."""
    from impulsim.viewer.app import view_scene as _view
    return _view(*args, **kwargs)


__all__ = ["SimulationThread", "Snapshot", "apply_impulse", "view_scene"]
