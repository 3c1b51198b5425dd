"""How the offline demo model words its text replies, so they read like an assistant's.

Once tools have answered, the reply says what they returned in prose: a weather report in a
sentence, any JSON an output holds as a list of its values (never raw JSON), a recipe told in
a few sentences, the page's answers to its own tools acknowledged. The agent's instructions
shape it when they ask for a form it knows: facts "as bullet points", a "paragraph" from an
outline, "improvements" to a draft, a "Markdown list" of what each specialist did, or to
"Finish with the draft" (the article its writer wrote). With no tool to call, it greets, says
what the page shared, describes the recipe or document it works on, or says honestly that it
cannot answer and what its tools can do. It never quotes its instructions back.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from agents.tool import DEFAULT_APPROVAL_REJECTION_MESSAGE

from demo_attachments import describe
from demo_conversation import Conversation, PastCall, ToolSpec
from demo_documents import current_document
from demo_phrases import ENGLISH as _ENGLISH
from demo_phrases import Phrases
from demo_recipes import recipe_in, recipe_prose
from demo_surfaces import describe_output

__all__ = ["plain_reply", "prose_of", "reply_from_outputs"]

_CONTEXT_HEADER = "Context from the application:"
_NOT_RUN = {DEFAULT_APPROVAL_REJECTION_MESSAGE, "CANCELLED", "ABANDONED", "INTERRUPTED"}
_GREETING = re.compile(r"^\W*(?:hi|hello|hey|hallo|bonjour|hola|ciao|good (?:morning|evening))\b")
_SAY_HELLO = re.compile(r"\bsay (?:hi|hello)\b", re.I)
_UNITS = {"_c": " °C", "_f": " °F", "_percent": " %", "_kph": " km/h", "_mph": " mph"}


# --- JSON in words -----------------------------------------------------------------------------


def _value_words(key: str, value: Any) -> str:
    """One value of an object, in words: ``humidity_percent: 89`` gives ``humidity 89 %``."""
    unit = next((u for suffix, u in _UNITS.items() if key.endswith(suffix)), "")
    label = key[: -len(next(s for s in _UNITS if key.endswith(s)))] if unit else key
    label = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", label).replace("_", " ").lower()
    return f"{label} {prose_of(value)}{unit}"


def _weather(data: Mapping[str, Any]) -> str | None:
    """A weather report as a sentence."""
    if not {"city", "conditions", "temperature_c"} <= set(data):
        return None
    extras = [
        f"feels like {data['feels_like_c']} °C" if "feels_like_c" in data else "",
        f"humidity {data['humidity_percent']} %" if "humidity_percent" in data else "",
        f"wind {data['wind_kph']} km/h" if "wind_kph" in data else "",
    ]
    shown = ", ".join(extra for extra in extras if extra)
    conditions = str(data["conditions"]).lower()
    text = f"The weather in {data['city']}: {conditions}, {data['temperature_c']} °C"
    return f"{text} ({shown})." if shown else f"{text}."


def prose_of(value: Any) -> str:
    """A JSON value in words: scalars as they are, a list as a list, an object by its values
    (a weather report as a sentence)."""
    if isinstance(value, Mapping):
        weather = _weather(value)
        if weather is not None:
            return weather
        named = value.get("name") or value.get("title") or value.get("airline")
        rest = [_value_words(k, v) for k, v in value.items() if v not in (None, "", [], {})]
        if named:
            rest = [prose_of(v) for k, v in value.items() if v != named and v not in (None, "")]
            return f"{named} ({', '.join(rest)})" if rest else str(named)
        return ", ".join(rest)
    if isinstance(value, list):
        return "; ".join(prose_of(item) for item in value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _unjson(text: str) -> str:
    """``text`` with every JSON object or list in it told in words."""
    decoder = json.JSONDecoder()
    out, index = [], 0
    while index < len(text):
        if text[index] in "{[":
            try:
                value, end = decoder.raw_decode(text, index)
            except ValueError:
                value, end = None, -1
            if end > index and isinstance(value, (dict, list)):
                out.append(prose_of(value))
                index = end
                continue
        out.append(text[index])
        index += 1
    return "".join(out)


# --- what one call returned --------------------------------------------------------------------


def _arguments(call: PastCall) -> Any:
    try:
        return json.loads(call.arguments) if call.arguments else {}
    except ValueError:
        return {}


def _humanized(name: str) -> str:
    return re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name).replace("_", " ").lower()


def _sentence(text: str) -> str:
    text = " ".join(text.split())
    if not text:
        return text
    text = text[:1].upper() + text[1:]
    return text if text[-1] in ".!?…" else f"{text}."


def _special(call: PastCall, phrases: Phrases) -> str | None:
    """What a call returned when it has words of its own: a call that did not run, a recipe
    written, an A2UI surface or the page's confirmation, a plan carried out."""
    output = (call.output or "").strip()
    if output in _NOT_RUN:
        return phrases.did_not_run.format(call.name, output)
    if "recipe" in call.arguments:
        recipe = recipe_in(json.dumps(_arguments(call)))
        if recipe is not None:
            return f"Here is your recipe. {recipe_prose(recipe)}"
    described = describe_output(output)
    if described is not None:
        return described
    done = re.match(r"Completed all (\d+) steps: (.+?)(?:; .+)?; (.+?)\.?$", output)
    if done:
        first, last = (step[:1].lower() + step[1:] for step in (done.group(2), done.group(3)))
        return f"✅ Done! All {done.group(1)} steps are complete, from {first} to {last}."
    return None


