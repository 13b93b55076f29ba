"""Vertex data by semantic for an XDK container's vertex shader
(a2xx-formats.md#xdk-vertex-input).

The XDK compiler writes every vertex fetch that reads a declared vertex element as a
template (format FMT_1_REVERSE, stride 0, offset 0); the Direct3D runtime fills in the
format, stride, offset, number format and fetch constant from the vertex declaration when
the shader is bound.  :func:`bind_attributes` does the same for per-semantic arrays: each
semantic becomes a tightly packed buffer of its own, read through a fetch constant slot of
its own, and each template that reads it is patched into a full fetch of that buffer.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from ...errors import InputError
from .. import isa
from ..containers import Semantic
from ..containers.xdk import USAGES
from ..encoding import VertexFetch, encode, slot_to_dwords
from ..program import Program, read_program
from .config import EmulatorConfig
from .fetch import vertex_offset
from .inputs import (
    VertexFetchConstant,
    buffer_map,
    default_fetch_constants,
    fetch_constant_map,
)
from .loader import as_words, fetch_slots

_SEMANTIC = re.compile(r"([A-Za-z]+?)(\d*)")
# Digits of a semantic's index: D3DDECLUSAGE indices are 0-15 (and int() refuses thousands).
_INDEX_DIGITS = 4
_ZERO = isa.FETCH_DST_CHARS.index("0")
_ONE = isa.FETCH_DST_CHARS.index("1")
_W = isa.FETCH_DST_CHARS.index("w")
_KINDS = {"f": isa.VertexDataKind.FLOAT, "i": isa.VertexDataKind.INTEGER,
          "u": isa.VertexDataKind.INTEGER}


@dataclass(frozen=True, slots=True)
class VertexAttribute:
    """One semantic's per-vertex data with its number format: ``data`` is (N, 1-4); float
    data is fetched as float32, integer data (uint8, int8, (u)int16, (u)int32) as the
    Xenos format of that width and component count (uint8 x 4: FMT_8_8_8_8, D3DCOLOR's
    bytes), scaled to 0..1 (-1..1 if signed) when ``normalized``."""

    data: npt.ArrayLike
    normalized: bool = True


@dataclass(frozen=True, slots=True)
class AttributeBinding:
    """What a run needs after :func:`bind_attributes`: the patched program, the vertex
    count, and the buffers and fetch constants with the semantics' own added."""

    words: tuple[int, ...]
    count: int | None
    vertex_buffers: dict[Any, Any]
    fetch_constants: dict[Any, Any] | None


@dataclass(frozen=True, slots=True)
class _Stream:
    """A semantic's buffer: its bytes and how a fetch unpacks them."""

    memory: bytes
    rows: int
    components: int
    format: isa.SurfaceFormat
    signed: bool
    normalized: bool
    stride: int  # bytes


def semantic_name(name: object, where: str = "attributes") -> str:
    """``POSITION0`` for "POSITION", "position0" or "POSITION0"."""
    match = _SEMANTIC.fullmatch(name) if isinstance(name, str) else None
    if match is None or match[1].upper() not in USAGES or len(match[2]) > _INDEX_DIGITS:
        shown = repr(name) if len(repr(name)) <= 40 else repr(name)[:40] + "..."
        raise InputError(
            f"{where}: {shown} is not a semantic (a D3DDECLUSAGE name and an optional "
            f"index of up to {_INDEX_DIGITS} digits: {', '.join(USAGES)})"
        )
    return f"{match[1].upper()}{int(match[2] or 0)}"


def is_semantic(name: str) -> bool:
    """Whether ``name`` is a semantic written in capitals (``TEXCOORD1``): what marks an
    array of an inputs ``.npz`` as a semantic's data rather than a vertex buffer."""
    match = _SEMANTIC.fullmatch(name)
    return match is not None and match[1] in USAGES


def _format_for(dtype: np.dtype, components: int, where: str) -> isa.SurfaceFormat:
    """The Xenos vertex format holding ``components`` values of ``dtype`` each."""
    kind = _KINDS.get(dtype.kind)
    if kind is isa.VertexDataKind.FLOAT and dtype.itemsize == 2:
        kind = isa.VertexDataKind.HALF
    for fmt in sorted(isa.VERTEX_FORMATS):
        info = isa.VERTEX_FORMAT_INFO[fmt]
        if info.kind is kind and len(info.components) == components and all(
            width == 8 * dtype.itemsize for _, _, width in info.components
        ):
            return fmt
    raise InputError(
        f"{where}: no Xenos vertex format holds {components} component(s) of {dtype.name}; "
        "give float numbers (1-4 components), 8-bit integers (4) or 16-bit integers (2 or 4)"
    )


