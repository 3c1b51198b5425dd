"""``support.approval_app`` with the package's warnings written to stderr, as a server logs them.

The package adds only a ``NullHandler``; a deployment configures logging itself, and so does
this app, so a test can read the server's warnings from the process output.
"""

from __future__ import annotations

import logging

from support.approval_app import build_app

logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")

app = build_app()
