"""Issue 33, item 12: the hub's log lines carry their time (``tableref hub`` as a process, a
real Mosquitto): a bad payload on a board's topic is logged with a timestamp, as is the link."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading

import paho.mqtt.client as mqtt

from mosquittohelp import free_port, needs_mosquitto, wait_for

pytestmark = needs_mosquitto

STAMP = r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}[,.]\d{3} "


def test_the_hubs_log_lines_carry_their_time(broker, tmp_path):
    cfg = tmp_path / "hub.toml"
    cfg.write_text(f'[broker]\nbroker = "mqtt://127.0.0.1:{broker.port}"\n[data]\ndir = "data"\n'
                   f'[web]\nport = {free_port()}\n')
    proc = subprocess.Popen([sys.executable, "-m", "tableref", "hub", "--config", str(cfg)], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(iter(proc.stdout.readline, "")), daemon=True)
    reader.start()
    raw = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="raw", protocol=mqtt.MQTTv311)
    try:
        wait_for(lambda: any("club page http://" in l for l in lines), 20, "the hub to start")
        wait_for(lambda: any("connected" in l for l in lines), 10, "the hub's link in its log")
        raw.connect("127.0.0.1", broker.port)
        raw.loop_start()
        raw.publish("tableref/v1/table-09/journal", b"not json", qos=1).wait_for_publish(5)
        line = wait_for(lambda: next((l for l in lines if "dropped a message" in l), None), 10,
                        "the bad payload in the hub's log")
        assert re.match(STAMP + r"WARNING tableref\.hub\.hub: hub: dropped a message: "
                        r"tableref/v1/table-09/journal: not JSON", line), line
        link = next(l for l in lines if "connected" in l and "club page" not in l)
        assert re.match(STAMP + r"INFO tableref\.hub\.hub: hub: connected to mqtt://127\.0\.0\.1:", link), link
    finally:
        raw.loop_stop()
        raw.disconnect()
        proc.send_signal(signal.SIGTERM)
        proc.wait(10)
        reader.join(5)
    assert proc.returncode == 0, "".join(lines)
