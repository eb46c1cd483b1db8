"""Scene files, recordings, checkpoints and plots: the boundary between impulsim and its users' files.

``load_scene(path)`` / ``scene_from_string(text, name)`` read a YAML scene into a :class:`Scene`
(builder, model, initial state, settings); recordings are Parquet tables with one row per recorded step.
"""
from impulsim.io.yamlnodes import SceneError
from impulsim.io.scene import Load, Scene, load_scene, scene_from_string
from impulsim.io.settings import Settings
from impulsim.io.shapes import SHAPE_TYPES, register_shape_type

__all__ = ["SceneError", "Load", "Scene", "load_scene", "scene_from_string", "Settings", "SHAPE_TYPES",
           "register_shape_type"]