def _said(call: PastCall, phrases: Phrases) -> str:
    """What one call returned, in words."""
    output = (call.output or "").strip()
    special = _special(call, phrases)
    if special is not None:
        return special
    if output.startswith("#"):
        heading, _, body = output.partition("\n")
        return f"From the section “{heading.lstrip('# ').strip()}”:\n\n{_excerpt(body, 600)}"
    words = _unjson(output)
    if "\n" in words.strip():
        return f"{_sentence(_humanized(call.name))[:-1]} gave:\n\n{words.strip()}"
    if len(words.split()) > 3 and words[:1].isupper():
        return _sentence(words)
    return f"{_sentence(_humanized(call.name))[:-1]}: {words.rstrip('.')}."


def _excerpt(text: str, limit: int) -> str:
    lines = [line.rstrip() for line in text.strip().splitlines()]
    kept: list[str] = []
    for line in lines:
        if kept and len("\n".join([*kept, line])) > limit:
            return "\n".join([*kept, "…"])
        kept.append(line)
    return "\n".join(kept)


# --- the page's answers to its own tools ------------------------------------------------------


def _page_answer(call: PastCall) -> str | None:
    """A reply to what the page answered one of its tools (steps, haiku, background)."""
    output = (call.output or "").strip()
    kept = re.match(r"The user kept these steps: (.*)\.$", output, flags=re.S)
    if kept:
        steps = [step.strip() for step in kept.group(1).split(";") if step.strip()]
        listed = "\n".join(f"{n}. {step}" for n, step in enumerate(steps, 1))
        return f"Great, here is the plan with the {len(steps)} steps you kept:\n\n{listed}"
    if output.startswith("The user rejected the plan"):
        return "All right, I won't go ahead with that plan. Tell me what you would change."
    if output == "Haiku shown.":
        english = _arguments(call).get("english") or []
        verse = " / ".join(str(line) for line in english)
        return f"Your haiku is ready: *{verse}*." if verse else "Your haiku is ready."
    if output.startswith("Background changed to "):
        return f"Done: the chat's background is now {output[len('Background changed to ') :]}"
    if output.startswith("The background was not changed"):
        return f"{output} Try a colour or a gradient."
    return None


# --- replies shaped by the instructions -------------------------------------------------------


def _lines(text: str) -> list[str]:
    """The points of a text: its lines without list markers and headings."""
    lines = (re.sub(r"^\s*(?:[-*•]|\d+[.)])\s*", "", line).strip() for line in text.splitlines())
    return [line for line in lines if line and not line.endswith(":")]


def _paragraph(points: list[str]) -> str:
    return " ".join(_sentence(point) for point in points)


def _shaped(
    conversation: Conversation, calls: Sequence[PastCall], tools: Sequence[ToolSpec]
) -> str | None:
    """The reply the instructions ask for, when they ask for a form the demo model knows."""
    said = conversation.instructions
    last = _unjson((calls[-1].output or "").strip())
    if "Finish with the draft" in said:
        return _article(conversation, calls, tools)
    if "Markdown list" in said:
        return "\n".join(
            f"- **{_sentence(_humanized(call.name))[:-1]}**: {_said(call, _ENGLISH)}"
            for call in calls
        )
    if re.search(r"\bsuggest\b.*\bimprovements?\b", said, re.I | re.S):
        return (
            f"The draft reads clearly ({last.rstrip('.')}). Two improvements: open with a "
            "sentence that tells the reader why the topic matters, and link the ideas with a "
            "few transitions so it flows as one story."
        )
    if re.search(r"\bbullet points?\b|\blist the\b.*\bfacts\b", said, re.I | re.S):
        return "\n".join(f"- {point}" for point in _lines(last))
    if re.search(r"\bparagraphs?\b", said, re.I):
        return _paragraph(_lines(last))
    if re.search(r"\bin one sentence\b", said, re.I) and len(calls) == 1:
        return _sentence(" ".join(_lines(last)))
    return None


