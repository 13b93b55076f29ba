"""Feeding a mesh to a vertex shader's vertex fetches (a2xx-render.md#vertex-fetch,
a2xx-render.md#xdk-semantics).

The vertex fetches of the program say where each attribute is read: the fetch constant
(slot ``3 i + s`` of ``CONST(i, s)``), the stride and offset (in the target's address
unit) and the format.  Each fetch is given one mesh attribute, by default in program
order position, colour, normal, texture coordinates (fetches reading the same slot and
offset share one), or as ``--attr R<n>=ATTRIBUTE`` says for the fetch that writes
register ``R<n>``.  The attribute is then written in the fetch's own format at its
offset of each vertex's element of a buffer bound to its slot, so that interleaved
layouts (several fetches on one slot) are filled as the shader expects.

An XDK container's vertex shader reads templates that the runtime completes from the
vertex declaration: :func:`semantic_inputs` picks the mesh attribute of each semantic
its vertex elements declare, and the engine's ``bind_attributes`` completes them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ...errors import InputError
from ...render.mesh import ATTRIBUTES, Mesh
from .. import isa
from ..encoding import VertexFetch
from ..engine import EmulatorConfig, VertexFetchConstant
from ..engine.attributes import semantic_name
from ..engine.fetch import fetch_slot, vertex_offset
from ..engine.loader import load_shader
from ..isa import VertexDataKind

#: The attributes the fetches take in program order by default: the order of Direct3D 9's
#: flexible vertex format (position, normal, diffuse colour, texture coordinates), in
#: which Xbox 360 vertex declarations usually list them.
DEFAULT_ORDER = ("position", "normal", "color", "texcoord")
#: The Direct3D declaration usages (an XDK container's vertex elements) that name a mesh
#: attribute.
USAGES = {"POSITION": "position", "POSITIONT": "position", "NORMAL": "normal",
          "COLOR": "color", "TEXCOORD": "texcoord"}
#: The components of each mesh attribute that a semantic reads: what a vertex
#: declaration of the mesh would hold (D3DDECLTYPE_FLOAT3 position and normal, FLOAT2
#: texture coordinates, FLOAT4 colour); the runtime's completion gives the missing ones
#: 0 (y, z) and 1 (w), a2xx-formats.md#xdk-vertex-input.
COMPONENTS = {"position": 3, "normal": 3, "texcoord": 2, "color": 4}
_PLURALS = {"color": "vertex colours", "texcoord": "texture coordinates"}


@dataclass(frozen=True, slots=True)
class FetchUse:
    """One vertex fetch of the program: where it reads (bytes) and how."""

    slot: int
    stride: int
    offset: int
    register: int
    instr: VertexFetch
    program_slot: int  # where the fetch instruction is: what vertex elements name


def vertex_fetches(words: Sequence[int], config: EmulatorConfig) -> list[FetchUse]:
    """The program's vertex fetches in program order (a mini fetch reads the slot and
    stride of the full fetch before it)."""
    shader = load_shader(words, config)
    uses: list[FetchUse] = []
    last: FetchUse | None = None
    for index in sorted(shader.blocks):
        for step in shader.blocks[index]:
            instr = step.instr
            if not isinstance(instr, VertexFetch):
                continue
            offset = vertex_offset(instr, config) * config.address_bytes
            if config.mini_fetch and instr.is_mini_fetch and last is not None:
                use = FetchUse(last.slot, last.stride, offset, instr.dst_reg, instr,
                               step.slot)
            else:
                use = FetchUse(fetch_slot(instr), instr.stride * config.address_bytes, offset,
                               instr.dst_reg, instr, step.slot)
                last = use
            uses.append(use)
    return uses


def assign(uses: Sequence[FetchUse], overrides: Mapping[str, str] | None = None,
           declared: Mapping[int, str] | None = None) -> list[str]:
    """The mesh attribute each fetch reads; ``declared`` maps a fetch instruction's
    program slot to the usage an XDK container declares for it ("POSITION", ...)."""
    given: dict[int, str] = {}
    for key, attribute in (overrides or {}).items():
        _check_attribute(key, attribute)
        register = _register(key)
        if register is None or register not in {u.register for u in uses}:
            fetched = ", ".join(sorted({f"R{u.register}" for u in uses},
                                       key=lambda r: int(r[1:]))) or "none"
            what = (" (a semantic names what an XDK container's vertex elements declare, "
                    "and this vertex shader declares none)" if register is None else "")
            raise InputError(f"--attr {key}: no vertex fetch of the vertex shader writes "
                             f"{key!r}{what}; its fetches write {fetched}: --attr "
                             f"RN=ATTRIBUTE")
        given[register] = attribute
    places: dict[tuple[int, int], tuple[str, FetchUse]] = {}
    out = []
    for use in uses:
        place = (use.slot, use.offset)
        if place in places:
            attribute, first = places[place]
            if given.get(use.register, attribute) != attribute:
                raise InputError(
                    f"--attr R{use.register}={given[use.register]}: the vertex fetch "
                    f"writing R{use.register} reads the bytes the one writing "
                    f"R{first.register} reads ({attribute}): {_where(use)}")
        else:
            usage = USAGES.get((declared or {}).get(use.program_slot, ""))
            attribute = given.get(use.register) or usage or DEFAULT_ORDER[
                min(len(places), len(DEFAULT_ORDER) - 1)]
            places[place] = (attribute, use)
        out.append(attribute)
    return out


def semantic_inputs(mesh: Mesh, semantics: Sequence[str],
                    overrides: Mapping[str, str] | None = None) -> dict[str, np.ndarray]:
    """The rows of each of ``semantics`` (``POSITION0``, ``TEXCOORD1``: what an XDK
    vertex shader's fetch templates read) from the mesh attribute its usage names, every
    usage index alike (a mesh has one set of each), or the one ``overrides`` maps it to
    (``{"TEXCOORD1": "normal"}``, as ``--attr`` gives)."""
    reads = ", ".join(semantics) or "nothing"
    given: dict[str, str] = {}
    for key, attribute in (overrides or {}).items():
        _check_attribute(key, attribute)
        if _register(key) is not None:
            raise InputError(f"--attr {key}: the vertex shader is an XDK container, whose "
                             f"vertex fetches read semantics ({reads}): name the semantic, "
                             f"--attr SEMANTIC={attribute}")
        name = semantic_name(key.strip(), f"--attr {key}")
        if name not in semantics:
            raise InputError(f"--attr {key}: the vertex shader reads {reads}, not {name}")
        given[name] = attribute
    available = [a for a in ATTRIBUTES if a in ("position", "normal")
                 or getattr(mesh, f"{a}s") is not None]
    inputs = {}
    for name in semantics:
        attribute = given.get(name) or USAGES.get(name.rstrip("0123456789"))
        if attribute not in available:
            lacks = (f"the mesh has no {_PLURALS[attribute]} for" if attribute
                     else "no mesh attribute stands for")
            other = f", or give a --mesh with {_PLURALS[attribute]}" if attribute else ""
            raise InputError(f"the vertex shader reads {reads}; {lacks} {name}: feed it one "
                             f"the mesh has ({', '.join(available)}) with --attr "
                             f"{name}=ATTRIBUTE{other}")
        inputs[name] = mesh.attribute(attribute)[:, :COMPONENTS[attribute]]
    return inputs


def _check_attribute(key: str, attribute: str) -> None:
    if attribute not in ATTRIBUTES:
        raise InputError(f"--attr {key}={attribute}: unknown mesh attribute "
                         f"{attribute!r}; use one of {', '.join(ATTRIBUTES)}")


def _register(key: str) -> int | None:
    """N of an ``--attr`` key ``RN``; None for anything else."""
    name = key.strip().upper()
    return int(name[1:]) if name[:1] == "R" and name[1:].isdigit() else None


def _where(use: FetchUse) -> str:
    group, select = divmod(use.slot, isa.VERTEX_CONSTANTS_PER_GROUP)
    mini = (" (on xenos, a fetch with d1.30 set is a mini fetch: it reads the buffer and "
            "stride of the full fetch before it, and Mesa's assembler sets that bit on "
            "every fetch after the first)" if use.instr.is_mini_fetch else "")
    return f"CONST({group}, {select}) at byte offset {use.offset}{mini}"


def bind_mesh(mesh: Mesh, uses: Sequence[FetchUse], attributes: Sequence[str]
              ) -> tuple[dict[int, bytes], dict[int, VertexFetchConstant]]:
    """Vertex buffers (one per fetch constant slot) and their fetch constants."""
    count = len(mesh.positions)
    layouts: dict[int, list[tuple[FetchUse, str]]] = {}
    for use, attribute in zip(uses, attributes, strict=True):
        layouts.setdefault(use.slot, []).append((use, attribute))
    buffers: dict[int, bytes] = {}
    for slot, fetches in layouts.items():
        encoded = []
        for use, attribute in fetches:
            try:
                values = mesh.attribute(attribute)
            except InputError as error:
                raise InputError(f"the vertex fetch writing R{use.register} reads "
                                 f"{attribute}: {error} (map another with --attr "
                                 f"R{use.register}=ATTRIBUTE)") from None
            encoded.append((use, encode(values, use.instr)))
        element = max(use.offset + data.shape[1] for use, data in encoded)
        stride = fetches[0][0].stride or element
        for use, data in encoded:
            if use.stride and data.shape[1] > use.stride:
                raise InputError(f"the vertex fetch writing R{use.register} reads "
                                 f"{data.shape[1]} bytes per vertex but its stride is "
                                 f"{use.stride} bytes: {_where(use)}")
        memory = np.zeros(max(count - 1, 0) * stride + element, dtype=np.uint8)
        for use, data in encoded:
            rows = np.arange(count) * stride + use.offset
            memory[rows[:, None] + np.arange(data.shape[1])] = data
        buffers[slot] = memory.tobytes()
    return buffers, {slot: VertexFetchConstant(slot) for slot in buffers}


def encode(values: np.ndarray, instr: VertexFetch) -> np.ndarray:
    """``(V, 4)`` attribute values as the ``(V, bytes)`` little-endian elements that
    ``instr``'s format, sign and normalisation read back (a2xx-isa.md#formats):
    components the format lacks are dropped, integers rounded to nearest and clamped."""
    info = isa.VERTEX_FORMAT_INFO[isa.SurfaceFormat(instr.format)]
    exp_width = isa.VERTEX_FETCH_LAYOUT["exp_adjust_all"].width
    values = np.ldexp(values.astype(np.float64),
                      -isa.sign_extend(instr.exp_adjust_all, exp_width))
    dwords = np.zeros((len(values), info.dwords), dtype=np.uint32)
    for i, (dword, lsb, width) in enumerate(info.components):
        value = values[:, i]
        if info.kind is VertexDataKind.FLOAT:
            dwords[:, dword] = value.astype(np.float32).view(np.uint32)
            continue
        if info.kind is VertexDataKind.HALF:
            bits = value.astype(np.float16).view(np.uint16).astype(np.uint32)
        else:
            bits = _integer(value, width, instr)
        dwords[:, dword] |= bits << np.uint32(lsb)
    return dwords.astype("<u4").view(np.uint8).reshape(len(values), 4 * info.dwords)


def _integer(value: np.ndarray, width: int, instr: VertexFetch) -> np.ndarray:
    """Bits of an integer component that the fetch reads back as ``value``."""
    signed = bool(instr.format_comp_all)
    normalized = not instr.num_format_all
    if normalized and signed and instr.signed_rf_mode_all:
        value = (value * ((1 << width) - 1) - 1) / 2  # GL: (v + 0.5) * 2 / (2^w - 1)
    elif normalized and signed:
        value = value * ((1 << (width - 1)) - 1)
    elif normalized:
        value = value * ((1 << width) - 1)
    low, high = (-(1 << (width - 1)), (1 << (width - 1)) - 1) if signed else (0, (1 << width) - 1)
    raw = np.clip(np.rint(np.nan_to_num(value)), low, high).astype(np.int64)
    return (raw & ((1 << width) - 1)).astype(np.uint32)
