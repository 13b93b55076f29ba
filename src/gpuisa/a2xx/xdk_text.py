"""Microsoft's microcode assembly listing (``xvs_3_0`` / ``xps_3_0``), the text the XDK
shader compiler writes beside a compiled shader (a2xx-formats.md#xdk-listing).

The XDK's listing and Xenia's (``xna.py``) name instructions, operands and fetch options
alike; the XDK's differs in its layout and its short forms, each checked against the
listings the compiler published with their words (tests/a2xx/data/xdk-listings.txt):

* a header: the profile, ``defconst`` for each entry of the container's constant table,
  ``config AutoSerialize=false`` / ``AutoResource=false`` (compiled microcode is
  serialized and allocated explicitly), the ``config Vs*`` lines or the
  ``PsExportColorCount`` comment that the shader header's register values give,
  ``dcl_*`` for its declarations and ``def`` for its literals (a2xx-formats.md#xdk-config);
  at the end, the compiler's ``// PDB hint``;
* no slot markers: every line is indented four spaces, each ``exec`` followed by its
  instructions, ``serialize`` on a line of its own, trailing ``cnop`` clauses left out;
* write masks without underscores (``r0.yz``), source swizzles without the repeats of
  their last component (``c255.xyx`` for xyxx, ``r1.x`` for xxxx), ``r0_abs`` for Xenia's
  ``r_abs[0]``, ``alloc export=2``;
* ``mov`` / ``movs`` / ``movas`` for a ``max`` / ``maxs`` / ``maxas`` of one operand with
  itself;
* ``vfetch r1, r0.x, position`` for a vertex fetch the container binds to a semantic (its
  format is filled in when the vertex declaration is bound), and ``+`` before a co-issued
  scalar operation.

The text is derived from Xenia's listing line by line, so every field Xenia shows is shown
here the same way, and every input Xenia's listing refuses is refused here too.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import Protocol

from .containers.xdk import Constant, DebugInfo, Literal, ProgramConfig, Semantic
from .encoding import CfExec, slot_to_dwords
from .program import read_program
from .xdk_forms import is_fetch
from .xna import disassemble_xna

PROFILES = {"vertex": "xvs_3_0", "fragment": "xps_3_0"}
INDENT = "    "
CO_ISSUE = "  + "  # before a scalar operation issued with the vector one above it
# The compiler's word for a vertex shader export mode (SQ_PROGRAM_CNTL.VS_EXPORT_MODE,
# numbered as xenia-project/xenia's xenos.h VertexShaderExportMode, index file 1458051748):
# 7 (kMultipass) is "multipass" in the listing of 68761226064; 0 (one position vector)
# prints no line.  No listing shows modes 2-6.
VS_EXPORT_MODES = {7: "multipass"}
# SQ_CONTEXT_MISC.SC_SAMPLE_CNTL as the compiler's comment names it (Scaleform's
# listings: 1 "centers", 2 "both"); 0, centroids only, prints no line (68420063911).
SAMPLE_CONTROLS = {1: "centers", 2: "both"}
_MARKER = re.compile(r"^/\*\s*(\d+)(\.[01])?\s*\*/\s?(.*)$")
_MASK = re.compile(r"^((?:\(!?p0\) )?\w+ [\w\[\]+]+)\.((?:x|_)(?:y|_)(?:z|_)(?:w|_))(?=,|$)")
_SWIZZLE = re.compile(r"(?<=[\w\]])\.([xyzw]{4})\b")
_ABS = re.compile(r"\b([rc])_abs\[(\d+)\]")
_MAX = re.compile(r"^(\(!?p0\) )?max(_sat)? ([^,]+), ([^,]+), \4$")
_MAXS = re.compile(r"^(\(!?p0\) )?max(a?)s(_sat)? ([^,]+), (-?\w+)\.([xyzw])\6$")
# A vertex fetch whose format the vertex declaration fills in: Xenia shows no options.
_VFETCH = re.compile(r"^(\(!?p0\) )?vfetch_full (\S+), (\S+), vf\d+$")


class Declared(Protocol):
    """What an XDK container says besides its microcode (a ShaderFile or XdkContainer)."""

    @property
    def constants(self) -> tuple[Constant, ...]: ...
    @property
    def literals(self) -> tuple[Literal, ...]: ...
    @property
    def vertex_elements(self) -> tuple[Semantic, ...]: ...
    @property
    def interpolators(self) -> tuple[Semantic, ...]: ...
    @property
    def index_inputs(self) -> tuple[Semantic, ...]: ...
    @property
    def config(self) -> ProgramConfig | None: ...
    @property
    def debug(self) -> DebugInfo | None: ...


def disassemble_xdk(
    words: Iterable[int], shader_type: str, *, declared: Declared | None = None
) -> str:
    """The XDK's listing of a program; ``declared``, an XDK container's constant table,
    literals, declarations, register values and debug block, gives the header, the vertex
    fetches' semantic names and the closing debugger hint."""
    words = list(words)
    xenia = disassemble_xna(words, shader_type, canary=False)
    header = header_lines(shader_type, declared)
    elements = declared.vertex_elements if declared is not None else ()
    centroids = [i.register for i in (declared.interpolators if declared else ()) if i.centroid]
    body = body_lines(xenia, {e.slot: semantic_name(e) for e in elements},
                      f"retain_prev r{centroids[0]}._" if centroids else None)
    footer = footer_lines(words, declared.debug if declared is not None else None)
    return "\n".join(header) + "\n\n\n" + "\n".join(body) + "\n\n" + "\n".join(footer) + "\n"


