"""The architecture rules of CONTRIBUTING.md, checked on the source: layers only look down
(isa -> encoding -> container/asm/disasm -> engines -> check/render/vectors/lsp -> cli),
no module imports itself through others (no import loops), and no module but an ISA's
``isa.py`` groups opcodes by hand.

Imports are read with ``ast`` from every ``src/gpuisa`` module, including imports inside
functions (they form loops just the same at run time); imports under ``if
TYPE_CHECKING:`` are type annotations only and do not count.
"""

from __future__ import annotations

import ast
from enum import Enum
from functools import cache
from pathlib import Path

import pytest

from gpuisa.a2xx import isa as a2xx_isa
from gpuisa.pica import isa as pica_isa

SOURCE = Path(__file__).resolve().parent.parent / "src"

#: Layers, lowest first: a module may import its own layer and those below it.
#: Package ``__init__`` modules (the public facades) and the command lines are on top.
LAYERS = (
    ("foundation", ("gpuisa", "gpuisa.errors", "gpuisa.bits", "gpuisa.floats",
                    "gpuisa.numtext", "gpuisa.fileio", "gpuisa.datafiles",
                    "gpuisa.conformance")),
    ("isa and its control-flow rules", ("*.isa", "*.flow", "*.flow.*")),
    ("encoding", ("*.encoding", "*.descriptors", "*.program", "*.errors", "*.toolchains")),
    ("containers, assemblers, disassemblers",
     ("*.shbin", "*.shbin.*", "*.containers", "*.containers.*", "*.asm", "*.asm.*", "*.xna_asm",
      "*.xna_options", "*.disasm", "*.disasm.*", "*.xna", "*.xdk_text", "*.xdk_asm",
      "*.xdk_container", "*.xdk_forms", "*.syntax", "*.syntax.*", "*.analysis", "*.analysis.*")),
    ("engines", ("*.engine", "*.engine.*")),
    ("tools", ("*.check", "*.check.*", "*.render", "*.render.*", "*.vectors", "*.vectors.*",
               "*.lsp", "*.lsp.*", "*.isadoc", "*.fuzz", "*.fuzz.*",
               "gpuisa.render", "gpuisa.render.*")),
    ("command lines and facades", ("gpuisa.cli_support", "gpuisa.__main__", "*.cli",
                                   "*.cli.*", "*.__main__", "gpuisa.pica", "gpuisa.a2xx")),
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
    if not pattern.startswith("*"):  # a name, or a package and its modules ("x.*")
        return module == pattern or (pattern.endswith(".*") and module.startswith(pattern[:-1]))
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


def _imports(modules: dict[str, Path], *, typing: bool = False) -> dict[str, set[str]]:
    """Module -> the gpuisa modules it imports (``from pkg import sub`` counts as ``sub``
    when ``sub`` is a module, else as ``pkg``); ``typing``: imports under
    ``if TYPE_CHECKING:`` too."""
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        skipped = set() if typing else _type_checking_nodes(tree)
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
#: The same with the imports made only for type checking.
TYPED_GRAPH = _imports(_modules(), typing=True)
#: Loops closed only by a typing-only import that are still to be removed (the A2XX
#: engine's state names its inputs' types); no other may appear.
TYPED_LOOPS_LEFT = [["gpuisa.a2xx.engine.inputs", "gpuisa.a2xx.engine.state",
                     "gpuisa.a2xx.engine.texture"]]


def test_the_module_list_is_sane():
    assert "gpuisa.pica.isa" in GRAPH and "gpuisa.pica.engine.api" in GRAPH
    assert "gpuisa.pica.isa" in GRAPH["gpuisa.pica.encoding"]


@pytest.mark.parametrize(("module", "layer"), [
    ("gpuisa.pica.shbin", "containers, assemblers, disassemblers"),
    ("gpuisa.pica.shbin.read", "containers, assemblers, disassemblers"),
    ("gpuisa.pica.disasm.syntax", "containers, assemblers, disassemblers"),
    ("gpuisa.pica.engine.reference.emitter", "engines"),
    ("gpuisa.pica.cli", "command lines and facades"),
    ("gpuisa.pica.cli.check", "command lines and facades"),
    ("gpuisa.render.mesh", "tools"),
    ("gpuisa.a2xx.render.raster", "tools"),
    ("gpuisa.a2xx.disasm", "containers, assemblers, disassemblers"),
])
def test_packages_share_their_layer(module, layer):
    """A sub-package's modules are in the package's layer (``gpuisa.pica.cli.check`` is a
    command line, not the ``check`` tool)."""
    assert module in GRAPH
    assert LAYERS[_layer(module)][0] == layer


@pytest.mark.parametrize("module", sorted(GRAPH))
def test_layers_only_look_down(module):
    rank = _layer(module)
    upward = sorted(f"{dep} ({LAYERS[_layer(dep)][0]})" for dep in GRAPH[module]
                    if _layer(dep) > rank)
    assert not upward, f"{module} ({LAYERS[rank][0]}) imports from above: {upward}"


def _loops(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    loops: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for dep in sorted(graph[module]):
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

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return loops


def test_no_import_loops():
    loops = _loops(GRAPH)
    assert not loops, f"import loops: {loops}"


def test_no_import_loops_through_typing_imports():
    """Not even through an import made for type checking (the assembler's handlers take
    :class:`gpuisa.pica.asm.core.AssemblerCore`, not the driver that imports them)."""
    loops = [loop for loop in _loops(TYPED_GRAPH) if loop not in TYPED_LOOPS_LEFT]
    assert not loops, f"import loops: {loops}"


def test_the_checks_can_fail():
    """The loop finder and the layer rule see what they are meant to see."""
    saved = {k: set(v) for k, v in GRAPH.items()}
    saved_typed = {k: set(v) for k, v in TYPED_GRAPH.items()}
    try:
        GRAPH["gpuisa.pica.isa"].add("gpuisa.pica.encoding")
        with pytest.raises(AssertionError, match="import loops"):
            test_no_import_loops()
        with pytest.raises(AssertionError, match="imports from above"):
            test_layers_only_look_down("gpuisa.pica.isa")
        # the typing-only loop the assembler had: a handler naming the driver's class
        TYPED_GRAPH["gpuisa.pica.asm.instructions"].add("gpuisa.pica.asm.assembler")
        with pytest.raises(AssertionError, match="import loops"):
            test_no_import_loops_through_typing_imports()
    finally:
        GRAPH.clear()
        GRAPH.update(saved)
        TYPED_GRAPH.clear()
        TYPED_GRAPH.update(saved_typed)


# -- opcode facts live in the ISA tables ----------------------------------------------------
#
# "No module keeps its own opcode set" (CONTRIBUTING.md): a grouping of opcodes
# that code asks about is a column of the ISA's table.  The scan below finds, in every
# module but the ISAs' own ``isa.py``, each hand-written grouping of two or more opcode
# enum members: a set, tuple, list or dict display (dict: its keys), an ``or`` of
# comparisons, or a ``case A | B`` pattern.  A dict display whose keys are every member of
# an opcode enum is a per-opcode table (each opcode's handler), not a grouping.

#: The opcode enums of the ISA tables, by class name.
OPCODE_ENUMS = {name: value for module in (pica_isa, a2xx_isa)
                for name, value in vars(module).items()
                if name.endswith("Opcode") and isinstance(value, type)
                and issubclass(value, Enum)}
ISA_MODULES = frozenset({"gpuisa.pica.isa", "gpuisa.a2xx.isa"})

def _enum_names(tree: ast.AST) -> dict[str, str]:
    """Local name -> opcode enum name: the enums themselves and import aliases."""
    names = {name: name for name in OPCODE_ENUMS}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.name in OPCODE_ENUMS:
                    names[alias.asname or alias.name] = alias.name
    return names


def _member(node: ast.AST | None, names: dict[str, str]) -> tuple[str, str] | None:
    """(enum, member) if ``node`` names an opcode enum member (``Opcode.ADD``,
    ``V.ADDv`` after ``import VectorOpcode as V``, ``isa.Opcode.ADD``)."""
    if not isinstance(node, ast.Attribute):
        return None
    owner = node.value
    if isinstance(owner, ast.Name) and owner.id in names:
        return names[owner.id], node.attr
    if isinstance(owner, ast.Attribute) and owner.attr in OPCODE_ENUMS:
        return owner.attr, node.attr
    return None


def _members(nodes, names: dict[str, str]) -> list[tuple[str, str]]:
    return [m for m in (_member(n, names) for n in nodes) if m is not None]


def _is_total_table(keys: list[tuple[str, str]]) -> bool:
    enums = {enum for enum, _ in keys}
    if len(enums) != 1:
        return False
    (enum,) = enums
    return {member for _, member in keys} == set(OPCODE_ENUMS[enum].__members__)


def opcode_sets(source: str) -> list[int]:
    """Lines of ``source`` where a grouping of two or more opcodes is written by hand."""
    tree = ast.parse(source)
    names = _enum_names(tree)
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Set, ast.Tuple, ast.List)):
            found = _members(node.elts, names)
        elif isinstance(node, ast.Dict):
            found = _members(node.keys, names)
            if _is_total_table(found):
                continue
        elif isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
            found = [m for v in node.values if isinstance(v, ast.Compare)
                     for m in _members([v.left, *v.comparators], names)[:1]]
        elif isinstance(node, ast.MatchOr):
            found = _members([p.value for p in node.patterns if isinstance(p, ast.MatchValue)],
                             names)
        else:
            continue
        if len(found) >= 2:
            lines.append(node.lineno)
    return sorted(lines)


