"""Compile options of the impulse method's per-step kernels.

A compiled function that takes arrays counts references to them: an atomic increment and decrement for every
array it uses (and for every array of a tuple it unpacks) on each call. On a small model a step calls some
twenty kernels with a dozen arrays each, and these counts cost as much as the arithmetic: measured in a
compiled loop, one prediction of a single body took ~170 ns through a counted call and ~120 ns uncounted,
of which ~90 ns is the arithmetic; the triple pendulum's step went from 5.8 to 3.6 µs.

Kernels that allocate nothing and hand back no array need no counts: the arrays they see belong to their
caller (or to the Python objects of the call) for the whole call. They are compiled with ``NO_REFCOUNT``,
Numba's option to leave the reference counting out. Numba passes the option on to every function such a
kernel calls (unless that function was compiled before, by a counted caller), so the rule holds for all of
them: no array creation (np.empty, np.zeros, array expressions; Numba refuses to compile those without
counts), and no array, view or tuple holding one returned (a view returned uncounted would be freed by a
counting caller; ``tests/impulse/test_no_refcount.py`` checks this from an empty cache). Views used inside
(slices, rows) and calls of counted functions are fine. Where this Numba does not know the option, the
kernels compile with the counts (same results, slower).
"""
from numba.core.cpu import CPUTargetOptions

NO_REFCOUNT = {"_nrt": False} if hasattr(CPUTargetOptions, "_nrt") else {}
"""Extra ``njit`` options of the impulse kernels that allocate nothing (see the module docstring)."""

COUNTED = {"_nrt": True} if NO_REFCOUNT else {}
"""Extra ``njit`` options of a kernel called by an uncounted one that calls kernels shared with counted code
(the loads of springs, motors and servos; they allocate nothing today, but nothing keeps them so): set
explicitly, reference counting is not taken over from the caller, so the kernel and what it calls compile
with the counts whichever kernel compiles them first."""
