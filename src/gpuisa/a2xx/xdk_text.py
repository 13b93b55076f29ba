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
* ``mov`` / ``movs`` for a ``max`` / ``maxs`` of one operand with itself;
* ``vfetch r1, r0.x, position`` for a vertex fetch the container binds to a semantic (its
  format is filled in when the vertex declaration is bound), and ``+`` before a co-issued
  scalar operation.

The text is derived from Xenia's listing line by line, so every field Xenia shows is shown
here the same way, and every input Xenia's listing refuses is refused here too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .containers.xdk import Constant, Literal, ProgramConfig, Semantic
from .xna import disassemble_xna

PROFILES = {"vertex": "xvs_3_0", "fragment": "xps_3_0"}
INDENT = "    "
# The compiler's word for a vertex shader export mode (SQ_PROGRAM_CNTL.VS_EXPORT_MODE,
# numbered as xenia-project/xenia's xenos.h VertexShaderExportMode, index file 1458051748):
# 7 (kMultipass) is "multipass" in the listing of 68761226064; 0 (one position vector,
# 68746941056) prints no line.  No listing shows modes 2-6.
VS_EXPORT_MODES = {7: "multipass"}
# Every compiler listing found ends so: the compiler's hint for a debug database, all
# zeros when none was written.  The container does not hold it.
PDB_HINT = "// PDB hint 00000000-00000000-00000000"
_MARKER = re.compile(r"^/\*\s*(\d+)(\.[01])?\s*\*/\s?(.*)$")
_MASK = re.compile(r"^((?:\(!?p0\) )?\w+ [\w\[\]+]+)\.((?:x|_)(?:y|_)(?:z|_)(?:w|_))(?=,|$)")
_SWIZZLE = re.compile(r"(?<=[\w\]])\.([xyzw]{4})\b")
_ABS = re.compile(r"\b([rc])_abs\[(\d+)\]")
_MAX = re.compile(r"^(\(!?p0\) )?max(_sat)? ([^,]+), ([^,]+), \4$")
_MAXS = re.compile(r"^(\(!?p0\) )?maxs(_sat)? ([^,]+), (-?\w+)\.([xyzw])\5$")
_VFETCH = re.compile(r"^(\(!?p0\) )?vfetch_full (\S+), (\S+), vf95$")


def disassemble_xdk(
    words: Iterable[int],
    shader_type: str,
    *,
    constants: tuple[Constant, ...] = (),
    literals: tuple[Literal, ...] = (),
    vertex_elements: tuple[Semantic, ...] = (),
    interpolators: tuple[Semantic, ...] = (),
    index_inputs: tuple[Semantic, ...] = (),
    config: ProgramConfig | None = None,
) -> str:
    """The XDK's listing of a program; the container's constant table, literals,
    declarations and register values (all optional) give the header and the vertex
    fetches' semantic names."""
    xenia = disassemble_xna(words, shader_type, canary=False)
    declarations = dcl_lines(shader_type, vertex_elements, interpolators, index_inputs)
    header = header_lines(shader_type, constants, literals, declarations, config)
    semantics = {e.slot: semantic_name(e) for e in vertex_elements}
    body = body_lines(xenia, semantics)
    return "\n".join(header) + "\n\n\n" + "\n".join(body) + "\n\n" + PDB_HINT + "\n\n"


def semantic_name(semantic: Semantic) -> str:
    """``position``, ``position1``, ``texcoord3``: the usage in lower case, then the usage
    index unless it is 0."""
    return semantic.usage.lower() + (str(semantic.index) if semantic.index else "")


def header_lines(
    shader_type: str,
    constants: tuple[Constant, ...],
    literals: tuple[Literal, ...],
    declarations: list[str],
    config: ProgramConfig | None,
) -> list[str]:
    lines = [f"// Shader type: {'pixel' if shader_type == 'fragment' else 'vertex'} ", ""]
    lines.append(PROFILES[shader_type])
    lines += [defconst_line(c) for c in constants]
    lines += ["config AutoSerialize=false", "config AutoResource=false"]
    if config is not None:
        lines += config_lines(shader_type, config)
    for group in (declarations, [def_line(literal) for literal in literals]):
        if group:
            lines += ["", *group]
    return lines


