"""A conversation on the scripted model with every kind of output item the Responses API
streams, for the replay tests: several summary parts, encrypted content, phases, a function
call, hosted calls, an MCP listing and compaction."""

from __future__ import annotations

from support.scripted import Call, Hosted, Reasoning, Text, Turn

__all__ = ["EVERY_KIND"]

EVERY_KIND = [
    Turn(
        [
            Hosted("mcp_list_tools", tools=[]),
            Reasoning(
                summary=["One.", "Two.", "Three.", "Four."],
                encrypted="gA-done-1",
                encrypted_added="gA-add",
                encrypted_completed="gA-fin-1",
            ),
            Text("Checking.", phase="commentary"),
            Call("lookup", {"topic": "ag-ui"}),
            Reasoning(summary=["Search too."], encrypted="gA-done-2"),
            Hosted("web_search_call", query="ag-ui"),
        ]
    ),
    Turn(
        [
            Hosted("compaction", encrypted_content="gA-compact"),
            Reasoning(summary=["Answer now."], text=["raw"], encrypted="gA-done-3"),
            Text("It is a protocol.", phase="final_answer"),
        ]
    ),
]
