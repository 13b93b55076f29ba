"""The architecture rules of DEVELOPERS.md, checked on the source: layers only look down
(isa -> encoding -> container/asm/disasm -> engines -> check/render/vectors/lsp -> cli)
and no module imports itself through others (no import loops).

Imports are read with ``ast`` from every ``src/gpuisa`` module, including imports inside
functions (they form loops just the same at run time); imports under ``if
TYPE_CHECKING:`` are type annotations only and do not count.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parent.parent / "src"

#: Layers, lowest first: a module may import its own layer and those below it.
#: Package ``__init__`` modules (the public facades) and the command lines are on top.
LAYERS = (
    ("foundation", ("gpuisa", "gpuisa.errors", "gpuisa.bits", "gpuisa.floats",
                    "gpuisa.numtext", "gpuisa.fileio", "gpuisa.datafiles")),
    ("isa and its control-flow rules", ("*.isa", "*.flow", "*.flow.*")),
    ("encoding", ("*.encoding", "*.descriptors", "*.program", "*.errors")),
    ("containers, assemblers, disassemblers",
     ("*.shbin*", "*.asm", "*.asm.*", "*.disasm*", "*.xna", "*.syntax", "*.analysis",
      "*.analysis.*")),
    ("engines", ("*.engine", "*.engine.*")),
    ("tools", ("*.check", "*.check.*", "*.render", "*.render.*", "*.vectors", "*.vectors.*",
               "*.lsp", "*.lsp.*")),
    ("command lines and facades", ("gpuisa.cli_support", "gpuisa.__main__", "*.cli*",
                                   "*.__main__", "gpuisa.pica", "gpuisa.a2xx")),
)


def _modules() -> dict[str, Path]:
    modules = {}
    for path in (SOURCE / "gpuisa").rglob("*.py"):
        parts = list(path.relative_to(SOURCE).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def _matches(module: str, pattern: str) -> bool:
    if not pattern.startswith("*"):
        return module == pattern
    tail = pattern[2:]  # "*.engine.*" -> "engine.*"; ISA packages are gpuisa.pica/.a2xx
    for isa in ("gpuisa.pica.", "gpuisa.a2xx."):
        if not module.startswith(isa):
            continue
        rest = module[len(isa):]
        if tail.endswith("*"):
            return rest.startswith(tail[:-1])
        return rest == tail
    return False


def _layer(module: str) -> int:
    for rank, (_, patterns) in enumerate(LAYERS):
        if any(_matches(module, p) for p in patterns):
            return rank
    raise AssertionError(f"{module} is in no layer: add it to LAYERS")


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for inner in node.body:
                skipped.update(id(n) for n in ast.walk(inner))
    return skipped


def _imports(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the gpuisa modules it imports (``from pkg import sub`` counts as ``sub``
    when ``sub`` is a module, else as ``pkg``)."""
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        skipped = _type_checking_nodes(tree)
        for node in ast.walk(tree):
            if id(node) in skipped:
                continue
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = package[: len(package) - node.level + 1] if node.level else []
                origin = ".".join(base + ([node.module] if node.module else []))
                subs = [f"{origin}.{a.name}" for a in node.names if f"{origin}.{a.name}" in modules]
                targets = subs if len(subs) == len(node.names) else [origin, *subs]
            else:
                continue
            graph[name].update(t for t in targets if t in modules and t != name)
    return graph


GRAPH = _imports(_modules())


def test_the_module_list_is_sane():
    assert "gpuisa.pica.isa" in GRAPH and "gpuisa.pica.engine.api" in GRAPH
    assert "gpuisa.pica.isa" in GRAPH["gpuisa.pica.encoding"]


@pytest.mark.parametrize("module", sorted(GRAPH))
def test_layers_only_look_down(module):
    rank = _layer(module)
    upward = sorted(f"{dep} ({LAYERS[_layer(dep)][0]})" for dep in GRAPH[module]
                    if _layer(dep) > rank)
    assert not upward, f"{module} ({LAYERS[rank][0]}) imports from above: {upward}"


def test_no_import_loops():
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    loops: list[list[str]] = []

    def visit(module: str) -> None:  # Tarjan's strongly connected components
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for dep in sorted(GRAPH[module]):
            if dep not in index:
                visit(dep)
                low[module] = min(low[module], low[dep])
            elif dep in on_stack:
                low[module] = min(low[module], index[dep])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                loops.append(sorted(component))

    for module in sorted(GRAPH):
        if module not in index:
            visit(module)
    assert not loops, f"import loops: {loops}"


def test_the_checks_can_fail():
    """The loop finder and the layer rule see what they are meant to see."""
    saved = {k: set(v) for k, v in GRAPH.items()}
    try:
        GRAPH["gpuisa.pica.isa"].add("gpuisa.pica.encoding")
        with pytest.raises(AssertionError, match="import loops"):
            test_no_import_loops()
        with pytest.raises(AssertionError, match="imports from above"):
            test_layers_only_look_down("gpuisa.pica.isa")
    finally:
        GRAPH.clear()
        GRAPH.update(saved)
