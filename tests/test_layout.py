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


def imports_of(name: str, modules: dict[str, Path]) -> set[str]:
    """The product modules NAME imports, anywhere in its source."""
    path = modules[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base_parts = package.split(".")
                base_parts = base_parts[:len(base_parts) - (node.level - 1)]
                base = ".".join(base_parts + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            # `from . import x`: x is a submodule when one has that name, else a name of base.
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                       for alias in node.names]
        else:
            continue
        for target in targets:
            owner = _owner(target, modules)
            if owner and owner != name:
                found.add(owner)
    return found


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
    # `from .blobs import BlobError` (relative), `from . import frontier` (a submodule),
    # `from .. import __version__` (a name of the package's __init__).
    assert "locleg.blobs" in graph["locleg.blobs_fsspec"]
    assert "locleg.harvest.frontier" in graph["locleg.harvest.querido_diario"]
    assert "locleg" in graph["locleg.web.app"]
    # an import inside a function counts as well
    assert "locleg.extract_cluster" in graph["locleg.extraction"]


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


# The stages a bare `locleg` (its import, --help, --version) must not load: each feature
# command imports its own when named.
STAGES = ("locleg.harvest", "locleg.web", "locleg.extract", "locleg.extraction",
          "locleg.extract_cluster", "locleg.extract_worker")


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
