"""The layers of ``app/``, read from the folders and kept (as fava keeps its core free of the
web). A module's layer is where it sits, lowest first:

    core      app/core/                     the game's arithmetic: pure, testable with no app
    base      app/config, app/extensions,   settings, the framework objects, the languages
              app/i18n/
    db        app/db/                       the tables, the database as a server uses it
    services  app/services/                 one package per area: what the top layers call
    http      app/http/                     what pages and API share over HTTP
    top       app/web/, app/api/, app/cli/, the app factory

- A module imports only from its own layer or the ones below it.
- ``app.core`` imports nothing of Flask, SQLAlchemy, Werkzeug or Jinja either.
- No import cycles, in the core too, counting the imports for the type checker and the
  lazy ones (a function's own import): a later step that builds on a service (a league's
  ratings when a session closes) hangs on an event, not on an import back. A package
  importing its own modules to register them (Flask's blueprints) is not a cycle.
- A module takes another's public names only: ``from x import _private`` means the seam
  between the two is in the wrong place, or the name is public.
- A service package (``app/services/<area>/``) is used through its front (its
  ``__init__``) from outside: its modules are how it is made, not what it offers.
- The pages' areas (``app/web/<area>/``: sessions, leagues, tournaments, …) are alike: one
  area takes another's names from its package (``from ..sessions import hand_page``),
  never from one of its modules; what every area uses is in ``app/web/shared/``, which takes
  nothing from an area.
- ``app/config.py`` is the one module that reads environment variables (or writes them).

Every import counts, a function's own lazy import too; the names imported for the type
checker only (``if TYPE_CHECKING:``), which never run, count for cycles alone.
"""
from __future__ import annotations

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
APP = ROOT / "app"
#: Each layer's folders and loose modules, lowest first.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("core", ("app.core",)),
    ("base", ("app.config", "app.extensions", "app.i18n")),
    ("db", ("app.db",)),
    ("services", ("app.services",)),
    ("http", ("app.http",)),
    ("top", ("app.web", "app.api", "app.cli", "app.__main__", "app")),
)
RANK = {name: rank for rank, (name, _) in enumerate(LAYERS)}
FRAMEWORKS = ("flask", "flask_", "sqlalchemy", "werkzeug", "jinja2", "alembic")


def _name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_name(p): p for p in APP.rglob("*.py")}


def layer(module: str) -> str:
    """The layer of an ``app`` module, from where it sits (the longest folder that holds it)."""
    best = max(((len(prefix), name) for name, prefixes in LAYERS for prefix in prefixes
                if module == prefix or module.startswith(prefix + ".")), default=None)
    if best is None:
        raise AssertionError(f"{module} sits in no layer: put it in one of {LAYERS}")
    return best[1]


