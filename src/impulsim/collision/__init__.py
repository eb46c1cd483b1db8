"""Collision detection: broad phase (uniform grid by default, or sweep-and-prune), narrow phase (signed distance, closest points,
normal) and contact regions, over the Model's shape table; independent of the solver method.

    det = Detector(model, eps_c=1e-3)
    contacts = det.detect(state)          # flat arrays + count, see ContactBuffers
    prox = det.distance(state, 0, 1)      # signed distance, normal, closest points of two shapes
"""
from impulsim.collision.contacts import Contacts, ContactBuffers
from impulsim.collision.detector import Detector, Proximity, DEFAULT_EPS_C
from impulsim.collision.pairs import PAIR_ALGORITHM, pair_name
from impulsim.collision.toi import contact_time, interpolate_poses

__all__ = ["Detector", "Proximity", "Contacts", "ContactBuffers", "DEFAULT_EPS_C", "PAIR_ALGORITHM",
           "pair_name", "contact_time", "interpolate_poses"]
