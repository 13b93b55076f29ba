"""A small LLVM IR builder that writes the text of each instruction as it is built.

The compiled engine used ``llvmlite.ir``, which makes a Python object per instruction and
formats the whole module at the end; for a kernel of some 5,000 instructions that was
three quarters of the time to compile a shader (building 43 %, formatting 30 %, LLVM
itself 25 %).  This module offers the part of the ``llvmlite.ir`` interface the engine
uses (types, constants, modules, functions, blocks and an ``IRBuilder`` with the same
method names and structured helpers ``if_then``, ``if_else``, ``goto_block``) and keeps
each instruction as one line of text, written when the instruction is made.  Splat
constants use LLVM's ``splat (T v)`` form, which is shorter to write and to parse.

The text is the same language ``llvmlite.binding.parse_assembly`` reads: what the two
builders produce for the same calls is checked instruction by instruction in
``tests/pica/engine/test_textir.py``.
"""

from __future__ import annotations

import contextlib
import struct
from collections.abc import Iterator, Sequence

Undefined = object()
"""The constant value ``undef`` (``Constant(kind, Undefined)``)."""

_SIGNED = {"<": "slt", "<=": "sle", "==": "eq", "!=": "ne", ">": "sgt", ">=": "sge"}
_UNSIGNED = {"<": "ult", "<=": "ule", "==": "eq", "!=": "ne", ">": "ugt", ">=": "uge"}
_FLOAT = {"<": "lt", "<=": "le", "==": "eq", "!=": "ne", ">": "gt", ">=": "ge"}


class Type:
    """An LLVM type, known by its text."""

    __slots__ = ("_pointer", "text")

    def __init__(self, text: str):
        self.text = text
        self._pointer: PointerType | None = None

    def __str__(self) -> str:
        return self.text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Type) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)

    def as_pointer(self) -> PointerType:
        if self._pointer is None:
            self._pointer = PointerType(self)
        return self._pointer

    def constant(self, value: object) -> str:
        """The text of constant ``value`` of this type (without the type)."""
        if value is Undefined:
            return "undef"
        raise TypeError(f"no constants of type {self.text}")


class VoidType(Type):
    __slots__ = ()

    def __init__(self):
        super().__init__("void")


class IntType(Type):
    __slots__ = ("width",)

    def __init__(self, width: int):
        super().__init__(f"i{width}")
        self.width = width

    def constant(self, value: object) -> str:
        if value is Undefined:
            return "undef"
        if self.width == 1:
            return "true" if value else "false"
        return str(int(value))  # type: ignore[call-overload]


def _double_text(value: float) -> str:
    return f"0x{struct.unpack('<Q', struct.pack('<d', value))[0]:016x}"


class FloatType(Type):
    __slots__ = ()

    def __init__(self):
        super().__init__("float")

    def constant(self, value: object) -> str:
        if value is Undefined:
            return "undef"
        # LLVM writes a float constant as the double of the same value: round first.
        return _double_text(struct.unpack("<f", struct.pack("<f", value))[0])


class DoubleType(Type):
    __slots__ = ()

    def __init__(self):
        super().__init__("double")

    def constant(self, value: object) -> str:
        return "undef" if value is Undefined else _double_text(float(value))  # type: ignore[arg-type]


class _Aggregate(Type):
    __slots__ = ("count", "element")

    def __init__(self, text: str, element: Type, count: int):
        super().__init__(text)
        self.element = element
        self.count = count

    def _items(self, values: object) -> list[str]:
        element = self.element
        return [f"{element.text} {v.ref if isinstance(v, Value) else element.constant(v)}"
                for v in values]  # type: ignore[attr-defined]


class VectorType(_Aggregate):
    __slots__ = ()

    def __init__(self, element: Type, count: int):
        super().__init__(f"<{count} x {element.text}>", element, count)

    def constant(self, value: object) -> str:
        if value is Undefined:
            return "undef"
        if not isinstance(value, list | tuple):
            value = [value] * self.count
        first = value[0]
        if not isinstance(first, Value) and all(v == first for v in value) and first == first:
            return f"splat ({self.element.text} {self.element.constant(first)})"
        return "<" + ", ".join(self._items(value)) + ">"


class ArrayType(_Aggregate):
    __slots__ = ()

    def __init__(self, element: Type, count: int):
        super().__init__(f"[{count} x {element.text}]", element, count)

    def constant(self, value: object) -> str:
        if value is Undefined:
            return "undef"
        return "[" + ", ".join(self._items(value)) + "]"


class PointerType(Type):
    __slots__ = ("pointee",)

    def __init__(self, pointee: Type):
        super().__init__(f"{pointee.text}*")
        self.pointee = pointee

    def constant(self, value: object) -> str:
        if value is None:
            return "null"
        return super().constant(value)


class FunctionType(Type):
    __slots__ = ("args", "return_type")

    def __init__(self, return_type: Type, args: Sequence[Type]):
        super().__init__(f"{return_type.text} ({', '.join(a.text for a in args)})")
        self.return_type = return_type
        self.args = tuple(args)


