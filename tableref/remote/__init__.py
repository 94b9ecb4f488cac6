"""A game between two real boards (issue 34, part 2; docs/remote.md): the wire format
(``wire``, pure), the link's bookkeeping (``link``, pure), the journal's inbox (``store``) and the
MQTT client on its own thread (``client``)."""
