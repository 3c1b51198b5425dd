"""The test harness's server processes: a server is taken as ready only when the process we
started holds the port it answers on."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest

from support.processes import listens


@pytest.mark.skipif(not os.path.exists("/proc/net/tcp"), reason="reads Linux's /proc")
def test_only_the_process_holding_the_listening_socket_listens() -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        port = server.getsockname()[1]
        assert not listens(os.getpid(), port)  # bound, not listening yet
        server.listen()
        assert listens(os.getpid(), port)
        other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
        try:
            assert not listens(other.pid, port)  # another process on this port's answers
        finally:
            other.kill()
            other.wait()
