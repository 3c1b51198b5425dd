"""The TypeScript of docs/frontends.md, exercised against the example server.

Each ```ts / ```tsx block of the page names its file on its first line (``// agent.ts``). The
blocks are written as those files into a folder next to the Node packages they import, and:

- ``agent.ts`` (``@ag-ui/client`` 1.0.0, e2e/) is compiled with ``tsc``, with the two files of
  ``lib/`` (the reconnecting ``fetch`` and the ``HttpAgent`` that stops its run), and run by
  Node against the example server's approval route: it must print the approval it was asked
  for and the refund's result, straight and through a proxy that cuts every connection;
- the Next.js app (e2e/copilotkit/: CopilotKit's runtime 1.75 and React packages) is
  type-checked with ``tsc``, the page and the route handler together; the compiled route
  handler is then called as Next.js calls it, with web ``Request`` objects
  (``e2e/copilotkit/route-harness.mjs``), in front of the example server: its agents are
  listed, and an approval pauses and resumes through it. The headers the Python server
  received say what the runtime forwards. CopilotKit's Stop, through that route, stops the run
  on the Python server.

The ``npm install`` lines of the page name the versions the suite installs. Skipped without
Node (failed under CI, as the other Node tests).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from ag_ui_openai_agents.threads import SQLiteThreadStore
from starlette.types import ASGIApp, Receive, Scope, Send
from support.copilotkit import ensure_copilotkit
from support.cutting_proxy import cutting_proxy
from support.e2e import COPILOTKIT_DIR, E2E_DIR, ensure_node_modules, serve_app
from support.reconnect import LONG_ANSWER, long_answer_app

from agents_examples import ExampleSettings
from server import create_app

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
FRONTENDS = ROOT / "docs" / "frontends.md"
HARNESS = COPILOTKIT_DIR / "route-harness.mjs"
AGENT_PROGRAM = "agent.ts"
RESUMING_FETCH = "lib/resuming-fetch.ts"
STOPPABLE_AGENT = "lib/stoppable-agent.ts"
LIBRARY = [RESUMING_FETCH, STOPPABLE_AGENT]
ROUTE = "app/api/copilotkit/[[...slug]]/route.ts"
PAGE = "app/page.tsx"
NODE_SECONDS = 300
ROUTE_JS = "out/app/api/copilotkit/[[...slug]]/route.js"

BLOCK = re.compile(r"^```(ts|tsx)\n(.*?)^```", re.M | re.S)

TSCONFIG_NODE = {
    "compilerOptions": {
        "target": "ES2022",
        "module": "NodeNext",
        "moduleResolution": "NodeNext",
        "strict": True,
        "skipLibCheck": True,
        "types": ["node"],
        "outDir": "out",
    },
    "files": [AGENT_PROGRAM, STOPPABLE_AGENT],
}
"""A Node program's settings: an ES module (e2e/package.json says ``"type": "module"``)."""

TSCONFIG_NEXT = {
    "compilerOptions": {
        "target": "ES2022",
        "lib": ["DOM", "DOM.Iterable", "ES2022"],
        "module": "ESNext",
        "moduleResolution": "Bundler",
        "jsx": "react-jsx",
        "strict": True,
        "skipLibCheck": True,
        "esModuleInterop": True,
        "isolatedModules": True,
        "types": ["node"],
        "outDir": "out",
    },
    "include": ["app", "lib"],
}
"""The settings ``create-next-app`` writes that matter to a type check (strict included)."""


def typescript_blocks() -> dict[str, str]:
    """Each TypeScript block of the page, by the file its first line names."""
    blocks: dict[str, str] = {}
    for _, source in BLOCK.findall(FRONTENDS.read_text(encoding="utf-8")):
        first = source.splitlines()[0]
        assert first.startswith("// "), f"a block without its file name: {first!r}"
        blocks[first.removeprefix("// ").strip()] = source
    return blocks


