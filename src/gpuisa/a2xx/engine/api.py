"""``run_vertex`` and ``run_fragment``: run a shader on a batch of invocations."""

from __future__ import annotations

import operator
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ...errors import InputError
from .. import isa
from ..containers import Semantic
from . import inputs
from .attributes import VertexAttribute, bind_attributes
from .config import EmulatorConfig
from .control import ControlFlow, Observer
from .inputs import Constants
from .loader import load_shader
from .results import Alloc, FragmentResult, ShaderResult, VertexResult
from .state import BatchState

#: CF clauses a group of invocations may execute before the run is reported as a hang.
DEFAULT_MAX_STEPS = 1 << 16

Words = Iterable[int] | bytes
ArrayMap = Mapping[Any, npt.ArrayLike]


def resolve_config(target: str, config: EmulatorConfig | None) -> EmulatorConfig:
    """The configuration a run uses: ``config`` if given, else ``target``'s preset."""
    if config is None:
        return EmulatorConfig.for_target(target)
    if not isinstance(config, EmulatorConfig):
        raise InputError(f"config must be an EmulatorConfig, not {type(config).__name__}")
    return config


def _constants(
    float_constants: object,
    bool_constants: object,
    loop_constants: object,
    vertex_buffers: object,
    fetch_constants: object,
    textures: object,
) -> Constants:
    return Constants(
        inputs.float_constants(float_constants),
        inputs.bool_constants(bool_constants),
        inputs.loop_constants(loop_constants),
        inputs.bind_vertex_buffers(vertex_buffers, fetch_constants),
        inputs.textures(textures),
    )


def _load_registers(state: BatchState, registers: ArrayMap | None, what: str) -> None:
    if registers is None:
        return
    if not isinstance(registers, Mapping):
        raise InputError(f"{what} must be a mapping of registers (0-63 or 'R0'-'R63') to arrays")
    for key, value in registers.items():
        index = inputs.register_index(key, what)
        state.temp(index)[:] = inputs.lane_rows(value, state.count, f"{what}[{key!r}]")


def _max_steps(value: object) -> int:
    try:
        steps = operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        steps = 0
    if isinstance(value, bool) or steps < 1:
        raise InputError(f"max_steps must be a positive integer, not {value!r}")
    return steps


def _execute(
    words: Words,
    state: BatchState,
    config: EmulatorConfig,
    max_steps: object,
    result_type: type[ShaderResult],
    observer: Observer | None = None,
) -> Any:
    shader = load_shader(words, config)
    steps = _max_steps(max_steps)
    if observer is not None:
        observer.start(state)
    if state.count:
        with np.errstate(all="ignore"):
            ControlFlow(shader, state, config, steps, observer).run()

    def rows(bank: dict[int, np.ndarray]) -> dict[int, np.ndarray]:
        return {n: np.ascontiguousarray(bank[n].T) for n in sorted(bank)}

    return result_type(
        exports=rows(state.exports),
        registers=rows(state.temps),
        killed=state.killed,
        predicate=state.p0,
        address=state.a0,
        previous_scalar=state.ps,
        allocs=tuple(
            Alloc(index, isa.AllocBuffer(buffer), size)
            for index, buffer, size in sorted(state.allocs)
        ),
        unsupported_fetches=tuple(sorted(state.unsupported_fetches)),
    )


def _vertex_count(count: object, indices: object, registers: object) -> int:
    if count is not None:
        try:
            n = operator.index(count)  # type: ignore[arg-type]
        except TypeError:
            n = -1
        if isinstance(count, bool) or n < 0:
            raise InputError(f"count must be a non-negative integer, not {count!r}")
        return n
    if indices is not None:
        return len(np.atleast_1d(np.asarray(indices)))
    if isinstance(registers, Mapping):
        for value in registers.values():
            shape = np.shape(value)
            if len(shape) == 2:
                return shape[0]
    raise InputError("give the number of vertices (count), their indices, or registers")


