"""An in-process MCP server for tests that need the SDK's real MCP tools."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agents.mcp import MCPServer
from mcp.types import (
    CallToolResult,
    GetPromptResult,
    ListPromptsResult,
    TextContent,
)
from mcp.types import Tool as MCPTool


class FakeMCPServer(MCPServer):
    """An in-process MCP server with fixed tools, recording its calls."""

    def __init__(self, label: str, tool_names: Sequence[str], *, require_approval: Any) -> None:
        super().__init__(require_approval=require_approval)
        self._label = label
        self._tools = [
            MCPTool(
                name=name,
                inputSchema={"type": "object", "properties": {"order_id": {"type": "string"}}},
            )
            for name in tool_names
        ]
        self.calls: list[tuple[str, dict[str, Any] | None]] = []
        self.listed = 0

    @property
    def name(self) -> str:
        return self._label

    async def connect(self) -> None:
        return None

    async def cleanup(self) -> None:
        return None

    async def list_tools(self, run_context: Any = None, agent: Any = None) -> list[MCPTool]:
        self.listed += 1
        return list(self._tools)

    async def call_tool(
        self, tool_name: str, arguments: dict[str, Any] | None, meta: dict[str, Any] | None = None
    ) -> CallToolResult:
        self.calls.append((tool_name, arguments))
        return CallToolResult(content=[TextContent(type="text", text=f"{self._label} did it")])

    async def list_prompts(self) -> ListPromptsResult:
        return ListPromptsResult(prompts=[])

    async def get_prompt(self, name: str, arguments: dict[str, Any] | None = None) -> Any:
        raise NotImplementedError(GetPromptResult)
