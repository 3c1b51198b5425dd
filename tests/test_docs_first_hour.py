"""What a newcomer reads first is true: the README's first screen leads to the frontend
wiring, the quick start says where ``serve`` listens and what ``test`` costs and how to clean up
after it, every curl example starts a new thread, and installs name a checkout, not PyPI."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = (README, *sorted((ROOT / "docs").glob("*.md")), ROOT / "examples" / "README.md")
FIRST_SCREEN_LINES = 12


def quick_start() -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index("## Quick start")
    return text[start : text.index("\n## ", start + 1)]


def shell_blocks(path: Path) -> list[str]:
    return re.findall(r"```(?:bash|sh)\n(.*?)```", path.read_text(encoding="utf-8"), flags=re.S)


def test_the_first_screen_links_the_frontend_wiring() -> None:
    first_screen = README.read_text(encoding="utf-8").splitlines()[:FIRST_SCREEN_LINES]
    assert "(docs/frontends.md)" in "\n".join(first_screen)


def test_the_quick_start_says_where_serve_listens() -> None:
    section = quick_start()
    assert "http://127.0.0.1:8031" in section and "localhost" not in section
    assert "`HOST=0.0.0.0`" in section and "`PORT`" in section
    # What it says is what the server does: HOST, else 127.0.0.1.
    server = (ROOT / "examples" / "server.py").read_text(encoding="utf-8")
    assert 'os.environ.get("HOST", "127.0.0.1")' in server


def test_the_quick_start_states_the_cost_of_test_and_how_to_clean_up() -> None:
    section = quick_start()
    assert re.search(r"\d+ to \d+ minutes", section)
    assert re.search(r"\d+(\.\d+)? GB", section)
    [cleanup] = [block for block in shell_blocks(README) if block.startswith("rm -rf")]
    removed = shlex.split(cleanup)[2:]
    assert {".venv", ".venvs", "examples/.venv", "e2e/node_modules"} <= set(removed)
    git = shutil.which("git")
    if git is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    for path in removed:  # only what runs leave behind: nothing tracked
        listed = subprocess.run(
            [git, "ls-files", "--", path], cwd=ROOT, capture_output=True, text=True, check=True
        )
        assert listed.stdout == "", path


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_curl_example_starts_a_new_thread(path: Path) -> None:
    for block in shell_blocks(path):
        if "curl" not in block or "threadId" not in block:
            continue
        words = shlex.split(block[block.index("curl") :])
        body = words[words.index("-d") + 1]
        [thread_id] = re.findall(r'"threadId":\s*"([^"]*)"', body)
        variable = thread_id.removeprefix("$")
        assert thread_id.startswith("$") and f"{variable}=$(" in block, (path.name, thread_id)


def test_installs_name_a_checkout_and_the_built_wheel_this_version() -> None:
    version = re.search(
        r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(encoding="utf-8"), re.M
    )
    assert version is not None
    for path in DOCS:
        for paragraph in path.read_text(encoding="utf-8").split("\n\n"):
            if "published" in paragraph:  # "once the package is published, ... will do"
                continue
            pattern = r"pip install '([^']*ag[-_]ui[-_]openai[-_]agents[^']*)'"
            for package in re.findall(pattern, paragraph):
                assert package.startswith(("/path/to/", "./dist/")), (path.name, package)
                if package.startswith("./dist/"):
                    assert f"-{version.group(1)}-" in package, package