def semantic_name(semantic: Semantic) -> str:
    """``position``, ``position1``, ``texcoord3``: the usage in lower case, then the usage
    index unless it is 0."""
    return semantic.usage.lower() + (str(semantic.index) if semantic.index else "")


def header_lines(shader_type: str, declared: Declared | None) -> list[str]:
    lines = [f"// Shader type: {'pixel' if shader_type == 'fragment' else 'vertex'} ", ""]
    lines.append(PROFILES[shader_type])
    if declared is None:
        return [*lines, "config AutoSerialize=false", "config AutoResource=false"]
    lines += [line for c in declared.constants for line in defextern_lines(c)]
    lines += ["config AutoSerialize=false", "config AutoResource=false"]
    if declared.config is not None:
        lines += config_lines(shader_type, declared.config)
    declarations = dcl_lines(shader_type, declared)
    for group in (declarations, [def_line(literal) for literal in declared.literals]):
        if group:
            lines += ["", *group]
    return lines


def config_lines(shader_type: str, config: ProgramConfig) -> list[str]:
    """What the compiler says of the register values (a2xx-formats.md#xdk-config): the
    highest register unless r0, ``VsResource=1``, a vertex shader's export mode and
    count, a pixel shader's colour export count and sample control."""
    if shader_type == "fragment":
        lines = [f"config PsMaxReg={config.ps_max_reg}"] if config.ps_max_reg else []
        lines.append(f"// PsExportColorCount={config.color_exports}")
        if config.sample_control in SAMPLE_CONTROLS:
            lines.append(f"// PsSampleControl={SAMPLE_CONTROLS[config.sample_control]}")
        return lines
    lines = [f"config VsMaxReg={config.vs_max_reg}"] if config.vs_max_reg else []
    if config.vs_resource:
        lines.append("config VsResource=1")
    mode = config.vs_export_mode
    if mode in VS_EXPORT_MODES:
        lines.append(f"config VsExportMode={VS_EXPORT_MODES[mode]}")
    elif mode:
        # No compiler listing shows this mode's word: say what the container holds.
        lines.append(f"// VsExportMode: SQ_PROGRAM_CNTL export mode {mode}")
    if config.vs_export_count:
        lines.append(f"// VsExportCount={config.vs_export_count}")
    return lines


def dcl_lines(shader_type: str, declared: Declared) -> list[str]:
    """``dcl_index r0.xyz`` for each index input (``dcl_index r0.x`` for a vertex shader
    that fetches vertices when the container gives none), then
    ``dcl_<usage><index>[_centroid] r<N>`` (pixel) or ``o<N>`` (vertex) for each
    interpolator, with its components unless all four."""
    inputs = declared.index_inputs
    if not inputs and declared.vertex_elements:
        inputs = (Semantic("INDEX", 0, register=0, mask=1),)
    lines = [f"dcl_{semantic_name(i)} r{i.register}{components(i.mask)}" for i in inputs]
    prefix = "o" if shader_type == "vertex" else "r"
    for i in declared.interpolators:
        centroid = "_centroid" if i.centroid else ""
        lines.append(f"dcl_{semantic_name(i)}{centroid} {prefix}{i.register}{components(i.mask)}")
    return lines


def components(mask: int) -> str:
    """``.xy`` for the components of ``mask``; nothing for all four (or none given)."""
    if mask in (0, 0xF):
        return ""
    return "." + "".join(c for bit, c in enumerate("xyzw") if mask >> bit & 1)


def footer_lines(words: list[int], debug: DebugInfo | None) -> list[str]:
    """``// PDB hint`` with the three words of the slot after the program (a2xx-formats.md
    #xdk-listing), then the debug block's timestamp and path when there is one."""
    hint = pdb_hint(words)
    lines = ["// PDB hint " + "-".join(f"{w:08x}" for w in hint), ""]
    if debug is not None:
        lines += ["// Debugger Hint:", f"//  Timestamp: {debug.timestamp:08x}",
                  f'//  Path: "{debug.path}"']
    return lines


