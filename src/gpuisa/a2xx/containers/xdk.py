"""The Xbox 360 XDK's compiled shader container (a2xx-formats.md#xdk-container).

The XDK's shader compiler writes a big-endian file: a header whose first word is the
magic ``0x102A1100`` (pixel) or ``0x102A1101`` (vertex), a D3DX-style constant table
(names, register sets, register ranges, types), a table of the literal constants the
shader defines, a shader header with the microcode's offset and size, and the microcode
and literal values in the file's "physical" part.  The 2005 compilers wrote an older
version (magic ``0x102A0E00`` / ``0x102A0E01``): a six-word header, the same constant
table, a shader header without the microcode's offset and size, and the microcode alone
in the physical part (a2xx-formats.md#xdk-2005).  Every offset is checked against the
file; a problem names its byte offset and field.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from ..errors import ContainerError

MAGIC = 0x102A1100
MAGIC_MASK = 0xFFFFFF00
MAGIC_2005 = 0x102A0E00  # the 2005 compilers' version; bit 0 says vertex in both
MAGICS_TEXT = (
    f"0x{MAGIC:08X} / 0x{MAGIC | 1:08X} (pixel / vertex), or the 2005 version's "
    f"0x{MAGIC_2005:08X} / 0x{MAGIC_2005 | 1:08X}"
)
HEADER_2005_FIELDS = (
    "flags", "virtual_size", "physical_size", "word_0c", "constant_table_offset",
    "shader_offset",
)
HEADER_FIELDS = (
    "flags", "virtual_size", "physical_size", "debug_info_offset", "constant_table_offset",
    "definition_table_offset", "shader_offset", "field_1c", "field_20",
)
HEADER_SIZE = 4 * len(HEADER_FIELDS)
CTAB_FIELDS = ("size", "creator", "version", "constants", "constant_info", "flags", "target")
CONSTANT_INFO_SIZE = 20
TYPE_INFO_SIZE = 16
SHADER_HEADER_SIZE = 8  # physical offset and size of the microcode, in bytes
DEFINITION_HEADER_WORDS = 5  # words before the definitions (the last is their size)
# D3DXREGISTER_SET and D3DXPARAMETER_CLASS / _TYPE, in their numeric order.
REGISTER_SETS = ("bool", "int4", "float4", "sampler")
PARAMETER_CLASSES = ("scalar", "vector", "matrix_rows", "matrix_columns", "object", "struct")
PARAMETER_TYPES = (
    "void", "bool", "int", "float", "string", "texture", "texture1D", "texture2D",
    "texture3D", "textureCUBE", "sampler", "sampler1D", "sampler2D", "sampler3D",
    "samplerCUBE", "pixelshader", "vertexshader", "pixelfragment", "vertexfragment",
)
REGISTER_PREFIX = {"bool": "b", "int4": "i", "float4": "c", "sampler": "s"}


@dataclass(frozen=True, slots=True)
class Constant:
    """One entry of a container's constant table: ``name`` lives in ``count`` registers of
    ``register_set`` from ``index`` on (``c4``-``c7`` for a float4x4 at c4)."""

    name: str
    register_set: str  # "bool", "int4", "float4" or "sampler"
    index: int
    count: int
    parameter_class: str
    parameter_type: str
    rows: int
    columns: int
    elements: int

    @property
    def register(self) -> str:
        """The first register, as HLSL listings name it (``c4``, ``s0``, ``b2``, ``i1``)."""
        return f"{REGISTER_PREFIX[self.register_set]}{self.index}"


@dataclass(frozen=True, slots=True)
class Literal:
    """A float constant the shader defines itself (HLSL ``def``): ``values`` go to
    ``c<register>`` before it runs."""

    register: int
    values: tuple[float, float, float, float]


USAGES = (
    "POSITION", "BLENDWEIGHT", "BLENDINDICES", "NORMAL", "PSIZE", "TEXCOORD", "TANGENT",
    "BINORMAL", "TESSFACTOR", "POSITIONT", "COLOR", "FOG", "DEPTH", "SAMPLE",
)  # D3DDECLUSAGE, in its numeric order
SHADER_HEADER_WORDS = 6  # the words before a shader type's own part, in both versions


INDEX_USAGE = 9  # the usage of an index input word, which the XDK's listing calls "index"


@dataclass(frozen=True, slots=True)
class Semantic:
    """A declaration of the shader header: the vertex fetch at ``slot`` reads this
    usage (vertex elements), temp/export ``register`` carries it (interpolators), or the
    GPU writes it to ``register`` before the vertex shader starts (index inputs).
    ``mask`` holds the components (bit 0 x .. bit 3 w); ``centroid`` says a pixel
    shader's interpolator is sampled at the centroid."""

    usage: str  # "POSITION", "TEXCOORD", ..., "INDEX"
    index: int
    slot: int = -1  # vertex elements: the fetch instruction's slot
    register: int = -1  # interpolators and index inputs: the register
    mask: int = 0xF
    centroid: bool = False

    @property
    def name(self) -> str:
        return f"{self.usage}{self.index}"


