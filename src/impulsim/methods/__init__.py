"""Solver methods over the shared Model. All have the call shape ``make(name, model, **options)``
followed by ``info = method.step(state, h)``."""
from impulsim.methods.base import Method, RunInfo, StepInfo
from impulsim.methods.impulse import ImpulseMethod
from impulsim.methods.masspoint import MassPointMethod
from impulsim.methods.lagrange import LagrangeMethod
from impulsim.methods.featherstone import FeatherstoneMethod
from impulsim.methods.moreau import MoreauMethod

METHODS = {"impulse": ImpulseMethod, "lagrange": LagrangeMethod, "masspoint": MassPointMethod,
           "moreau": MoreauMethod}
METHODS["featherstone"] = FeatherstoneMethod
from impulsim.methods.moreau_minimal.method import MoreauMinimalMethod  # noqa: E402

METHODS["moreau_minimal"] = MoreauMinimalMethod


def make(name: str, model, **options) -> Method:
    """Construct the method called ``name`` for ``model`` with its options."""
    try:
        cls = METHODS[name]
    except KeyError:
        raise ValueError(f"unknown method {name!r} (available: {', '.join(sorted(METHODS))})") from None
    return cls(model, **options)


__all__ = ["Method", "RunInfo", "StepInfo", "ImpulseMethod", "MassPointMethod", "LagrangeMethod", "MoreauMethod", "METHODS", "make"]
