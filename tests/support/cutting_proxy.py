"""A TCP proxy that cuts every connection after a number of bytes, as a proxy or service mesh
with a cap on its connections does (ag-ui #2105: a hard cap keepalives do not reset).

Counting bytes, not seconds, makes a test independent of timing: the same answer is cut at
the same places on every run and every machine.

    with serve_app(app) as upstream, cutting_proxy(upstream, cut_after_bytes=2000) as proxy:
        httpx.post(f"{proxy.url}/agent", ...)  # the response stops after 2000 bytes
    assert proxy.cuts > 0

Every connection (its response's bytes counted from its first, headers included) is closed
on both sides once ``cut_after_bytes`` bytes went from the server to the client; what the
client sent is passed on untouched. With ``streams_only``, bytes are counted from the first
event-stream response of a connection on (a page's scripts and styles pass whole, as they do
through a proxy that caps a connection's time: they are quick). The proxy runs its own event
loop in a thread, so sync tests, uvicorn threads and Node or Chromium clients can all go
through it.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit

__all__ = ["CuttingProxy", "cutting_proxy"]

_READ_SIZE = 4096
_START_SECONDS = 10.0
_EVENT_STREAM = b"content-type: text/event-stream"


class CuttingProxy:
    """The running proxy: its :attr:`url`, and how many connections it has cut."""

    def __init__(self, upstream: str, cut_after_bytes: int, streams_only: bool = False) -> None:
        parts = urlsplit(upstream)
        assert parts.hostname is not None and parts.port is not None, upstream
        self.upstream = (parts.hostname, parts.port)
        self.cut_after_bytes = cut_after_bytes
        self.streams_only = streams_only
        self.url = ""
        self.cuts = 0
        self.connections = 0
        self._ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None

    async def _serve(self) -> None:
        self._stop = asyncio.Event()
        server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        self._loop = asyncio.get_running_loop()
        self._ready.set()
        async with server:
            await self._stop.wait()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.upstream)
        except OSError:
            writer.close()
            return
        sending = asyncio.create_task(_pipe(reader, up_writer))
        try:
            if await self._answer(up_reader, writer):
                self.cuts += 1
        except (asyncio.CancelledError, ConnectionError):
            pass  # the proxy is closing, or the client left: the connection ends either way
        finally:
            sending.cancel()
            for side in (writer, up_writer):
                side.transport.abort()  # no orderly end: the connection just stops

    async def _answer(self, source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> bool:
        """Pass the server's bytes on until the cap: True when the cap cut them."""
        left = self.cut_after_bytes
        counting = not self.streams_only
        while True:
            data = await source.read(_READ_SIZE)
            if not data or sink.is_closing():
                return False
            if not counting:
                at = data.lower().find(_EVENT_STREAM)
                if at < 0:
                    sink.write(data)
                    continue
                counting = True
                sink.write(data[:at])
                data = data[at:]
            sink.write(data[:left])
            with contextlib.suppress(ConnectionError):
                await sink.drain()
            left -= min(left, len(data))
            if left == 0:
                return True

    def run(self) -> None:
        asyncio.run(self._serve())

    def close(self) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)


async def _pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
    with contextlib.suppress(ConnectionError):
        while (data := await source.read(_READ_SIZE)) and not sink.is_closing():
            sink.write(data)
            await sink.drain()


@contextmanager
def cutting_proxy(
    upstream: str, *, cut_after_bytes: int, streams_only: bool = False
) -> Iterator[CuttingProxy]:
    """A proxy in front of ``upstream`` (``http://127.0.0.1:<port>``) that closes every
    connection after ``cut_after_bytes`` bytes of its answer (of its event stream)."""
    proxy = CuttingProxy(upstream, cut_after_bytes, streams_only)
    thread = threading.Thread(target=proxy.run, daemon=True)
    thread.start()
    if not proxy._ready.wait(_START_SECONDS):
        raise RuntimeError("the cutting proxy did not start")
    try:
        yield proxy
    finally:
        proxy.close()
        thread.join(timeout=10)
