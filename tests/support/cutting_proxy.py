"""A TCP proxy that cuts every connection after a number of bytes, as a proxy or service mesh
with a cap on its connections does (ag-ui #2105: a hard cap keepalives do not reset).

Counting bytes, not seconds, makes a test independent of timing: the same answer is cut at
the same places on every run and every machine.

    with serve_app(app) as upstream, cutting_proxy(upstream, cut_after_bytes=2000) as proxy:
        httpx.post(f"{proxy.url}/agent", ...)  # the response stops after 2000 bytes
    assert proxy.cuts > 0

Every connection (its response's bytes counted from its first, headers included) is closed
on both sides once ``cut_after_bytes`` bytes went from the server to the client; what the
client sent is passed on untouched. With ``streams_only``, only event-stream responses are
capped, in bytes of their body (a page's scripts and styles pass whole, as they do through a
proxy that caps a connection's time: they are quick), and a capped response is ended there
as HTTP (its last chunk cut short, then the closing chunk) before the connection is closed:
a browser then gets every byte it was sent (Chromium may drop the bytes it has not yet handed
to the page when a chunked body breaks off). The proxy runs its own event
loop in a thread, so sync tests, uvicorn threads and Node or Chromium clients can all go
through it.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator, Iterator
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
            up_writer.transport.abort()
            # The client's side is closed (FIN) once what it was sent is flushed: its bytes
            # arrive, then the response stops mid-stream. (A reset could drop bytes the client
            # had received but not yet read.)
            writer.close()

    async def _answer(self, source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> bool:
        """Pass the server's bytes on until the cap: True when the cap cut them."""
        if self.streams_only:
            return await self._answer_streams(source, sink)
        left = self.cut_after_bytes
        while True:
            data = await source.read(_READ_SIZE)
            if not data or sink.is_closing():
                return False
            sink.write(data[:left])
            with contextlib.suppress(ConnectionError):
                await sink.drain()
            left -= min(left, len(data))
            if left == 0:
                return True

    async def _answer_streams(
        self, source: asyncio.StreamReader, sink: asyncio.StreamWriter
    ) -> bool:
        """Pass the server's bytes on up to its first event-stream response; pass that one's
        body (chunked) up to the cap, then end it. True when the cap cut it."""
        while True:
            data = await source.read(_READ_SIZE)
            if not data or sink.is_closing():
                return False
            at = data.lower().find(_EVENT_STREAM)
            if at >= 0:
                break
            sink.write(data)
        start = data.rfind(b"HTTP/1.", 0, at)
        sink.write(data[:start])
        head = data[start:]
        while b"\r\n\r\n" not in head:
            more = await source.read(_READ_SIZE)
            if not more:
                return False
            head += more
        end = head.index(b"\r\n\r\n") + 4
        sink.write(head[:end])
        left = self.cut_after_bytes
        async for piece in _chunks(source, head[end:]):
            part = piece[:left]
            sink.write(b"%x\r\n%s\r\n" % (len(part), part))
            left -= len(part)
            if left == 0:
                sink.write(b"0\r\n\r\n")
                return True
        sink.write(b"0\r\n\r\n")
        return False

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


async def _chunks(source: asyncio.StreamReader, buffered: bytes) -> AsyncIterator[bytes]:
    """The data of each chunk of a chunked HTTP body, ``buffered`` being its first bytes."""
    buffer = buffered
    while True:
        while b"\r\n" not in buffer:
            if not (more := await source.read(_READ_SIZE)):
                return
            buffer += more
        line, buffer = buffer.split(b"\r\n", 1)
        size = int(line.split(b";")[0], 16)
        if size == 0:
            return
        while len(buffer) < size + 2:
            if not (more := await source.read(_READ_SIZE)):
                return
            buffer += more
        yield buffer[:size]
        buffer = buffer[size + 2 :]


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
