"""The club hub: boards publish their journals over MQTT (Mosquitto); a hub keeps the event.

* :mod:`.protocol` — topics and the versioned JSON payloads (``docs/hub.md``), pure.
* :mod:`.settings` — the board's ``[hub]`` table and the hub's own config file.
* :mod:`.outbox` — the journal as the outbox: what the hub has not acknowledged.
* :mod:`.publisher` — the board side: its own thread, never in the referee's way.
* :mod:`.store` — the hub's SQLite store; :mod:`.hub` — the hub process; :mod:`.simulate` —
  many boards as real MQTT clients, refereeing random legal games.

Importing this package imports nothing heavy: paho-mqtt is imported where a client is made.
"""
