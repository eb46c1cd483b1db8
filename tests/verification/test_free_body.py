"""Torque-free rigid body: conservation of kinetic energy and world angular momentum; the
intermediate-axis (Dzhanibekov) flip."""
import numpy as np
import pytest

import impulsim as ims
from impulsim.dynamics import diagnostics
from impulsim.math import quat_rotate_inv
from tests.verification.methods import methods_with, make_method

H = 0.01
STEPS = 10_000
# RK4's local error per step is O((|ω| h)^5) ≈ 1e-10 here; over 10⁴ steps the drift stays far below
# the bound of 1e-6 relative.
CONSERVATION_REL_TOL = 1e-6


def spinning_box(omega_body):
    """A free body with principal moments 1 : 2 : 3 kg m², no gravity, spinning at omega_body."""
    b = ims.ModelBuilder("free body", gravity=(0, 0, 0))
    b.add_body("box", mass=1.0, inertia=(1.0, 2.0, 3.0), angular_velocity=omega_body)
    return b.build()


@pytest.mark.parametrize("method", methods_with("free_body"))
def test_torque_free_body_conserves_energy_and_angular_momentum(method):
    model, state = spinning_box((0.05, 0.99, 0.05))
    sim = ims.Simulation(model, state, method=make_method(method, model), h=H)
    e0 = diagnostics.kinetic_energy(model, state)
    l0 = diagnostics.angular_momentum(model, state)
    spin_y = []
    for _ in range(STEPS):
        sim.step()
        spin_y.append(quat_rotate_inv(sim.state.body_quat[1], sim.state.body_omega[1])[1])
    e1 = diagnostics.kinetic_energy(model, sim.state)
    l1 = diagnostics.angular_momentum(model, sim.state)
    assert abs(e1 - e0) / e0 < CONSERVATION_REL_TOL
    assert np.linalg.norm(l1 - l0) / np.linalg.norm(l0) < CONSERVATION_REL_TOL
    # the spin about the intermediate axis reverses (Dzhanibekov effect), more than once in 100 s
    spin_y = np.array(spin_y)
    assert spin_y.max() > 0.9 and spin_y.min() < -0.9
    assert np.count_nonzero(np.diff(np.sign(spin_y)) != 0) >= 2


@pytest.mark.parametrize("method", methods_with("free_body"))
def test_spin_about_major_axis_is_stable(method):
    """The same perturbation about the largest principal axis stays a small wobble."""
    model, state = spinning_box((0.05, 0.05, 0.99))
    sim = ims.Simulation(model, state, method=make_method(method, model), h=H)
    sim.run(100.0)
    spin_z = quat_rotate_inv(sim.state.body_quat[1], sim.state.body_omega[1])[2]
    assert spin_z > 0.98