def _stream(value: object, where: str) -> _Stream:
    normalized = True
    if isinstance(value, VertexAttribute):
        value, normalized = value.data, value.normalized
        if not isinstance(normalized, bool):
            raise InputError(f"{where}: normalized must be true or false")
    try:
        array = value if isinstance(value, np.ndarray) else np.asarray(value, np.float32)
    except (TypeError, ValueError, OverflowError) as error:
        raise InputError(f"{where}: {error}") from None
    if array.dtype.kind not in _KINDS or (array.dtype.kind != "f" and array.dtype.itemsize > 4):
        raise InputError(f"{where}: {array.dtype} data has no vertex format")
    if array.dtype.kind == "f" and array.dtype.itemsize != 2:
        array = array.astype(np.float32)
    if array.ndim != 2 or not 1 <= array.shape[1] <= 4:
        raise InputError(
            f"{where}: give one row of 1-4 components per vertex, not shape {array.shape}"
        )
    floating = array.dtype.kind == "f"
    return _Stream(
        memory=np.ascontiguousarray(array, array.dtype.newbyteorder("<")).tobytes(),
        rows=array.shape[0],
        components=array.shape[1],
        format=_format_for(array.dtype, array.shape[1], where),
        # As the runtime patches float data: signed, numbers not normalised.
        signed=floating or array.dtype.kind == "i",
        normalized=normalized and not floating,
        stride=array.shape[1] * array.dtype.itemsize,
    )


def _expand_swizzle(swizzle: int, components: int) -> int:
    """The destination swizzle with every selector of a component the data lacks replaced
    by the constant the runtime gives it: 0.0 for y and z, 1.0 for w."""
    out = 0
    for c in range(4):
        selector = (swizzle >> (3 * c)) & 7
        if components <= selector <= _W:
            selector = _ONE if selector == _W else _ZERO
        out |= selector << (3 * c)
    return out


def _patched(fetch: VertexFetch, stream: _Stream, slot: int, config: EmulatorConfig) -> int:
    group, sel = divmod(slot, isa.VERTEX_CONSTANTS_PER_GROUP)
    patched = replace(
        fetch,
        format=stream.format,
        stride=stream.stride // config.address_bytes,
        offset=0,
        format_comp_all=int(stream.signed),
        num_format_all=int(not stream.normalized),
        signed_rf_mode_all=0,
        is_mini_fetch=0,  # every semantic has its own buffer: no fetch shares an address
        const_index=group,
        const_index_sel=sel,
        dst_swiz=_expand_swizzle(fetch.dst_swiz, stream.components),
    )
    return encode(patched)


def _is_template(fetch: VertexFetch, config: EmulatorConfig) -> bool:
    return fetch.format == isa.SurfaceFormat.FMT_1_REVERSE and fetch.stride == 0 \
        and vertex_offset(fetch, config) == 0


def _semantics(elements: object) -> tuple[Semantic, ...]:
    """``elements`` checked to be a container's vertex elements (None: none)."""
    if elements is None:
        return ()
    listed = isinstance(elements, Iterable) and not isinstance(elements, str | bytes)
    records = tuple(elements) if listed else (elements,)
    for record in records:
        if not isinstance(record, Semantic):
            raise InputError(
                "elements must be a container's vertex elements (ShaderFile.vertex_elements: "
                f"Semantic records), not {type(record).__name__} {record!r:.40}"
            )
    return records


def _fetches(
    program: Program, elements: Sequence[Semantic], config: EmulatorConfig
) -> dict[str, list[tuple[int, VertexFetch]]]:
    """Semantic -> the (slot, fetch) of each vertex fetch the elements say reads it."""
    fetches = fetch_slots(program, config)
    out: dict[str, list[tuple[int, VertexFetch]]] = {}
    for element in elements:
        fetch = program.fetch(element.slot) if element.slot in fetches else None
        if not isinstance(fetch, VertexFetch):
            raise InputError(
                f"the container's vertex element {element.name} names slot {element.slot}, "
                "which no EXEC clause runs as a vertex fetch"
            )
        out.setdefault(element.name, []).append((element.slot, fetch))
    return out


def _streams(
    attributes: object, declared: Mapping[str, list[tuple[int, VertexFetch]]],
    config: EmulatorConfig,
) -> dict[str, _Stream]:
    if not isinstance(attributes, Mapping):
        raise InputError("attributes must be a mapping of semantics to per-vertex arrays")
    streams: dict[str, _Stream] = {}
    for key, value in attributes.items():
        name = semantic_name(key)
        if name not in declared:
            raise InputError(
                f"attributes: the shader reads {', '.join(declared)}; it has no {name}"
            )
        if name in streams:
            raise InputError(f"attributes: {name} is given twice")
        done = [(s, f) for s, f in declared[name] if not _is_template(f, config)]
        if done:
            slot, fetch = done[0]
            fmt = getattr(fetch.format, "name", str(int(fetch.format)))  # undefined: a number
            raise InputError(
                f"attributes: the vertex fetch of {name} (slot {slot}) already has format "
                f"{fmt}: give its data with buffers and fetch constants instead"
            )
        streams[name] = _stream(value, f"attributes: {name}")
    missing = [n for n, fs in declared.items()
               if n not in streams and any(_is_template(f, config) for _, f in fs)]
    if missing:
        raise InputError(
            f"attributes: the shader reads {', '.join(declared)}; "
            f"{', '.join(missing)} {'is' if len(missing) == 1 else 'are'} missing"
        )
    return streams


