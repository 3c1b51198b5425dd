"""A run's edges and errors in one place: where RUN_STARTED and RUN_ERROR are built (counted in
the source), every ``RUN_ERROR.code`` in :mod:`ag_ui_openai_agents.errors` and once in
docs/errors.md, and the error policy in force when ``to_agui`` builds a failed run's RUN_ERROR."""

from __future__ import annotations

import ast
import asyncio
import contextvars
import importlib
import re
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any

import pytest
from ag_ui.core import BaseEvent, RunAgentInput, RunErrorEvent, UserMessage
from agents import Agent, RunConfig, Runner
from agents.models.interface import Model, ModelProvider

from ag_ui_openai_agents import AGUITranslator, errors
from ag_ui_openai_agents.safe_errors import (
    detailed_errors,
    safe_errors,
    set_policy_in,
    under_policy,
)

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "ag_ui_openai_agents"
SECRET = "dsn=postgres://admin:hunter2@db"


# --- where the events are built ------------------------------------------------------------


class _Builders(ast.NodeVisitor):
    """The functions whose own bodies call one of ``names`` (a constructor, or one of its
    class methods such as ``model_validate``), under any alias it was imported as."""

    def __init__(self, names: set[str]) -> None:
        self.names = set(names)
        self.stack: list[str] = []
        self.found: set[str] = set()

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        for alias in node.names:
            if alias.name in self.names and alias.asname:
                self.names.add(alias.asname)

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        self.stack.append(node.name)
        self.generic_visit(node)
        self.stack.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _function

    def visit_Call(self, node: ast.Call) -> None:
        called: list[ast.expr] = [node.func]
        if isinstance(node.func, ast.Attribute):
            called.append(node.func.value)  # RunErrorEvent.model_validate(...)
        names = {getattr(f, "id", None) or getattr(f, "attr", None) for f in called}
        if names & self.names:
            self.found.add(".".join(self.stack) or "<module>")
        self.generic_visit(node)


def builders(source: str, name: str) -> set[str]:
    """The qualified names of the functions of ``source`` that build a ``name`` event."""
    visitor = _Builders({name})
    visitor.visit(ast.parse(source))
    return visitor.found


def builders_in_package(name: str) -> set[str]:
    found: set[str] = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        module = path.relative_to(PACKAGE).as_posix()
        found |= {f"{module}:{place}" for place in builders(path.read_text("utf-8"), name)}
    return found


def test_the_count_sees_every_kind_of_place() -> None:
    """The counter can fail: it finds each function, method and alias that builds one."""
    source = (
        "from ag_ui.core import RunStartedEvent, RunStartedEvent as Started\n"
        "import ag_ui.core as core\n"
        "def opening(i):\n"
        "    return RunStartedEvent(thread_id=i.thread_id, run_id=i.run_id)\n"
        "class Run:\n"
        "    async def events(self):\n"
        "        yield core.RunStartedEvent(thread_id='t', run_id='r')\n"
        "    def again(self):\n"
        "        return Started.model_validate({})\n"
        "EVENT = RunStartedEvent(thread_id='t', run_id='r')\n"
        "def unrelated():\n"
        "    return RunStartedEventLike()\n"
    )

    assert builders(source, "RunStartedEvent") == {
        "opening",
        "Run.events",
        "Run.again",
        "<module>",
    }


def test_run_started_is_built_in_one_function() -> None:
    assert builders_in_package("RunStartedEvent") == {"edges.py:run_started"}


def test_run_error_is_built_in_at_most_two_functions() -> None:
    places = builders_in_package("RunErrorEvent")
    assert len(places) <= 2, places
    assert {place.split(":")[0] for place in places} == {"edges.py"}


# --- the codes -----------------------------------------------------------------------------

CODES = {name: value for name, value in vars(errors).items() if name.endswith("_CODE")}
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
CODE_ROW = re.compile(r"^\| `([A-Za-z_]+)` \|", re.MULTILINE)


def test_every_code_has_a_docstring_in_the_errors_module() -> None:
    tree = ast.parse((PACKAGE / "errors.py").read_text("utf-8"))
    documented = set()
    for node, after in zip(tree.body, tree.body[1:], strict=False):
        docstring = isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
        if isinstance(node, ast.Assign) and docstring:
            documented |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    assert len(CODES) >= 11
    assert set(CODES) <= documented
    assert set(errors.__all__) == {n for n in vars(errors) if n.isupper()}


def test_no_code_is_defined_outside_the_errors_module() -> None:
    for path in PACKAGE.rglob("*.py"):
        if path.name == "errors.py":
            continue
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
                names = [t.id for t in node.targets if isinstance(t, ast.Name)]
                assert not [n for n in names if n.endswith("_CODE")], (path, names)


def test_every_code_is_listed_once_in_one_table_of_the_docs() -> None:
    codes = set(CODES.values())
    rows = {
        path.name: [row for row in CODE_ROW.findall(path.read_text("utf-8")) if row in codes]
        for path in DOCS
    }
    assert sorted(rows.pop("errors.md")) == sorted(codes)
    assert {name: found for name, found in rows.items() if found} == {}