@contextmanager
def blocks_folder(parent: Path, names: list[str]) -> Iterator[Path]:
    """The blocks ``names`` written as files of a folder inside ``parent`` (so Node and tsc
    find ``parent``'s node_modules); removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix=".docs-blocks-", dir=parent))
    blocks = typescript_blocks()
    try:
        for name in names:
            path = folder / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(blocks[name], encoding="utf-8")
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def node_tool(*args: str, cwd: Path, env: dict[str, str] | None = None) -> str:
    """Run a Node command; fail the test with its output when it fails."""
    done = subprocess.run(
        list(args),
        cwd=cwd,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=NODE_SECONDS,
    )
    assert done.returncode == 0, f"{' '.join(args)}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def tsc(folder: Path, config: dict[str, Any], packages: Path) -> None:
    """Type-check (and compile into ``out/``) the folder's program with ``config``."""
    (folder / "tsconfig.json").write_text(json.dumps(config), encoding="utf-8")
    node = shutil.which("node")
    assert node is not None
    node_tool(node, str(packages / "node_modules" / "typescript" / "bin" / "tsc"), "-p", ".",
              cwd=folder)  # fmt: skip


class RecordHeaders:
    """ASGI middleware that keeps the headers (and the path and body) of every POST."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.seen: list[dict[str, str]] = []
        self.posts: list[tuple[str, bytes]] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        self.seen.append({k.decode(): v.decode() for k, v in scope["headers"]})
        chunks: list[bytes] = []

        async def recorded() -> Any:
            message = await receive()
            if message["type"] != "http.request":
                return message
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                self.posts.append((scope["path"], b"".join(chunks)))
            return message

        await self.app(scope, recorded, send)


@pytest.fixture(scope="module")
def example_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, RecordHeaders]]:
    """The example server as ``dev.py serve`` runs it: signed approvals, threads kept."""
    store = SQLiteThreadStore(tmp_path_factory.mktemp("threads") / "threads.db")
    settings = ExampleSettings.offline_demo(
        approval_secret=("frontends-docs-test-secret",), threads=store
    )
    recorder = RecordHeaders(create_app(settings))
    with serve_app(recorder) as url:
        yield url, recorder


def test_every_typescript_block_is_exercised() -> None:
    assert set(typescript_blocks()) == {AGENT_PROGRAM, ROUTE, PAGE, *LIBRARY}


def test_the_install_lines_name_the_versions_the_suite_installs() -> None:
    """Each ``npm install`` line pins what the suite installs where that block runs: the
    CopilotKit line in e2e/copilotkit, the others in e2e."""
    lines = [
        line
        for line in FRONTENDS.read_text(encoding="utf-8").splitlines()
        if line.startswith("npm install")
    ]
    assert len(lines) == 3
    for line in lines:
        folder = COPILOTKIT_DIR if "@copilotkit/" in line else E2E_DIR
        pinned = json.loads((folder / "package.json").read_text(encoding="utf-8"))
        named = re.findall(r"(@?[a-z][\w./-]*)@(\d+\.\d+\.\d+)", line)
        assert named, line
        for package, version in named:
            assert pinned["dependencies"].get(package) == version, (folder.name, package)


def test_the_http_agent_program_runs_against_the_example_server(
    example_server: tuple[str, RecordHeaders],
) -> None:
    ensure_node_modules()
    url, _ = example_server
    with blocks_folder(E2E_DIR, [AGENT_PROGRAM, *LIBRARY]) as folder:
        tsc(folder, TSCONFIG_NODE, E2E_DIR)
        printed = run_agent_program(folder, f"{url}/human_in_the_loop_approval")

    assert '[approval asked] issue_refund {"order_id":"A-17","amount":30}' in printed
    assert "[tool result] Refunded 30.00 USD on order A-17." in printed
    assert "[run error]" not in printed


def run_agent_program(folder: Path, url: str) -> str:
    node = shutil.which("node")
    assert node is not None
    return node_tool(node, "out/agent.js", cwd=folder, env={"AGENT_URL": url})


def test_the_http_agent_program_resumes_through_a_proxy_that_cuts_every_connection(
    example_server: tuple[str, RecordHeaders],
) -> None:
    """Every connection is cut after a few kilobytes, mid-run: the program prints the same,
    its fetch resuming each stream from the last id it got."""
    ensure_node_modules()
    url, recorder = example_server
    with blocks_folder(E2E_DIR, [AGENT_PROGRAM, *LIBRARY]) as folder:
        tsc(folder, TSCONFIG_NODE, E2E_DIR)
        straight = run_agent_program(folder, f"{url}/human_in_the_loop_approval")
        before = len(recorder.seen)
        with cutting_proxy(url, cut_after_bytes=CUT_AFTER_BYTES) as proxy:
            cut = run_agent_program(folder, f"{proxy.url}/human_in_the_loop_approval")

    assert cut == straight
    resumed = [h["last-event-id"] for h in recorder.seen[before:] if "last-event-id" in h]
    assert proxy.cuts >= 2 and len(resumed) >= 2, (proxy.cuts, resumed)
    assert all(h["x-last-event-id"] == h["last-event-id"] for h in recorder.seen[before:]
               if "last-event-id" in h)  # fmt: skip


CUT_AFTER_BYTES = 3000
"""Larger than any one event of the approval's runs, smaller than each of their streams."""


