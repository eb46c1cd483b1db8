"""impulsim: impulse-based dynamic simulation of rigid multibody systems.

Build a model with :class:`ModelBuilder`, pick a method, and step::

    import impulsim as ims
    b = ims.ModelBuilder()
    ...
    model, state = b.build()
    sim = ims.Simulation(model, state, method="impulse", h=1e-3)
    sim.run(1.0)

The first step of a scene on an empty kernel cache compiles its kernels (once per installation); on a
terminal or in a notebook a line on stderr says so while it lasts. ``ims.compile_messages(False)`` (or
``IMPULSIM_COMPILE_MESSAGES=0``) silences it, ``True`` (``1``) shows it off a terminal too.
"""
from impulsim import kernel_cache  # noqa: F401  (first: it places the kernels' cache before any is defined)
from impulsim.compiling import compile_messages, install_default as _install_compile_messages
_install_compile_messages()     # the message while kernels compile (impulsim.compiling); silent off a terminal
from impulsim.errors import ImpulsimError, ModelError, SimulationError, UnsupportedFeatureError
from impulsim.model import ModelBuilder, Model, State, Material, JointKind, WORLD
from impulsim.geometry import Sphere, Box, Cylinder, Capsule, Ellipsoid, ConvexHull, TriangleMesh, HalfSpace
from impulsim.methods import make as make_method, METHODS, StepInfo
from impulsim.simulation import Simulation
from impulsim.methods.masspoint import MassPointBuilder
from impulsim.dynamics import diagnostics

__version__ = "0.1.0"

__all__ = ["ImpulsimError", "ModelError", "SimulationError", "UnsupportedFeatureError", "ModelBuilder",
           "Model", "State", "Material", "JointKind", "WORLD", "Sphere", "Box", "Cylinder", "Capsule", "Ellipsoid",
           "ConvexHull", "TriangleMesh", "HalfSpace",
           "make_method", "METHODS", "StepInfo", "Simulation", "diagnostics", "MassPointBuilder",
           "compile_messages", "__version__"]
