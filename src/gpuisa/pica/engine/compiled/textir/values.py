"""LLVM types, values and constants, each known by its text."""

from __future__ import annotations

import struct
from collections.abc import Sequence

Undefined = object()
"""The constant value ``undef`` (``Constant(kind, Undefined)``)."""


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
