"""Each space read, or "unreadable" — never a guess: the plain reader (``reader``, with
``occlusion``, ``tag_reading`` and ``colour_reading``), Gygès's rings read by their tiers
(``ring_reading``), DRIFT (``drift_reader``, ``drift_tags``, ``drift_markers``), and which one a game needs
(``for_game``); why a space is not read, every reason stated once (``reasons``). Builds on
:mod:`vision.read`."""
