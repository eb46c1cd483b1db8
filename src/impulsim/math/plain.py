"""Plain-Python versions of the math kernels, for the few calls made while a model is built.

The helpers of :mod:`impulsim.math` are Numba kernels so that kernels can call them. Called from Python on
one quaternion at a time (building a model, loading shapes), a kernel would first compile on an empty
cache, which costs seconds for microseconds of work; :func:`plain` returns the same function body run by
Python instead (the same IEEE double arithmetic, nothing compiled).
"""
import types

from numba.core.dispatcher import Dispatcher

_PLAIN = {}


def plain(fn):
    """The plain-Python version of kernel ``fn``, calling the plain versions of the kernels it calls;
    anything else is returned unchanged."""
    if not isinstance(fn, Dispatcher):
        return fn
    if fn in _PLAIN:
        return _PLAIN[fn]
    py = fn.py_func
    names = dict(py.__globals__)
    out = types.FunctionType(py.__code__, names, py.__name__, py.__defaults__, py.__closure__)
    out.__doc__, out.__qualname__, out.__module__ = py.__doc__, py.__qualname__, py.__module__
    _PLAIN[fn] = out
    for name, value in list(names.items()):
        if isinstance(value, Dispatcher):
            names[name] = plain(value)
    return out