def pdb_hint(words: list[int]) -> tuple[int, int, int]:
    """The slot after the last instruction any exec runs (the compiler's PDB hint, zeros
    without a debug database), or zeros when the microcode ends with that instruction."""
    program = read_program(words)
    end = max([c.address + c.count for c in program.cf if isinstance(c, CfExec) and c.count]
              + [math.ceil(len(program.cf) / 2)])
    if end >= len(program.slots):
        return (0, 0, 0)
    return slot_to_dwords(program.slots[end])


def defextern_lines(constant: Constant) -> list[str]:
    """``defextern const mvp[0], float, vector, [1, 4], c0``: one line per array element
    (each its own register), the type in lower case (``sampler2d``), as the listings of
    fxc 2.0.21119.0 print a constant-table entry; one entry over several registers names
    the range, an array element too (Scaleform's FDrawableMerge: ``cxmul, float,
    matrix_columns, [4, 4], c0-3``; VBatchPosition3dTexTGEAlpha: ``vfmuniforms[1], ...,
    c4-7``)."""
    head = f", {constant.parameter_type.lower()}, {constant.parameter_class}, " \
        f"[{constant.rows}, {constant.columns}], "
    if constant.elements <= 1:
        last = f"-{constant.index + constant.count - 1}" if constant.count > 1 else ""
        return [f"defextern const {constant.name}{head}{constant.register}{last}"]
    prefix = constant.register[0]
    step = max(1, constant.count // constant.elements)
    return [
        f"defextern const {constant.name}[{i}]{head}{prefix}{constant.index + i * step}"
        + (f"-{constant.index + i * step + step - 1}" if step > 1 else "")
        for i in range(constant.elements)
    ]


def def_line(literal: Literal) -> str:
    """``def c255, 0, 1, 2, 0.5``."""
    # Nine significant digits, as the compiler prints a single (1.1 is 1.10000002).
    return f"def c{literal.register}, " + ", ".join(f"{v:.9g}" for v in literal.values)


def body_lines(xenia: str, semantics: dict[int, str], unwritten: str | None = None
               ) -> list[str]:
    """Xenia's listing rewritten line by line into the XDK's body; ``unwritten``, the
    scalar line the XDK does not print (a RETAIN_PREV that names the first centroid
    interpolator and writes nothing, which its listing's reader fills back: xdk_asm)."""
    lines: list[str] = []
    slot = -1
    for raw in xenia.splitlines():
        m = _MARKER.match(raw)
        if m is not None:
            text = m.group(3).strip()
            if m.group(2) is None:
                slot = int(m.group(1))
            else:
                text = text.replace("alloc export = ", "alloc export=")
                if text.startswith("("):
                    # A predicated CF line starts at column 0 (Scaleform's "(!p0) jmp L9").
                    lines.append(text)
                    continue
        else:
            text = raw.strip()
            if text.startswith("label "):
                lines.append(text)  # at column 0, as the compiler writes it
                continue
        if text.startswith("+"):
            if text[1:].strip() == unwritten:
                continue
            lines.append(CO_ISSUE + instruction(text[1:].strip(), slot, semantics))
            continue
        elif (m is None or m.group(2) is None) and text != "serialize":
            text = instruction(text, slot, semantics)
        lines.append(INDENT + text)
    # The cnop that pads the last CF slot is left out; an earlier one stays, as the CF
    # program's length (the first instruction's slot) depends on it.
    clauses = sum(1 for raw in xenia.splitlines() if (m := _MARKER.match(raw)) and m[2])
    if clauses % 2 == 0 and lines and lines[-1] == INDENT + "cnop":
        lines.pop()
    return lines


def instruction(text: str, slot: int, semantics: dict[int, str]) -> str:
    """One instruction of Xenia's listing in the XDK's short forms."""
    if slot in semantics and (m := _VFETCH.match(text)):
        return f"{m[1] or ''}vfetch {m[2]}, {m[3]}, {semantics[slot]}"
    if is_fetch(text):
        return text  # fetch operands are Xenia's: their masks and swizzles are not lanes
    text = _MASK.sub(lambda g: g[1] + "." + g[2].replace("_", ""), text)
    text = _SWIZZLE.sub(lambda g: "." + short_swizzle(g[1]), text)
    text = _ABS.sub(r"\1\2_abs", text)
    if m := _MAX.match(text):
        return f"{m[1] or ''}mov{m[2] or ''} {m[3]}, {m[4]}"
    if m := _MAXS.match(text):
        return f"{m[1] or ''}mov{m[2]}s{m[3] or ''} {m[4]}, {m[5]}.{m[6]}"
    return text


def short_swizzle(swizzle: str) -> str:
    """A four-component swizzle without the repeats of its last component."""
    return swizzle.rstrip(swizzle[-1]) + swizzle[-1]