@dataclass(frozen=True, slots=True)
class ProgramConfig:
    """The register values the shader header gives for the shader (words 2 and 3:
    ``SQ_PROGRAM_CNTL`` and ``SQ_CONTEXT_MISC``; a pixel shader's words 6 and 7:
    ``SQ_INTERPOLATOR_CNTL`` and its colour/depth outputs), a2xx-formats.md#xdk-config.

    Field layouts: SQ_PROGRAM_CNTL and SQ_CONTEXT_MISC as xenia-project/xenia's
    ``src/xenia/gpu/registers.h`` (index file 5736906840) and the Xenon emulator's
    container reader (index file 20211065606, which names the two words
    ``program_control`` and ``context_misc``) give them; the pixel shader's word 6 is
    SQ_INTERPOLATOR_CNTL (bits 0-15 one per interpolator in use, bits 16-31 the
    sampling pattern, 1 = centre) in every header checked (a2xx-formats.md#xdk-config).
    """

    program_cntl: int
    context_misc: int
    interpolator_cntl: int = 0  # pixel shaders only
    outputs: int = 0  # pixel shaders only: bits 0-3 colour targets 0-3, bit 4 depth

    @property
    def vs_max_reg(self) -> int:
        """VS_NUM_REG (bits 0-5): the highest temporary register a vertex shader uses."""
        return self.program_cntl & 0x3F

    @property
    def ps_max_reg(self) -> int:
        """PS_NUM_REG (bits 8-13): the highest temporary register a pixel shader uses."""
        return (self.program_cntl >> 8) & 0x3F

    @property
    def vs_export_count(self) -> int:
        """VS_EXPORT_COUNT (bits 20-23): the number of interpolators exported, less one."""
        return (self.program_cntl >> 20) & 0xF

    @property
    def vs_resource(self) -> int:
        return (self.program_cntl >> 16) & 1

    @property
    def vs_export_mode(self) -> int:
        """VS_EXPORT_MODE (bits 24-26): 0 one position vector, 7 multipass (memory
        export only)."""
        return (self.program_cntl >> 24) & 7

    @property
    def sample_control(self) -> int:
        """SC_SAMPLE_CNTL (SQ_CONTEXT_MISC bits 2-3): 0 centroids only, 1 centres only,
        2 per interpolator (the sampling pattern)."""
        return (self.context_misc >> 2) & 3

    @property
    def color_exports(self) -> int:
        return bin(self.outputs & 0xF).count("1")

    def centroid(self, register: int) -> bool:
        """Is the interpolator of ``register`` sampled at the centroid?"""
        if self.sample_control == 2:
            return not (self.interpolator_cntl >> (16 + register)) & 1
        return self.sample_control == 0


@dataclass(frozen=True, slots=True)
class XdkContainer:
    """The parts of an XDK shader container that gpuisa uses."""

    shader_type: str  # "vertex" or "fragment", from bit 0 of the magic word
    words: tuple[int, ...]  # the microcode, in the order the GPU reads it
    microcode_offset: int  # byte offset of the microcode in the file
    constants: tuple[Constant, ...]
    creator: str  # the compiler's name, from the constant table ("" without one)
    target: str  # the profile, for example "xvs_3_0" ("" without a constant table)
    literals: tuple[Literal, ...] = ()
    vertex_elements: tuple[Semantic, ...] = ()
    interpolators: tuple[Semantic, ...] = ()
    index_inputs: tuple[Semantic, ...] = ()  # vertex shaders: what r0/r1 hold at the start
    config: ProgramConfig | None = None
    debug: DebugInfo | None = None


