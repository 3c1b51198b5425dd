#!/usr/bin/env python3
"""Developer commands that work on a fresh machine with only Python and pip.

    python3 dev.py serve   # the example server (offline demo model when OPENAI_API_KEY is unset)
    python3 dev.py test    # every test: package, examples, real AG-UI clients, older SDK / Python

uv is installed through pip when it is missing; everything else comes from the projects'
own pyproject.toml and package.json files.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parent
EXAMPLES = ROOT / "examples"
OLDEST_SDK = "openai-agents==0.23.1"
OLDEST_PYTHON = "3.10"


def run(*args: str, cwd: Path = ROOT, env: dict[str, str] | None = None) -> None:
    print(f"$ {' '.join(args)}  (in {cwd.relative_to(ROOT.parent)})", flush=True)
    subprocess.run(args, cwd=cwd, check=True, env=env)


def uv() -> str:
    """The uv executable, installed with pip when absent."""
    found = shutil.which("uv")
    if found:
        return found
    print("uv not found: installing it with pip", flush=True)
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "uv"], check=True)
    found = shutil.which("uv")
    if found:
        return found
    # Not on PATH: next to this interpreter, or in the user scripts folder (pip --user).
    user_scripts = Path(sysconfig.get_path("scripts", f"{os.name}_user"))
    for folder in (Path(sys.executable).parent, user_scripts):
        for name in ("uv", "uv.exe"):
            if (folder / name).exists():
                return str(folder / name)
    raise SystemExit("uv was installed with pip but cannot be found; add its folder to PATH")


def clean_env(**extra: str) -> dict[str, str]:
    """The environment for child projects, without the caller's active virtualenv."""
    env = {
        k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "UV_PROJECT_ENVIRONMENT")
    }
    env.update(extra)
    return env


def serve() -> None:
    tool = uv()
    run(tool, "sync", cwd=EXAMPLES, env=clean_env())
    run(tool, "run", "python", "server.py", cwd=EXAMPLES, env=clean_env())


def pytest_in(tool: str, cwd: Path, *args: str) -> None:
    run(tool, "sync", cwd=cwd, env=clean_env())
    run(tool, "run", "--no-sync", "pytest", *args, cwd=cwd, env=clean_env())


def compat_suite(tool: str, python: str, sdk: str | None, name: str) -> None:
    """Run the package suite in a separate venv (another Python, or the oldest supported SDK)."""
    venv = ROOT / ".venvs" / name
    run(
        tool,
        "venv",
        "--quiet",
        "--allow-existing",
        "--no-python-downloads",
        "-p",
        python,
        str(venv),
    )
    env = clean_env(VIRTUAL_ENV=str(venv))
    run(tool, "pip", "install", "--quiet", "-p", str(venv), "-e", ".", "--group", "dev", env=env)
    if sdk:
        run(tool, "pip", "install", "--quiet", "-p", str(venv), sdk, env=env)
    bindir = "Scripts" if os.name == "nt" else "bin"
    run(str(venv / bindir / "python"), "-m", "pytest", "-p", "no:cacheprovider", env=env)


def find_python(tool: str, version: str) -> str | None:
    """An interpreter of ``version``: one uv can find, else one installed under pyenv."""
    found = subprocess.run(
        [tool, "python", "find", "--no-python-downloads", version],
        capture_output=True,
        text=True,
        check=False,
    )
    if found.returncode == 0 and found.stdout.strip():
        return found.stdout.strip()
    pyenv = shutil.which("pyenv")
    if pyenv is None:
        return None
    root = subprocess.run([pyenv, "root"], capture_output=True, text=True, check=False)
    candidates = sorted(Path(root.stdout.strip()).glob(f"versions/{version}.*/bin/python{version}"))
    return str(candidates[-1]) if candidates else None


def test(quick: bool) -> None:
    tool = uv()
    pytest_in(tool, ROOT)
    pytest_in(tool, EXAMPLES)
    if quick:
        return
    compat_suite(tool, "3.11", OLDEST_SDK, "sdk-0.23.1")
    python = find_python(tool, OLDEST_PYTHON)
    if python is not None:
        compat_suite(tool, python, None, f"python-{OLDEST_PYTHON}")
    else:
        print(f"SKIPPED: no Python {OLDEST_PYTHON} interpreter on this machine", flush=True)


def main(argv: list[str]) -> int:
    command = argv[1] if len(argv) > 1 else ""
    try:
        if command == "serve":
            serve()
        elif command == "test":
            test(quick="--quick" in argv)
        else:
            print(__doc__)
            return 2
    except subprocess.CalledProcessError as exc:
        return exc.returncode or 1
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
