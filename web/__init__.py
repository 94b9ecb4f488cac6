"""web — the local web page: live board, decisions, controls, simulated board, replay, JSON
API and server-sent events. ``create_app(config)`` builds the Flask app (see web/app.py);
``tableref serve`` (tableref/serve.py) wires it to the referee."""

from .app import create_app

__all__ = ["create_app"]