@dataclass(frozen=True, slots=True)
class DebugInfo:
    """Where the compiler wrote the shader's debug database (``fxc /XZi``): the build's
    timestamp and the database's path, from the block at header offset 0x0C."""

    timestamp: int
    path: str


@dataclass(frozen=True, slots=True)
class _HeaderLayout:
    """Where a container version's shader header keeps its words
    (a2xx-formats.md#xdk-shader-header, #xdk-2005): the index of SQ_PROGRAM_CNTL
    (SQ_CONTEXT_MISC follows it), of the word whose bits 5-9 count the interpolators,
    and how many count words a vertex shader's part starts with.  Both versions have six
    words before a shader type's own part."""

    program_cntl: int
    interpolator_count: int
    vertex_counts: int


LAYOUT = _HeaderLayout(program_cntl=2, interpolator_count=5, vertex_counts=3)
LAYOUT_2005 = _HeaderLayout(program_cntl=0, interpolator_count=4, vertex_counts=4)


@dataclass(frozen=True, slots=True)
class _Declarations:
    elements: tuple[Semantic, ...]
    interpolators: tuple[Semantic, ...]
    index_inputs: tuple[Semantic, ...]
    config: ProgramConfig | None


def is_xdk_container(data: bytes) -> bool:
    """Does ``data`` start with the magic of either container version?"""
    if len(data) < 4:
        return False
    flags = struct.unpack_from(">I", data)[0]
    return flags & MAGIC_MASK == MAGIC or flags & ~1 == MAGIC_2005


class _Reader:
    """Big-endian reads that report the field and byte offset of a read past the end."""

    def __init__(self, data: bytes):
        self.data = data

    def need(self, offset: int, size: int, field: str) -> None:
        if offset < 0 or offset + size > len(self.data):
            raise ContainerError(
                f"needs {size} bytes but the file ends at 0x{len(self.data):X} "
                f"({len(self.data)} bytes)",
                offset=offset,
                field=field,
            )

    def words(self, offset: int, count: int, field: str) -> tuple[int, ...]:
        self.need(offset, 4 * count, field)
        return struct.unpack_from(f">{count}I", self.data, offset)

    def halves(self, offset: int, count: int, field: str) -> tuple[int, ...]:
        self.need(offset, 2 * count, field)
        return struct.unpack_from(f">{count}H", self.data, offset)

    def cstring(self, offset: int, field: str) -> str:
        self.need(offset, 1, field)
        end = self.data.find(b"\0", offset)
        if end < 0:
            raise ContainerError("string has no terminating NUL byte", offset=offset, field=field)
        return self.data[offset:end].decode("latin-1")


