"""Adreno A2XX shader ISA tools.

* :mod:`~gpuisa.a2xx.isa` - the ISA as data (layouts, opcodes, enums).
* :mod:`~gpuisa.a2xx.encoding` - clauses/slots <-> frozen records.
* :func:`read_shader_file` - XDK shader containers, Xenia dumps and raw microcode, by content
  (:mod:`~gpuisa.a2xx.containers`); :func:`xenia_hash` - the hash Xenia names dumps with.
* :func:`disassemble` - Mesa ``disasm_a2xx()`` text (plain or raw) or Xenia's listing.
* :func:`assemble` - Mesa disassembly / freedreno wiki syntax -> dwords.
* :func:`run_vertex` / :func:`run_fragment` - vectorized emulation of N invocations
  (:mod:`~gpuisa.a2xx.engine`).
"""

from . import isa
from .asm import AssemblyResult, assemble, assemble_with_warnings
from .containers import Constant, ShaderFile, read_shader_file, xenia_hash
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
from .engine import (
    EmulatorConfig,
    FragmentResult,
    LoopConstant,
    ShaderResult,
    Texture,
    VertexAttribute,
    VertexFetchConstant,
    VertexResult,
    run_fragment,
    run_vertex,
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
    "Constant",
    "EmulatorConfig",
    "ExecEntry",
    "FetchInstruction",
    "FragmentResult",
    "LoopConstant",
    "Program",
    "ShaderFile",
    "ShaderResult",
    "ShaderType",
    "Texture",
    "TextureFetch",
    "VertexAttribute",
    "VertexFetch",
    "VertexFetchConstant",
    "VertexResult",
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
    "read_shader_file",
    "run_fragment",
    "run_vertex",
    "slot_from_dwords",
    "slot_to_dwords",
    "slots_from_words",
    "split_cf_slot",
    "words_from_bytes",
    "words_from_slots",
    "words_to_bytes",
    "xenia_hash",
]
