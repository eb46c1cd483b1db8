"""The bobsleigh simulator (Rempfler 2015): an ice channel built from its construction parameters
(:mod:`impulsim.apps.bobsleigh.track`), a multibody bob on the ice, a pilot, runs with split times, and the
driving page with recorder, replay and ghost."""
