"""The layers of ``app/``, written down and kept (as fava keeps its core free of the web):

    core  ←  services  ←  web, api, auth, the command line, the app factory

- ``app.core`` imports nothing of the app outside itself, and nothing of Flask, SQLAlchemy,
  Werkzeug or Jinja: it is the game's arithmetic, testable with no app.
- The services (the tables, the database, the ledger, leagues, exchange, accounts, …)
  import nothing of the layer above: no page, endpoint, command or app setup.
- No import cycles: a later step that builds on a service (a league's ratings when a
  session closes) hangs on an event, not on an import back. A package importing its own
  modules to register them (Flask's blueprints) is not a cycle.

Every import counts, a function's own lazy import too; not the names imported for the
type checker only (``if TYPE_CHECKING:``), which never run.
"""
from __future__ import annotations

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
APP = ROOT / "app"
SERVICES = {"app.db.models", "app.extensions", "app.db.storage", "app.services.sessions.ledger",
            "app.services.leagues", "app.services.exchange", "app.services.accounts",
            "app.db.idempotency", "app.services.upkeep.integrity", "app.services.upkeep.backup",
            "app.services.exchange.demo", "app.services.sessions.entries",
            "app.services.sessions.pots", "app.services.sessions.seats",
            "app.services.sessions.settleup", "app.services.sessions.archive",
            "app.services.sessions.debts"}
FRAMEWORKS = ("flask", "flask_", "sqlalchemy", "werkzeug", "jinja2", "alembic")


def _name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_name(p): p for p in APP.rglob("*.py")}


def _imports(name: str) -> set[str]:
    """Every module ``name`` imports, anywhere in it (absolute names)."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in _executed(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            submodules = {f"{module}.{a.name}" for a in node.names} & MODULES.keys()
            found.update(submodules)
            if len(submodules) < len(node.names):
                found.add(module)
    return found


def _executed(tree: ast.AST):
    """Every node, but those under ``if TYPE_CHECKING:`` (names for the type checker only,
    never imported when the app runs)."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            yield from (n for child in node.orelse for n in ast.walk(child))
            continue
        yield node
        yield from _executed(node)


def _layer(module: str) -> str:
    if module == "app.core" or module.startswith("app.core."):
        return "core"
    if any(module == s or module.startswith(s + ".") for s in SERVICES):
        return "service"
    return "top"


def test_the_core_imports_nothing_of_the_app_or_the_frameworks():
    for module in MODULES:
        if _layer(module) != "core":
            continue
        for imported in _imports(module):
            assert imported.startswith("app.core") or not imported.startswith("app"), \
                f"{module} imports {imported}"
            assert not imported.startswith(FRAMEWORKS), f"{module} imports {imported}"


def test_services_import_nothing_of_the_pages_api_or_commands():
    for module in MODULES:
        if _layer(module) != "service":
            continue
        for imported in _imports(module):
            if imported.startswith("app"):
                assert _layer(imported) != "top", f"{module} imports {imported}"


def test_no_import_cycles():
    graph = {m: {i for i in _imports(m) if i in MODULES and not i.startswith(m + ".")}
             for m in MODULES}  # a package importing its own modules: registration
    done: set[str] = set()

    def visit(module: str, path: list[str]) -> None:
        if module in path:
            pytest.fail("import cycle: " + " → ".join(path[path.index(module):] + [module]))
        if module in done:
            return
        for imported in sorted(graph[module]):
            visit(imported, path + [module])
        done.add(module)

    for module in sorted(graph):
        visit(module, [])


def test_the_layers_are_checked_at_all():
    """The checks above see the app: its core, its services and what stands on them."""
    layers = {_layer(m) for m in MODULES}
    assert layers == {"core", "service", "top"}
    assert "app.services.sessions.ledger" in _imports("app.services.leagues.admin")
