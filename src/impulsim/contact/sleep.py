"""Sleeping of bodies at rest: islands of touching bodies that stayed slow long enough stop moving.

A dynamic body without joints counts as still while |v| < ``velocity`` [m/s] and |ω| < ``angular``
[rad/s]; it keeps a clock of how long it has been still. The bodies linked by contacts form islands
(static bodies do not link islands). An island falls asleep when all its bodies have been still for
``time`` [s]: their velocities are set to zero, the free step leaves them where they are, and the contact
solver treats them as frozen (infinite mass), like shock propagation does. A body that is not asleep and
collides with a sleeping one (approach faster than eps_rc), or a force or torque applied by the user,
wakes the whole island. Bodies with joints or springs never sleep (their joints would have to sleep with
them; a spring's pull changes as its other end moves, and the free step would leave a sleeper in place).

While an island sleeps, the contacts between two of its bodies, or between one of them and a static body,
are not detected (they could not act: both bodies are frozen); each sleeping body remembers its island
instead (``sleep_root``), and the step that wakes an island detects again, so its contacts are back before
it moves. The contact graph levels sleeping bodies as static ones (``inv_mass_now``).
"""
from __future__ import annotations

import numpy as np

from impulsim.contact import rows as R
from impulsim.kernel import call_sites, njit


class SleepOptions:
    """Thresholds of sleeping: speed [m/s], angular speed [rad/s] and the time [s] they must hold."""

    def __init__(self, velocity: float = 0.02, angular: float = 0.05, time: float = 0.5):
        for name, v in (("sleep_velocity", velocity), ("sleep_angular", angular), ("sleep_time", time)):
            if not (np.isfinite(v) and v > 0):
                raise ValueError(f"{name} must be positive, got {v!r}")
        self.velocity, self.angular, self.time = float(velocity), float(angular), float(time)


def read_only(a: np.ndarray) -> np.ndarray:
    """A read-only view of ``a``, for an array of the sleep state that stands in for a read-only array of the
    model: Numba compiles a kernel once per argument type, and a writable array in the model's place cost a
    second compile of the kernels that take it (the position pass: ~30 s)."""
    view = a.view()
    view.flags.writeable = False
    return view


class Sleep:
    """Sleep state of the bodies of one model (see the module docstring)."""

    _scratch_attrs = frozenset(("_kernels",))

    def __init__(self, model, options: SleepOptions):
        self.opt = options
        self._kernels = call_sites(wake_islands, fall_asleep)
        """The kernels of every step, with the same arrays (see impulsim.kernel.CallSite)."""
        n = model.n_bodies
        fixed = (model.body_static + model.body_kinematic) > 0
        jointed = np.zeros(n, bool)
        jointed[model.joint_body_a] = True
        jointed[model.joint_body_b] = True
        jointed[model.spring_body_a] = True       # a spring's pull changes as its other end moves: never asleep
        jointed[model.spring_body_b] = True
        self.can_sleep = (~fixed & ~jointed).astype(np.int8)
        self.asleep = np.zeros(n, np.int8)
        self.still_time = np.zeros(n)
        self.static_now = model.body_static.copy()
        """Static bodies and sleeping ones: what the free step and the predictions leave in place."""
        self._base_static = model.body_static.copy()
        self._inv_mass = model.body_inv_mass
        self.inv_mass_now = model.body_inv_mass.copy()
        """The bodies' inverse masses [1/kg] with the sleeping ones' 0: the contact graph levels them as it levels
        static bodies."""
        self._island = np.zeros(n, np.int64)
        self.sleep_root = np.arange(n, dtype=np.int64)
        """A member of each sleeping body's island, kept while it sleeps: the contacts among sleeping bodies are
        not detected, and without it a sleeping island would fall apart into bodies that wake one by one."""
        moving = (model.body_inv_mass > 0) & ~fixed
        self._whole_model_can_rest = bool(np.array_equal(moving, self.can_sleep > 0))
        """Every moving body can sleep (none has joints or springs, so no spring, motor or servo pulls at them):
        only then can a step find the whole model asleep with nothing to wake it."""
        self._n_sleepers = int(self.can_sleep.sum())
        self._rest_pos = np.zeros((n, 3))
        self._rest_quat = np.zeros((n, 4))
        self.whole_model_asleep = False
        """Every body that can sleep was asleep after the last step; its poses are in _rest_pos, _rest_quat."""

    def levelled_inv_mass(self):
        """``inv_mass_now``, read-only like the model's array it stands in for (see read_only)."""
        return read_only(self.inv_mass_now)

    @property
    def n_asleep(self) -> int:
        return int(self.asleep.sum())

    def wake(self, rows, count, state, body_inv_mass) -> int:
        """Wake islands hit or touched by a moving body or pushed by the user; returns bodies woken.
        Call after the contacts of the step are classified."""
        woken = self._kernels.wake_islands(rows, count, self.still_time, body_inv_mass, state.body_force,
                                           state.body_torque, self.asleep, self._island)
        if woken:
            self._refresh()
        return woken

    def update(self, rows, count, state, h) -> int:
        """After a step: advance the still clocks, put islands to sleep; returns bodies fallen asleep."""
        fell = self._kernels.fall_asleep(rows, count, self.can_sleep, self.opt.velocity, self.opt.angular,
                                         self.opt.time, h, self.still_time, self.asleep, self._island,
                                         self.sleep_root, state.body_vel, state.body_omega)
        if fell:
            self._refresh()
        self.whole_model_asleep = self._whole_model_can_rest and self._n_sleepers > 0 and \
            self.n_asleep == self._n_sleepers
        if self.whole_model_asleep:
            self._rest_pos[...] = state.body_pos
            self._rest_quat[...] = state.body_quat
        return fell

    def nothing_can_move(self, state) -> bool:
        """Whether a step from ``state`` would change nothing but the time: the whole model was asleep after the
        last step (see whole_model_asleep), every body is still where that step left it and at rest (no static
        or kinematic body moves either, so nothing can hit a sleeper), and the user applies no force or
        torque (which would wake an island). Then the detection finds the same contacts, no impulse can move
        a frozen body, and the step may be skipped; any other change takes the full step."""
        return (self.whole_model_asleep and not state.body_vel.any() and not state.body_omega.any()
                and not state.body_force.any() and not state.body_torque.any()
                and np.array_equal(state.body_pos, self._rest_pos) and np.array_equal(state.body_quat, self._rest_quat))

    def _refresh(self):
        np.maximum(self._base_static, self.asleep, out=self.static_now)
        np.multiply(self._inv_mass, 1 - self.asleep, out=self.inv_mass_now)


