"""The A2UI examples behind the real ``@ag-ui/a2ui-middleware`` (0.0.10, with ``@ag-ui/client``
1.0.0), configured as the Dojo configures it for these pages: ``injectA2UITool`` and the page's
component schema. The middleware marks each request itself (no test-made marks), and paints
surfaces as ACTIVITY_SNAPSHOT events from what the server streams: here, from the render call
streamed as a subagent, and from the envelope in generate_a2ui's result. Skipped when Node is
not installed.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest
from support.e2e import E2E_DIR, ensure_node_modules, serve_app

from agents_examples import ExampleSettings
from server import create_app

pytestmark = pytest.mark.slow

SCHEMA = {
    "catalogId": "https://a2ui.org/demos/dojo/dynamic_catalog.json",
    "components": {
        "Row": {"type": "object", "properties": {"children": {}, "gap": {}}},
        "HotelCard": {"type": "object", "properties": {"name": {}, "rating": {}}},
        "ProductCard": {"type": "object", "properties": {"name": {}, "price": {}}},
        "TeamMemberCard": {"type": "object", "properties": {"name": {}, "role": {}}},
    },
}


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    ensure_node_modules()
    with serve_app(create_app(ExampleSettings.offline_demo())) as url:
        yield url


def run_middleware(url: str, turns: list[str], *, pre_1_0: bool = False) -> dict[str, Any]:
    node = shutil.which("node")
    assert node is not None
    scenario = {"url": url, "schema": SCHEMA, "turns": turns, "withoutProtocolVersion": pre_1_0}
    done = subprocess.run(
        [node, str(E2E_DIR / "run-a2ui-middleware.mjs")],
        input=json.dumps(scenario),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=E2E_DIR,
    )
    assert done.stdout, done.stderr[-2000:]
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def surfaces(turn: dict[str, Any]) -> list[dict[str, Any]]:
    """The A2UI activity contents the middleware emitted, in order."""
    return [
        e["content"]
        for e in turn["events"]
        if e["type"] == "ACTIVITY_SNAPSHOT" and e.get("activityType") == "a2ui-surface"
    ]


def painted(turn: dict[str, Any]) -> set[str]:
    """The ids of the surfaces the middleware painted components of."""
    return {
        op["updateComponents"]["surfaceId"]
        for content in surfaces(turn)
        for op in content.get("a2ui_operations", [])
        if "updateComponents" in op
    }


@pytest.mark.parametrize("pre_1_0", [False, True], ids=["v1.0-request", "pre-1.0-request"])
def test_the_middleware_marks_the_request_and_paints_the_generated_surface(
    base_url: str, pre_1_0: bool
) -> None:
    """From the render call streamed as a subagent (1.0), or from the envelope in
    generate_a2ui's result (no protocolVersion, as behind CopilotKit's runtime)."""
    result = run_middleware(
        f"{base_url}/a2ui_dynamic_schema",
        ["Compare 3 luxury hotels in different cities with ratings and prices."],
        pre_1_0=pre_1_0,
    )
    assert result["ok"], [turn["error"] for turn in result["turns"]]
    [turn] = result["turns"]
    request = turn["request"]
    assert request["forwardedProps"]["injectA2UITool"] is True
    assert [tool["name"] for tool in request["tools"]] == ["render_a2ui"]
    assert len(request["context"]) == 2  # How to call it, and the page's components.
    assert ("protocolVersion" in request) is not pre_1_0
    streamed = any(e.get("subagentRunId") for e in turn["events"])
    assert streamed is not pre_1_0
    assert painted(turn) == {"hotel-comparison"}
    last = surfaces(turn)[-1]["a2ui_operations"]
    data = next(op["updateDataModel"]["value"] for op in last if "updateDataModel" in op)
    assert len(data["items"]) == 3


@pytest.mark.parametrize("pre_1_0", [False, True], ids=["v1.0-request", "pre-1.0-request"])
def test_the_middleware_shows_the_retry_then_the_recovered_surface_then_a_failure(
    base_url: str, pre_1_0: bool
) -> None:
    """The retry is visible only where the attempts stream (1.0); either way the recovered
    surface is painted, the exhausted one ends as a failed surface, and the chat goes on."""
    result = run_middleware(
        f"{base_url}/a2ui_recovery",
        [
            "Compare 3 luxury hotels with ratings and prices.",
            "Compare 3 broken hotels with ratings and prices.",
            "Thanks, tell me in words instead",
        ],
        pre_1_0=pre_1_0,
    )
    assert result["ok"], [turn["error"] for turn in result["turns"]]
    recovered, broken, after = result["turns"]
    statuses = [content.get("status") for content in surfaces(recovered)]
    assert ("retrying" in statuses) is not pre_1_0  # The invalid attempt was held back ...
    assert painted(recovered) == {"hotel-comparison"}  # ... and the valid one painted.
    broken_statuses = [content.get("status") for content in surfaces(broken)]
    assert broken_statuses[-1] == "failed" and painted(broken) == set()
    assert any(e["type"] == "TEXT_MESSAGE_CONTENT" for e in after["events"])
