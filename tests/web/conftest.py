"""A whole service (journal, referee, simulated board, web app) with no threads: every
request is handled, judged and published before it returns."""

from __future__ import annotations

import pytest

from rules import Fidelity
from webhelp import make_service


@pytest.fixture
def service(tmp_path):
    svc = make_service(tmp_path)
    yield svc
    svc.close()


@pytest.fixture
def occupancy_service(tmp_path):
    svc = make_service(tmp_path, fidelity=Fidelity.OCCUPANCY)
    yield svc
    svc.close()
