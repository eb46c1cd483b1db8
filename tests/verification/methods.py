"""The methods the physical-law tests run for.

Each entry maps a name to (factory(model, eps) -> Method, features it supports). A law test asks for
the features it needs; a method that lacks one is skipped for that law with the reason shown.
Later methods (LGS, Lagrange, Featherstone, Moreau) register here.
"""
from impulsim.methods import make

FEATURES_ALL_JOINTS = {"joints", "all_joint_kinds", "springs", "servos", "free_body", "loops",
                       "velocity_joints", "reassembly"}
# "drag": velocity-only rows yield to the joints (a drag the joints cannot follow moves the body only as
# far as they allow). Both impulse solvers order their passes so (the LGS satisfies the velocity rows by
# sweeps before its joint solve); the Lagrange method takes velocity rows as hard rows of one system,
# which a conflicting drag makes inconsistent.
FEATURES_IMPULSE = FEATURES_ALL_JOINTS | {"drag"}


def _impulse_iterative(model, eps_d=1e-6, eps_v=1e-6, **kw):
    return make("impulse", model, solver="iterative", eps_d=eps_d, eps_v=eps_v, **kw)


def _impulse_lgs(loops):
    """The LGS solver (Bender 3.3.2) with redundant loop rows dropped ("drop") or loops cut ("cut")."""
    def factory(model, eps_d=1e-6, eps_v=1e-6, **kw):
        return make("impulse", model, solver="lgs", loops=loops, eps_d=eps_d, eps_v=eps_v, **kw)
    return factory


# Lagrange multipliers (Wagner's defaults: RK4, Baumgarte α = 5, γ = 1), started from velocities projected
# onto the joints. Not "joints": on Bender's 20-link chain at h = 10 ms the RK4 drift reaches 1.9e-5 m
# (2.5e-6 m in the first step), above that test's 1e-6 m per step; not "reassembly": Baumgarte closes a
# broken joint over 5/α … 10/α s, not within the test's 1 s to 1e-6 m.
FEATURES_LAGRANGE = {"all_joint_kinds", "springs", "servos", "free_body", "loops", "velocity_joints"}


def _lagrange(solver):
    def factory(model, eps_d=1e-6, eps_v=1e-6, **kw):
        from impulsim.methods.lagrange import LagrangeMethod
        return LagrangeMethod(model, solver=solver, eps_d=eps_d, eps_v=eps_v, consistent_start=True, **kw)
    return factory


# Moreau's midpoint time-stepping, joints as bilateral rows with projection onto them (docs/moreau.md).
# Not "joints": on Bender's 20-link chain at h = 10 ms the velocity projection removes the O(h²) normal
# velocity the midpoint rule leaves, and the energy falls by 2 % in 20 s (bound 0.5 %; both pendulum tests
# pass). Not "free_body": a second-order scheme; world angular momentum drifts 2e-6 relative over 100 s at
# h = 10 ms (bound 1e-6, set for RK4); energy is kept to 1e-13. Not "drag": velocity rows are solved as
# equals of the joint rows, not yielding to them.
FEATURES_MOREAU = {"all_joint_kinds", "springs", "servos", "loops", "velocity_joints", "reassembly"}


def _moreau(model, eps_d=1e-6, eps_v=1e-6, **kw):
    return make("moreau", model, eps_d=eps_d, eps_v=eps_v, **kw)


METHODS = {
    "impulse-iterative": (_impulse_iterative, FEATURES_IMPULSE),
    "impulse-lgs": (_impulse_lgs("drop"), FEATURES_IMPULSE),
    "impulse-lgs-cut": (_impulse_lgs("cut"), FEATURES_IMPULSE),
    "lagrange-baraff": (_lagrange("baraff"), FEATURES_LAGRANGE),
    "lagrange-dense": (_lagrange("dense"), FEATURES_LAGRANGE),
    "moreau": (_moreau, FEATURES_MOREAU),
}


# Featherstone's reduced coordinates (RK4): joints hold by construction; no loops, no joints without a
# reduced form (distance, velocity, universal ...), so not "all_joint_kinds", "loops", "velocity_joints".
# "reassembly" holds at once: the written-back poses come from the joint coordinates.
FEATURES_FEATHERSTONE = {"joints", "springs", "servos", "free_body", "reassembly"}


def _featherstone(model, eps_d=1e-6, eps_v=1e-6, **kw):
    return make("featherstone", model, eps_d=eps_d, eps_v=eps_v, **kw)


METHODS["featherstone"] = (_featherstone, FEATURES_FEATHERSTONE)

def methods_with(*features):
    """pytest parameters: names of the registered methods that support all ``features``."""
    import pytest
    out = []
    for name, (factory, supported) in METHODS.items():
        missing = set(features) - supported
        marks = [pytest.mark.skip(reason=f"{name} lacks {', '.join(sorted(missing))}")] if missing else []
        out.append(pytest.param(name, marks=marks, id=name))
    return out


def make_method(name, model, **kw):
    return METHODS[name][0](model, **kw)
