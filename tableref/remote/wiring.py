"""``tableref serve`` with ``[remote]``: the link made, subscribed to the referee and shown on
the page (kept out of serve.py, which wires everything else)."""

from __future__ import annotations

from typing import Any

from decisions import Seats

from .client import RemoteLink


def attach(service: Any, client_factory: Any = None) -> RemoteLink:
    """A :class:`RemoteLink` for the service (not started: ``start()`` once the referee runs)."""
    table = service.table

    def start_game(game: str, options: dict[str, Any], setup: str, seats: Seats, control: str | None) -> None:
        # as the page's new game: the simulated board set up for it; "off" when the match has no clock
        table.new_game(game, options, setup, seats, control or "off")

    def control_for(game: str) -> str | None:
        control = service.clock_settings.control_for(game, None)
        return None if control is None else control.text()

    extra = {"client_factory": client_factory} if client_factory is not None else {}
    link = RemoteLink(service.remote_config, service.journal_path, service.submit, start_game, **extra)
    link.control_for = control_for
    link.on_status = lambda status: table.set_remote_link(status.to_dict())
    table.set_remote_link(link.status.to_dict())
    service.referee.subscribe(link.on_decision)
    service.app.extensions["tableref_remote"] = link
    return link
