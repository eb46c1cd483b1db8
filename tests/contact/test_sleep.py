"""Sleeping: islands at rest stop moving exactly, and wake when something hits them."""
import numpy as np

import impulsim as ims
from impulsim.methods import make

H = 2e-3


def stack_and_ball():
    """Three boxes on the ground, and a ball on a 10 m pendulum released 30° out that hits the top box
    about 1.6 s later (a quarter period), long after the stack could fall asleep."""
    b = ims.ModelBuilder("stack")
    b.add_body("ground", shapes=[ims.HalfSpace()], static=True)
    for k in range(3):
        b.add_body(f"box{k}", shapes=[ims.Box(size=(0.4, 0.4, 0.4))], mass=1.0, position=(0.35, 0, 0.2 + 0.4 * k))
    angle = np.radians(30.0)
    b.add_body("ball", shapes=[ims.Sphere(radius=0.1)], mass=2.0,
               position=(-10 * np.sin(angle), 0, 11.0 - 10 * np.cos(angle)))
    b.add_ball("rope", "world", "ball", anchor=(0, 0, 11.0))
    return b.build()


def test_a_stack_at_rest_falls_asleep_and_stays_exactly_in_place():
    model, state = stack_and_ball()            # the ball arrives after 3 s
    method = make("impulse", model, sleep=True)
    asleep_at = None
    for i in range(int(1.4 / H)):
        info = method.step(state, H)
        if asleep_at is None and info.n_asleep == 3:
            asleep_at = i
            pose = state.body_pos[2:5].copy()
    assert asleep_at is not None and asleep_at * H < 1.0       # 0.5 s still after settling
    # asleep: the free step and the solver leave the boxes where they are, bit for bit
    assert np.array_equal(state.body_pos[2:5], pose)
    assert np.all(state.body_vel[2:5] == 0.0)


def test_a_collision_wakes_the_island():
    model, state = stack_and_ball()
    method = make("impulse", model, sleep=True)
    asleep = []
    for _ in range(int(2.0 / H)):
        asleep.append(method.step(state, H).n_asleep)
    first = asleep.index(3)
    assert 0 in asleep[first:]                                 # slept, then the ball woke the whole island
    assert state.body_pos[4, 0] > 0.35 + 0.01                  # and pushed the top box away


def test_sleeping_is_off_by_default():
    model, state = stack_and_ball()
    method = make("impulse", model)
    for _ in range(int(1.0 / H)):
        assert method.step(state, H).n_asleep == 0


def pyramid_on_a_platform(n_base=6):
    """The stacking pyramid of 21 on a kinematic platform at rest instead of the ground: with a kinematic body in
    the model the sleepers' contacts are still detected (see ContactStage._detect)."""
    from impulsim.experiments import bender_contacts as S
    b = ims.ModelBuilder("pyramid on a platform")
    b.add_material("wood", static_friction=S.STACK_FRICTION, dynamic_friction=S.STACK_FRICTION)
    b.add_body("platform", shapes=[ims.Box(size=(12.0, 4.0, 1.0), material="wood")], kinematic=True,
               position=(0.0, 0.0, -0.5))
    S.add_pyramid(b, n_base)
    return b.build()


def test_a_sleeping_heap_takes_one_pass_a_phase():
    """Once every box of the pyramid sleeps on its (resting) kinematic platform, no impulse can move any of its
    contacts: each phase ends after its first pass, converged. (Friction anchors that had drifted apart by
    more than eps_d before the boxes fell asleep used to count as a position error no pass could correct, and
    every step ran the position correction to its cap of 10 000 sweeps.)"""
    from impulsim.bench.contact import make_method
    from impulsim.experiments import bender_contacts as S
    model, state = pyramid_on_a_platform()      # a kinematic body in the model: no step is skipped
    method = make_method(model, S.STACK_SETTINGS, sleep=True)
    infos = [method.step(state, S.STACK_H) for _ in range(70)]
    first = next(k for k, i in enumerate(infos) if i.n_asleep == 21)    # the boxes fall asleep after this step
    asleep = infos[first + 1:]
    assert len(asleep) >= 10 and all(i.n_asleep == 21 and i.n_contacts > 21 for i in asleep)
    assert all(i.iters_pos == 1 and i.converged_pos and i.iters_vel == 1 and i.converged_vel for i in asleep)


