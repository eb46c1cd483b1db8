"""Moreau's midpoint time-stepping in minimal (joint) coordinates with segment contacts (Rempfler 2015)."""
from impulsim.methods.moreau_minimal.system import MinimalSystem, TreeBuilder
from impulsim.methods.moreau_minimal.tree import JointKind, SpringKind

__all__ = ["MinimalSystem", "TreeBuilder", "JointKind", "SpringKind"]