def _article(
    conversation: Conversation, calls: Sequence[PastCall], tools: Sequence[ToolSpec]
) -> str | None:
    """The article the team wrote: the draft the last specialist worked on, with a title."""
    described = {tool.name: tool.description for tool in tools}
    names = set(re.findall(r"\w+", described.get(calls[-1].name, "")))
    drafts = [call for call in calls if call.name in names and call.output]
    if not drafts:
        return None
    draft = (drafts[-1].output or "").strip()
    topic = re.search(r"\b(?:about|on)\s+(.+?)[.?!]*$", " ".join(conversation.user_text.split()))
    if topic is None:
        return draft
    title = topic.group(1)
    return f"## {title[:1].upper()}{title[1:]}\n\n{draft}"


def reply_from_outputs(
    conversation: Conversation,
    calls: Sequence[PastCall],
    tools: Sequence[ToolSpec],
    phrases: Phrases,
) -> str:
    """The reply once ``calls`` (made since the user's message) have answered."""
    pages = [_page_answer(call) for call in calls]
    if pages and all(page is not None for page in pages):
        return "\n\n".join(page for page in pages if page)
    special = _special(calls[-1], phrases)
    if special is not None and (len(calls) == 1 or describe_output(calls[-1].output or "")):
        return " ".join([*([phrases.missing_note] if phrases.missing_note else []), special])
    shaped = _shaped(conversation, calls, tools)
    if shaped:
        return shaped
    said = [_said(call, phrases) for call in calls]
    lead = [phrases.missing_note] if phrases.missing_note else []
    if len(said) == 1:
        return " ".join([*lead, said[0]])
    return "\n".join([*lead, phrases.found, *(f"- {text}" for text in said)])


# --- replies without tools ---------------------------------------------------------------------


def _facts(instructions: str) -> list[tuple[str, str]]:
    """What the page shared: the context block the wrapper appends, or the facts the
    instructions were written from ("which shared: User name: Ada; ...")."""
    lines: list[str] = []
    if _CONTEXT_HEADER in instructions:
        lines = instructions.split(_CONTEXT_HEADER, 1)[1].strip().splitlines()
    shared = re.search(r"\bwhich shared: (.+?)\.(?:\s|$)", instructions)
    if shared:
        lines += shared.group(1).split("; ")
    pairs = [line.partition(":") for line in lines]
    # Facts about the user and the page are short; long entries are guides for tools.
    return [
        (key.strip(), value.strip())
        for key, sep, value in pairs
        if sep and value.strip() and len(key) <= 40 and len(value) <= 80
    ]


def _known_answer(conversation: Conversation, phrases: Phrases) -> str | None:
    """A reply from what the demo model can see: a greeting, the page's facts, the recipe or
    document it works on; None when it cannot answer."""
    text = conversation.user_text
    if _GREETING.match(text.lower()) or _SAY_HELLO.search(text):
        return phrases.greeting
    facts = _facts(conversation.instructions)
    names = [value for key, value in facts if "name" in key.lower()]
    if names and re.search(r"\bwho am i\b|\bmy name\b", text, re.I):
        return phrases.you_are.format(names[0])
    recipe = recipe_in(conversation.instructions)
    if recipe is not None:
        return f"Here is the recipe as it stands. {recipe_prose(recipe)}"
    document = current_document(conversation.instructions)
    if document is not None:
        title = document.splitlines()[0].lstrip("# ").strip()
        return (
            f"The document is “{title}”, {len(document.split())} words long. Ask me to change it."
        )
    if facts and re.search(r"\b(?:me|my|i|am)\b", text, re.I):
        return phrases.page_says.format("; ".join(f"{k}: {v}" for k, v in facts))
    return None


def _capabilities(tools: Sequence[ToolSpec]) -> str:
    """What the tools do, from their descriptions' first sentences."""
    said = []
    for tool in tools:
        first = re.split(r"(?<=[.!?])\s", tool.description.strip(), maxsplit=1)[0].rstrip(".")
        said.append(f"{first[:1].lower()}{first[1:]} ({tool.name})" if first else tool.name)
    return "; ".join(said)


def plain_reply(conversation: Conversation, tools: Sequence[ToolSpec], phrases: Phrases) -> str:
    """The reply when no tool is called and none has answered."""
    parts = [phrases.missing_note] if phrases.missing_note else []
    if conversation.attachments:
        described = [describe(attachment) for attachment in conversation.attachments]
        listed = described[0] if len(described) == 1 else ", ".join(described[:-1])
        if len(described) > 1:
            listed += f" and {described[-1]}"
        parts.append(
            f"You attached {listed}. The offline demo model cannot look inside attachments; "
            "a real vision model would describe them."
        )
        return " ".join(parts)
    known = _known_answer(conversation, phrases)
    if known is not None:
        return " ".join([*parts, known])
    flat = " ".join(conversation.user_text.split())
    parts.append(phrases.cannot_answer.format(flat if len(flat) <= 120 else flat[:119] + "…"))
    if tools:
        parts.append(phrases.can_help.format(_capabilities(tools)))
    return " ".join(parts)
