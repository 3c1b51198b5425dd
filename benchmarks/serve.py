"""Serve an ASGI app factory with uvicorn on a TCP socket that has ``TCP_NODELAY``.

    python benchmarks/serve.py MODULE:FACTORY --port PORT [--workers N]

``uvicorn --workers N`` (N > 1) binds its listening socket without naming the TCP protocol,
so asyncio does not turn Nagle's algorithm off on the connections it accepts: a response
written in several small pieces, as an SSE stream is, then waits for the client's delayed
acknowledgement (about 40 ms on Linux). This launcher binds the socket with the protocol
named, which is what a single uvicorn worker gets, and otherwise starts uvicorn as its
command line does. It is a standalone script so it can run in any environment that has
uvicorn (the examples' own, for instance).
"""

from __future__ import annotations

import argparse
import socket
import sys
from inspect import signature
from typing import Any

import uvicorn
from uvicorn.supervisors import Multiprocess


def _socket(host: str, port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.set_inheritable(True)
    return sock


def main(argv: list[str]) -> int:
    """Parse the command line and serve until terminated."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("app")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args(argv)
    sys.path.insert(0, ".")
    config = uvicorn.Config(
        args.app,
        factory=True,
        host=args.host,
        port=args.port,
        workers=args.workers,
        log_level="warning",
        access_log=False,
        timeout_keep_alive=120,
    )
    server = uvicorn.Server(config)
    sock = _socket(args.host, args.port)
    if args.workers > 1:
        # uvicorn < 0.30 takes the worker entry point; newer versions find it themselves.
        extra: dict[str, Any] = (
            {"target": server.run} if "target" in signature(Multiprocess).parameters else {}
        )
        Multiprocess(config, sockets=[sock], **extra).run()
    else:
        server.run(sockets=[sock])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
