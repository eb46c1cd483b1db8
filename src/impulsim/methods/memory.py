"""Everything a method remembers between steps, taken and put back as a whole.

A method keeps more than the :class:`State`: contact impulses for the warm start, static-friction anchors,
sleep clocks, factorizations and predictions reused by the next step, buffers grown on demand. Two things
need all of it:

* a step that fails must leave the method as it was before the step (:class:`Snapshot`, taken before
  every step and put back when the step raises), or the next steps start from half-updated memory;
* an exact resume needs the same memory in a new process (:func:`method_memory` and
  :func:`restore_memory`, stored in the checkpoint beside the State).

Both walk the method's attributes instead of a hand-kept list, so state added to a method later is
covered without touching this module. The walk follows attributes of plain objects, lists, tuples and
dicts; it does not enter the :class:`Model` (read-only during a step) nor functions, classes and modules.
Objects it cannot enter (compiled factorizations and the like) are put back by identity: a method may
replace them during a step, not change them in place.
"""
from __future__ import annotations

import enum
import types

import numpy as np

from impulsim.model.model import Model
from impulsim.model.state import State

_SKIP = (Model, State, types.FunctionType, types.BuiltinFunctionType, types.MethodType, type,
         types.ModuleType)
_SCALARS = (bool, int, float, complex, str, bytes, type(None), np.generic, enum.Enum)


class MemoryPlan:
    """Where a method's memory lives: every attribute, container member and array the walk reaches.

    Walking the attributes costs more than copying the arrays, so the plan is made once and reused while
    the objects it found are still in their places (:meth:`still_valid`); a step that replaces one (a
    buffer grown on demand) makes the next snapshot walk again.
    """

    __slots__ = ("slots", "structure", "arrays", "lists", "dicts", "namespaces", "slot_dicts", "dict_slots")

    def __init__(self, root):
        self.slots: list = []          # (container, key) of every place: __dict__ of an object or a dict
        self.structure: list = []      # (container, key, object): places that hold a container or array
        self.arrays: list = []
        self.lists: list = []
        self.dicts: list = []
        self.namespaces: list = [(root.__dict__, len(root.__dict__))]   # entered objects: attributes count
        seen: set = set()
        skip = _scratch_of(root)
        for key, value in list(vars(root).items()):
            if key not in skip:
                self._take(root.__dict__, key, value, seen)
        self._index_dict_slots()

    def _index_dict_slots(self):
        """The distinct dicts (attribute namespaces and plain dicts) that hold slots, and each such slot as
        (dict, key, index of the dict): a snapshot copies each dict once (one C call) instead of reading its
        slots one by one. Slots in lists need no value of their own (the lists are copied whole)."""
        index: dict = {}
        self.slot_dicts: list = []
        self.dict_slots: list = []
        for container, key in self.slots:
            if not isinstance(container, dict):
                continue
            i = index.get(id(container))
            if i is None:
                i = index[id(container)] = len(self.slot_dicts)
                self.slot_dicts.append(container)
            self.dict_slots.append((container, key, i))

    def _take(self, container, key, value, seen):
        if container is not None:
            self.slots.append((container, key))
        if isinstance(value, _SCALARS) or isinstance(value, _SKIP):
            return
        if container is not None:
            self.structure.append((container, key, value))
        if id(value) in seen:
            return
        seen.add(id(value))
        if isinstance(value, np.ndarray):
            if value.flags.writeable:        # a read-only array is a constant (kept by identity)
                self.arrays.append(value)
        elif isinstance(value, list):
            self.lists.append(value)
            for i, v in enumerate(value):
                self._take(value, i, v, seen)
        elif isinstance(value, tuple):
            for v in value:                  # the tuple is put back by identity, its members' contents
                self._take(None, None, v, seen)
        elif isinstance(value, dict):
            self.dicts.append(value)
            for k, v in list(value.items()):
                self._take(value, k, v, seen)
        elif _ours(value):
            skip = _scratch_of(value)
            self.namespaces.append((value.__dict__, len(value.__dict__)))
            for k, v in list(vars(value).items()):
                if k not in skip:
                    self._take(value.__dict__, k, v, seen)

    def still_valid(self) -> bool:
        """Whether every container and array is still where the plan found it, and no object gained an
        attribute (a part made on first use)."""
        for namespace, n in self.namespaces:
            if len(namespace) != n:
                return False
        for container, key, obj in self.structure:
            try:
                if container[key] is not obj:
                    return False
            except (KeyError, IndexError):
                return False
        return True


class Snapshot:
    """The method's memory at one moment; :meth:`restore` puts every attribute and array back."""

    __slots__ = ("plan", "values", "copies", "list_items", "dict_items")
    # values: a shallow copy of each dict of plan.slot_dicts

    def __init__(self, root, plan: MemoryPlan | None = None):
        self.plan = plan = MemoryPlan(root) if plan is None else plan
        self.values = [d.copy() for d in plan.slot_dicts]
        self.copies = [a.copy() for a in plan.arrays]
        self.list_items = [list(x) for x in plan.lists]
        self.dict_items = [dict(x) for x in plan.dicts]

    def restore(self) -> None:
        """Put every remembered attribute, container member and array content back."""
        plan = self.plan
        for lst, items in zip(plan.lists, self.list_items):
            lst[:] = items
        for dct, items in zip(plan.dicts, self.dict_items):
            dct.clear()
            dct.update(items)
        for container, key, i in plan.dict_slots:          # (lists are back whole)
            value = self.values[i].get(key, _Nowhere)
            now = container.get(key, _Nowhere)
            if now is value:
                continue
            if value is _Nowhere:
                del container[key]
            elif _grown(now, value):                      # a buffer grown in the step keeps its size
                now[:len(value)] = value
            else:
                container[key] = value
        for arr, saved in zip(plan.arrays, self.copies):
            np.copyto(arr, saved)


