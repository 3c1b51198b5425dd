"""The built distributions: complete, typed, importable on their own, licensed, and a source
release that holds the tracked sources and nothing a run of the examples or tests leaves behind."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from support.extras import check_without_extras, probe

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "ag_ui_openai_agents"


def _uv() -> str | None:
    return os.environ.get("UV") or shutil.which("uv")


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    uv = _uv()
    if uv is None:
        pytest.skip("uv is not on PATH")
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [uv, "build", "--quiet", "--out-dir", str(out)], cwd=ROOT, check=True, timeout=300
    )
    return out


def test_wheel_holds_every_module_and_the_typed_marker(dist: Path) -> None:
    wheel = next(dist.glob("*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {p.relative_to(PACKAGE.parent).as_posix() for p in PACKAGE.rglob("*.py")}
    assert expected <= names
    assert "ag_ui_openai_agents/py.typed" in names
    metadata = (
        zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("METADATA"))).decode()
    )
    assert f"Version: {_pyproject()['project']['version']}" in metadata  # type: ignore[index]
    assert "Requires-Python: >=3.10" in metadata
    requirements = {
        line.split(": ", 1)[1]
        for line in metadata.splitlines()
        if line.startswith("Requires-Dist:")
    }
    assert requirements == {
        "ag-ui-protocol<1.1,>=1.0.0",
        "openai-agents<0.25,>=0.23.1",
        "openai<4,>=3.57.0",
        "pydantic<3,>=2.12.2",
        "jsonschema<5,>=4.18",
        "jsonpatch<2,>=1.33",
        "fastapi>=0.110; extra == 'fastapi'",
        "redis<9,>=5.0.1; extra == 'redis'",
        "ag-ui-a2ui-toolkit<0.0.6,>=0.0.5; extra == 'a2ui'",
    }


def test_installed_wheel_imports_without_the_source_tree(dist: Path, tmp_path: Path) -> None:
    uv = _uv()
    assert uv is not None
    target = tmp_path / "site"
    wheel = next(dist.glob("*.whl"))
    subprocess.run(
        [uv, "pip", "install", "--quiet", "--no-deps", "--target", str(target), str(wheel)],
        check=True,
        timeout=120,
    )
    code = (
        "import ag_ui_openai_agents as m, sys; "
        "from ag_ui_openai_agents import AGUITranslator, OpenAIAgentsAgent, "
        "add_openai_agents_fastapi_endpoint, resume_tool_calls, shared_state; "
        "print(m.__file__)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env={"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert done.stdout.strip().startswith(str(target))


def _pyproject() -> dict[str, object]:
    try:
        import tomllib
    except ImportError:  # Python 3.10: mypy brings tomli
        import tomli as tomllib
    with (ROOT / "pyproject.toml").open("rb") as file:
        return tomllib.load(file)


def test_wheel_metadata_names_licence_pythons_and_urls(dist: Path) -> None:
    wheel = zipfile.ZipFile(next(dist.glob("*.whl")))
    names = wheel.namelist()
    metadata = wheel.read(next(n for n in names if n.endswith("METADATA"))).decode()
    assert "License-Expression: MIT" in metadata
    assert any(n.endswith("licenses/LICENSE") for n in names)
    assert "MIT License" in (ROOT / "LICENSE").read_text()
    for minor in (10, 11, 12, 13):
        assert f"Classifier: Programming Language :: Python :: 3.{minor}" in metadata
    for label in ("Homepage", "Source", "Issues", "Changelog"):
        assert f"Project-URL: {label}, https://" in metadata
    # The test tools are a dependency group, not an extra.
    lines = metadata.splitlines()
    extras = {line.split(": ", 1)[1] for line in lines if line.startswith("Provides-Extra:")}
    assert extras == {"fastapi", "redis", "a2ui"}


def test_the_wheel_without_extras_installs_no_fastapi_and_imports(
    dist: Path, tmp_path: Path
) -> None:
    """``pip install`` of the wheel alone, in an environment of its own: no FastAPI, no A2UI
    toolkit, no redis client; the root imports, and each name that needs an extra names it."""
    uv = _uv()
    assert uv is not None
    venv = tmp_path / "venv"
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    subprocess.run(
        [uv, "venv", "--quiet", "-p", sys.executable, str(venv)], check=True, timeout=120
    )
    wheel = next(dist.glob("*.whl"))
    subprocess.run(
        [uv, "pip", "install", "--quiet", "-p", str(python), str(wheel)], check=True, timeout=600
    )
    listed = subprocess.run(
        [uv, "pip", "list", "--format", "json", "-p", str(python)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    installed = {package["name"].lower() for package in json.loads(listed.stdout)}
    assert "ag-ui-openai-agents" in installed
    assert installed.isdisjoint({"fastapi", "ag-ui-a2ui-toolkit", "redis"})
    check_without_extras(probe(str(python), cwd=tmp_path))


def test_the_installed_distribution_names_its_licence(dist: Path, tmp_path: Path) -> None:
    uv = _uv()
    assert uv is not None
    target = tmp_path / "site"
    wheel = next(dist.glob("*.whl"))
    subprocess.run(
        [uv, "pip", "install", "--quiet", "--no-deps", "--target", str(target), str(wheel)],
        check=True,
        timeout=120,
    )
    code = (
        "import importlib.metadata as m, json; d = m.distribution('ag-ui-openai-agents'); "
        "print(json.dumps([d.metadata['License-Expression'], d.metadata.get_all('License-File'), "
        "d.read_text('licenses/LICENSE')]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env={"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    expression, files, text = json.loads(done.stdout)
    assert expression == "MIT"
    assert files == ["LICENSE"]
    assert text == (ROOT / "LICENSE").read_text(encoding="utf-8")


# --------------------------------------------------------------------------- the source release

SDIST_ROOTS = (
    "src/", "tests/", "docs/", "examples/", "e2e/", "benchmarks/",
    "dev.py", "README.md", "CHANGELOG.md", "CONTRIBUTING.md", "LICENSE", "pyproject.toml",
    ".gitignore",  # hatchling adds the root's own
)  # fmt: skip
"""What the sdist holds of the checkout: everything tracked under these, and nothing else."""
IGNORE_FILES = {".gitignore", "examples/.gitignore"}

LEFTOVERS = (
    "examples/tests/artifacts/human_in_the_loop-01-approve.png",
    "examples/threads.db",
    "examples/threads.db-wal",
    "threads.db",
    "examples/.venv/bin/python",
    "examples/uv.lock",
    ".venv/bin/python",
    ".venvs/sdk-0.23.1/bin/python",
    "uv.lock",
    "e2e/node_modules/@ag-ui/client/package.json",
    "e2e/copilotkit/node_modules/@copilotkit/runtime/package.json",
    "e2e/copilotkit/package-lock.json",
    "e2e/.npm-install.lock",
    "src/ag_ui_openai_agents/__pycache__/agent.cpython-311.pyc",
    "tests/__pycache__/conftest.cpython-311-pytest-9.2.0.pyc",
    ".hypothesis/examples/0/1",
    ".pytest_cache/v/cache/nodeids",
    ".mypy_cache/3.10/agents.json",
    ".ruff_cache/0.17.6/1",
    ".benchmarks/run.json",
    ".env",
)
"""What a run of ``dev.py serve`` and ``dev.py test`` (and an editor) leaves in a checkout."""


def _members(sdist: Path) -> set[str]:
    """The sdist's files, without the ``<name>-<version>/`` folder they are in."""
    with tarfile.open(sdist) as archive:
        names = [m.name for m in archive.getmembers() if m.isfile()]
    return {name.split("/", 1)[1] for name in names}


