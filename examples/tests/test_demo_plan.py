"""The demo model's decisions: which tool to call next, or which text to write."""

from __future__ import annotations

import json

from agents.tool import DEFAULT_APPROVAL_REJECTION_MESSAGE

from demo_plan import Conversation, PastCall, ToolSpec, plan_turn

WEATHER = ToolSpec(
    "get_weather",
    "Get the current weather for a city.",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


REFUND = ToolSpec(
    "issue_refund",
    "Refund money on a customer order.",
    {
        "type": "object",
        "properties": {"order_id": {"type": "string"}, "amount": {"type": "number"}},
    },
)


def test_calls_the_tool_whose_name_matches() -> None:
    plan = plan_turn(Conversation("What's the weather in Paris?", ""), [REFUND, WEATHER])
    assert plan.text is None
    [call] = plan.calls
    assert call.name == "get_weather"
    assert json.loads(call.arguments) == {"city": "Paris"}
    assert "weather" in plan.reasoning


def test_one_description_word_is_not_enough() -> None:
    plan = plan_turn(Conversation("What is my order status?", ""), [REFUND])
    assert plan.calls == ()
    assert plan.text is not None and "“What is my order status?”" in plan.text


def test_answers_from_outputs_once_each_tool_ran_in_words() -> None:
    report = {"city": "Paris", "conditions": "Sunny", "temperature_c": 21, "wind_kph": 9}
    ran = PastCall("get_weather", "c1", json.dumps(report))
    plan = plan_turn(Conversation("weather in Paris", "", (ran,)), [WEATHER])
    assert plan.calls == ()
    assert plan.text == "The weather in Paris: sunny, 21 °C (wind 9 km/h)."


def test_json_in_an_output_is_told_in_words_never_shown() -> None:
    booked = 'Booked {"airline": "KLM", "price": "$650", "seats": [1, 2]} for you.'
    ran = PastCall("book_flight", "c1", booked)
    plan = plan_turn(Conversation("book a flight", "", (ran,)), [])
    assert plan.text == "Booked KLM ($650, 1; 2) for you."
    assert "{" not in plan.text


def test_rejected_call_is_reported_as_not_run() -> None:
    rejected = PastCall("issue_refund", "c1", DEFAULT_APPROVAL_REJECTION_MESSAGE)
    plan = plan_turn(Conversation("refund order A-1", "", (rejected,)), [REFUND])
    assert plan.text == f"issue_refund did not run: {DEFAULT_APPROVAL_REJECTION_MESSAGE}"


def test_a_greeting_is_answered_and_instructions_never_quoted() -> None:
    instructions = "You are terse. Really.\n\nContext from the application:\nUser name: Ada"
    plan = plan_turn(Conversation("hi there", instructions), [])
    assert plan.text == "Hello! I'm glad you're here. What can I do for you today?"
    who = plan_turn(Conversation("Who am I?", instructions), [])
    assert who.text == "You are Ada, as the page tells me."
    for text in (plan.text, who.text):
        assert "You are terse" not in text


def test_what_it_cannot_answer_it_says_so_with_what_its_tools_do() -> None:
    plan = plan_turn(Conversation("What is the best car to buy?", "You advise."), [REFUND])
    assert plan.text is not None
    assert plan.text.startswith("I'm the offline demo model, so I can't give “What is the best")
    assert plan.text.endswith(
        "here is what I can do: refund money on a customer order (issue_refund)."
    )
    assert "You advise" not in plan.text


def test_structured_answer_follows_the_schema() -> None:
    schema = {
        "type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1}},
    }
    plan = plan_turn(Conversation("Forecast for Rome over 3 days", ""), [], output_schema=schema)
    assert plan.text is not None
    assert json.loads(plan.text) == {"city": "Rome", "days": 3}


def test_same_conversation_same_plan() -> None:
    conversation = Conversation("weather in Oslo", "Be brief.")
    assert plan_turn(conversation, [WEATHER]) == plan_turn(conversation, [WEATHER])


def _agent_tool(name: str, description: str) -> ToolSpec:
    schema = {"type": "object", "properties": {"input": {"type": "string"}}, "required": ["input"]}
    return ToolSpec(name, description, schema)


TEAM = [
    _agent_tool("research_topic", "Research a topic and return key facts."),
    _agent_tool("write_prose", "Write prose from the notes research_topic returned."),
    _agent_tool("critique_draft", "Critique the draft write_prose returned."),
]


def _next_call(text: str, calls: tuple[PastCall, ...] = ()) -> tuple[str, dict[str, str]] | None:
    plan = plan_turn(Conversation(text, "", calls), TEAM)
    if not plan.calls:
        return None
    [call] = plan.calls
    return call.name, json.loads(call.arguments)


def test_a_tool_named_in_the_description_comes_first_and_feeds_it() -> None:
    request = "Write a short article about owls"
    assert _next_call(request) == ("research_topic", {"input": request})
    notes = PastCall("research_topic", "c1", "Owls hunt at night.")
    assert _next_call(request, (notes,)) == ("write_prose", {"input": "Owls hunt at night."})
    draft = PastCall("write_prose", "c2", "Owls are quiet hunters.")
    # Nothing in the request names the critic: it follows the tool it works on.
    assert _next_call(request, (notes, draft)) == (
        "critique_draft",
        {"input": "Owls are quiet hunters."},
    )
    review = PastCall("critique_draft", "c3", "Fine.")
    assert _next_call(request, (notes, draft, review)) is None
    plan = plan_turn(Conversation(request, "", (notes, draft, review)), TEAM)
    assert plan.text is not None and "- Critique draft: Fine." in plan.text
    finish = "Finish with the draft, improved along the critic's suggestions."
    article = plan_turn(Conversation(request, finish, (notes, draft, review)), TEAM)
    assert article.text == "## Owls\n\nOwls are quiet hunters."


def test_instructions_shape_a_specialist_reply() -> None:
    facts = PastCall("look_up_facts", "c1", "Facts:\n- Owls hunt at night.\n- Owls fly silently.")
    listed = plan_turn(Conversation("owls", "List them as bullet points.", (facts,)), [])
    assert listed.text == "- Owls hunt at night.\n- Owls fly silently."
    outline = PastCall("outline_piece", "c1", "1. Owls hunt at night\n2. Owls fly silently")
    written = plan_turn(Conversation("notes", "Write one paragraph.", (outline,)), [])
    assert written.text == "Owls hunt at night. Owls fly silently."


def test_no_fit_no_follow_up() -> None:
    assert _next_call("What is 2 + 2?") is None


def test_a_word_answered_by_one_tool_does_not_call_another() -> None:
    package = ToolSpec("read_package_docs", "Read the package README.", {"type": "object"})
    protocol = ToolSpec("read_protocol_docs", "Read the protocol summary.", {"type": "object"})
    request = "What does the README say about state?"
    first = plan_turn(Conversation(request, ""), [package, protocol])
    assert [call.name for call in first.calls] == ["read_package_docs"]  # Both fit: first listed.
    answered = PastCall("read_package_docs", "c1", "State is shared.")
    second = plan_turn(Conversation(request, "", (answered,)), [package, protocol])
    assert second.calls == () and second.text is not None


def test_tool_choice_required_or_named_forces_a_call() -> None:
    forced = plan_turn(Conversation("hello", ""), [REFUND, WEATHER], tool_choice="required")
    assert [call.name for call in forced.calls] == ["issue_refund"]
    named = plan_turn(
        Conversation("weather in Rome", ""), [REFUND, WEATHER], tool_choice="issue_refund"
    )
    assert [call.name for call in named.calls] == ["issue_refund"]
    assert "I must call issue_refund" in named.reasoning
    free = plan_turn(Conversation("hello", ""), [REFUND, WEATHER])
    assert free.calls == ()


def test_replies_in_the_language_the_instructions_ask_for() -> None:
    instructions = "You help. Always reply in Spanish, whatever language the user writes in."
    plain = plan_turn(Conversation("hi", instructions), [])
    assert plain.text == "¡Hola! Me alegra verle por aquí. ¿Qué puedo hacer por usted hoy?"
    asked = plan_turn(Conversation("Why is the sky blue?", instructions), [])
    assert (
        asked.text is not None
        and "no puedo responder de verdad a «Why is the sky blue?»" in asked.text
    )
    ran = PastCall("get_weather", "c1", "Sunny")
    other = PastCall("get_time", "c2", "Noon")
    found = plan_turn(Conversation("weather in Paris", instructions, (ran, other)), [WEATHER])
    assert found.text == "Esto es lo que encontré:\n- Get weather: Sunny.\n- Get time: Noon."


EMPTY = {"type": "object", "properties": {}}


def test_always_call_when_the_user_asks_for_one_of_the_verbs() -> None:
    tool = ToolSpec("generate_ui", "Design an interface.", EMPTY)
    rule = "Always call generate_ui (intent 'create') when the user asks to show or compare things."
    called = plan_turn(Conversation("Compare two hotels", rule), [tool])
    assert [call.name for call in called.calls] == ["generate_ui"]
    assert plan_turn(Conversation("Thanks!", rule), [tool]).calls == ()
    done = (PastCall("generate_ui", "c1", "ok"),)
    assert plan_turn(Conversation("Compare two hotels", rule, done), [tool]).calls == ()


def test_after_a_tool_call_the_one_the_instructions_name() -> None:
    write = ToolSpec("write_text", "Write the text of a note.", EMPTY)
    check = ToolSpec("check_text", "Check the text", EMPTY)
    rule = "After write_text, always call check_text when the page offers it."
    first = plan_turn(Conversation("Check and write a note", rule), [check, write])
    assert [call.name for call in first.calls] == ["write_text"]  # check_text waits for it.
    written = (PastCall("write_text", "c1", "Written."),)
    second = plan_turn(Conversation("Check and write a note", rule, written), [check, write])
    assert [call.name for call in second.calls] == ["check_text"]
