"""The tests' OpenAI server itself: a client that hangs up is no error worth a traceback."""

from __future__ import annotations

import socket
import struct
import time

import pytest
from fake_openai import FakeOpenAI

pytest_plugins = ["fake_openai"]


def test_a_client_that_resets_its_connection_prints_nothing(
    fake_openai: FakeOpenAI, capsys: pytest.CaptureFixture[str]
) -> None:
    """Fault and cancellation tests cut connections on purpose; CI's log should not show a
    traceback for each (it showed one, from a reset before the request line was read)."""
    with socket.create_connection(("127.0.0.1", fake_openai.port)) as client:
        client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # close sends RST
    printed = ""
    deadline = time.monotonic() + 1.0
    while time.monotonic() < deadline:  # the server's thread meets the reset soon after
        printed += capsys.readouterr().err
        time.sleep(0.05)
    assert "Traceback" not in printed
