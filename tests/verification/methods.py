"""The methods the physical-law tests run for.

Each entry maps a name to (factory(model, eps) -> Method, features it supports). What a method honours
(joint kinds, velocity joints, loops, kinematic bodies, contacts, limits, springs, servos, Wagner's
constraints) comes from its class's ``capabilities`` declaration, the one the constructor's refusals and
the capability matrix use; only the accuracy grades below ("joints", "free_body", "reassembly", "drag")
are set here, each with the measurement that sets it. A law test asks for the features it needs; a
method that lacks one is skipped for that law with the reason shown, and test_capabilities checks that
such a method refuses the model instead of running it.
"""
from impulsim.methods import METHODS as CLASSES, make
from impulsim.methods.capabilities import ALL_JOINTS, capabilities_of

# the registered method class behind each tested configuration
CLASS_OF = {"impulse-iterative": "impulse", "impulse-lgs": "impulse", "impulse-lgs-cut": "impulse",
            "lagrange-baraff": "lagrange", "lagrange-dense": "lagrange", "moreau": "moreau",
            "featherstone": "featherstone"}


def declared(method_name: str) -> set:
    """The features a method class declares, as the law tests name them."""
    cap = capabilities_of(CLASSES[CLASS_OF.get(method_name, method_name)])
    out = {"all_joint_kinds"} if cap.joints == ALL_JOINTS else set()
    out |= {f"joint_{kind}" for kind in cap.joints}
    for field in ("velocity_joints", "loops", "kinematic_bodies", "limits", "constraints", "force_elements",
                  "springs", "motors", "servos"):
        if getattr(cap, field):
            out.add(field)
    if cap.contacts:
        out.add("contacts")
    return out


# Accuracy grades (not capabilities): "joints" holds Bender's 20-link chain to 1e-6 m per step at
# h = 10 ms; "free_body" keeps a free body's world angular momentum to 1e-6 over 100 s; "reassembly"
# closes a broken joint within 1 s to 1e-6 m; "drag": velocity-only rows yield to the joints (a drag the
# joints cannot follow moves the body only as far as they allow). Both impulse solvers order their passes
# so (the LGS satisfies the velocity rows by sweeps before its joint solve); the Lagrange method takes
# velocity rows as hard rows of one system, which a conflicting drag makes inconsistent.
FEATURES_IMPULSE = declared("impulse") | {"joints", "free_body", "reassembly", "drag"}
FEATURES_ALL_JOINTS = FEATURES_IMPULSE

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
FEATURES_LAGRANGE = declared("lagrange") | {"free_body"}


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
FEATURES_MOREAU = declared("moreau") | {"reassembly"}


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



# Featherstone's reduced coordinates (RK4): joints hold by construction; "reassembly" holds at once: the
# written-back poses come from the joint coordinates.
FEATURES_FEATHERSTONE = declared("featherstone") | {"joints", "free_body", "reassembly"}


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
