"""The source documents' experiments, each a scene builder with its reference figures, in one place.

One module per document (and topic): benchmarks (:mod:`impulsim.bench`), tests and examples build their
scenes here, so that no scene is built twice.

* :mod:`~impulsim.experiments.bender` — Bender 2007, the LGS measurements: chain, binary tree, three loops,
  double pendulum; :mod:`~impulsim.experiments.bender_tables` — his measured step times (Tables 3.1–3.6);
  :mod:`~impulsim.experiments.bender_contacts` — his contact experiments (cradle, stacking, incline, funnel,
  wall, tippe top, rattleback, limits).
* :mod:`~impulsim.experiments.wagner` — Wagner 2001, the tree of Tables 3.2–3.7 as he measured it.
* :mod:`~impulsim.experiments.holck` — Holck 2005, the Featherstone test scenes.
* :mod:`~impulsim.experiments.rempfler` — Rempfler 2015, the contact scenes with analytic answers and the
  runner-law sleds.
* :mod:`~impulsim.experiments.schmitt` and :mod:`~impulsim.experiments.schmitt_runs` — Schmitt & Thüring
  2000, the mass-point scenes and the runs that reproduce their figures.
* :mod:`~impulsim.experiments.idle` — scenes where contacts have little to do (piles asleep, chains in the air),
  for what contacts cost then.
"""
