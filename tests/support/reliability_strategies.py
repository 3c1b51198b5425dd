"""Hypothesis strategies for hostile AG-UI requests: valid by schema, hostile in content.

Everything drawn here validates as a ``RunAgentInput`` (``run_inputs``), or is a raw JSON body
that must not (``invalid_bodies``). Content is hostile on purpose: empty and very large
strings, any unicode a JSON document can carry (no lone surrogates), every message role,
media parts with garbage base64 and odd MIME types, tool calls with malformed JSON
arguments, ids drawn from a small pool so that they repeat, tool messages answering no call,
resume entries for interrupts nobody raised, and client tools with odd schemas.

Ids the scripted fuzz model mints start with ``zz-`` and never come out of these strategies,
so a collision between a streamed id and an input id is always the server's doing.
"""

from __future__ import annotations

import json
from typing import Any

from ag_ui.core import (
    ActivityMessage,
    AssistantMessage,
    AudioPart,
    Context,
    DataSource,
    DeveloperMessage,
    DocumentPart,
    FileSource,
    FunctionCall,
    ImagePart,
    ReasoningMessage,
    ResumeEntry,
    RunAgentInput,
    SystemMessage,
    TextPart,
    Tool,
    ToolCall,
    ToolMessage,
    UrlSource,
    UserMessage,
    VideoPart,
)
from agents.models.fake_id import FAKE_RESPONSES_ID
from hypothesis import strategies as st

from support.invariants import FORBIDDEN_KEYS

__all__ = [
    "CLIENT_TOOL_NAMES",
    "GATED_TOOL",
    "ID_POOL",
    "PLAIN_TOOL",
    "invalid_bodies",
    "json_values",
    "run_inputs",
]

PLAIN_TOOL = "lookup"
"""A server tool of the fuzz agent that runs without approval."""

GATED_TOOL = "gated"
"""A server tool of the fuzz agent that needs approval."""

CLIENT_TOOL_NAMES = ("render", "confirm", "ask_user", PLAIN_TOOL, "web_search_call", "")
"""Names client tools are drawn from: ordinary ones, one shadowing a server tool, one named
like a hosted call type and an empty one."""

ID_POOL = ("a", "b", "c", "call-1", "user-1", "ü", " ", "0")
"""Ids drawn again and again, so that messages and tool calls share them."""

_CALL_NAMES = (PLAIN_TOOL, GATED_TOOL, "render", "unknown_tool", "web_search_call", "")

# Strings: any unicode JSON can carry (no surrogates), plus a few shapes known to hurt.
_NASTY = (
    "",
    " ",
    "\x00",
    "\u2028\u2029",
    "data: {}\n\n",
    "\r\n\r\n",
    "</script><script>",
    '{"unterminated": ',
    "\ufeff",
    "\U0001f600" * 3,
    "\u202etxet",
    "null",
)


