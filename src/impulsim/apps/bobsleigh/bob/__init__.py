"""The two-man bob (Rempfler 2015, ch. 4): bob files, the multibody model, the steering map."""
from impulsim.apps.bobsleigh.bob.files import BobFileError
from impulsim.apps.bobsleigh.bob.model import Bob, load_bob, steering_angle

__all__ = ["Bob", "BobFileError", "load_bob", "steering_angle"]
