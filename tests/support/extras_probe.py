"""A script: what ``import ag_ui_openai_agents`` loads of the extras, and what raises.

It prints one JSON object: ``loaded``, the extras' modules the root import loaded, and
``errors``, the ``ImportError`` text of each root name that could not be used, of importing
``ag_ui_openai_agents.a2ui`` and of making a ``RedisThreadStore`` (as ``RedisThreadStore()``).
With ``--uninstalled`` it first makes the extras' modules unimportable, as if they were not
installed. Run it with any interpreter that has the package: it imports nothing from the tests.
"""

from __future__ import annotations

import json
import sys

EXTRA_MODULES = ("fastapi", "ag_ui_a2ui_toolkit", "redis")


def probe() -> dict[str, object]:
    import ag_ui_openai_agents as root

    loaded = sorted(
        name
        for name, module in sys.modules.items()
        if module is not None and name.partition(".")[0] in EXTRA_MODULES
    )
    errors: dict[str, str] = {}
    for name in root.__all__:
        try:
            getattr(root, name)
        except ImportError as exc:
            errors[name] = str(exc)
    try:
        import ag_ui_openai_agents.a2ui  # noqa: F401
    except ImportError as exc:
        errors["ag_ui_openai_agents.a2ui"] = str(exc)
    from ag_ui_openai_agents.threads import RedisThreadStore

    try:
        RedisThreadStore("redis://127.0.0.1:1")  # makes a client, connects to nothing
    except ImportError as exc:
        errors["RedisThreadStore()"] = str(exc)
    return {"loaded": loaded, "errors": errors}


if __name__ == "__main__":
    if "--uninstalled" in sys.argv:
        for name in EXTRA_MODULES:
            sys.modules[name] = None  # type: ignore[assignment]  # import raises, as if absent
    print(json.dumps(probe()))