@njit(cache=True)
def _find(parent, k):
    while parent[k] != k:
        parent[k] = parent[parent[k]]
        k = parent[k]
    return k


@njit(cache=True)
def _union(island, a, b):
    ra, rb = _find(island, a), _find(island, b)
    if ra != rb:
        island[ra] = rb


@njit(cache=True)
def _islands(rows, count, movable, asleep, sleep_root, island):
    """Union of the movable bodies linked by contacts, and of each sleeping body with the island it fell asleep
    in (``sleep_root``: its contacts with other sleepers are not detected); island[k] is k's root."""
    for k in range(island.shape[0]):
        island[k] = k
    for c in range(count):
        a, b = rows.body_a[c], rows.body_b[c]
        if movable[a] and movable[b]:
            _union(island, a, b)
    for k in range(island.shape[0]):
        if asleep[k]:
            _union(island, k, sleep_root[k])
    for k in range(island.shape[0]):
        island[k] = _find(island, k)


@njit(cache=True)
def fall_asleep(rows, count, can_sleep, v_max, w_max, t_min, h, still_time, asleep, island, sleep_root, body_vel,
                body_omega):
    """Advance the still clocks; islands whose bodies all can sleep and were still ≥ t_min fall asleep. Every
    sleeping body's ``sleep_root`` becomes its island's root (an island that a body joins as it falls asleep
    stays one)."""
    n = can_sleep.shape[0]
    for k in range(n):
        if asleep[k] or not can_sleep[k]:
            continue
        v2 = body_vel[k, 0] ** 2 + body_vel[k, 1] ** 2 + body_vel[k, 2] ** 2
        w2 = body_omega[k, 0] ** 2 + body_omega[k, 1] ** 2 + body_omega[k, 2] ** 2
        still_time[k] = still_time[k] + h if (v2 < v_max * v_max and w2 < w_max * w_max) else 0.0
    movable = np.ones(n, np.int8)
    for k in range(n):
        movable[k] = 1 if (can_sleep[k] or asleep[k]) else 0
    _islands(rows, count, movable, asleep, sleep_root, island)
    ready = np.ones(n, np.int8)          # per root: every member may sleep
    for c in range(count):               # an island touching a jointed or kinematic body stays awake
        a, b = rows.body_a[c], rows.body_b[c]
        if movable[a] != movable[b] and (body_is_moving_fixed(a, can_sleep, asleep, body_vel) or
                                         body_is_moving_fixed(b, can_sleep, asleep, body_vel)):
            ready[island[a if movable[a] else b]] = 0
    for k in range(n):
        if not movable[k] or asleep[k]:
            continue
        if still_time[k] < t_min:
            ready[island[k]] = 0
    fell = 0
    for k in range(n):
        if movable[k] and not asleep[k] and ready[island[k]]:
            asleep[k] = 1
            fell += 1
            for i in range(3):
                body_vel[k, i] = 0.0
                body_omega[k, i] = 0.0
    for k in range(n):
        if asleep[k]:
            sleep_root[k] = island[k]
    return fell


@njit(cache=True)
def body_is_moving_fixed(k, can_sleep, asleep, body_vel):
    """True for a body that cannot sleep and is not at rest (a jointed or kinematic body that moves)."""
    if can_sleep[k] or asleep[k]:
        return False
    return body_vel[k, 0] != 0.0 or body_vel[k, 1] != 0.0 or body_vel[k, 2] != 0.0


@njit(cache=True)
def wake_islands(rows, count, still_time, body_inv_mass, body_force, body_torque, asleep, island):
    """Wake every island that a body not asleep collides with (approach faster than eps_rc) or touches while
    moving (not still in the last step), and every island on which the user applies a load."""
    n = asleep.shape[0]
    wake_root = np.zeros(n, np.int8)
    any_wake = False
    for c in range(count):
        a, b = rows.body_a[c], rows.body_b[c]
        if asleep[a] == asleep[b]:
            continue
        other = b if asleep[a] else a
        if rows.kind[c] == R.COLLISION or (body_inv_mass[other] > 0.0 and still_time[other] == 0.0):
            wake_root[island[a if asleep[a] else b]] = 1
            any_wake = True
    for k in range(n):
        if asleep[k] and (body_force[k, 0] != 0.0 or body_force[k, 1] != 0.0 or body_force[k, 2] != 0.0 or
                          body_torque[k, 0] != 0.0 or body_torque[k, 1] != 0.0 or body_torque[k, 2] != 0.0):
            wake_root[island[k]] = 1
            any_wake = True
    if not any_wake:
        return 0
    woken = 0
    for k in range(n):
        if asleep[k] and wake_root[island[k]]:
            asleep[k] = 0
            still_time[k] = 0.0
            woken += 1
    return woken