def config_lines(shader_type: str, config: ProgramConfig) -> list[str]:
    """What the compiler says of the register values: a vertex shader's ``config
    VsMaxReg=``, ``VsResource=`` and (unless it exports one position vector)
    ``VsExportMode=``; a pixel shader's colour export count as a comment
    (a2xx-formats.md#xdk-config)."""
    if shader_type == "fragment":
        return [f"// PsExportColorCount={config.color_exports}"]
    lines = [f"config VsMaxReg={config.vs_max_reg}", f"config VsResource={config.vs_resource}"]
    mode = config.vs_export_mode
    if mode in VS_EXPORT_MODES:
        lines.append(f"config VsExportMode={VS_EXPORT_MODES[mode]}")
    elif mode:
        # No compiler listing shows this mode's word: say what the container holds.
        lines.append(f"// VsExportMode: SQ_PROGRAM_CNTL export mode {mode}")
    return lines


def dcl_lines(
    shader_type: str,
    vertex_elements: tuple[Semantic, ...],
    interpolators: tuple[Semantic, ...],
    index_inputs: tuple[Semantic, ...],
) -> list[str]:
    """``dcl_index r0.xyz`` for each index input (``dcl_index r0.x`` for a vertex shader
    that fetches vertices when the container gives none), then
    ``dcl_<usage><index>[_centroid] r<N>`` (pixel) or ``o<N>`` (vertex) for each
    interpolator, with its components unless all four."""
    if not index_inputs and vertex_elements:
        index_inputs = (Semantic("INDEX", 0, register=0, mask=1),)
    lines = [f"dcl_{semantic_name(i)} r{i.register}{components(i.mask)}" for i in index_inputs]
    prefix = "o" if shader_type == "vertex" else "r"
    for i in interpolators:
        centroid = "_centroid" if i.centroid else ""
        lines.append(f"dcl_{semantic_name(i)}{centroid} {prefix}{i.register}{components(i.mask)}")
    return lines


def components(mask: int) -> str:
    """``.xy`` for the components of ``mask``; nothing for all four (or none given)."""
    if mask in (0, 0xF):
        return ""
    return "." + "".join(c for bit, c in enumerate("xyzw") if mask >> bit & 1)


def defconst_line(constant: Constant) -> str:
    """``defconst fsize, float, vector, [1, 4], c0``."""
    shape = f"[{constant.rows}, {constant.columns}]"
    return (
        f"defconst {constant.name}, {constant.parameter_type}, {constant.parameter_class}, "
        f"{shape}, {constant.register}"
    )


def def_line(literal: Literal) -> str:
    """``def c255, 0, 1, 2, 0.5``."""
    return f"def c{literal.register}, " + ", ".join(f"{v:g}" for v in literal.values)


def body_lines(xenia: str, semantics: dict[int, str]) -> list[str]:
    """Xenia's listing rewritten line by line into the XDK's body."""
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
        else:
            text = raw.strip()
            if text.startswith("label "):
                lines.append(INDENT + text)
                continue
        if text.startswith("+"):
            text = "+ " + instruction(text[1:].strip(), slot, semantics)
        elif (m is None or m.group(2) is None) and text != "serialize":
            text = instruction(text, slot, semantics)
        lines.append(INDENT + text)
    while lines and lines[-1] == INDENT + "cnop":
        lines.pop()
    return lines


def instruction(text: str, slot: int, semantics: dict[int, str]) -> str:
    """One instruction of Xenia's listing in the XDK's short forms."""
    if slot in semantics and (m := _VFETCH.match(text)):
        return f"{m[1] or ''}vfetch {m[2]}, {m[3]}, {semantics[slot]}"
    if "fetch" in text.split(" ", 2)[1 if text.startswith("(") else 0]:
        return text  # fetch operands are Xenia's: their masks and swizzles are not lanes
    text = _MASK.sub(lambda g: g[1] + "." + g[2].replace("_", ""), text)
    text = _SWIZZLE.sub(lambda g: "." + short_swizzle(g[1]), text)
    text = _ABS.sub(r"\1\2_abs", text)
    if m := _MAX.match(text):
        return f"{m[1] or ''}mov{m[2] or ''} {m[3]}, {m[4]}"
    if m := _MAXS.match(text):
        return f"{m[1] or ''}movs{m[2] or ''} {m[3]}, {m[4]}.{m[5]}"
    return text


def short_swizzle(swizzle: str) -> str:
    """A four-component swizzle without the repeats of its last component."""
    return swizzle.rstrip(swizzle[-1]) + swizzle[-1]
