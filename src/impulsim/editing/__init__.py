"""Editing a running simulation (Wagner's EMPHAS workflow): every edit is possible while it runs.

A :class:`~impulsim.editing.document.SceneDocument` is the scene file as an editable document (comments
and order kept); a :class:`~impulsim.editing.live.LiveScene` runs it and takes edits — add, remove and
change bodies, joints, controllers and force elements; switch constraints on and off; make a body
kinematic; lock a joint's components; assemble a new joint — each a command with an inverse (undo, redo,
and back to the state before the start). After an edit the model is compiled again and the running state
carries over by name: the bodies the edit did not touch keep their motion exactly. An edit the method
cannot honour is refused and changes nothing.

    from impulsim.editing import LiveScene
    live = LiveScene.load("examples/double_pendulum.yaml")
    live.run(0.5)
    live.set("bodies.lower.mass", 2.0)      # while it swings
    live.remove("joints", "elbow")          # the lower rod falls away
    live.undo()                             # and is back on its hinge, where it was
    live.save("edited.yaml")
"""
from impulsim.editing.document import DocumentError, SceneDocument
from impulsim.editing.live import EditError, LiveScene

__all__ = ["DocumentError", "SceneDocument", "EditError", "LiveScene"]
