"""Adreno A2XX shader ISA tools.

* :mod:`~gpuisa.a2xx.isa` - the ISA as data (layouts, opcodes, enums).
* :mod:`~gpuisa.a2xx.encoding` - clauses/slots <-> frozen records.
* :func:`disassemble` - Mesa ``disasm_a2xx()`` text (plain or raw) or an XNA-style listing.
* :func:`assemble` - Mesa disassembly / freedreno wiki syntax -> dwords.
"""

from . import isa
from .asm import AssemblyResult, assemble, assemble_with_warnings
from .disasm import SHADER_TYPES, STYLES, ShaderType, disassemble
from .encoding import (
    AluInstruction,
    CfAlloc,
    CfClause,
    CfExec,
    CfJmpCall,
    CfLoop,
    CfNop,
    FetchInstruction,
    TextureFetch,
    VertexFetch,
    decode_alu,
    decode_cf,
    decode_fetch,
    encode,
    join_cf_slot,
    slot_from_dwords,
    slot_to_dwords,
    slots_from_words,
    split_cf_slot,
    words_from_bytes,
    words_from_slots,
    words_to_bytes,
)
from .errors import A2xxError
from .program import ExecEntry, Program, exec_entries, read_program

__all__ = [
    "SHADER_TYPES",
    "STYLES",
    "A2xxError",
    "AluInstruction",
    "AssemblyResult",
    "CfAlloc",
    "CfClause",
    "CfExec",
    "CfJmpCall",
    "CfLoop",
    "CfNop",
    "ExecEntry",
    "FetchInstruction",
    "Program",
    "ShaderType",
    "TextureFetch",
    "VertexFetch",
    "assemble",
    "assemble_with_warnings",
    "decode_alu",
    "decode_cf",
    "decode_fetch",
    "disassemble",
    "encode",
    "exec_entries",
    "isa",
    "join_cf_slot",
    "read_program",
    "slot_from_dwords",
    "slot_to_dwords",
    "slots_from_words",
    "split_cf_slot",
    "words_from_bytes",
    "words_from_slots",
    "words_to_bytes",
]
