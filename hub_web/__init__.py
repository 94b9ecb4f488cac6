"""The club page: every table live, standings, rounds and pairings, the archive (docs/hub.md).

:func:`create_hub_app` is the Flask app (pages and JSON); :mod:`hub_web.server` serves it
under uvicorn with the event stream on the event loop itself, so 500 spectators cost 500
small coroutines, not 500 threads. Same look as a board's live page (web/static/style.css);
watching is open, the arbiter's controls need the hub's PIN and the CSRF token (web/auth.py).
"""

from .app import create_hub_app

__all__ = ["create_hub_app"]
