"""Contacts in the default impulse method: when they switch on, how options reach them, what is refused."""
import pytest

import impulsim as ims
from impulsim.io.scene import scene_from_string
from impulsim.io.settings import parse_option
from impulsim.methods import make


def box_on_ground(**body):
    b = ims.ModelBuilder("box on ground")
    b.add_body("ground", shapes=[ims.HalfSpace()], static=True)
    b.add_body("box", shapes=[ims.Box(size=(1, 1, 1))], mass=1.0, position=(0, 0, 0.5), **body)
    return b.build()


def hinged_pair():
    """Two overlapping boxes on a hinge: an articulated system alone."""
    b = ims.ModelBuilder("pair")
    b.add_body("a", shapes=[ims.Box(size=(1, 0.2, 0.2))], mass=1.0, position=(0.5, 0, 0))
    b.add_body("b", shapes=[ims.Box(size=(1, 0.2, 0.2))], mass=1.0, position=(1.4, 0, 0))
    b.add_hinge("h0", "world", "a", anchor=(0, 0, 0), axis=(0, 1, 0))
    b.add_hinge("h1", "a", "b", anchor=(1, 0, 0), axis=(0, 1, 0))
    return b.build()


def test_contacts_switch_on_for_bodies_that_can_meet():
    model, state = box_on_ground()
    method = make("impulse", model)
    assert method.contacts is not None
    info = method.step(state, 1e-3)
    assert info.n_contacts == 4           # the box's bottom face: four corners within eps_c


def test_an_articulated_system_alone_runs_without_contact_detection():
    model, _ = hinged_pair()
    assert make("impulse", model).contacts is None
    assert make("impulse", model, contacts=True).contacts is not None     # self-collision on request


def test_collision_filter_decides_the_default():
    model, _ = box_on_ground(collision_group=0)
    assert make("impulse", model).contacts is None


def test_contact_options_are_checked():
    model, _ = box_on_ground()
    with pytest.raises(ValueError, match="unknown option"):
        make("impulse", model, eps_contact=1e-3)
    with pytest.raises(ValueError, match="contacts are off"):
        make("impulse", model, contacts=False, restitution="poisson")
    with pytest.raises(ValueError, match="scheme"):
        make("impulse", model, scheme="order2")
    with pytest.raises(ValueError, match="restitution law"):
        make("impulse", model, restitution="elastic")


SCENE = """
bodies:
  - {name: ground, shapes: [half_space: {}], static: true}
  - {name: box, shapes: [box: {size: [1, 1, 1]}], mass: 1, position: [0, 0, 0.5]}
settings: {h: 0.001, eps_c: 0.002, restitution: poisson, shock_propagation: 5, warm_start: false}
"""


def test_scene_settings_reach_the_contact_stage():
    method = scene_from_string(SCENE, "s.yaml").make_method()
    opt = method.contacts.opt
    assert (opt.eps_c, opt.restitution.name, opt.shock_propagation, opt.warm_start) == (0.002, "POISSON", 5, False)


def test_command_line_options_of_the_contact_stage_are_typed():
    assert parse_option("impulse", "shock_propagation", "3") == 3
    assert parse_option("impulse", "contacts", "false") is False
    assert parse_option("impulse", "eps_vc", "1e-4") == 1e-4