def read_xdk_container(data: bytes) -> XdkContainer:
    """Parse an XDK shader container of either version (the caller has checked the
    magic)."""
    reader = _Reader(data)
    reader.need(0, 4, "header")
    if struct.unpack_from(">I", data)[0] & ~1 == MAGIC_2005:
        return _read_2005(reader)
    header = dict(zip(HEADER_FIELDS, reader.words(0, len(HEADER_FIELDS), "header"), strict=True))
    flags = header["flags"]
    if flags & MAGIC_MASK != MAGIC:
        raise ContainerError(
            f"0x{flags:08X} is not an XDK shader container's magic ({MAGICS_TEXT})",
            offset=0,
            field="flags",
        )
    physical = _physical_part(reader, header["virtual_size"])
    shader_at = header["shader_offset"]
    if not shader_at:
        raise ContainerError("is 0: the container has no shader header", offset=24,
                             field="shader_offset")
    ucode_offset, size = reader.words(shader_at, 2, "shader header (shader_offset)")
    start = physical + ucode_offset
    _check_microcode_size(size, shader_at + 4, "shader.size")
    words = reader.words(start, size // 4, "microcode (virtual_size + shader.physical_offset)")
    shader_type = "vertex" if flags & 1 else "fragment"
    literals: tuple[Literal, ...] = ()
    if header["definition_table_offset"]:
        literals = _literals(reader, header["definition_table_offset"], physical, shader_type)
    debug = None
    if header["debug_info_offset"]:
        debug = _debug_info(reader, header["debug_info_offset"])
    return _container(reader, header["constant_table_offset"], shader_at, LAYOUT, shader_type,
                      words, start, literals=literals, debug=debug)


def _read_2005(reader: _Reader) -> XdkContainer:
    """The 2005 version (a2xx-formats.md#xdk-2005): six header words, and the physical
    part is the microcode alone."""
    header = dict(zip(HEADER_2005_FIELDS,
                      reader.words(0, len(HEADER_2005_FIELDS), "header"), strict=True))
    virtual = _physical_part(reader, header["virtual_size"])
    if header["word_0c"]:
        # None of the four public 2005 containers gpuisa holds sets it; one game's reader
        # says literal constants live there, in a form none of gpuisa's data shows:
        # refuse rather than run the shader without them.
        raise ContainerError(
            f"is 0x{header['word_0c']:X}, a block gpuisa cannot read in a 2005 container "
            f"(literal constants?); its microcode is bytes 0x{virtual:X}-"
            f"0x{virtual + header['physical_size']:X}: extract them and give them as raw "
            "microcode with --byte-order big",
            offset=12,
            field="word_0c",
        )
    size = header["physical_size"]
    _check_microcode_size(size, 8, "physical_size")
    words = reader.words(virtual, size // 4, "microcode (virtual_size, physical_size)")
    shader_at = header["shader_offset"]
    if not 0 < shader_at < virtual:
        raise ContainerError(
            f"the shader header at 0x{shader_at:X} is not inside the virtual part "
            f"(0x0-0x{virtual:X})",
            offset=20,
            field="shader_offset",
        )
    shader_type = "vertex" if header["flags"] & 1 else "fragment"
    return _container(reader, header["constant_table_offset"], shader_at, LAYOUT_2005,
                      shader_type, words, virtual)


def _physical_part(reader: _Reader, virtual_size: int) -> int:
    """Where the physical part starts (the virtual size), checked against the file."""
    if virtual_size > len(reader.data):
        raise ContainerError(
            f"the physical part would start at 0x{virtual_size:X}, past the end of the file "
            f"(0x{len(reader.data):X})",
            offset=4,
            field="virtual_size",
        )
    return virtual_size


def _check_microcode_size(size: int, offset: int, field: str) -> None:
    if size % 12:
        raise ContainerError(
            f"microcode size {size} is not a whole number of 12-byte instruction slots",
            offset=offset,
            field=field,
        )
    if not size:
        raise ContainerError("microcode size is 0", offset=offset, field=field)


def _container(
    reader: _Reader, ctab_at: int, shader_at: int, layout: _HeaderLayout, shader_type: str,
    words: tuple[int, ...], start: int, *, literals: tuple[Literal, ...] = (),
    debug: DebugInfo | None = None,
) -> XdkContainer:
    """What both versions share: the constant table and the shader header's
    declarations."""
    constants: tuple[Constant, ...] = ()
    creator = target = ""
    if ctab_at:
        constants, creator, target = _constant_table(reader, ctab_at)
    try:
        declared = _semantics(reader, shader_at, shader_type, layout)
    except ContainerError:
        # The declarations only name things; a container whose declarations gpuisa
        # cannot read (one source describes them) is still read, without the names.
        declared = _Declarations((), (), (), None)
    return XdkContainer(
        shader_type, words, start, constants, creator, target, literals, declared.elements,
        declared.interpolators, declared.index_inputs, declared.config, debug,
    )


def _debug_info(reader: _Reader, offset: int) -> DebugInfo:
    """The debug block: the timestamp, the path's length in bytes, the path (its NUL, if
    it fits, and padding inside that length)."""
    timestamp, length = reader.words(offset, 2, "debug info (header offset 0x0C)")
    reader.need(offset + 8, length, "debug info path")
    path = reader.data[offset + 8 : offset + 8 + length].split(b"\0")[0]
    return DebugInfo(timestamp, path.decode("latin-1"))


def _usage(value: int, field: str, offset: int) -> str:
    if value >= len(USAGES):
        raise ContainerError(f"declaration usage {value} is not a D3DDECLUSAGE", offset=offset,
                             field=field)
    return USAGES[value]


def _semantics(
    reader: _Reader, shader_at: int, shader_type: str, layout: _HeaderLayout
) -> _Declarations:
    """The declarations of the shader header (a2xx-formats.md#xdk-shader-header): its
    register values, then for a vertex shader the index inputs and the vertex elements,
    for a pixel shader SQ_INTERPOLATOR_CNTL and the outputs; then the interpolators.
    ``layout`` says where the container version keeps the first words.

    A vertex element's bits 0-11 are its fetch's slot, 12-15 its usage, 16-19 its usage
    index; an interpolator's bits 0-3 are its usage index, 4-7 its usage, 8-11 its
    register, 12-15 its components.  An index input (usage 9) has the usage index in
    bits 0-3, the register in bit 8 and the components from bit 9 on: the three
    compiler listings pair ``0x290`` with ``dcl_index r0.x``, ``0xE90`` with
    ``dcl_index r0.xyz`` and ``0x391`` with ``dcl_index1 r1.x``."""
    header = reader.words(shader_at, SHADER_HEADER_WORDS, "shader header")
    count = (header[layout.interpolator_count] >> 5) & 0x1F
    registers = header[layout.program_cntl], header[layout.program_cntl + 1]
    at = shader_at + 4 * SHADER_HEADER_WORDS
    elements: list[Semantic] = []
    indices: list[Semantic] = []
    if shader_type == "vertex":
        config = ProgramConfig(*registers)
        skip, element_count = reader.words(at, 2, "vertex shader header")
        at += 4 * layout.vertex_counts
        for i, word in enumerate(reader.words(at, skip, "index inputs")):
            if (word >> 4) & 0xF != INDEX_USAGE or word >> 13:
                raise ContainerError(f"0x{word:X} is not an index input declaration",
                                     offset=at + 4 * i, field=f"index_input[{i}]")
            indices.append(Semantic("INDEX", word & 0xF, register=(word >> 8) & 1,
                                    mask=(word >> 9) & 0xF))
        at += 4 * skip
        for i, word in enumerate(reader.words(at, element_count, "vertex elements")):
            usage = _usage((word >> 12) & 0xF, f"vertex_element[{i}]", at + 4 * i)
            elements.append(Semantic(usage, (word >> 16) & 0xF, slot=word & 0xFFF))
        at += 4 * element_count
    else:
        interpolator_cntl, outputs = reader.words(at, 2, "pixel shader header")
        config = ProgramConfig(*registers, interpolator_cntl, outputs)
        at += 4 * 2
    interpolators = []
    for i, word in enumerate(reader.words(at, count, "interpolators")):
        usage = _usage((word >> 4) & 0xF, f"interpolator[{i}]", at + 4 * i)
        register = (word >> 8) & 0xF
        centroid = shader_type == "fragment" and config.centroid(register)
        interpolators.append(Semantic(usage, word & 0xF, register=register,
                                      mask=(word >> 12) & 0xF, centroid=centroid))
    return _Declarations(tuple(elements), tuple(interpolators), tuple(indices), config)


def _literals(reader: _Reader, offset: int, physical: int, shader_type: str) -> tuple[Literal, ...]:
    """The float4 definitions of the definition table at ``offset``: after five header
    words, pairs (first register << 16 | number of floats, offset of the values in the
    physical part) up to a zero word.  Pixel shaders number their float constants from
    256 here (a2xx-formats.md#xdk-container)."""
    base = 256 if shader_type == "fragment" else 0
    at = offset + 4 * DEFINITION_HEADER_WORDS
    literals = []
    while True:
        field = f"definition_table@0x{at:X}"
        (head,) = reader.words(at, 1, field)
        if not head:
            return tuple(literals)
        (values_at,) = reader.words(at + 4, 1, field)
        register, floats = head >> 16, head & 0xFFFF
        if register < base:
            raise ContainerError(
                f"float definition for c{register} below this shader type's first register "
                f"(c{base})",
                offset=at,
                field=field,
            )
        vectors = (floats + 3) // 4
        raw = reader.words(physical + values_at, 4 * vectors, f"{field} values")
        for i in range(vectors):
            values = struct.unpack(">4f", struct.pack(">4I", *raw[4 * i : 4 * i + 4]))
            literals.append(Literal(register - base + i, values))  # type: ignore[arg-type]
        at += 8


def _constant_table(reader: _Reader, offset: int) -> tuple[tuple[Constant, ...], str, str]:
    """The D3DX constant table at ``offset`` (a size word, then the table, whose offsets
    count from the table's start)."""
    base = offset + 4
    ctab = dict(zip(CTAB_FIELDS, reader.words(base, len(CTAB_FIELDS), "constant table"),
                    strict=True))
    end = base + ctab["size"]
    if ctab["size"] < 4 * len(CTAB_FIELDS) or end > len(reader.data):
        raise ContainerError(
            f"constant table size {ctab['size']} does not fit the file "
            f"(the table starts at 0x{base:X}, the file ends at 0x{len(reader.data):X})",
            offset=base,
            field="constant_table.size",
        )
    creator = reader.cstring(base + ctab["creator"], "constant_table.creator")
    target = reader.cstring(base + ctab["target"], "constant_table.target")
    constants = []
    for i in range(ctab["constants"]):
        at = base + ctab["constant_info"] + CONSTANT_INFO_SIZE * i
        field = f"constant_info[{i}]"
        name_at, = reader.words(at, 1, field)
        register_set, index, count, _ = reader.halves(at + 4, 4, field)
        type_at, _default = reader.words(at + 12, 2, field)
        if register_set >= len(REGISTER_SETS):
            raise ContainerError(
                f"register set {register_set} is none of {', '.join(REGISTER_SETS)}",
                offset=at + 4,
                field=f"{field}.register_set",
            )
        cls, kind, rows, columns, elements = reader.halves(
            base + type_at, 5, f"{field}.type_info"
        )
        constants.append(
            Constant(
                reader.cstring(base + name_at, f"{field}.name"),
                REGISTER_SETS[register_set],
                index,
                count,
                PARAMETER_CLASSES[cls] if cls < len(PARAMETER_CLASSES) else f"class{cls}",
                PARAMETER_TYPES[kind] if kind < len(PARAMETER_TYPES) else f"type{kind}",
                rows,
                columns,
                elements,
            )
        )
    return tuple(constants), creator, target


def constant_table_lines(constants: tuple[Constant, ...]) -> list[str]:
    """The constant table as aligned lines: name, registers, set, class, type and shape
    (``mvp    c4-c7     float4  matrix_rows float 4x4``)."""
    if not constants:
        return []
    width = max(len(c.name) for c in constants)
    lines = []
    for c in constants:
        last = f"-{REGISTER_PREFIX[c.register_set]}{c.index + c.count - 1}"
        registers = c.register + (last if c.count > 1 else "")
        shape = f"{c.rows}x{c.columns}" + (f"[{c.elements}]" if c.elements > 1 else "")
        lines.append(
            f"{c.name:<{width}}  {registers:<9} {c.register_set:<7} "
            f"{c.parameter_class} {c.parameter_type} {shape}"
        )
    return lines


def literal_line(literal: Literal) -> str:
    """``def c252 = 0, 1, 0.5, 2``."""
    return f"def c{literal.register} = " + ", ".join(f"{v:g}" for v in literal.values)


def semantic_lines(
    elements: tuple[Semantic, ...], interpolators: tuple[Semantic, ...]
) -> list[str]:
    """``vfetch at slot 2 reads POSITION0`` and ``interpolator r1 is TEXCOORD0`` lines."""
    lines = [f"vfetch at slot {e.slot} reads {e.name}" for e in elements]
    return lines + [f"interpolator r{i.register} is {i.name}" for i in interpolators]
