"""Running cases on gpuisa's reference engine (:mod:`gpuisa.a2xx.engine`): cases that share
a program and its constants run as one batch, one invocation row per case row, so the
whole suite takes a few hundred engine calls."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import fields
from typing import Any

import numpy as np

from ..engine import EmulatorConfig, Texture, VertexFetchConstant, run_fragment, run_vertex
from ..engine.trace import TraceStep, trace
from .model import Case, Result, Row

#: The EmulatorConfig switches, in the order they are reported.
SWITCHES = tuple(f.name for f in fields(EmulatorConfig))


def config(target: str, alternative: str = "") -> EmulatorConfig:
    """The preset of ``target`` with an alternative's ``switch=value`` applied."""
    if not alternative:
        return EmulatorConfig.for_target(target)
    name, _, text = alternative.partition("=")
    current = getattr(EmulatorConfig.for_target(target), name)
    value: object = int(text) if isinstance(current, int) and not isinstance(
        current, bool) else text
    if isinstance(current, bool):
        value = text == "True"
    return EmulatorConfig.for_target(target, **{name: value})


def floats(rows: Iterable[Row]) -> np.ndarray:
    """(n, 4) float32 array of bit-pattern rows."""
    return np.asarray(list(rows), dtype=np.uint32).reshape(-1, 4).view(np.float32)


def bit_rows(values: np.ndarray) -> tuple[Row, ...]:
    return tuple(tuple(int(v) for v in row)  # type: ignore[misc]
                 for row in np.ascontiguousarray(values, dtype=np.float32).view(np.uint32))


def _arguments(case: Case, registers: dict[int, np.ndarray], cfg: EmulatorConfig
               ) -> dict[str, Any]:
    buffers = {f"slot{b.slot}": np.frombuffer(b.data, dtype=np.uint8) for b in case.vertex_buffers}
    kwargs: dict[str, Any] = {
        "float_constants": {i: floats([row])[0] for i, row in case.float_constants},
        "bool_constants": dict.fromkeys(case.bool_constants, True),
        "loop_constants": dict(case.loop_constants),
        "vertex_buffers": buffers,
        "fetch_constants": {b.slot: VertexFetchConstant(f"slot{b.slot}", endian=b.endian)
                            for b in case.vertex_buffers},
        "textures": {t.index: Texture(floats(t.texels).reshape(t.height, t.width, 4),
                                      t.filter, t.address) for t in case.textures},
        "config": cfg,
    }
    if case.shader == "vertex":
        count = len(next(iter(registers.values())))
        kwargs |= {"count": count, "registers": registers}
    else:
        kwargs["interpolants"] = registers
    return kwargs


def _registers(cases: Sequence[Case]) -> dict[int, np.ndarray]:
    """Every register any case gives, rows concatenated (zero where a case leaves it)."""
    names = sorted({n for case in cases for n, _ in case.registers} | {0})
    out = {}
    for n in names:
        parts = []
        for case in cases:
            rows = dict(case.registers).get(n)
            parts.append(floats(rows) if rows else np.zeros((case.invocations, 4), np.float32))
        out[n] = np.concatenate(parts)
    return out


def run_batch(cases: Sequence[Case], cfg: EmulatorConfig) -> list[Result]:
    """The results of ``cases`` (which share :attr:`Case.program_key`) under ``cfg``."""
    head = cases[0]
    kwargs = _arguments(head, _registers(cases), cfg)
    if head.shader == "vertex":
        result = run_vertex(list(head.words), **kwargs)
    else:
        result = run_fragment(list(head.words), **kwargs)
    out, start = [], 0
    for case in cases:
        stop = start + case.invocations
        exports = tuple((n, bit_rows(v[start:stop])) for n, v in sorted(result.exports.items()))
        out.append(Result(exports, tuple(bool(k) for k in result.killed[start:stop])))
        start = stop
    return out


def batches(cases: Iterable[Case]) -> Iterator[list[Case]]:
    """``cases`` grouped by program key, in order of first appearance."""
    groups: dict[tuple, list[Case]] = {}
    for case in cases:
        groups.setdefault(case.program_key, []).append(case)
    yield from groups.values()


def case_trace(case: Case, target: str, invocation: int = 0) -> tuple[TraceStep, ...]:
    """gpuisa's trace of one invocation of ``case`` on ``target``."""
    kwargs = _arguments(case, _registers([case]), config(target))
    return trace(list(case.words), engine_shader(case), invocation=invocation, **kwargs)


def engine_shader(case: Case) -> str:
    """The engine's and disassembler's name of the case's shader type."""
    return "vertex" if case.shader == "vertex" else "fragment"
