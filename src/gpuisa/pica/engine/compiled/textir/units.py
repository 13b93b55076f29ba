"""Modules, functions and basic blocks: where the text of instructions is kept."""

from __future__ import annotations

from .values import FunctionType, Type, Value


class _Alloca(Value):
    """A stack slot; its alignment may be set after it is made."""

    __slots__ = ("align", "allocated")

    def __init__(self, kind: Type, ref: str):
        super().__init__(kind.as_pointer(), ref)
        self.allocated = kind
        self.align: int | None = None

    def line(self) -> str:
        align = f", align {self.align}" if self.align else ""
        return f"  {self.ref} = alloca {self.allocated.text}{align}"


class _Switch:
    __slots__ = ("cases", "default", "value")

    def __init__(self, value: Value, default: Block):
        self.value, self.default, self.cases = value, default, []

    def add_case(self, value: object, block: Block) -> None:
        text = value.ref if isinstance(value, Value) else self.value.type.constant(value)
        self.cases.append(f"{self.value.type.text} {text}, label {block.ref}")

    def line(self) -> str:
        return (f"  switch {self.value}, label {self.default.ref} "
                f"[{' '.join(self.cases)}]")


class Block:
    """A basic block: its label and its lines."""

    __slots__ = ("function", "lines", "name", "ref", "terminated")

    def __init__(self, function: Function, name: str):
        self.function = function
        self.name = name
        self.ref = f'%"{name}"'
        self.lines: list = []
        self.terminated = False

    def text(self) -> str:
        body = "\n".join(line if type(line) is str else line.line() for line in self.lines)
        return f'"{self.name}":\n{body}'


class Function(Value):
    """A function of ``module``: a declaration until it has blocks."""

    __slots__ = (
        "_counter",
        "_names",
        "args",
        "blocks",
        "ftype",
        "linkage",
        "module",
        "name",
    )

    def __init__(self, module: Module, ftype: FunctionType, name: str):
        super().__init__(ftype.as_pointer(), f'@"{name}"')
        self.module, self.name, self.ftype = module, name, ftype
        self.args = tuple(Value(kind, f"%a{k}") for k, kind in enumerate(ftype.args))
        self.blocks: list[Block] = []
        self.linkage = ""
        self._names: set[str] = set()
        self._counter = 0
        module.globals[name] = self

    def append_basic_block(self, name: str = "") -> Block:
        base = name or "b"
        unique, k = base, 0
        while unique in self._names or (not name and unique == base):
            k += 1
            unique = f"{base}.{k}"
        self._names.add(unique)
        block = Block(self, unique)
        self.blocks.append(block)
        return block

    def temporary(self) -> str:
        self._counter += 1
        return f"%t{self._counter}"

    def text(self) -> str:
        arguments = ", ".join(str(a) for a in self.args)
        head = f'{self.ftype.return_type.text} @"{self.name}"({arguments})'
        if not self.blocks:
            return f"declare {head}"
        linkage = f"{self.linkage} " if self.linkage else ""
        body = "\n".join(block.text() for block in self.blocks)
        return f"define {linkage}{head}\n{{\n{body}\n}}"


class Module:
    """Functions and the metadata their branches refer to."""

    def __init__(self, name: str = ""):
        self.name = name
        self.globals: dict[str, Function] = {}
        self.triple = "unknown-unknown-unknown"
        self.data_layout = ""
        self._metadata: dict[str, int] = {}

    def metadata(self, text: str) -> str:
        """The reference of a metadata node ``text`` (made once per module)."""
        number = self._metadata.setdefault(text, len(self._metadata))
        return f"!{number}"

    def __str__(self) -> str:
        lines = [f'; ModuleID = "{self.name}"', f'target triple = "{self.triple}"',
                 f'target datalayout = "{self.data_layout}"', ""]
        lines += [function.text() for function in self.globals.values()]
        lines += [f"!{n} = {text}" for text, n in self._metadata.items()]
        return "\n".join(lines) + "\n"
