"""The request checker rejects each input shape the Responses API rejects, and accepts replays
the API accepted."""

from __future__ import annotations

from typing import Any

import pytest

from support.responses_input import InvalidInput, KnownOutputs, check_input, wire_input

USER = {"role": "user", "content": "Hi"}
RS = {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAA"}
MSG = {
    "type": "message",
    "id": "msg_1",
    "role": "assistant",
    "status": "completed",
    "content": [{"type": "output_text", "text": "Hello", "annotations": []}],
    "phase": "final_answer",
}
FC = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "f", "arguments": "{}"}
OUT = {"type": "function_call_output", "call_id": "call_1", "output": "ok"}
WS = {
    "type": "web_search_call",
    "id": "ws_1",
    "status": "completed",
    "action": {"type": "search", "query": "q"},
}
CMP = {"type": "compaction", "id": "cmp_1", "encrypted_content": "cccc"}


def known(*outputs: list[dict[str, Any]]) -> KnownOutputs:
    table = KnownOutputs()
    for output in outputs:
        table.record(output)
    return table


ACCEPTED: list[tuple[str, list[dict[str, Any]], KnownOutputs]] = [
    ("reasoning then its message", [USER, RS, MSG, USER], known([RS, MSG])),
    ("reasoning then its call", [USER, RS, FC, OUT], known([RS, FC])),
    ("reasoning then its hosted call", [USER, RS, WS, MSG], known([RS, WS, MSG])),
    ("reasoning then compaction", [USER, RS, CMP, MSG], known([RS, CMP, MSG])),
    (
        "message without id after its reasoning was dropped",
        [USER, {"role": "assistant", "content": "Hello"}, USER],
        known([RS, MSG]),
    ),
    ("message with id that followed no reasoning", [USER, MSG, USER], known([MSG])),
    ("unknown pairs, generic rules hold", [USER, RS, MSG], KnownOutputs()),
    (
        "an output of content items",
        [
            USER,
            FC,
            {
                **OUT,
                "output": [
                    {"type": "input_text", "text": "Chart:"},
                    {
                        "type": "input_image",
                        "image_url": "data:image/png;base64,AA==",
                        "detail": "low",
                    },
                    {"type": "input_file", "file_id": "file-1", "filename": "r.pdf"},
                ],
            },
        ],
        KnownOutputs(),
    ),
]


@pytest.mark.parametrize(("label", "items", "table"), ACCEPTED, ids=[a[0] for a in ACCEPTED])
def test_accepts_what_the_api_accepts(
    label: str, items: list[dict[str, Any]], table: KnownOutputs
) -> None:
    check_input(items, table)


REJECTED: list[tuple[str, list[dict[str, Any]], KnownOutputs, str]] = [
    (
        "reasoning then a message without id",
        [USER, RS, {"role": "assistant", "content": "Hello"}],
        KnownOutputs(),
        "without its required following item",
    ),
    (
        "reasoning then a call without its item id",
        [USER, RS, {k: v for k, v in FC.items() if k != "id"}, OUT],
        KnownOutputs(),
        "without its required following item",
    ),
    ("reasoning last", [USER, RS], KnownOutputs(), "without its required following item"),
    ("reasoning then a user message", [RS, USER], KnownOutputs(), "required following item"),
    (
        "reasoning then another item than the one that followed it",
        [USER, RS, MSG],
        known([RS, WS, MSG]),
        "not by 'ws_1'",
    ),
    (
        "a message with id without its reasoning",
        [USER, MSG],
        known([RS, MSG]),
        "without its required 'reasoning' item 'rs_1'",
    ),
    (
        "reasoning without summary",
        [USER, {k: v for k, v in RS.items() if k != "summary"}, MSG],
        KnownOutputs(),
        "needs `summary`",
    ),
    (
        "reasoning without id",
        [USER, {k: v for k, v in RS.items() if k != "id"}, MSG],
        KnownOutputs(),
        "needs its id",
    ),
    ("output without its call", [USER, OUT], KnownOutputs(), "no function call before"),
    ("call without an output", [USER, FC], KnownOutputs(), "no tool output found"),
    ("output before its call", [USER, OUT, FC], KnownOutputs(), "no function call before"),
    (
        "placeholder id",
        [USER, {**MSG, "id": "__fake_id__"}],
        KnownOutputs(),
        "placeholder id",
    ),
    ("an id twice", [USER, MSG, MSG], KnownOutputs(), "duplicate item id 'msg_1'"),
    (
        "an output content item the API has no type for",
        [USER, FC, {**OUT, "output": [{"type": "image", "image_url": "https://e.org/a.png"}]}],
        KnownOutputs(),
        "output content of type 'image'",
    ),
    (
        "an image item without its image",
        [USER, FC, {**OUT, "output": [{"type": "input_image", "detail": "auto"}]}],
        KnownOutputs(),
        "malformed input_image item",
    ),
    (
        "a file item with a key the API does not know",
        [USER, FC, {**OUT, "output": [{"type": "input_file", "file_id": "f", "mime": "x"}]}],
        KnownOutputs(),
        "malformed input_file item",
    ),
    ("an empty output list", [USER, FC, {**OUT, "output": []}], KnownOutputs(), "neither text"),
]


@pytest.mark.parametrize(
    ("label", "items", "table", "message"), REJECTED, ids=[r[0] for r in REJECTED]
)
def test_rejects_each_shape_the_api_rejects(
    label: str, items: list[dict[str, Any]], table: KnownOutputs, message: str
) -> None:
    with pytest.raises(InvalidInput, match=message.replace("`", ".").replace("(", r"\(")):
        check_input(items, table)


def test_ids_two_models_reused_are_not_checked_by_pair() -> None:
    table = known([RS, MSG], [RS, FC])
    assert "rs_1" not in table.next_of
    check_input([USER, RS, MSG], table)
    check_input([USER, RS, FC, OUT], table)


def test_wire_input_removes_placeholder_ids_as_the_responses_model_does() -> None:
    fake = {**FC, "id": "__fake_id__", "provider_data": {"x": 1}}
    fake_reasoning = {**RS, "id": "__fake_id__"}
    assert wire_input([fake]) == [{k: v for k, v in FC.items() if k != "id"}]
    assert wire_input([fake_reasoning], id_less=True) == []
    with pytest.raises(InvalidInput, match="needs its id"):
        check_input([*wire_input([fake_reasoning, MSG])])


def test_known_outputs_record_models_and_dicts_alike() -> None:
    from openai.types.responses import ResponseOutputMessage, ResponseReasoningItem

    table = KnownOutputs()
    table.record(
        [ResponseReasoningItem.model_validate(RS), ResponseOutputMessage.model_validate(MSG)]
    )
    assert table.next_of == {"rs_1": "msg_1"}
    assert table.after_of == {"msg_1": "rs_1"}