class Value:
    """A value: its type and the text that names it in an instruction."""

    __slots__ = ("ref", "type")

    def __init__(self, kind: Type, ref: str):
        self.type = kind
        self.ref = ref

    def __str__(self) -> str:
        return f"{self.type.text} {self.ref}"


class Constant(Value):
    __slots__ = ("constant",)

    def __init__(self, kind: Type, constant: object):
        super().__init__(kind, kind.constant(constant))
        self.constant = constant


class CastInstr(Value):
    """The result of a conversion, which remembers what it converted."""

    __slots__ = ("operands", "opname")

    def __init__(self, kind: Type, ref: str, opname: str, operand: Value):
        super().__init__(kind, ref)
        self.opname = opname
        self.operands = (operand,)


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


def _binary(opcode: str):
    def emit(self: IRBuilder, lhs: Value, rhs: Value, name: str = "") -> Value:
        return self._value(lhs.type, f"{opcode} {lhs.type.text} {lhs.ref}, {rhs.ref}")
    emit.__name__ = opcode
    return emit


def _cast(opcode: str):
    def emit(self: IRBuilder, value: Value, kind: Type, name: str = "") -> Value:
        if value.type == kind:  # as llvmlite does: a conversion to the same type is none
            return value
        ref = self.block.function.temporary()
        self._emit(f"  {ref} = {opcode} {value.type.text} {value.ref} to {kind.text}")
        return CastInstr(kind, ref, opcode, value)
    emit.__name__ = opcode
    return emit


def _flags(kind: Type) -> Type:
    return VectorType(IntType(1), kind.count) if isinstance(kind, VectorType) else IntType(1)