def _platform_run(skip_idle_steps=True):
    """The pyramid on its platform for 70 steps (asleep from about 0.5 s), then the platform moving up at 1 m/s
    for 30: (the n_asleep of those 30 steps, the top box's height before they start, the final state)."""
    from impulsim.bench.contact import make_method
    from impulsim.experiments import bender_contacts as S
    model, state = pyramid_on_a_platform()
    method = make_method(model, S.STACK_SETTINGS, sleep=True, shock_propagation=1)
    if not skip_idle_steps:
        method._idle_step = lambda s: None
    for _ in range(70):
        info = method.step(state, S.STACK_H)
    assert info.n_asleep == 21
    top = state.body_pos[-1, 2]
    state.body_vel[1] = (0.0, 0.0, 1.0)
    woken = [method.step(state, S.STACK_H).n_asleep for _ in range(30)]
    return woken, top, state


def test_a_kinematic_body_that_starts_moving_wakes_the_sleepers_it_hits():
    """The pyramid asleep on its platform; then the platform moves up at 1 m/s: the boxes wake (all at once,
    the island they slept in) and ride up with it. With a kinematic body in the model nothing is skipped: the
    same states as with every step taken in full."""
    woken, top, state = _platform_run()
    assert woken[0] == 0 and max(woken) == 0
    assert state.body_pos[-1, 2] > top + 0.2
    _, _, full = _platform_run(skip_idle_steps=False)
    assert np.array_equal(state.body_pos, full.body_pos) and np.array_equal(state.body_vel, full.body_vel)


def boxes_and_ball():
    """Two stacked boxes and a ball resting on the ground apart from them: nothing with joints, so the whole
    model can sleep."""
    b = ims.ModelBuilder("boxes and ball")
    b.add_body("ground", shapes=[ims.HalfSpace()], static=True)
    for k in range(2):
        b.add_body(f"box{k}", shapes=[ims.Box(size=(0.4, 0.4, 0.4))], mass=1.0, position=(0, 0, 0.2 + 0.4 * k))
    b.add_body("ball", shapes=[ims.Sphere(radius=0.1)], mass=0.5, position=(1.0, 0, 0.1))
    return b.build()


def _run_with_disturbances(method, state, steps):
    """Step ``steps`` times; push the top box sideways for 20 steps from step 700 (after 1.4 s, long asleep)
    and lift the ball by 1 cm between steps 900 and 901. Returns the states after every step."""
    states = []
    for i in range(steps):
        state.body_force[2] = (30.0, 0.0, 0.0) if 700 <= i < 720 else (0.0, 0.0, 0.0)
        if i == 900:
            state.body_pos[3, 2] += 0.01
        method.step(state, H)
        states.append(np.concatenate([state.body_pos.ravel(), state.body_quat.ravel(), state.body_vel.ravel(),
                                      state.body_omega.ravel()]))
    return np.array(states)


def test_a_model_asleep_whole_skips_its_steps_with_the_same_results(monkeypatch):
    """Once every body sleeps and nothing disturbs them, a step changes nothing but the time, and it is skipped
    (no contact passes). The trajectory is the full step's, bit for bit, through a push that wakes the boxes
    and a ball lifted by the user between steps, both of which take the full step again."""
    from impulsim.contact.stage import ContactStage
    model, state = boxes_and_ball()
    method = make("impulse", model, sleep=True)
    skipped = [0]
    original = ContactStage.at_rest

    def counted(self, s):
        rest = original(self, s)
        skipped[0] += rest
        return rest
    monkeypatch.setattr(ContactStage, "at_rest", counted)
    fast = _run_with_disturbances(method, state, 1200)
    assert skipped[0] > 300                                   # asleep whole for most of 0.6 … 1.4 s
    monkeypatch.setattr(ContactStage, "at_rest", lambda self, s: False)
    model, state = boxes_and_ball()
    full = _run_with_disturbances(make("impulse", model, sleep=True), state, 1200)
    assert np.array_equal(fast, full)
    assert full[719, 2 * 3] > full[699, 2 * 3] + 1e-3          # the push moved the top box: it woke
    assert full[901, 3 * 3 + 2] > full[899, 3 * 3 + 2] + 5e-3  # the ball was lifted and falls back