def run_vertex(
    words: Words,
    count: int | None = None,
    *,
    indices: npt.ArrayLike | None = None,
    vertex_buffers: Mapping[Any, bytes | np.ndarray] | None = None,
    fetch_constants: Mapping[int, inputs.VertexFetchConstant | int | str] | None = None,
    float_constants: npt.ArrayLike | Mapping[int, npt.ArrayLike] | None = None,
    bool_constants: Iterable[bool] | Mapping[int, bool] | None = None,
    loop_constants: Iterable[Any] | Mapping[int, Any] | None = None,
    textures: Mapping[int, Any] | None = None,
    registers: ArrayMap | None = None,
    attributes: Mapping[str, npt.ArrayLike | VertexAttribute] | None = None,
    elements: Sequence[Semantic] = (),
    target: str = "adreno",
    config: EmulatorConfig | None = None,
    max_steps: int = DEFAULT_MAX_STEPS,
    observer: Observer | None = None,
) -> VertexResult:
    """Run a vertex shader once per vertex, all vertices at once.

    Each invocation starts with its vertex index (``indices``, default 0..count-1) in
    R0.x and every other register zero; ``registers`` (register -> (count, 4) array or
    one vec4) is loaded afterwards.  Vertex fetches read ``vertex_buffers`` (key -> bytes
    or an array's raw memory) through ``fetch_constants`` (fetch slot = CONST(i, s) as
    3 i + s -> :class:`VertexFetchConstant` or buffer key; default: each integer buffer
    key is the slot it is bound to).  ``float_constants`` are C0-C511 ((K, 4) array or
    index -> vec4), ``bool_constants`` b0-b255, ``loop_constants`` i0-i31
    (:class:`LoopConstant`, (count, start, step) or the register value).  ``target``
    picks the :class:`EmulatorConfig` preset unless ``config`` is given; ``observer``
    is told of every clause and instruction (:mod:`.trace` uses it).

    An XDK container's vertex shader reads its vertex elements through fetch templates:
    give ``elements`` (the container's ``vertex_elements``) and ``attributes``, semantic
    (``"POSITION"``, ``"TEXCOORD1"``) -> (N, 1-4) data or :class:`VertexAttribute`, and
    the templates are patched to read them (:func:`.attributes.bind_attributes`).
    """
    cfg = resolve_config(target, config)
    if attributes is not None or elements:
        bound = bind_attributes(words, elements, attributes, cfg, count=count,
                                indices=indices, vertex_buffers=vertex_buffers,
                                fetch_constants=fetch_constants)
        words, count = bound.words, bound.count
        vertex_buffers, fetch_constants = bound.vertex_buffers, bound.fetch_constants
    n = _vertex_count(count, indices, registers)
    state = BatchState(n, _constants(float_constants, bool_constants, loop_constants,
                                     vertex_buffers, fetch_constants, textures))
    index = np.arange(n) if indices is None else np.asarray(indices)
    if index.shape != (n,) or index.dtype.kind not in "iuf":
        raise InputError(f"indices must be {n} numbers, got shape {index.shape}")
    if n:
        state.temp(0)[0] = index.astype(np.float32)
    _load_registers(state, registers, "registers")
    return _execute(words, state, cfg, max_steps, VertexResult, observer)  # type: ignore[no-any-return]


def _interpolant_map(interpolants: object) -> tuple[int, dict[Any, npt.ArrayLike]]:
    if isinstance(interpolants, Mapping):
        sizes = {np.shape(v)[0] for v in interpolants.values() if len(np.shape(v)) == 2}
        if len(sizes) != 1:
            raise InputError("interpolants must hold (N, 4) arrays of one common length N")
        return sizes.pop(), dict(interpolants)
    try:
        array = np.asarray(interpolants, dtype=np.float32)
    except (TypeError, ValueError) as exc:
        raise InputError(f"interpolants must be numbers: {exc}") from None
    if array.ndim == 2 and array.shape[1] == 4:
        return array.shape[0], {0: array}
    if array.ndim == 3 and array.shape[2] == 4 and array.shape[1] <= isa.TEMP_REGISTERS:
        return array.shape[0], {k: array[:, k] for k in range(array.shape[1])}
    raise InputError(
        f"interpolants must have shape (N, 4) or (N, k, 4), or be a mapping of registers "
        f"to (N, 4) arrays; got {array.shape}"
    )


def run_fragment(
    words: Words,
    interpolants: npt.ArrayLike | ArrayMap,
    *,
    float_constants: npt.ArrayLike | Mapping[int, npt.ArrayLike] | None = None,
    bool_constants: Iterable[bool] | Mapping[int, bool] | None = None,
    loop_constants: Iterable[Any] | Mapping[int, Any] | None = None,
    textures: Mapping[int, Any] | None = None,
    vertex_buffers: Mapping[Any, bytes | np.ndarray] | None = None,
    fetch_constants: Mapping[int, inputs.VertexFetchConstant | int | str] | None = None,
    target: str = "adreno",
    config: EmulatorConfig | None = None,
    max_steps: int = DEFAULT_MAX_STEPS,
    observer: Observer | None = None,
) -> FragmentResult:
    """Run a pixel shader once per fragment, all fragments at once.

    The interpolated parameters arrive in temp registers: ``interpolants`` is an
    (N, 4) array (R0), an (N, k, 4) array (R0..Rk-1) or a mapping of registers to
    (N, 4) arrays (for example to place gl_FragCoord where PARAM_GEN puts it).  The
    other arguments are those of :func:`run_vertex`.  ``textures`` maps texture fetch
    constants to :class:`Texture` s (or (height, width, 4) texel arrays).
    """
    cfg = resolve_config(target, config)
    n, registers = _interpolant_map(interpolants)
    state = BatchState(n, _constants(float_constants, bool_constants, loop_constants,
                                     vertex_buffers, fetch_constants, textures))
    _load_registers(state, registers, "interpolants")
    return _execute(words, state, cfg, max_steps, FragmentResult, observer)  # type: ignore[no-any-return]