OLD_PLACES = [
    ("ag_ui_openai_agents.agent", "AGENT_ERROR_CODE"),
    ("ag_ui_openai_agents.agent", "AGENT_ERROR_MESSAGE"),
    ("ag_ui_openai_agents.agent", "SETUP_ERROR_MESSAGE"),
    ("ag_ui_openai_agents.safe_errors", "AGENT_ERROR_CODE"),
    ("ag_ui_openai_agents.safe_errors", "AGENT_ERROR_MESSAGE"),
    ("ag_ui_openai_agents.approvals.limits", "RESUME_LIMIT_CODE"),
    ("ag_ui_openai_agents.approvals.resume", "RESUME_LIMIT_CODE"),
    ("ag_ui_openai_agents.approvals.verify", "APPROVAL_REFUSED_CODE"),
    ("ag_ui_openai_agents.approvals.decisions", "INVALID_APPROVAL_CODE"),
    ("ag_ui_openai_agents.server.streaming", "SHUTDOWN_ERROR_CODE"),
    ("ag_ui_openai_agents.server.streaming", "SHUTDOWN_MESSAGE"),
    ("ag_ui_openai_agents.server.streaming", "ENCODING_ERROR_MESSAGE"),
    ("ag_ui_openai_agents.server.endpoint", "SHUTDOWN_ERROR_CODE"),
    *(
        (module, f"THREAD_{kind}_{part}")
        for module in ("ag_ui_openai_agents.threads", "ag_ui_openai_agents.threads.runs")
        for kind in ("BUSY", "FULL", "KEY", "LOST", "STORE")
        for part in ("CODE", "MESSAGE")
        if module.endswith("runs") or part == "CODE"
    ),
]


@pytest.mark.parametrize(("module", "name"), OLD_PLACES, ids=[".".join(p) for p in OLD_PLACES])
def test_the_old_names_stay_importable(module: str, name: str) -> None:
    assert getattr(importlib.import_module(module), name) == getattr(errors, name)


def test_the_unresumable_approval_code_is_its_class_name() -> None:
    from ag_ui_openai_agents import UnresumableApprovalError

    assert UnresumableApprovalError.code == errors.UNRESUMABLE_APPROVAL_CODE
    assert UnresumableApprovalError.__name__ == errors.UNRESUMABLE_APPROVAL_CODE


# --- the policy in force when to_agui builds its RUN_ERROR ---------------------------------


class BrokenProvider(ModelProvider):
    def get_model(self, model_name: str | None) -> Model:
        raise RuntimeError(SECRET)


def failing_run(run_error_message: str | None = None) -> AsyncGenerator[BaseEvent, None]:
    """``to_agui`` over a real SDK run whose model lookup fails with secret text."""
    config = RunConfig(model_provider=BrokenProvider(), tracing_disabled=True)
    run_input = RunAgentInput(
        thread_id="thread-1",
        run_id="run-1",
        state={},
        messages=[UserMessage(id="user-1", content="Hi.")],
        tools=[],
        context=[],
        forwarded_props={},
    )
    translator = AGUITranslator()
    result = Runner.run_streamed(
        Agent(name="a"), input=translator.to_openai(run_input).messages, run_config=config
    )
    return translator.to_agui(result, run_input, run_error_message=run_error_message)


async def ending(events: AsyncGenerator[Any, None]) -> tuple[str, str | None]:
    """The RUN_ERROR's message and code, once the stream raised."""
    seen: list[Any] = []
    with pytest.raises(RuntimeError, match="hunter2"):
        async for event in events:
            seen.append(event)
    end = seen[-1]
    assert isinstance(end, RunErrorEvent)
    return end.message, end.code


async def test_to_agui_used_on_its_own_follows_the_spec() -> None:
    assert await ending(failing_run()) == (SECRET, "RuntimeError")
    assert await ending(failing_run("Try later.")) == ("Try later.", None)


async def test_a_policy_set_around_each_step_is_in_force_for_to_agui() -> None:
    assert await ending(under_policy(failing_run(), safe_errors)) == (
        errors.AGENT_ERROR_MESSAGE,
        errors.AGENT_ERROR_CODE,
    )
    assert await ending(under_policy(failing_run("Try later."), safe_errors)) == (
        "Try later.",
        errors.AGENT_ERROR_CODE,
    )
    exposed = await ending(under_policy(failing_run("Try later."), detailed_errors))
    assert exposed == (SECRET, "RuntimeError")


async def test_a_policy_set_in_a_task_context_is_in_force_for_the_generator_it_iterates() -> None:
    """As ``agui_sse_response`` does: the generator's body runs in the context of the task
    that iterates it, not of the code that created it."""
    context = contextvars.copy_context()
    set_policy_in(context, safe_errors)
    stream = failing_run()  # created here, where no policy is in force
    task = context.run(asyncio.get_running_loop().create_task, ending(stream))

    assert await task == (errors.AGENT_ERROR_MESSAGE, errors.AGENT_ERROR_CODE)
    assert await ending(failing_run()) == (SECRET, "RuntimeError")  # nothing leaked here