def test_contacts_among_sleepers_are_left_out_and_found_again_when_they_wake():
    """While the pyramid sleeps, none of its contacts is detected (they join bodies that are asleep or static);
    the ball's impact wakes all 21 boxes in the step it arrives, which then has every contact a detector finds at
    the state the step started from, and no box sinks into another afterwards."""
    from impulsim.bench.contact import make_method
    from impulsim.collision import Detector
    from impulsim.experiments import bender_contacts as S
    from impulsim.experiments.idle import pyramid_and_ball
    model, state = pyramid_and_ball()
    method = make_method(model, S.STACK_SETTINGS, sleep=True, shock_propagation=1)
    judge = Detector(model, eps_c=S.STACK_SETTINGS["eps_c"])
    infos, found = [], []
    for _ in range(200):
        found.append(judge.detect(state).count)
        infos.append(method.step(state, S.STACK_H))
    asleep = [i for k, i in enumerate(infos[1:]) if infos[k].n_asleep == i.n_asleep == 21]   # asleep from the start
    assert len(asleep) > 50 and all(i.n_contacts == 0 for i in asleep)
    hit = next(k for k in range(1, len(infos)) if infos[k - 1].n_asleep == 21 and infos[k].n_asleep < 21)
    assert infos[hit].n_asleep == 0                             # the whole island, at once
    assert infos[hit].n_contacts == found[hit] > 21             # the boxes' contacts and the ball's
    assert judge.penetration(state) >= -S.STACK_SETTINGS["eps_c"]
    for _ in range(50):
        method.step(state, S.STACK_H)
        assert judge.penetration(state) >= -S.STACK_SETTINGS["eps_c"]


def test_a_body_on_a_spring_does_not_fall_asleep():
    """A box resting on the ground, tied by a spring to a ball on a pendulum that swings down past it: the box
    never sleeps (the spring's pull changes as the ball moves, and a sleeping box would not follow it), while
    a box beside it without a spring does; the spring, tightening as the ball swings on, drags its box along."""
    b = ims.ModelBuilder("box on a spring")
    b.add_body("ground", shapes=[ims.HalfSpace()], static=True)
    b.add_body("tied", shapes=[ims.Box(size=(0.4, 0.4, 0.4))], mass=10.0, position=(0.0, 0.0, 0.2))
    b.add_body("free", shapes=[ims.Box(size=(0.4, 0.4, 0.4))], mass=1.0, position=(0.0, 3.0, 0.2))
    b.add_body("ball", shapes=[ims.Sphere(radius=0.1)], mass=20.0, position=(-10.0, 0.0, 11.0))
    b.add_ball("rope", "world", "ball", anchor=(0.0, 0.0, 11.0))       # horizontal: it swings down towards +x
    b.add_spring("tie", "tied", "ball", stiffness=20.0, rest_length=14.0)
    model, state = b.build()
    tied, free = model.body_names.index("tied"), model.body_names.index("free")
    method = make("impulse", model, sleep=True)
    start = state.body_pos[tied].copy()
    for _ in range(int(2.0 / H)):
        method.step(state, H)
        assert method.contacts.sleep.asleep[tied] == 0
    assert method.contacts.sleep.asleep[free] == 1
    assert np.linalg.norm(state.body_pos[tied] - start) > 0.05
