"""The layout of the product: no import circles between its modules, and a CLI that starts
without loading the stages it does not run.

The imports are read from the source with ast, at every level (module, function, under
TYPE_CHECKING): a circle a reader must hold in mind is one whether Python meets it at start-up
or later.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import locleg
from locleg.enrich.citations import revocation_cycles

SRC = Path(locleg.__file__).resolve().parent
PACKAGE = "locleg"

def product_modules() -> dict[str, Path]:
    """Every module of the product, by dotted name (a package by its __init__)."""
    modules = {}
    for path in sorted(SRC.rglob("*.py")):
        parts = [PACKAGE, *path.relative_to(SRC).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def _owner(name: str, modules: dict[str, Path]) -> str | None:
    """The product module NAME is, or lives in (locleg.extract.pdf.read -> locleg.extract.pdf)."""
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


def _imports(name: str, modules: dict[str, Path]) -> Iterator[tuple[str, str | None]]:
    """What NAME's source imports, anywhere in it: (the dotted module, the name taken from it,
    or None when the module itself is imported)."""
    path = modules[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, None
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base_parts = package.split(".")
                base_parts = base_parts[:len(base_parts) - (node.level - 1)]
                base = ".".join(base_parts + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            # `from . import x`: x is a submodule when one has that name, else a name of base.
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                yield (submodule, None) if submodule in modules else (base, alias.name)


def imports_of(name: str, modules: dict[str, Path]) -> set[str]:
    """The product modules NAME imports, anywhere in its source."""
    owners = {_owner(target, modules) for target, _ in _imports(name, modules)}
    return {owner for owner in owners if owner and owner != name}


def import_graph() -> dict[str, set[str]]:
    modules = product_modules()
    return {name: imports_of(name, modules) for name in modules}


def circles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module, found by the project's one
    Tarjan (the cycles of norms that revoke one another are the same search)."""
    edges = ((module, imported) for module, imports in graph.items() for imported in imports)
    return [frozenset(group) for group in revocation_cycles(edges) if len(group) > 1]


def test_the_graph_reads_relative_imports_and_submodules():
    graph = import_graph()
    # `from .base import BlobError` (relative), `from . import frontier` (a submodule),
    # `from .. import __version__` (a name of the package's __init__).
    assert "locleg.originals.base" in graph["locleg.originals.fsspec"]
    assert "locleg.harvest.frontier" in graph["locleg.harvest.querido_diario"]
    assert "locleg" in graph["locleg.web.app"]
    # an import inside a function counts as well
    assert "locleg.extract.cluster" in graph["locleg.extract.run"]


def test_circles_are_found():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert circles(graph) == [frozenset({"a", "b", "c"})]


def test_no_two_product_modules_import_each_other():
    graph = import_graph()
    pairs = sorted(f"{a} <-> {b}" for a in graph for b in graph[a]
                   if a < b and a in graph[b])
    assert pairs == []


def test_no_import_circles():
    assert [sorted(c) for c in circles(import_graph())] == []


# What the top level keeps beside the packages of the stages: what every stage shares (the
# settings, the corpus opened whole, the errors, places, database URLs shown safely) and the
# few rules two stages use alike (a typed value checked, a CSV cell made inert, a worker that
# ends with its command, the check of a whole corpus). Anything else belongs in a stage.
CROSS_CUTTING = {"locleg.__main__", "locleg.check", "locleg.config", "locleg.corpus",
                 "locleg.dburl", "locleg.errors", "locleg.jurisdictions", "locleg.lifeline",
                 "locleg.params", "locleg.spreadsheet"}
ARCHITECTURE = Path(__file__).resolve().parents[1] / "docs" / "architecture.md"


def top_level() -> tuple[set[str], set[str]]:
    """The packages and the plain modules right under locleg/."""
    modules = product_modules()
    flat = {name for name in modules if name.count(".") == 1}
    packages = {name for name in flat if modules[name].name == "__init__.py"}
    return packages, flat - packages


def test_the_top_level_holds_only_cross_cutting_modules():
    assert sorted(top_level()[1] - CROSS_CUTTING) == []


def test_the_architecture_map_names_every_package_and_top_level_module():
    text = ARCHITECTURE.read_text(encoding="utf-8")
    assert text.count("```") >= 2
    tree = text.split("```")[1]  # the map the document opens with
    packages, flat = top_level()
    assert [p for p in sorted(packages) if f"{p.rpartition('.')[2]}/" not in tree] == []
    assert [m for m in sorted(flat) if f"{m.rpartition('.')[2]}.py" not in tree] == []


# A name with a leading underscore is private to its package: another package that needs it
# needs a public name. Known when the test was written, in packages other helpers were
# changing (issue 24); one that is gone fails the test too (remove it here).
KNOWN_PRIVATE_IMPORTS = {
    "locleg.export.reading <- locleg.store.db._among",
    "locleg.harvest.querido_diario <- locleg.extract.worker._pool",
    "locleg.search.lookup <- locleg.enrich.citation_scan._year",
    "locleg.search.lookup <- locleg.enrich.citation_scan._year_of",
}


def _private(dotted: str) -> bool:
    return any(part.startswith("_") and not part.startswith("__")
               for part in dotted.split("."))


def private_imports() -> set[str]:
    """Each private module or name a module takes from another top-level package (or module)."""
    modules = product_modules()
    found = set()
    for name in modules:
        for target, taken in _imports(name, modules):
            owner = _owner(target, modules)
            if owner is None:
                continue
            dotted = f"{owner}.{taken}" if taken else target
            if _private(dotted.removeprefix(PACKAGE + ".")) and (
                    owner.split(".")[:2] != name.split(".")[:2]):
                found.add(f"{name} <- {dotted}")
    return found


def test_no_package_takes_another_ones_private_names():
    assert sorted(private_imports() - KNOWN_PRIVATE_IMPORTS) == []
    assert sorted(KNOWN_PRIVATE_IMPORTS - private_imports()) == []


# The stages a bare `locleg` (its import, --help, --version) must not load: each feature
# command imports its own when named.
STAGES = ("locleg.harvest", "locleg.web", "locleg.extract")  # extract/ holds the runners too


def test_the_cli_starts_without_harvest_web_or_extraction():
    script = ("import json, sys\nimport locleg.cli\nbare = sorted(sys.modules)\n"
              "from locleg.cli import cli\n"
              "for args in (['--help'], ['--version']):\n"
              "    try:\n        cli.main(args, standalone_mode=False)\n"
              "    except SystemExit:\n        pass\n"
              "print(json.dumps([bare, sorted(sys.modules)]))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True)
    bare, after_help = json.loads(done.stdout.splitlines()[-1])
    assert "locleg.cli" in bare
    for loaded in (bare, after_help):
        assert [m for m in loaded if m.startswith(STAGES)] == []
