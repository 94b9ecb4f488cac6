"""Observation sources: anything that yields :class:`rules.Observation` readings of the board
(the simulated board in :mod:`tableref.sources.sim`, later cameras and sensor bridges)."""