class IRBuilder:
    """Appends instructions to a block (``llvmlite.ir.IRBuilder``'s interface)."""

    def __init__(self, block: Block | None = None):
        self.block: Block = block  # type: ignore[assignment]
        self._at: int | None = None

    @property
    def function(self) -> Function:
        return self.block.function

    @property
    def module(self) -> Module:
        return self.block.function.module

    def position_at_end(self, block: Block) -> None:
        self.block, self._at = block, None

    def append_basic_block(self, name: str = "") -> Block:
        return self.block.function.append_basic_block(name)

    def _emit(self, line: object, terminates: bool = False) -> None:
        if self._at is None:
            self.block.lines.append(line)
        else:
            self.block.lines.insert(self._at, line)
            self._at += 1
        if terminates:
            self.block.terminated = True

    def _value(self, kind: Type, body: str) -> Value:
        ref = self.block.function.temporary()
        self._emit(f"  {ref} = {body}")
        return Value(kind, ref)

    # Memory.
    def alloca(self, kind: Type, size: object = None, name: str = "") -> _Alloca:
        slot = _Alloca(kind, self.block.function.temporary())
        self._emit(slot)
        return slot

    def load(self, pointer: Value, name: str = "", align: int | None = None) -> Value:
        kind = pointer.type.pointee  # type: ignore[attr-defined]
        tail = f", align {align}" if align else ""
        return self._value(kind, f"load {kind.text}, {pointer.type.text} {pointer.ref}{tail}")

    def store(self, value: Value, pointer: Value, align: int | None = None) -> None:
        tail = f", align {align}" if align else ""
        self._emit(f"  store {value.type.text} {value.ref}, "
                   f"{pointer.type.text} {pointer.ref}{tail}")

    def gep(self, pointer: Value, indices: Sequence[Value], inbounds: bool = False,
            name: str = "") -> Value:
        kind = pointer.type.pointee  # type: ignore[attr-defined]
        target = kind
        for _ in indices[1:]:
            target = target.element
        words = "getelementptr inbounds" if inbounds else "getelementptr"
        listed = "".join(f", {i.type.text} {i.ref}" for i in indices)
        return self._value(target.as_pointer(),
                           f"{words} {kind.text}, {pointer.type.text} {pointer.ref}{listed}")

    # Arithmetic and logic.
    add, sub, mul = _binary("add"), _binary("sub"), _binary("mul")
    sdiv, udiv, srem, urem = _binary("sdiv"), _binary("udiv"), _binary("srem"), _binary("urem")
    shl, lshr, ashr = _binary("shl"), _binary("lshr"), _binary("ashr")
    and_, or_, xor = _binary("and"), _binary("or"), _binary("xor")
    fadd, fsub, fmul, fdiv = _binary("fadd"), _binary("fsub"), _binary("fmul"), _binary("fdiv")
    frem = _binary("frem")

    def not_(self, value: Value, name: str = "") -> Value:
        return self.xor(value, Constant(value.type, -1))

    def icmp_signed(self, op: str, lhs: Value, rhs: Value, name: str = "") -> Value:
        return self._value(_flags(lhs.type),
                           f"icmp {_SIGNED[op]} {lhs.type.text} {lhs.ref}, {rhs.ref}")

    def icmp_unsigned(self, op: str, lhs: Value, rhs: Value, name: str = "") -> Value:
        return self._value(_flags(lhs.type),
                           f"icmp {_UNSIGNED[op]} {lhs.type.text} {lhs.ref}, {rhs.ref}")

    def fcmp_ordered(self, op: str, lhs: Value, rhs: Value, name: str = "") -> Value:
        code = "o" + _FLOAT[op] if op in _FLOAT else op
        return self._value(_flags(lhs.type), f"fcmp {code} {lhs.type.text} {lhs.ref}, {rhs.ref}")

    def fcmp_unordered(self, op: str, lhs: Value, rhs: Value, name: str = "") -> Value:
        code = "u" + _FLOAT[op] if op in _FLOAT else op
        return self._value(_flags(lhs.type), f"fcmp {code} {lhs.type.text} {lhs.ref}, {rhs.ref}")

    def select(self, condition: Value, lhs: Value, rhs: Value, name: str = "") -> Value:
        return self._value(lhs.type, f"select {condition.type.text} {condition.ref}, "
                                     f"{lhs.type.text} {lhs.ref}, {rhs.type.text} {rhs.ref}")

    # Conversions.
    bitcast, inttoptr, ptrtoint = _cast("bitcast"), _cast("inttoptr"), _cast("ptrtoint")
    zext, sext, trunc = _cast("zext"), _cast("sext"), _cast("trunc")
    fpext, fptrunc = _cast("fpext"), _cast("fptrunc")
    fptosi, fptoui = _cast("fptosi"), _cast("fptoui")
    sitofp, uitofp = _cast("sitofp"), _cast("uitofp")

    # Vectors.
    def extract_element(self, vector: Value, index: Value, name: str = "") -> Value:
        return self._value(vector.type.element,  # type: ignore[attr-defined]
                           f"extractelement {vector}, {index}")

    def insert_element(self, vector: Value, value: Value, index: Value,
                       name: str = "") -> Value:
        return self._value(vector.type, f"insertelement {vector}, {value}, {index}")

    def shuffle_vector(self, lhs: Value, rhs: Value, mask: Value, name: str = "") -> Value:
        kind = VectorType(lhs.type.element, mask.type.count)  # type: ignore[attr-defined]
        return self._value(kind, f"shufflevector {lhs}, {rhs}, {mask}")

    # Calls and control flow.
    def call(self, callee: Value, args: Sequence[Value], name: str = "") -> Value:
        ftype = callee.ftype if isinstance(callee, Function) else callee.type.pointee  # type: ignore[attr-defined]
        listed = ", ".join(str(a) for a in args)
        body = f"call {ftype.return_type.text} {callee.ref}({listed})"
        if isinstance(ftype.return_type, VoidType):
            self._emit(f"  {body}")
            return Value(ftype.return_type, "")
        return self._value(ftype.return_type, body)

    def branch(self, target: Block) -> None:
        self._emit(f"  br label {target.ref}", terminates=True)

    def cbranch(self, condition: Value, then: Block, otherwise: Block,
                weights: tuple[int, int] | None = None) -> None:
        tail = ""
        if weights is not None:
            tail = ", !prof " + self.module.metadata(
                f'!{{ !"branch_weights", i32 {weights[0]}, i32 {weights[1]} }}')
        self._emit(f"  br {condition}, label {then.ref}, label {otherwise.ref}{tail}",
                   terminates=True)

    def switch(self, value: Value, default: Block) -> _Switch:
        switch = _Switch(value, default)
        self._emit(switch, terminates=True)
        return switch

    def ret(self, value: Value) -> None:
        self._emit(f"  ret {value}", terminates=True)

    def ret_void(self) -> None:
        self._emit("  ret void", terminates=True)

    def unreachable(self) -> None:
        self._emit("  unreachable", terminates=True)

    # Structured helpers.
    @contextlib.contextmanager
    def goto_block(self, block: Block) -> Iterator[None]:
        """Append to ``block`` (before its terminator, if it has one) for a while."""
        old = self.block
        self.block, self._at = block, len(block.lines) - 1 if block.terminated else None
        try:
            yield
        finally:
            self.position_at_end(old)

    def goto_entry_block(self):
        return self.goto_block(self.block.function.blocks[0])

    @contextlib.contextmanager
    def _branch_helper(self, enter: Block, leave: Block) -> Iterator[Block]:
        self.position_at_end(enter)
        yield leave
        if not self.block.terminated:
            self.branch(leave)

    @contextlib.contextmanager
    def if_then(self, condition: Value, likely: bool | None = None) -> Iterator[Block]:
        name = self.block.name
        then = self.append_basic_block(f"{name}.if")
        end = self.append_basic_block(f"{name}.endif")
        self.cbranch(condition, then, end, _weights(likely))
        with self._branch_helper(then, end):
            yield end
        self.position_at_end(end)

    @contextlib.contextmanager
    def if_else(self, condition: Value, likely: bool | None = None):
        name = self.block.name
        then = self.append_basic_block(f"{name}.if")
        otherwise = self.append_basic_block(f"{name}.else")
        end = self.append_basic_block(f"{name}.endif")
        self.cbranch(condition, then, otherwise, _weights(likely))
        yield self._branch_helper(then, end), self._branch_helper(otherwise, end)
        self.position_at_end(end)


def _weights(likely: bool | None) -> tuple[int, int] | None:
    return None if likely is None else (99, 1) if likely else (1, 99)
