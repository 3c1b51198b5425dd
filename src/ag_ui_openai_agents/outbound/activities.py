"""Internal: live progress of hosted tools as ACTIVITY_SNAPSHOT / ACTIVITY_DELTA (AG-UI 1.0).

A hosted call the provider runs (web or file search, code interpreter, image generation, an MCP
call) gets one activity message, ``f"{tool_call_id}-activity"``, for a 1.0 client only: an
ACTIVITY_SNAPSHOT when the call starts, then an ACTIVITY_DELTA (an RFC 6902 patch, made with
``jsonpatch``) for each change the stream reports, the last when the call is done. The activity
is an ordinary message of the run, so MESSAGES_SNAPSHOT restates it (and a thread store keeps
it). Content, by ``activityType`` (keys only once known)::

    web_search        status, action ("search" | "open_page" | "find_in_page"), queries,
                      sources [{"url"}], url, pattern
    file_search       status, queries, results [{"fileId", "filename", "score", "text"}]
    code_interpreter  status, containerId, code, outputs [{"type": "logs", "logs"} |
                      {"type": "image", "url"}]
    image_generation  status, partialImage {"index", "mimeType", "data"} while it works
                      (dropped when done: the image is the call's result)
    mcp_call          status, serverLabel, name, output, error

``status`` is the provider's: ``in_progress``, ``searching``, ``interpreting``, ``generating``,
``completed``, ``failed``, ``incomplete``. Queries arrive when a search is done; sources, file
search results and code-interpreter outputs only when the model settings ``include`` them.
"""

from __future__ import annotations

import copy
from typing import Any

import jsonpatch
from ag_ui.core import ActivityDeltaEvent, ActivitySnapshotEvent, BaseEvent, RunAgentInput

from ag_ui_openai_agents.outbound.windows import Activity, ToolCallWindow, WindowBook
from ag_ui_openai_agents.protocol import item_field as _field

__all__ = ["ACTIVITY_TYPES", "PROGRESS_EVENTS", "ActivityTranslation"]

ACTIVITY_TYPES: dict[str, str] = {
    "web_search_call": "web_search",
    "file_search_call": "file_search",
    "code_interpreter_call": "code_interpreter",
    "image_generation_call": "image_generation",
    "mcp_call": "mcp_call",
}
"""The ``activityType`` of each hosted call type that has an activity."""

_STEPS: dict[str, tuple[str, ...]] = {
    "web_search_call": ("in_progress", "searching", "completed"),
    "file_search_call": ("in_progress", "searching", "completed"),
    "code_interpreter_call": ("in_progress", "interpreting", "completed"),
    "image_generation_call": ("in_progress", "generating", "completed"),
    "mcp_call": ("in_progress", "completed", "failed"),
}
PROGRESS_EVENTS: frozenset[str] = frozenset(
    f"response.{kind}.{step}" for kind, steps in _STEPS.items() for step in steps
)
"""Responses stream events that report a hosted call's status."""

_WORKING = frozenset({None, "in_progress", "searching", "interpreting", "generating"})
"""Statuses of a call still at work (a partial image is shown only then)."""

_CODE_FLUSH = 80
"""Streamed code is sent at each line end, or once this many characters wait."""


def _plain(value: Any) -> Any:
    dump = getattr(value, "model_dump", None)
    return dump(mode="json", exclude_none=True) if callable(dump) else value


def _web_search(item: Any, content: dict[str, Any]) -> None:
    action = _plain(_field(item, "action"))
    if not isinstance(action, dict) or not action.get("type"):
        return
    content["action"] = action["type"]
    queries = action.get("queries") or ([action["query"]] if action.get("query") else [])
    if queries:
        content["queries"] = list(queries)
    sources = [{"url": s.get("url")} for s in action.get("sources") or [] if isinstance(s, dict)]
    if sources:
        content["sources"] = sources
    for key in ("url", "pattern"):
        if action.get(key):
            content[key] = action[key]


def _file_search(item: Any, content: dict[str, Any]) -> None:
    queries = _field(item, "queries")
    if queries:
        content["queries"] = list(queries)
    results = []
    for result in _field(item, "results") or []:
        found = {
            name: _field(result, key)
            for key, name in (("file_id", "fileId"), ("filename", "filename"))
            if _field(result, key) is not None
        }
        for key in ("score", "text"):
            if _field(result, key) is not None:
                found[key] = _field(result, key)
        results.append(found)
    if results:
        content["results"] = results


def _code_interpreter(item: Any, content: dict[str, Any]) -> None:
    if _field(item, "container_id"):
        content["containerId"] = _field(item, "container_id")
    if _field(item, "code"):
        content["code"] = _field(item, "code")
    outputs = [_plain(output) for output in _field(item, "outputs") or []]
    if outputs:
        content["outputs"] = outputs


