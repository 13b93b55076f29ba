"""Adreno A2XX shader ISA tools.

* :mod:`~gpuisa.a2xx.isa` - the ISA as data (layouts, opcodes, enums).
* :mod:`~gpuisa.a2xx.encoding` - clauses/slots <-> frozen records.
* :func:`read_shader_file` - XDK shader containers, Xenia dumps and raw microcode, by content
  (:mod:`~gpuisa.a2xx.containers`); :func:`xenia_hash` - the hash Xenia names dumps with.
* :func:`disassemble` - Mesa ``disasm_a2xx()`` text (plain or raw) or Xenia's listing.
* :func:`assemble` - Mesa disassembly / freedreno wiki syntax -> dwords.
* :func:`assemble_xdk_container` - the XDK compiler's listing -> an XDK shader container's
  bytes; :func:`write_xdk_container` - an :class:`XdkContainer` record -> its bytes.
* :func:`run_vertex` / :func:`run_fragment` - vectorized emulation of N invocations
  (:mod:`~gpuisa.a2xx.engine`).
"""

from . import isa
from .asm import AssemblyResult, assemble, assemble_with_warnings
from .containers import (
    Constant,
    ShaderFile,
    XdkContainer,
    read_shader_file,
    read_xdk_container,
    write_xdk_container,
    xenia_hash,
)
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
from .xdk_container import assemble_xdk_container, container_from_listing

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
    "XdkContainer",
    "assemble",
    "assemble_with_warnings",
    "assemble_xdk_container",
    "container_from_listing",
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
    "read_xdk_container",
    "run_fragment",
    "run_vertex",
    "slot_from_dwords",
    "slot_to_dwords",
    "slots_from_words",
    "split_cf_slot",
    "words_from_bytes",
    "words_from_slots",
    "words_to_bytes",
    "write_xdk_container",
    "xenia_hash",
]
