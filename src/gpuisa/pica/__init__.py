"""PICA200 (Nintendo 3DS) shader ISA tools.

>>> from gpuisa import pica
>>> shbin = pica.Shbin.from_file("shader.shbin")
>>> print(pica.disassemble(shbin))
>>> pica.decode(shbin.program.code[0]).mnemonic
"""

from .asm import AssemblyResult, assemble, assemble_with_warnings
from .check import Finding, check
from .disasm import disassemble
from .encoding import (
    Instruction,
    OperandDescriptor,
    decode,
    decode_opdesc,
    encode,
    encode_opdesc,
)
from .engine import F24Bits, PipelineResult, RunResult, run, run_pipeline
from .isa import Opcode
from .program import Program
from .render import render  # the function; gpuisa.pica.render.* holds the rest
from .shbin import Constant, Dvle, OutputEntry, Shbin, Uniform, find_dvlb

__all__ = [
    "AssemblyResult",
    "Constant",
    "Dvle",
    "F24Bits",
    "Finding",
    "Instruction",
    "Opcode",
    "OperandDescriptor",
    "OutputEntry",
    "PipelineResult",
    "Program",
    "RunResult",
    "Shbin",
    "Uniform",
    "assemble",
    "assemble_with_warnings",
    "check",
    "decode",
    "decode_opdesc",
    "disassemble",
    "encode",
    "encode_opdesc",
    "find_dvlb",
    "render",
    "run",
    "run_pipeline",
]

