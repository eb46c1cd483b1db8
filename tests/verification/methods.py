"""The methods the physical-law tests run for.

Each entry maps a name to (factory(model, eps) -> Method, features it supports). A law test asks for
the features it needs; a method that lacks one is skipped for that law with the reason shown.
Later methods (LGS, Lagrange, Featherstone, Moreau) register here.
"""
from impulsim.methods import make

FEATURES_ALL_JOINTS = {"joints", "all_joint_kinds", "springs", "servos", "free_body", "loops",
                       "velocity_joints", "reassembly"}


def _impulse_iterative(model, eps_d=1e-6, eps_v=1e-6, **kw):
    return make("impulse", model, solver="iterative", eps_d=eps_d, eps_v=eps_v, **kw)


METHODS = {
    "impulse-iterative": (_impulse_iterative, FEATURES_ALL_JOINTS),
}


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
