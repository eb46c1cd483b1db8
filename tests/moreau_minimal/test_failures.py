"""A failed step raises and leaves the state as it was at the start of that step."""
import numpy as np
import pytest

from impulsim.errors import SimulationError
from impulsim.methods.moreau_minimal import TreeBuilder
from impulsim.methods.moreau_minimal.segments import make_contacts


def _box_on_plane(n_cells):
    """A body with one downward segment contact resting on a flat plane of 2·n_cells² triangles."""
    x = np.linspace(-1, 1, n_cells + 1)
    X, Y = np.meshgrid(x, x, indexing="ij")
    V = np.column_stack([X.ravel(), Y.ravel(), np.zeros(X.size)])
    k = n_cells + 1
    T = [[i * k + j, (i + 1) * k + j, (i + 1) * k + j + 1] for i in range(n_cells) for j in range(n_cells)] + \
        [[i * k + j, (i + 1) * k + j + 1, i * k + j + 1] for i in range(n_cells) for j in range(n_cells)]
    b = TreeBuilder()
    b.add_body("box", joint="free", mass=1.0, inertia=(0.1, 0.1, 0.1))
    b.add_segment("box", (0, 0, -0.101), (0, 0, 0.05), par=(0.5,))
    s = b.build(mesh=(V, np.array(T)))
    s.q[2] = 0.1
    return s


def test_candidate_overflow_keeps_the_state():
    s = _box_on_plane(40)
    s.step(1e-3, 3)
    before = [a.copy() for a in s.state]
    s.contacts = make_contacts(1, capacity=0)      # no room for a single candidate triangle
    with pytest.raises(SimulationError, match="too many mesh triangles"):
        s.step(1e-3, 1)
    for a, b in zip(s.state, before):
        assert np.array_equal(a, b)


def test_non_finite_result_keeps_the_state():
    s = _box_on_plane(4)
    s.step(1e-3, 3)
    s.work.force[0, 0] = np.inf                     # a load that cannot be integrated
    before = [a.copy() for a in s.state]
    with pytest.raises(SimulationError, match="not finite"):
        s.step(1e-3, 1)
    for a, b in zip(s.state, before):
        assert np.array_equal(a, b)
