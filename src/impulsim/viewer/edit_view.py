"""The 3D view follows an edited scene: when an edit changes the model, the body nodes are kept if the
bodies and their shapes are the same, and built again if a body came, went or changed its shapes."""
from __future__ import annotations

import numpy as np

from impulsim.io.shape_meshes import body_meshes


def same_bodies(old_meshes, new_meshes, old_model, new_model) -> bool:
    """Whether two models show the same bodies with the same meshes (then the nodes can stay)."""
    if list(old_model.body_names) != list(new_model.body_names):
        return False
    if len(old_meshes) != len(new_meshes):
        return False
    return all(a.body == b.body and a.name == b.name and np.array_equal(a.vertices, b.vertices)
               for a, b in zip(old_meshes, new_meshes))


def follow_model(viewer, snap) -> None:
    """Show ``snap.model`` instead of ``viewer.model``: swap the model, and rebuild the body nodes and joint
    frames when the bodies differ (a selection that no longer exists is dropped)."""
    from impulsim.viewer.app import body_sizes
    model = snap.model
    meshes = body_meshes(model)
    if same_bodies(viewer.meshes, meshes, viewer.model, model) and \
            list(viewer.model.joint_names) == list(model.joint_names):
        viewer.model = model
        return
    old_names = list(viewer.model.body_names)
    selected = getattr(viewer, "selected_body", None)
    selected_name = old_names[selected] if selected is not None and selected < len(old_names) else None
    for frame in viewer.joint_frames:
        frame.remove()
    viewer.server.scene.remove_by_name("/bodies")
    viewer.server.scene.remove_by_name("/joints")
    if viewer.manipulator is not None:
        viewer.manipulator.remove()
        viewer.manipulator = None
    viewer.model, viewer.meshes = model, meshes
    viewer.body_size = body_sizes(model, meshes)
    viewer.handles = {}
    viewer._add_bodies(snap)
    viewer.joint_frames = viewer._add_joint_frames(snap)
    names = list(model.body_names)
    viewer.selected_body = names.index(selected_name) if selected_name in names else None