def _mcp_call(item: Any, content: dict[str, Any]) -> None:
    for key, name in (("server_label", "serverLabel"), ("name", "name"), ("output", "output")):
        if _field(item, key) is not None:
            content[name] = _field(item, key)
    error = _field(item, "error")
    if error is not None:
        message = _field(error, "message")
        content["error"] = str(message if message else error)


_FROM_ITEM = {
    "web_search_call": _web_search,
    "file_search_call": _file_search,
    "code_interpreter_call": _code_interpreter,
    "mcp_call": _mcp_call,
}


def item_content(item: Any, previous: dict[str, Any] | None = None) -> dict[str, Any]:
    """An activity's content as a hosted call item states it (``previous`` fills what the
    item does not say, such as code streamed so far)."""
    kind = str(_field(item, "type"))
    content: dict[str, Any] = dict(previous or {})
    status = _field(item, "status")
    if status:
        content["status"] = status
    fill = _FROM_ITEM.get(kind)
    if fill is not None:
        fill(item, content)
    if status not in _WORKING:
        content.pop("partialImage", None)
    return content


class ActivityTranslation:
    """Hosted-call activities of the outbound engine (mixed into ``OpenAIToAGUITranslator``)."""

    book: WindowBook
    run_input: RunAgentInput

    # Hooks the tool windows call -----------------------------------------------------------

    def activity_opened(self, window: ToolCallWindow, item: Any) -> list[BaseEvent]:
        """A hosted call started: its ACTIVITY_SNAPSHOT (1.0 clients, hosted kinds only)."""
        activity_type = ACTIVITY_TYPES.get(str(_field(item, "type")))
        if activity_type is None or self.run_input.protocol_version is None:
            return []
        content = item_content(item)
        activity = Activity(f"{window.tool_call_id}-activity", activity_type, content)
        window.activity = activity
        activity.shown = copy.deepcopy(content)
        self.book.add_activity(activity)
        return [
            ActivitySnapshotEvent(
                message_id=activity.message_id,
                activity_type=activity_type,
                content=copy.deepcopy(content),
            )
        ]

    def activity_closed(self, window: ToolCallWindow, item: Any) -> list[BaseEvent]:
        """A hosted call is done: the activity takes what its item says."""
        activity = window.activity
        if activity is None:
            return []
        activity.code_waiting = 0
        return _change(activity, item_content(item, activity.content))

    # Raw Responses events ------------------------------------------------------------------

    def _activity(self, event: Any) -> Activity | None:
        window = self.book.at(event.output_index)
        return window.activity if isinstance(window, ToolCallWindow) else None

    def translate_hosted_progress(self, event: Any) -> list[BaseEvent]:
        """``response.<hosted call>.<step>``: the activity's status is the step."""
        activity = self._activity(event)
        if activity is None:
            return []
        status = str(event.type).rsplit(".", 1)[-1]
        content = {**activity.content, "status": status}
        if status not in _WORKING:
            content.pop("partialImage", None)
        return _change(activity, content)

    def translate_code_delta(self, event: Any) -> list[BaseEvent]:
        """Code of a code interpreter call as it streams, sent a line (or 80 characters) at
        a time."""
        activity = self._activity(event)
        delta = getattr(event, "delta", "") or ""
        if activity is None or not delta:
            return []
        activity.content["code"] = str(activity.content.get("code", "")) + delta
        activity.code_waiting += len(delta)
        if "\n" not in delta and activity.code_waiting < _CODE_FLUSH:
            return []
        activity.code_waiting = 0
        return _change(activity, activity.content)

    def translate_code_done(self, event: Any) -> list[BaseEvent]:
        """The whole code of a code interpreter call."""
        activity = self._activity(event)
        if activity is None:
            return []
        activity.code_waiting = 0
        return _change(activity, {**activity.content, "code": getattr(event, "code", "") or ""})

    def translate_partial_image(self, event: Any) -> list[BaseEvent]:
        """A partial image of an image generation call: the activity shows the latest."""
        activity = self._activity(event)
        if activity is None:
            return []
        fmt = getattr(event, "output_format", None) or "png"
        partial = {
            "index": event.partial_image_index,
            "mimeType": f"image/{fmt}",
            "data": event.partial_image_b64,
        }
        return _change(activity, {**activity.content, "partialImage": partial})


def _change(activity: Activity, content: dict[str, Any]) -> list[BaseEvent]:
    """An ACTIVITY_DELTA from what the client holds to ``content`` (none when equal)."""
    patch = jsonpatch.make_patch(activity.shown, content).patch
    activity.content = content
    if not patch:
        return []
    activity.shown = copy.deepcopy(content)
    return [
        ActivityDeltaEvent.model_validate(
            {
                "message_id": activity.message_id,
                "activity_type": activity.activity_type,
                "patch": patch,
            }
        )
    ]
