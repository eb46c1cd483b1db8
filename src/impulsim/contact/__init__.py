"""Collision and resting-contact resolution: restitution laws, Coulomb friction, contact graph and
shock propagation (Bender ch. 5). Independent of the joint solver; a method drives it through
:class:`ContactStage`."""
from impulsim.contact.materials import Combine
from impulsim.contact.stage import ContactStage, ContactOptions, Restitution

__all__ = ["Combine", "ContactStage", "ContactOptions", "Restitution"]
