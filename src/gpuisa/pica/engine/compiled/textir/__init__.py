"""A small LLVM IR builder that writes the text of each instruction as it is built.

The compiled engine used ``llvmlite.ir``, which makes a Python object per instruction and
formats the whole module at the end; for a kernel of some 5,000 instructions that was
three quarters of the time to compile a shader (building 43 %, formatting 30 %, LLVM
itself 25 %).  This package offers the part of the ``llvmlite.ir`` interface the engine
uses (types, constants, modules, functions, blocks and an ``IRBuilder`` with the same
method names and structured helpers ``if_then``, ``if_else``, ``goto_block``) and keeps
each instruction as one line of text, written when the instruction is made.  Splat
constants use LLVM's ``splat (T v)`` form, which is shorter to write and to parse.

The text is the same language ``llvmlite.binding.parse_assembly`` reads: what the two
builders produce for the same calls is checked instruction by instruction in
``tests/pica/engine/test_textir.py``.  One difference is deliberate: ``alloca`` always
puts its slot in the function's entry block (llvmlite's, where the builder stands),
since LLVM promotes only those slots to values.

The types, values and constants are in :mod:`.values`, modules, functions and blocks in
:mod:`.units`, the builder in :mod:`.builder`.
"""

from .builder import IRBuilder
from .units import Block, Function, Module
from .values import (
    ArrayType,
    CastInstr,
    Constant,
    DoubleType,
    FloatType,
    FunctionType,
    IntType,
    PointerType,
    Type,
    Undefined,
    Value,
    VectorType,
    VoidType,
)

__all__ = ["ArrayType", "Block", "CastInstr", "Constant", "DoubleType", "FloatType",
           "Function", "FunctionType", "IRBuilder", "IntType", "Module", "PointerType", "Type",
           "Undefined", "Value", "VectorType", "VoidType"]
