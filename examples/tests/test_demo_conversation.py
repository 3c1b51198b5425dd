"""What the demo model reads from a request: words worth matching, the last user message and
the tool calls that followed it."""

from __future__ import annotations

from demo_conversation import Conversation, PastCall, read_conversation, related, significant_words


def test_words_and_matching() -> None:
    assert significant_words("What's the weather in Paris?") == ["weather", "paris"]
    assert related("write", "writer") and related("steps", "step")
    assert not related("cat", "category")  # Too short to count as a prefix.


def test_reads_the_last_user_message_and_what_followed() -> None:
    items = [
        {"role": "user", "content": "old question"},
        {"type": "function_call", "call_id": "c0", "name": "get_weather", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c0", "output": "old answer"},
        {"role": "user", "content": [{"type": "input_text", "text": "new question"}]},
        {"type": "function_call", "call_id": "c1", "name": "get_weather", "arguments": "{}"},
        {
            "type": "function_call_output",
            "call_id": "c1",
            "output": [{"type": "input_text", "text": "sunny"}],
        },
        {"type": "function_call", "call_id": "c2", "name": "issue_refund", "arguments": "{}"},
    ]
    conversation = read_conversation("Be brief.", items)
    assert conversation.user_text == "new question"
    assert conversation.calls == (
        PastCall("get_weather", "c1", "sunny", "{}"),
        PastCall("issue_refund", "c2", None, "{}"),
    )
    assert [call.call_id for call in conversation.answered] == ["c1"]
    assert read_conversation(None, "just text") == Conversation("just text", "")