def test_the_next_app_type_checks_and_its_route_serves_the_example_server(
    example_server: tuple[str, RecordHeaders],
) -> None:
    ensure_copilotkit()
    url, recorder = example_server
    with blocks_folder(COPILOTKIT_DIR, [ROUTE, PAGE, *LIBRARY]) as folder:
        tsc(folder, TSCONFIG_NEXT, COPILOTKIT_DIR)  # the page and the route, strict
        assert (folder / "out" / "app" / "page.js").is_file()
        node = shutil.which("node")
        assert node is not None
        route = ROUTE_JS
        command = [node, str(HARNESS), "--route", route, "--agent", "human_in_the_loop_approval"]
        before = len(recorder.seen)
        played = json.loads(node_tool(*command, cwd=folder, env={"AGENT_SERVER": url}))

    assert set(played["info"]["agents"]) == {"agentic_chat", "human_in_the_loop_approval"}
    [interrupt] = played["paused"]["interrupts"]
    assert interrupt["reason"] == "tool_approval"
    assert interrupt["metadata"]["tool_name"] == "issue_refund"
    assert played["paused"]["types"][-1] == "RUN_FINISHED"
    assert played["resumed"]["results"] == ["Refunded 30.00 USD on order A-17."]
    assert played["resumed"]["types"][-1] == "RUN_FINISHED"
    upstream = recorder.seen[before:]
    assert len(upstream) == 2  # one request per run
    for headers in upstream:
        assert headers.get("authorization") == "Bearer token-of-the-browser"
        assert headers.get("x-docs-check") == "forwarded"
        assert "cookie" not in headers


def test_copilotkits_stop_through_the_route_stops_the_run_on_the_python_server(
    tmp_path: Path,
) -> None:
    """CopilotKit's Stop button: the frontend posts the runtime's stop route, the runtime
    calls ``abortRun()`` on the route's ``StoppableHttpAgent``, which posts the Python route's
    stop. The run (held live mid-answer) ends stopped, and its log says so."""
    ensure_copilotkit()
    app, model = long_answer_app(SQLiteThreadStore(tmp_path / "threads.db"), hold_after=5,
                                 path="/agentic_chat")  # fmt: skip
    recorder = RecordHeaders(app)
    try:
        with (
            serve_app(recorder) as url,
            blocks_folder(COPILOTKIT_DIR, [ROUTE, PAGE, *LIBRARY]) as folder,
        ):
            tsc(folder, TSCONFIG_NEXT, COPILOTKIT_DIR)
            node = shutil.which("node")
            assert node is not None
            command = [node, str(HARNESS), "--route", ROUTE_JS, "--agent", "agentic_chat",
                       "--stop", "--message", "Tell me a story"]  # fmt: skip
            played = json.loads(node_tool(*command, cwd=folder, env={"AGENT_SERVER": url}))
            [(_, run_body)] = [post for post in recorder.posts if post[0] == "/agentic_chat"]
            replay = httpx.post(
                f"{url}/agentic_chat",
                content=run_body,
                headers={"content-type": "application/json"},
                timeout=30,
            )
    finally:
        model.gate.set()

    stopped = played["stopped"]
    assert stopped["status"] == 200 and stopped["answer"]["stopped"] is True, stopped
    [stop_body] = [
        json.loads(body) for path, body in recorder.posts if path == "/agentic_chat/stop"
    ]
    run = json.loads(run_body)
    assert stop_body == {"threadId": run["threadId"], "runId": run["runId"]}
    assert stop_body["threadId"] == stopped["threadId"]
    stop_headers = [h for h in recorder.seen if h.get("x-docs-check") == "forwarded"]
    assert all(h.get("authorization") == "Bearer token-of-the-browser" for h in stop_headers)
    events = [json.loads(line[len("data: "):]) for line in replay.text.splitlines()
              if line.startswith("data: ")]  # fmt: skip
    assert events[-1]["type"] == "RUN_ERROR" and events[-1]["code"] == "RUN_STOPPED", events[-1]
    text = "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert text and LONG_ANSWER.startswith(text) and text != LONG_ANSWER
