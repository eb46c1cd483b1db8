"""A model copied in the process (``copy.deepcopy``) or handed to another one (pickled) keeps its arrays
read-only. Numba types an array by its writability as well as its dtype and layout, so a writable copy
compiled every kernel that takes model arrays once more instead of loading those compiled for the
original: a second process compiling beside a Jupyter kernel compiled for nobody, and a copied method
compiled its whole step again."""
import copy
import dataclasses
import pickle
from pathlib import Path

import numba
import numpy as np
import pytest

from impulsim.io import load_scene

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _array_fields(model):
    return [f.name for f in dataclasses.fields(model) if isinstance(getattr(model, f.name), np.ndarray)]


@pytest.mark.parametrize("how", ["pickle", "deepcopy", "deepcopy of the method"])
def test_a_copied_model_has_the_values_and_the_kernel_types_of_the_original(how):
    sim = load_scene(EXAMPLES / "falling_boxes.yaml").simulation()
    model = sim.model
    if how == "pickle":
        dup = pickle.loads(pickle.dumps(model))
    elif how == "deepcopy":
        dup = copy.deepcopy(model)
    else:
        dup = copy.deepcopy(sim.method).model
    names = _array_fields(model)
    assert len(names) > 20
    for name in names:
        original, copied = getattr(model, name), getattr(dup, name)
        assert copied is not original
        assert np.array_equal(copied, original), name
        assert numba.typeof(copied) == numba.typeof(original), name
        assert not copied.flags.writeable, name
