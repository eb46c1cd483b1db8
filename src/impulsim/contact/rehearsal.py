"""Made-up contacts that take a contact step through its resolution without detecting anything.

On an empty kernel cache the first contact step compiles its detection kernels and its resolution kernels
one after the other. A second process (:mod:`impulsim.forked_compile`) compiles the resolution side
meanwhile, by stepping the same model with these contacts in place of the detector's
(:func:`rehearse_contacts`; any method's first contact step, see :func:`compile_side_by_side`): one patch of four
points under a dynamic body, pressed a little into a shape of another body and approaching it, so that the
step classifies a collision, resolves it, corrects the penetration with friction and corrects the velocities.
The kernels are the same whatever the contacts are; only the copy's steps use these made-up ones.
Meanwhile the process compiles the detection, and the level-by-level passes of shock propagation that no
made-up contact reaches, each on copies of its own.
"""
from __future__ import annotations

import copy
from typing import Optional

import numpy as np

from impulsim import forked_compile
from impulsim.collision.contacts import Contacts, make_buffers

APPROACH_SPEED = 1.0
"""Speed [m/s] at which the made-up contacts' body approaches the other: above any collision threshold."""
PATCH_HALF_WIDTH = 0.01
"""Half the side [m] of the square of the four made-up contact points."""


def detection_uncompiled() -> bool:
    """Whether a contact step would compile its detection now (neither in this process nor in the cache)."""
    from impulsim.collision.pairs import narrow_phase
    return forked_compile.uncompiled(narrow_phase)


def compile_side_by_side(method, detector, state, h: float, wait_at_detection: bool = False):
    """On a method's first step with the detection not compiled yet (an empty cache): start a second
    process (impulsim.forked_compile) that steps a copy of ``method`` from ``state`` on made-up contacts
    (:func:`rehearse_contacts`), which compiles the whole step but the detection, while this process
    compiles the detection (:func:`_detect_on_a_copy`). Then wait for the second process, whose kernels the
    step loads from the cache; with ``wait_at_detection`` the step goes on first and its first call of
    ``detector.detect`` waits (for a method that compiles its own share of the step before detecting, as
    the impulse method does, see its head start). Returns the second process, or None where none was
    started (no second core, compiled already, no pair of shapes, ...).

    Waiting at once is the rule because both processes step the same way: the step's kernels before the
    detection (a Featherstone method's dynamics) would be compiled twice, side by side, if this process went
    on while the other is still compiling them (measured: 13-19 s more CPU time for the same wall time)."""
    if forked_compile.way() is None:
        return None
    if forked_compile.setting() != "always" and not detection_uncompiled():
        return None
    pair = rehearsal_pair(method.model)
    if pair is None:
        return None
    side = forked_compile.start(rehearse_contacts, method, detector, state.copy(), h, pair)
    if side is None:
        return None
    _detect_on_a_copy(detector, state)
    shock_passes_on_a_copy(method, state, h)
    if wait_at_detection:
        _wait_after_first_detection(detector, side)
    else:
        side.wait(group="contact")
    return side


def _detect_on_a_copy(detector, state) -> None:
    """Compile the detection now, by detecting with a copy of ``detector`` (whose own buffers stay as they
    are) at a copy of ``state``: a method whose step detects late (after its dynamics, as Featherstone's and
    Moreau's do) would otherwise compile its dynamics here while the second process compiles them too. A
    failure here is left for the step itself to report."""
    try:
        copy.deepcopy(detector).detect(state.copy())
    except Exception:              # noqa: BLE001 - the real detection fails the same way, and says so
        pass


def shock_passes_on_a_copy(method, state, h: float) -> int:
    """Compile the level-by-level passes of shock propagation now, on copies of ``method`` and ``state``, while
    the second process compiles the rest of the resolution: a step reaches them only when its sweeps do not
    converge in time, which the made-up contacts never do, so a pile compiled them after the wait (about 9 s
    of CPU on the wall), and ``impulsim warmup`` left them to a scene's first pile. Nothing for a method
    without them (see ``rehearse_shock_passes``); a failure is left for the step to meet. Returns the sweeps
    the copy's passes made (0 where it has none)."""
    if getattr(method, "rehearse_shock_passes", None) is None:
        return 0
    try:
        twin = copy.deepcopy(method)
        twin.rehearse_shock_passes(state.copy(), h)
        return int(twin.contacts.level_sweeps)
    except Exception:              # noqa: BLE001 - the real passes fail the same way, and say so
        return 0


def _wait_after_first_detection(detector, side) -> None:
    """Make the next ``detector.detect`` call wait for ``side`` once it has detected (the compile message
    shows the wait as compiling contact kernels); later calls go straight to the detector's own method."""
    def detect_then_wait(state, *args, **kwargs):
        del detector.detect                        # the detector's own method from now on
        try:
            return detector.detect(state, *args, **kwargs)
        finally:
            side.wait(group="contact")
    detector.detect = detect_then_wait


def rehearse_contacts(method, detector, state, h: float, pair) -> None:
    """Two steps of ``method`` from ``state`` with ``detector`` (the one its steps call) replaced by made-up
    contacts between the shapes of ``pair``: in a second process, with its own copies of all three, they
    compile the whole step but the detection. The second step also compiles the warm start from the first."""
    detector.detect = lambda st, *args, **kwargs: rehearsal_contacts(
        method.model, st, pair, detector.eps_c, len(detector.buffers.distance))
    method._scratch = None
    for _ in range(2):
        method.step(state, h)


def rehearsal_pair(model) -> Optional[tuple[int, int]]:
    """Two shapes of the model on different bodies, the first on a body that moves (dynamic), the second
    preferably on a fixed body; None when the model has no such pair."""
    body = model.shape_body
    fixed = (model.body_static + model.body_kinematic) > 0
    moving = [s for s in range(len(body)) if not fixed[body[s]]]
    if not moving:
        return None
    a = moving[0]
    others = [s for s in range(len(body)) if body[s] != body[a]]
    if not others:
        return None
    resting = [s for s in others if fixed[body[s]]]
    return a, (resting or others)[0]


def rehearsal_contacts(model, state, pair: tuple[int, int], eps_c: float, capacity: int) -> Contacts:
    """Four contact points under the first shape's body (world frame), normal +z from the second shape's body
    towards the first, each pressed eps_c/2 [m] in; the first body is set to approach at APPROACH_SPEED
    (``state`` is the copy's own and is changed)."""
    sa, sb = pair
    ba, bb = int(model.shape_body[sa]), int(model.shape_body[sb])
    normal = np.array([0.0, 0.0, 1.0])
    depth = 0.5 * eps_c
    buffers = make_buffers(max(4, capacity))
    centre = state.body_pos[ba]
    for i, (dx, dy) in enumerate(((-1, -1), (1, -1), (1, 1), (-1, 1))):
        point_a = centre + PATCH_HALF_WIDTH * np.array([dx, dy, 0.0])
        buffers.body_a[i], buffers.body_b[i] = ba, bb
        buffers.shape_a[i], buffers.shape_b[i] = sa, sb
        buffers.point_a[i] = point_a
        buffers.point_b[i] = point_a + depth * normal
        buffers.normal[i] = normal
        buffers.distance[i] = -depth
        buffers.feature_a[i], buffers.feature_b[i] = i + 1, 0
        buffers.pair[i] = 0
    state.body_vel[ba] = state.body_vel[bb] - APPROACH_SPEED * normal
    return Contacts(buffers, 4, 1)
