"""PICA200 (Nintendo 3DS) shader ISA tools.

>>> from gpuisa import pica
>>> shbin = pica.Shbin.from_file("shader.shbin")
>>> print(pica.disassemble(shbin))
>>> pica.decode(shbin.program.code[0]).mnemonic
"""

from .disasm import disassemble
from .encoding import (
    Instruction,
    OperandDescriptor,
    decode,
    decode_opdesc,
    encode,
    encode_opdesc,
)
from .isa import Opcode
from .program import Program
from .shbin import Constant, Dvle, OutputEntry, Shbin, Uniform, find_dvlb

__all__ = [
    "Constant",
    "Dvle",
    "Instruction",
    "Opcode",
    "OperandDescriptor",
    "OutputEntry",
    "Program",
    "Shbin",
    "Uniform",
    "decode",
    "decode_opdesc",
    "disassemble",
    "encode",
    "encode_opdesc",
    "find_dvlb",
]
