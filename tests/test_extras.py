"""The package imports without its extras, and a name that needs one says which to install."""

from __future__ import annotations

import sys
from pathlib import Path

from support.extras import check_without_extras, probe


def test_without_the_extras_the_root_imports_and_names_the_missing_extra(tmp_path: Path) -> None:
    check_without_extras(probe(sys.executable, "--uninstalled", cwd=tmp_path))


def test_with_the_extras_every_root_name_is_usable(tmp_path: Path) -> None:
    assert probe(sys.executable, cwd=tmp_path)["errors"] == {}