def snapshot(root) -> Snapshot:
    """A :class:`Snapshot` of ``root``, reusing the plan of the last one while it is valid."""
    plan = root.__dict__.get("_memory_plan")
    if plan is None or not plan.still_valid():
        plan = MemoryPlan(root)
        root.__dict__["_memory_plan"] = plan
    return Snapshot(root, plan)


class _NowhereType:
    pass


_Nowhere = _NowhereType()


# ------------------------------------------------------------------------ memory by path, for checkpoints


def method_memory(method) -> dict:
    """The method's arrays and numeric scalars by attribute path (e.g. ``contacts.prev_pos``).

    Arrays reached by two paths are stored once, under the first. Strings, enums and None (configuration,
    fixed when the method is made) are left out.
    """
    out: dict = {}
    for path, value in _walk(method):
        if isinstance(value, np.ndarray):
            if value.flags.writeable:        # read-only arrays are constants of the model
                out[path] = value
        elif type(value) in (bool, int, float) or isinstance(value, np.number):
            out[path] = value
    return out


def restore_memory(method, memory: dict) -> list[str]:
    """Write ``memory`` (from :func:`method_memory` of a method made the same way) into ``method``.

    Arrays of the same shape are overwritten in place; an array that grew in the saved run (contact
    buffers grow on demand) replaces the method's, in every place that shared it. Returns the paths of
    ``memory`` the method has no place for (empty when the two were made the same way).
    """
    places = {}
    for path, value, setter in _walk(method, setters=True):
        places[path] = (value, setter)
    replaced: dict[int, np.ndarray] = {}
    unknown = []
    for path, saved in memory.items():
        if path not in places:
            unknown.append(path)
            continue
        value, setter = places[path]
        if isinstance(value, np.ndarray) and isinstance(saved, np.ndarray):
            if value.shape == saved.shape and value.dtype == saved.dtype:
                value[...] = saved
            else:
                replaced[id(value)] = np.array(saved, dtype=value.dtype)
        elif not isinstance(value, np.ndarray) and not isinstance(saved, np.ndarray):
            setter(type(value)(saved) if type(value) in (bool, int, float) else saved)
        else:
            unknown.append(path)
    if replaced:
        for _, value, setter in _walk(method, setters=True, aliases=True):
            if isinstance(value, np.ndarray) and id(value) in replaced:
                setter(replaced[id(value)])
    return unknown


def _walk(root, setters=False, aliases=False):
    """(path, value[, setter]) of every place under ``root`` the snapshot covers; each array once unless
    ``aliases``. Tuples are entered; a setter of a tuple member rebuilds the tuple in its own place."""
    seen: set = set()

    def visit(value, path, setter):
        if isinstance(value, _SKIP):
            return
        if isinstance(value, _SCALARS):
            yield (path, value, setter) if setters else (path, value)
            return
        if id(value) in seen and not (aliases and isinstance(value, np.ndarray)):
            return
        seen.add(id(value))
        if isinstance(value, np.ndarray):
            yield (path, value, setter) if setters else (path, value)
        elif isinstance(value, (list, tuple)):
            holder = [value]
            for i, v in enumerate(value):
                yield from visit(v, f"{path}[{i}]", _member_setter(holder, i, setter))
        elif isinstance(value, dict):
            for k, v in list(value.items()):
                if isinstance(k, (str, int)):
                    yield from visit(v, f"{path}[{k!r}]", _item_setter(value, k))
        elif _ours(value):
            skip = _scratch_of(value)
            for k, v in list(vars(value).items()):
                if k in skip:
                    continue
                yield from visit(v, f"{path}.{k}" if path else k, _attr_setter(value, k))

    skip = _scratch_of(root)
    for key, value in list(vars(root).items()):
        if key not in skip:
            yield from visit(value, key, _attr_setter(root, key))


def _attr_setter(obj, key):
    return lambda v: obj.__dict__.__setitem__(key, v)


def _item_setter(container, key):
    return lambda v: container.__setitem__(key, v)


def _member_setter(holder, i, parent_setter):
    """Setter of member i of the list or tuple in ``holder[0]``; a tuple is rebuilt and put in its parent's
    place (the holder is shared by the members' setters, so several members can be replaced)."""
    if isinstance(holder[0], list):
        return lambda v: holder[0].__setitem__(i, v)

    def rebuild(v):
        seq = holder[0]
        items = list(seq)
        items[i] = v
        holder[0] = type(seq)(*items) if hasattr(seq, "_fields") else type(seq)(items)
        parent_setter(holder[0])
    return rebuild


def _scratch_of(obj) -> frozenset:
    """Attributes a class declares as workspace (``_scratch_attrs``): written before they are read in every
    step, or fixed when the object is made; neither rolled back nor checkpointed."""
    return getattr(type(obj), "_scratch_attrs", frozenset()) | {"_scratch", "_memory_plan", "model", "_thickness_cache",
                                                            "side_compile", "_first_step_prepared"}


def _grown(now, before) -> bool:
    return (isinstance(now, np.ndarray) and isinstance(before, np.ndarray) and now.ndim == before.ndim
            and now.shape[1:] == before.shape[1:] and now.shape[0] > before.shape[0] and now.dtype == before.dtype)


def _ours(obj) -> bool:
    """Objects of impulsim's own classes are entered; others (compiled functions, factorizations of other
    libraries) are kept by identity."""
    return hasattr(obj, "__dict__") and type(obj).__module__.startswith("impulsim.")