def _vertex_count(streams: Mapping[str, _Stream], count: int | None,
                  indices: object) -> int | None:
    rows = {name: s.rows for name, s in streams.items()}
    if len(set(rows.values())) > 1:
        listed = ", ".join(f"{name} {n}" for name, n in rows.items())
        raise InputError(f"attributes: every semantic needs one row per vertex, not {listed}")
    vertices = next(iter(rows.values()), None)
    if indices is not None or vertices is None:
        return count
    if count is not None and count != vertices:
        raise InputError(
            f"count is {count}, but the attributes hold {vertices} vertices (give indices "
            "to fetch them in another order)"
        )
    return vertices


def _unbound_slots(taken: Iterable[object]) -> Iterable[int]:
    """Fetch constant slots for the semantics: the highest ones nothing else binds."""
    used = set(taken)
    return (s for s in range(isa.VERTEX_FETCH_SLOTS - 1, -1, -1) if s not in used)


def template_semantics(
    words: Iterable[int] | bytes, elements: Sequence[Semantic], config: EmulatorConfig
) -> tuple[str, ...]:
    """The semantics of ``elements`` that a vertex fetch template reads, in the order of
    the declaration: the ones :func:`bind_attributes` needs data for."""
    elements = _semantics(elements)
    if not elements:
        return ()
    declared = _fetches(read_program(tuple(as_words(words))), elements, config)
    return tuple(name for name, fetches in declared.items()
                 if any(_is_template(fetch, config) for _, fetch in fetches))


def bind_attributes(
    words: Iterable[int] | bytes,
    elements: Sequence[Semantic],
    attributes: Mapping[str, npt.ArrayLike | VertexAttribute] | None,
    config: EmulatorConfig,
    *,
    count: int | None = None,
    indices: object = None,
    vertex_buffers: object = None,
    fetch_constants: Mapping[Any, Any] | None = None,
) -> AttributeBinding:
    """Patch the vertex fetch templates of a container's vertex shader for per-semantic
    data.  ``elements`` are its vertex elements; ``attributes`` maps a semantic
    (``POSITION`` = ``POSITION0``, ``TEXCOORD1``) to (N, 1-4) data or a
    :class:`VertexAttribute`.  Every template must get data; a fetch that already has a
    format (a runtime patched it) is left as it is and reads ``vertex_buffers``."""
    words = tuple(as_words(words))
    elements = _semantics(elements)
    buffers = dict(buffer_map(vertex_buffers))
    if attributes is None:
        templates = template_semantics(words, elements, config)
        if templates:
            raise InputError(
                f"the vertex fetch of {templates[0]} is a template the Direct3D runtime fills "
                "in from the vertex declaration: give the data of each semantic as "
                "attributes (a2xx run --inputs: \"attributes\" in JSON, arrays named "
                "POSITION0, ... in .npz)"
            )
        return AttributeBinding(words, count, buffers, fetch_constants)
    if not elements:
        raise InputError(
            "attributes name vertex semantics, which only an XDK container declares; this "
            "shader has no vertex elements: give its vertex data as buffers and fetch "
            "constants (a2xx run --inputs \"buffers\", --constants \"fetch\")"
        )
    program = read_program(words)
    declared = _fetches(program, elements, config)
    streams = _streams(attributes, declared, config)
    constants = fetch_constant_map(default_fetch_constants(buffers) if fetch_constants is None
                                   else fetch_constants)
    slots = dict(zip(streams, _unbound_slots(constants), strict=False))
    if len(slots) < len(streams):
        raise InputError("fetch_constants: no fetch constant slot is left for the attributes")
    slot_words = list(program.slots)
    for name, stream in streams.items():
        if name in buffers:
            raise InputError(
                f"vertex_buffers: {name!r} is the name of the buffer of attribute {name}: "
                "rename the buffer"
            )
        buffers[name] = stream.memory
        constants[slots[name]] = VertexFetchConstant(name)
        for slot, fetch in declared[name]:
            slot_words[slot] = _patched(fetch, stream, slots[name], config)
    patched = tuple(w for s in slot_words for w in slot_to_dwords(s))
    return AttributeBinding(patched, _vertex_count(streams, count, indices), buffers, constants)


def bind_arguments(
    words: Iterable[int] | bytes, elements: Sequence[Semantic], config: EmulatorConfig,
    arguments: Mapping[str, Any],
) -> tuple[tuple[int, ...], dict[str, Any]]:
    """:func:`bind_attributes` for ``run_vertex`` keyword arguments: the patched program
    and the arguments without ``attributes``, with the semantics' buffers, fetch
    constants and vertex count."""
    rest = dict(arguments)
    bound = bind_attributes(
        words, elements, rest.pop("attributes", None), config, count=rest.get("count"),
        indices=rest.get("indices"), vertex_buffers=rest.get("vertex_buffers"),
        fetch_constants=rest.get("fetch_constants"),
    )
    rest |= {"count": bound.count, "vertex_buffers": bound.vertex_buffers,
             "fetch_constants": bound.fetch_constants}
    return bound.words, rest