def _tracked_sources() -> set[str] | None:
    """The files git tracks under :data:`SDIST_ROOTS`, or None outside a git checkout."""
    git = shutil.which("git")
    if git is None or not (ROOT / ".git").exists():
        return None
    listed = subprocess.run(
        [git, "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True, check=True, timeout=60
    ).stdout
    return {name for name in listed.split("\0") if name and name.startswith(SDIST_ROOTS)}


def test_the_sdist_holds_the_tracked_sources_and_nothing_else(dist: Path) -> None:
    tracked = _tracked_sources()
    if tracked is None:
        pytest.skip("not a git checkout: the tracked files are unknown")
    members = _members(next(dist.glob("*.tar.gz")))
    assert members - {"PKG-INFO"} == tracked
    assert "tests/conftest.py" in members and "examples/demo_model.py" in members


def test_what_a_run_leaves_behind_stays_out_of_both_archives(dist: Path, tmp_path: Path) -> None:
    """The sdist unpacked, its ``.gitignore`` files removed (the build configuration excludes
    the leftovers itself), every leftover of a run planted in it, built again: the same files in
    both archives."""
    uv = _uv()
    assert uv is not None
    sdist = next(dist.glob("*.tar.gz"))
    with tarfile.open(sdist) as archive:
        safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
        archive.extractall(tmp_path / "unpacked", **safe)  # type: ignore[arg-type]
    [tree] = (tmp_path / "unpacked").iterdir()
    for ignore_file in IGNORE_FILES:
        (tree / ignore_file).unlink()
    for leftover in LEFTOVERS:
        planted = tree / leftover
        planted.parent.mkdir(parents=True, exist_ok=True)
        planted.write_bytes(b"left behind by a run")
    out = tmp_path / "rebuilt"
    subprocess.run(
        [uv, "build", "--quiet", "--out-dir", str(out)], cwd=tree, check=True, timeout=300
    )

    assert _members(next(out.glob("*.tar.gz"))) == _members(sdist) - IGNORE_FILES
    wheel_names = set(zipfile.ZipFile(next(out.glob("*.whl"))).namelist())
    assert wheel_names == set(zipfile.ZipFile(next(dist.glob("*.whl"))).namelist())
    assert all(name.startswith("ag_ui_openai_agents") for name in wheel_names)
    assert not any(name.endswith((".pyc", ".db", ".png")) for name in wheel_names)
