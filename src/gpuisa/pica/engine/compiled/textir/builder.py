"""The builder: each method writes one instruction's text into the current block."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence

from .units import Block, Function, Module, _Alloca, _Switch
from .values import CastInstr, Constant, IntType, Type, Value, VectorType, VoidType

_SIGNED = {"<": "slt", "<=": "sle", "==": "eq", "!=": "ne", ">": "sgt", ">=": "sge"}
_UNSIGNED = {"<": "ult", "<=": "ule", "==": "eq", "!=": "ne", ">": "ugt", ">=": "uge"}
_FLOAT = {"<": "lt", "<=": "le", "==": "eq", "!=": "ne", ">": "gt", ">=": "ge"}


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


_I1 = IntType(1)
#: Lanes -> the type of a comparison's result (made once: every comparison asks).
_FLAG_VECTORS: dict[int, Type] = {}


def _flags(kind: Type) -> Type:
    if not isinstance(kind, VectorType):
        return _I1
    found = _FLAG_VECTORS.get(kind.count)
    if found is None:
        found = _FLAG_VECTORS[kind.count] = VectorType(_I1, kind.count)
    return found


class IRBuilder:
    """Appends instructions to a block (``llvmlite.ir.IRBuilder``'s interface; ``alloca``
    writes to the entry block wherever the builder stands)."""

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
        """A stack slot, always in the function's entry block (where
        :meth:`goto_entry_block` would put it): LLVM's SROA turns only slots of the
        entry block into SSA values, one made in a later block stays memory."""
        function = self.block.function
        slot = _Alloca(kind, function.temporary())
        entry = function.blocks[0]
        if self.block is entry:
            self._emit(slot)
        else:
            entry.lines.insert(len(entry.lines) - entry.terminated, slot)
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
