"""Exceptions that name the element and the problem."""


class ImpulsimError(Exception):
    """Base class of every error impulsim raises on purpose."""


class ModelError(ImpulsimError, ValueError):
    """The model (builder input or scene file) is invalid; the message names the element."""


class SimulationError(ImpulsimError, RuntimeError):
    """A step failed (non-finite value); the message names step, body and quantity.

    The state passed to the step is left as it was before the step.
    """


class UnsupportedFeatureError(ModelError):
    """A method was given a model with a feature it does not support."""
