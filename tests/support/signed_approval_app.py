"""``support.approval_app`` with the package's warnings written to stderr, as a server logs them.

A deployment configures logging itself, and so does this app (the package's own fallback to
stderr then steps aside), so a test can read the server's warnings from the process output.
"""

from __future__ import annotations

import logging

from support.approval_app import build_app

logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")

app = build_app()