def _imports(name: str, *, typing: bool = False) -> dict[str, set[str]]:
    """Every module ``name`` imports, anywhere in it (absolute names), with the names it
    takes from each (empty for ``import x``); with ``typing``, those imported for the type
    checker only too."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found: dict[str, set[str]] = {}
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree) if typing else _executed(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.setdefault(alias.name, set())
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            for alias in node.names:
                if f"{module}.{alias.name}" in MODULES:
                    found.setdefault(f"{module}.{alias.name}", set())
                else:
                    found.setdefault(module, set()).add(alias.name)
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


IMPORTS = {m: _imports(m) for m in MODULES}
#: With the imports for the type checker: a cycle there is two modules that need each other
#: all the same (``settle`` ↔ ``explain`` once), only hidden from the interpreter.
DESIGN_IMPORTS = {m: _imports(m, typing=True) for m in MODULES}


def test_every_module_sits_in_a_layer():
    assert {layer(m) for m in MODULES} == set(RANK)


def test_the_core_imports_nothing_of_the_app_or_the_frameworks():
    for module in MODULES:
        if layer(module) != "core":
            continue
        for imported in IMPORTS[module]:
            assert layer(imported) == "core" if imported.startswith("app") else True, \
                f"{module} imports {imported}"
            assert not imported.startswith(FRAMEWORKS), f"{module} imports {imported}"


def test_no_module_imports_from_a_layer_above_its_own():
    wrong = [f"{module} ({layer(module)}) imports {imported} ({layer(imported)})"
             for module in MODULES for imported in IMPORTS[module]
             if imported in MODULES and RANK[layer(imported)] > RANK[layer(module)]]
    assert not wrong, "\n".join(wrong)


def test_no_import_cycles():
    graph = {m: {i for i in DESIGN_IMPORTS[m] if i in MODULES and not i.startswith(m + ".")}
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


def test_no_module_takes_another_modules_private_names():
    taken = [f"{module} takes {name} from {imported}"
             for module in MODULES for imported, names in IMPORTS[module].items()
             if imported.startswith("app") for name in names
             if name.startswith("_") and not name.startswith("__")]
    assert not taken, "\n".join(taken)


#: The service packages, each with a front (its ``__init__``) that the rest of the app uses.
SERVICE_PACKAGES = sorted(_name(p.parent) for p in (APP / "services").glob("*/__init__.py"))


def _package_of(module: str) -> str | None:
    """The service package ``module`` is one of the inner modules of, if any."""
    return next((p for p in SERVICE_PACKAGES if module.startswith(p + ".")), None)


def test_a_service_package_is_used_through_its_front_from_outside():
    wrong = [f"{module} imports {imported}: take it from {package}"
             for module in MODULES for imported in DESIGN_IMPORTS[module]
             if (package := _package_of(imported)) is not None
             and module != package and _package_of(module) != package]
    assert not wrong, "\n".join(wrong)


#: The pages' areas, each a package of ``app/web`` (``shared`` too: what every area uses).
AREAS = sorted(_name(p.parent) for p in (APP / "web").glob("*/__init__.py"))
SHARED = "app.web.shared"


def _area_of(module: str) -> str | None:
    """The area of the pages ``module`` belongs to (its package or one of its modules)."""
    return next((a for a in AREAS if module == a or module.startswith(a + ".")), None)


def area_crossings(imports: dict[str, dict[str, set[str]]]) -> list[str]:
    """Where a module of one area reaches into another area past its front (its package),
    and where the shared package takes anything of an area."""
    wrong = []
    for module, imported_names in imports.items():
        mine = _area_of(module)
        if mine is None:
            continue
        for imported in imported_names:
            theirs = _area_of(imported)
            if theirs is None or theirs == mine:
                continue
            if mine == SHARED and theirs != SHARED:
                wrong.append(f"{module} imports {imported}: the shared package uses no area")
            elif theirs != SHARED and imported != theirs:
                wrong.append(f"{module} imports {imported}: take it from {theirs}")
    return wrong


def test_an_area_of_the_pages_uses_another_through_its_front():
    wrong = area_crossings(DESIGN_IMPORTS)
    assert not wrong, "\n".join(wrong)


def test_the_areas_are_checked_at_all():
    """The check above sees the areas, and would see a reach past a front."""
    assert {"app.web.sessions", "app.web.leagues", "app.web.tournaments", "app.web.checker",
            "app.web.accounts", SHARED} <= set(AREAS)
    assert _area_of("app.web.sessions.pages") == "app.web.sessions"
    assert _area_of("app.web") is None
    assert "app.web.sessions" in DESIGN_IMPORTS["app.web.tournaments.keeping"]
    reach = {"app.web.leagues.pages": {"app.web.sessions.pages": {"rules_context"}},
             "app.web.shared.present": {"app.web.sessions": {"rules_context"}},
             "app.web.checker.dispute": {"app.web.sessions": {"rules_context"},
                                         "app.web.shared.forms": set()}}
    assert area_crossings(reach) == [
        "app.web.leagues.pages imports app.web.sessions.pages: take it from app.web.sessions",
        "app.web.shared.present imports app.web.sessions: the shared package uses no area"]


#: What reads or writes the process's environment: ``os.environ`` and its kin, and click's
#: options that read a variable (``envvar=``, ``auto_envvar_prefix=``).
ENVIRONMENT = {"environ", "environb", "getenv", "getenvb", "putenv", "unsetenv"}
ENVVAR_KEYWORDS = {"envvar", "auto_envvar_prefix"}


def environment_uses(tree: ast.AST) -> list[int]:
    """The lines of ``tree`` that touch the environment."""
    return [node.lineno for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and node.attr in ENVIRONMENT
            and isinstance(node.value, ast.Name) and node.value.id == "os"
            or isinstance(node, ast.ImportFrom) and node.module == "os"
            and any(a.name in ENVIRONMENT for a in node.names)
            or isinstance(node, ast.keyword) and node.arg in ENVVAR_KEYWORDS]


def test_only_the_configuration_reads_the_environment():
    wrong = [f"{module} line {line}" for module, path in MODULES.items()
             if module != "app.config" for line in environment_uses(ast.parse(path.read_text()))]
    assert not wrong, "the environment is read in app/config.py only:\n" + "\n".join(wrong)


def ends_a_change(tree: ast.AST) -> list[int]:
    """The lines that end a transaction themselves: a rollback or a commit called."""
    return [node.lineno for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("rollback", "commit")]


def test_only_the_write_boundary_ends_a_change():
    """A commit or a rollback is the write boundary's (app/db): views, error handlers,
    services and commands go through it (``unit_of_work``, ``once``, ``take_back``, a
    ``Savepoint``)."""
    wrong = [f"{module} line {line}" for module, path in MODULES.items()
             if not module.startswith("app.db") for line in ends_a_change(
                 ast.parse(path.read_text()))]
    assert not wrong, "only app/db commits or rolls back:\n" + "\n".join(wrong)
    assert ends_a_change(ast.parse(MODULES["app.db.unit"].read_text()))


def test_no_module_is_over_600_lines():
    """A module that grows past 600 lines holds more than one thing: split it by what it
    does (issue 43)."""
    long = {module: n for module, path in MODULES.items()
            if (n := len(path.read_text().splitlines())) > 600}
    assert not long, long


def test_the_layers_are_checked_at_all():
    """The checks above see the app: each layer, imports across them, names taken."""
    assert layer("app.services.leagues.admin") == "services"
    assert layer("app.core.hand") == "core"
    assert layer("app") == "top"
    assert "app.services.sessions" in IMPORTS["app.services.leagues.admin"]
    assert "locked" in IMPORTS["app.services.sessions.seats"]["app.services.sessions.ledger"]
    assert {"app.services.sessions", "app.services.leagues"} <= set(SERVICE_PACKAGES)
    assert _package_of("app.services.sessions.ledger") == "app.services.sessions"
    assert _package_of("app.services.sessions") is None
    assert _package_of("app.services.errors") is None
    assert environment_uses(ast.parse(MODULES["app.config"].read_text()))
    assert len(environment_uses(ast.parse("import os\nfrom os import getenv\nos.environ['A']"
                                          "\nclick.option('--u', envvar='U')"))) == 3


def test_no_test_module_imports_another_or_a_conftest():
    """What tests share is in a module by subject (``tests/apps.py``, ``clients.py``, …,
    ``tests/browser/helpers.py``) or a fixture: a test module importing another runs the
    other's module code and hides where a helper lives."""
    tests = ROOT / "tests"
    wrong = []
    for path in tests.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            wrong += [f"{path.relative_to(ROOT)} imports {n}" for n in names
                      if n.rsplit(".", 1)[-1].startswith("test_") or n.endswith("conftest")]
    assert not wrong, "\n".join(wrong)


def test_each_template_has_one_area():
    """The pages find a template by its name in every area's ``templates/`` (app/web's one
    loader): a name in two areas would be shadowed by one of them, unseen."""
    homes: dict[str, list[str]] = {}
    for folder in (APP / "web").glob("*/templates"):
        for path in folder.rglob("*.html"):
            homes.setdefault(path.relative_to(folder).as_posix(), []).append(folder.parent.name)
    assert len(homes) > 50 and "base.html" in homes and "leagues/league.html" in homes
    twice = {name: areas for name, areas in homes.items() if len(areas) > 1}
    assert not twice, twice