def _model(cls: Any, **fields: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Build ``cls`` from exactly these fields (``st.builds`` would add the aliases too)."""
    return st.fixed_dictionaries(fields).map(lambda values: cls(**values))


_CHARS = st.characters(codec="utf-8")
_plain_text = st.text(_CHARS, max_size=40).filter(lambda s: s != FAKE_RESPONSES_ID)
_large_text = st.tuples(_CHARS, st.integers(10_000, 60_000)).map(lambda t: t[0] * t[1])
texts = st.one_of(
    st.sampled_from(_NASTY),
    _plain_text,
    _plain_text,
    _large_text.filter(lambda s: s != FAKE_RESPONSES_ID),
)
ids = st.one_of(st.sampled_from(ID_POOL), _plain_text)

# Keys a message's metadata may use: anything but the provider keys the stream checker scans
# for (a restated message is checked like every other part of the stream).
_keys = _plain_text.filter(lambda k: k not in FORBIDDEN_KEYS and not k.startswith("__"))

json_values: st.SearchStrategy[Any] = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**53), 2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | _plain_text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_keys, inner, max_size=4),
    max_leaves=6,
)
_metadata = st.none() | st.dictionaries(_keys, json_values, max_size=3)

# --------------------------------------------------------------------------- content parts

_MIME = st.sampled_from(
    ["image/png", "image/jpeg", "image/svg+xml", "audio/wav", "audio/ogg", "application/pdf",
     "text/plain", "video/mp4", "", "not a mime", "IMAGE/PNG; charset=x", "x/y/z"]
)  # fmt: skip
_BASE64 = st.sampled_from(
    ["aGVsbG8=", "aGVsbG8", "!!!notbase64", "", "====", "a", "aGVs\nbG8=", "data:,x"]
)
_sources = st.one_of(
    _model(DataSource, value=_BASE64 | _plain_text, mime_type=_MIME),
    _model(
        UrlSource,
        value=st.sampled_from(["https://example.invalid/x.png", "", "data:image/png;base64,!!"])
        | _plain_text,
        mime_type=st.none() | _MIME,
    ),
    _model(
        FileSource,
        value=_plain_text,
        provider=st.sampled_from([None, "openai", "anthropic", "", "OpenAI"]),
        mime_type=st.none() | _MIME,
    ),
)
_parts = st.one_of(
    _model(TextPart, text=texts, metadata=st.none() | json_values),
    _model(ImagePart, source=_sources, metadata=st.none() | json_values),
    _model(AudioPart, source=_sources),
    _model(VideoPart, source=_sources),
    _model(DocumentPart, source=_sources, metadata=st.none() | json_values),
)
_content = st.one_of(texts, st.lists(_parts, max_size=4))

# --------------------------------------------------------------------------- messages

_ARGUMENTS = st.one_of(
    st.sampled_from(['{"q": "x"}', "{", "", "null", "[]", '{"q": ', "not json", '"str"', "{}"]),
    json_values.map(json.dumps),
    _plain_text,
)
_tool_calls = st.lists(
    _model(
        ToolCall,
        id=ids,
        function=_model(
            FunctionCall, name=st.sampled_from(_CALL_NAMES) | _plain_text, arguments=_ARGUMENTS
        ),
    ),
    max_size=3,
)
_messages = st.one_of(
    _model(SystemMessage, id=ids, content=texts),
    _model(DeveloperMessage, id=ids, content=texts, name=st.none() | _plain_text),
    _model(UserMessage, id=ids, content=_content, metadata=_metadata),
    _model(
        AssistantMessage,
        id=ids,
        content=st.none() | texts,
        tool_calls=st.none() | _tool_calls,
        encrypted_value=st.none() | _plain_text,
    ),
    _model(
        ToolMessage,
        id=ids,
        tool_call_id=ids,
        content=_content,
        error=st.none() | _plain_text,
    ),
    _model(ReasoningMessage, id=ids, content=texts, encrypted_value=st.none() | _plain_text),
    _model(
        ActivityMessage,
        id=ids,
        activity_type=_plain_text,
        content=st.dictionaries(_keys, json_values, max_size=3),
    ),
)

# --------------------------------------------------------------------------- tools, resume

_SCHEMAS = st.one_of(
    st.none(),
    st.just({}),
    st.just({"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}),
    st.just({"type": "string"}),
    st.just({"type": "object", "properties": 5}),
    st.just({"$ref": "#/nowhere"}),
    st.just('{"type": "object"}'),
    st.just("not a schema"),
    json_values,
)
_tools = st.lists(
    _model(
        Tool,
        name=st.sampled_from(CLIENT_TOOL_NAMES) | _plain_text,
        description=texts,
        parameters=_SCHEMAS,
    ),
    max_size=4,
)
_PAYLOADS = st.one_of(
    st.none(),
    st.just({"approved": True}),
    st.just({"approved": False}),
    st.just({"approved": "true"}),
    json_values,
)
_resume = st.lists(
    _model(
        ResumeEntry,
        interrupt_id=ids,
        status=st.sampled_from(["resolved", "cancelled"]),
        payload=_PAYLOADS,
    ),
    max_size=3,
)


def _unique_call_ids(messages: list[Any]) -> list[Any]:
    """Give every repeated tool call id a suffix.

    Reusing a tool call id across a conversation is documented as unsupported (a client
    treats the second call as the first); tool messages may still name any id.
    """
    seen: set[str] = set()
    out: list[Any] = []
    for message in messages:
        if isinstance(message, AssistantMessage) and message.tool_calls:
            calls = []
            for number, call in enumerate(message.tool_calls):
                if call.id in seen:
                    call = call.model_copy(update={"id": f"{call.id}~{len(seen)}-{number}"})
                seen.add(call.id)
                calls.append(call)
            message = message.model_copy(update={"tool_calls": calls})
        out.append(message)
    return out


def _resume_for(call_ids: list[str]) -> st.SearchStrategy[list[ResumeEntry]]:
    """Resume entries answering the given calls (and maybe others)."""
    if not call_ids:
        return _resume
    entry = _model(
        ResumeEntry,
        interrupt_id=st.sampled_from(call_ids),
        status=st.sampled_from(["resolved", "resolved", "cancelled"]),
        payload=_PAYLOADS,
    )
    return st.lists(entry, min_size=1, max_size=2).flatmap(
        lambda given: _resume.map(lambda other: [*given, *other])
    )


@st.composite
def run_inputs(draw: st.DrawFn, max_messages: int = 6) -> RunAgentInput:
    """A RunAgentInput valid by schema and hostile in content."""
    messages = draw(st.lists(_messages, max_size=max_messages))
    if draw(st.booleans()):
        # An approval the previous run paused on, often answered by a resume entry below.
        gated = ToolCall(
            id=draw(ids), function=FunctionCall(name=GATED_TOOL, arguments=draw(_ARGUMENTS))
        )
        messages.append(AssistantMessage(id=draw(ids), tool_calls=[gated]))
    messages = _unique_call_ids(messages)
    last_calls = [c.id for c in getattr(messages[-1], "tool_calls", None) or []] if messages else []
    # A message named like the answer to an open call ("<call id>-result") makes the server
    # repeat that id; a dedicated test covers it, the fuzz keeps clear of it.
    calls = {c.id for m in messages if isinstance(m, AssistantMessage) for c in m.tool_calls or []}
    messages = [m for m in messages if not any(m.id == f"{c}-result" for c in calls)]
    return RunAgentInput(
        thread_id=draw(texts),
        run_id=draw(texts),
        parent_run_id=draw(st.none() | ids),
        protocol_version=draw(st.sampled_from([None, "1.0", "0.9", "2.5", ""])),
        state=draw(json_values),
        messages=messages,
        tools=draw(st.none() | _tools),
        context=draw(
            st.none() | st.lists(_model(Context, description=texts, value=texts), max_size=3)
        ),
        forwarded_props=draw(json_values),
        resume=draw(st.none() | _resume | _resume_for(last_calls)),
    )


# --------------------------------------------------------------------------- invalid bodies

_VALID_BODY: dict[str, Any] = {
    "threadId": "t",
    "runId": "r",
    "messages": [{"id": "u", "role": "user", "content": "hi"}],
    "tools": [],
    "context": [],
    "state": {},
}

_BROKEN_FIELDS: list[tuple[str, Any]] = [
    ("threadId", None),
    ("threadId", 5),
    ("runId", ["r"]),
    ("messages", "hello"),
    ("messages", [{"id": "u", "role": "wizard", "content": "hi"}]),
    ("messages", [{"role": "user", "content": "hi"}]),
    ("messages", [{"id": "u", "role": "user"}]),
    ("messages", [{"id": "u", "role": "user", "content": [{"type": "hologram"}]}]),
    ("messages", [{"id": "u", "role": "user", "content": [{"type": "text"}]}]),
    ("messages", [{"id": "u", "role": "user", "content": [{"type": "binary", "data": "!"}]}]),
    ("messages", [{"id": "u", "role": "user", "content": [{"type": "image", "source": {}}]}]),
    ("messages", [{"id": "a", "role": "assistant", "toolCalls": [{"id": "c"}]}]),
    ("messages", [{"id": "t", "role": "tool", "content": "x"}]),
    ("tools", [{"name": "t"}]),
    ("tools", {"name": "t", "description": "d"}),
    ("context", [{"description": "d"}]),
    ("resume", [{"interruptId": "i", "status": "maybe"}]),
    ("resume", [{"status": "resolved"}]),
]


@st.composite
def _broken_objects(draw: st.DrawFn) -> str:
    body = dict(_VALID_BODY)
    for key, value in draw(st.lists(st.sampled_from(_BROKEN_FIELDS), min_size=1, max_size=3)):
        body[key] = value
    for key in draw(st.lists(st.sampled_from(["threadId", "runId", "messages"]), max_size=2)):
        body.pop(key, None)
    return json.dumps(body)


invalid_bodies: st.SearchStrategy[str] = st.one_of(
    _broken_objects(),
    json_values.filter(lambda v: not isinstance(v, dict)).map(json.dumps),
    st.sampled_from(["", "{", "[1, 2", "nul", '{"threadId": "t",}', "\x00", "{}", "\ufeff{}"]),
    _plain_text,
)
"""Raw request bodies that are not a valid RunAgentInput (the endpoint must answer 422)."""
