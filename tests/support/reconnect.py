"""A long answer to cut, join and resume: the server side of the reconnecting-client tests.

:func:`long_answer_app` serves ``/agent`` with a thread store (runs belong to the server) and
a scripted model that answers every turn with :data:`LONG_ANSWER`, one word a delta. With a
``hold_after`` count, each model call stops after that many text deltas until the test opens
:attr:`HeldModel.gate`, so a test knows the run is live (a reload joins it, a stop finds it)
without depending on timing; :attr:`HeldModel.reached` tells it the run got there.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from agents import Agent, RunConfig
from fastapi import FastAPI
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ag_ui_openai_agents import OpenAIAgentsAgent
from ag_ui_openai_agents.threads import ThreadStore

from .e2e import E2E_DIR
from .http import app_with
from .partial_turns import opened
from .scripted import RecordedCall, ScriptedProvider, ScriptedResponsesModel, Text, Turn
from .threads import by_thread_id

__all__ = [
    "LONG_ANSWER",
    "OPEN_GATE_HEADER",
    "HeldModel",
    "OpenGateOnAnswer",
    "compiled_resuming_fetch",
    "long_answer_app",
]

LONG_ANSWER = " ".join(
    f"Part {n}: the tide comes in, the gulls circle the harbour and the boats rock."
    for n in range(1, 31)
)
"""About 450 words: a stream of several kilobytes, cut many times by a small byte cap."""

_TEXT_DELTA = "response.output_text.delta"


class HeldModel(ScriptedResponsesModel):
    """Answers :data:`LONG_ANSWER`; with ``hold_after``, waits at that delta for :attr:`gate`."""

    def __init__(self, hold_after: int | None) -> None:
        super().__init__(self._answer, model_name="long-answer")
        self.hold_after = hold_after
        self.gate = threading.Event()
        self.reached = threading.Event()

    @staticmethod
    def _answer(call: RecordedCall) -> Turn:
        return Turn([Text(LONG_ANSWER)])

    async def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        seen = 0
        async for event in super().stream_response(*args, **kwargs):
            yield event
            if event.type != _TEXT_DELTA:
                continue
            seen += 1
            if seen == self.hold_after:
                self.reached.set()
                await opened(self.gate)


def long_answer_app(
    store: ThreadStore, *, hold_after: int | None = None, path: str = "/agent"
) -> tuple[FastAPI, HeldModel]:
    """An app serving the long answer at ``path`` with ``store``, and its model."""
    model = HeldModel(hold_after)
    config = RunConfig(model_provider=ScriptedProvider(model), tracing_disabled=True)
    agent = Agent(name="Storyteller", instructions="Tell the story.")
    wrapper = OpenAIAgentsAgent(agent, run_config=config, threads=store, thread_key=by_thread_id)
    return app_with(wrapper, path), model


OPEN_GATE_HEADER = "x-open-gate"
"""A request with this header opens the model's gate once its answer has started: a reload
joins the held run first, then the run goes on to its end."""


class OpenGateOnAnswer:
    """ASGI middleware: opens ``model.gate`` when a request with :data:`OPEN_GATE_HEADER` has
    its response started (so the route has already chosen to join the live run)."""

    def __init__(self, app: ASGIApp, model: HeldModel) -> None:
        self.app, self.model = app, model

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = dict(scope.get("headers", [])) if scope["type"] == "http" else {}
        if OPEN_GATE_HEADER.encode() not in headers:
            await self.app(scope, receive, send)
            return

        async def opening(message: Message) -> None:
            await send(message)
            if message["type"] == "http.response.start":
                self.model.gate.set()

        await self.app(scope, receive, opening)


DOCS_FRONTENDS = Path(__file__).resolve().parents[2] / "docs" / "frontends.md"
_RESUMING_FETCH_BLOCK = re.compile(r"^```ts\n(// lib/resuming-fetch\.ts\n.*?)^```", re.M | re.S)
_TSCONFIG = {
    "compilerOptions": {
        "target": "ES2022",
        "module": "NodeNext",
        "moduleResolution": "NodeNext",
        "strict": True,
        "skipLibCheck": True,
        "types": ["node"],
        "outDir": "out",
    },
    "files": ["resuming-fetch.ts"],
}


@contextmanager
def compiled_resuming_fetch() -> Iterator[Path]:
    """The ``resumingFetch`` of docs/frontends.md, compiled by ``tsc`` next to the clients of
    e2e/ (call ``ensure_node_modules()`` first): the path of its JavaScript module."""
    match = _RESUMING_FETCH_BLOCK.search(DOCS_FRONTENDS.read_text(encoding="utf-8"))
    assert match is not None, "docs/frontends.md has no lib/resuming-fetch.ts block"
    folder = Path(tempfile.mkdtemp(prefix=".docs-blocks-", dir=E2E_DIR))
    try:
        (folder / "resuming-fetch.ts").write_text(match.group(1), encoding="utf-8")
        (folder / "tsconfig.json").write_text(json.dumps(_TSCONFIG), encoding="utf-8")
        node = shutil.which("node")
        assert node is not None
        tsc = E2E_DIR / "node_modules" / "typescript" / "bin" / "tsc"
        done = subprocess.run([node, str(tsc), "-p", "."], cwd=folder, capture_output=True,
                              text=True, timeout=300)  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        yield folder / "out" / "resuming-fetch.js"
    finally:
        shutil.rmtree(folder, ignore_errors=True)