@cache
def _source_modules() -> dict[str, Path]:
    return {name: path for name, path in _modules().items() if name not in ISA_MODULES}


@pytest.mark.parametrize("module", sorted(_source_modules()))
def test_no_module_builds_its_own_opcode_set(module):
    lines = opcode_sets(_source_modules()[module].read_text(encoding="utf-8"))
    assert not lines, (f"{module} groups opcodes by hand at lines {lines}: make the grouping "
                       "a column of the ISA table (isa.py) and ask the table")


_ALL_OPCODES = ", ".join(f"Opcode.{m}: {k}" for k, m in enumerate(pica_isa.Opcode.__members__))


@pytest.mark.parametrize(("source", "lines"), [
    ("S = frozenset({Opcode.ADD, Opcode.MUL})", [1]),
    ("x = 1\nif op in (Opcode.IFC, Opcode.IFU):\n    pass", [2]),
    ("L = [Opcode.CALL, Opcode.CALLC]", [1]),
    ("D = {Opcode.RCP: 'rcp', Opcode.RSQ: 'rsq'}", [1]),
    ("t = op is Opcode.JMPC or op is Opcode.JMPU", [1]),
    ("t = Opcode.MAD == op or op == Opcode.MADI or x", [1]),
    ("match op:\n    case Opcode.EMIT | Opcode.SETEMIT:\n        pass", [2]),
    ("from .isa import VectorOpcode as V\nS = {V.ADDv, V.MULv}", [2]),
    ("from . import isa\nS = (isa.ScalarOpcode.ADDs, isa.ScalarOpcode.MULs)", [2]),
    # not groupings: one opcode, an `and` of two tests, a table of every opcode, other enums
    ("if op is Opcode.LOOP:\n    pass", []),
    ("t = op is Opcode.MOVA and nxt is Opcode.MOVA", []),
    (f"TABLE = {{{_ALL_OPCODES}}}", []),
    ("S = {Flow.CALL, Flow.JUMP}\nK = (Kind.ARITHMETIC, Kind.COMPARE)", []),
    ("S = {Opcode.ADD}", []),
])
def test_the_opcode_set_scan_sees_groupings(source, lines):
    assert opcode_sets(source) == lines


def test_the_opcode_set_checks_can_fail(tmp_path, monkeypatch):
    """The module test fails on a module with a set and passes one that asks the table."""
    with_set = tmp_path / "with_set.py"
    with_set.write_text("CALLS = {Opcode.CALL, Opcode.CALLC, Opcode.CALLU}\n")
    without = tmp_path / "without.py"
    without.write_text("CALLS = frozenset(o for o in OPCODES if OPCODES[o].flow is Flow.CALL)\n")
    monkeypatch.setitem(globals(), "_source_modules",
                        lambda: {"m.with_set": with_set, "m.without": without})
    with pytest.raises(AssertionError, match="groups opcodes by hand at lines \\[1\\]"):
        test_no_module_builds_its_own_opcode_set("m.with_set")
    test_no_module_builds_its_own_opcode_set("m.without")
