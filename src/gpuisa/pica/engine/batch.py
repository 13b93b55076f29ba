"""The batch engine: every instruction for all active lanes at once, with NumPy.

Lanes are processed in chunks of :data:`CHUNK_LANES`: memory stays bounded (a chunk's
registers are loaded from the state when first read and stored back once at the end)
and the working registers stay in the CPU cache.  Chunks can run on worker threads
(:func:`threads`).  Within a chunk, :mod:`.batch_runner` executes groups of lanes that
share their control state, exactly as the reference engine would, lane by lane; the
math is :mod:`.semantics` through :mod:`.batch_kernels`.

The run raises the error of the lowest-numbered failing lane, with the reference
engine's message; chunks after a failed lane are skipped.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .batch_kernels import RunContext
from .batch_lanes import CMP, Group, LaneFile, Store
from .batch_program import prepared
from .batch_runner import Runner, Shared
from .decode import DecodedProgram
from .semantics import Precision
from .stacks import EMPTY_STACKS
from .state import AL, ShaderState

#: Lanes per chunk: large enough that NumPy's per-call overhead is small, small enough
#: that a program's working registers stay in the CPU cache.
CHUNK_LANES = 16384


class _StateOrigin:
    """Initial register values of one chunk of a :class:`ShaderState`."""

    def __init__(self, state: ShaderState, start: int, end: int):
        self.state = state
        self.window = slice(start, end)
        self.start = start

    def _register(self, key: tuple) -> np.ndarray:
        state = self.state
        kind = key[0]
        if kind == "v":
            return state.inputs[key[1]]
        if kind == "r":
            return state.temporaries[key[1]]
        if kind == "o":
            return state.outputs[key[1]][key[2]]
        return state.cmp if key == CMP else state.address[:AL]

    def load(self, key: tuple, rows: list[int], lanes: np.ndarray | None,
             out: np.ndarray) -> None:
        register = self._register(key)
        where = self.window if lanes is None else self.start + lanes
        for row in rows:
            out[row] = register[row, where]

    def store(self, key: tuple, rows: list[int], lanes: np.ndarray | None,
              values: np.ndarray) -> None:
        register = self._register(key)
        where = self.window if lanes is None else self.start + lanes
        for row in rows:  # row by row: much faster than one strided block copy
            register[row, where] = values[row]


class VertexRunner(Runner):
    """Runs one chunk of a :class:`ShaderState`'s lanes, writing results back into it."""

    def __init__(self, shared: Shared, state: ShaderState, start: int, end: int,
                 steps: np.ndarray):
        super().__init__(shared, start)
        self.state = state
        self.steps = steps
        self.origin = _StateOrigin(state, start, end)
        self.root = Store(end - start, self.origin)
        self.al = state.address[AL, start:end].copy()

    def run(self, entry: int) -> None:
        state, root = self.state, self.root
        low = int(self.al.min())
        if low == self.al.max():
            groups = [Group(entry, low, EMPTY_STACKS, LaneFile(root), bank=state.bank,
                            gid=self.gid())]
        else:
            groups = [Group(entry, int(v), EMPTY_STACKS, LaneFile(root).select(self.al == v),
                            bank=state.bank, gid=self.gid()) for v in np.unique(self.al)]
        self.run_groups(groups)
        for key, rows, values in root.written():  # every lane's results, with slices
            self.origin.store(key, rows, None, values)
        if self.program.uses_address:
            state.address[AL, self.origin.window] = self.al

    def finish(self, g: Group) -> None:
        file = g.file
        if file.store is not self.root:  # a compact group: its lanes go home
            self.root.scatter(file.store if file.active is None else
                              file.store.gather(file.columns()), file.positions())
        lanes = file.positions()
        offsets = file.offsets()
        self.steps[self.base + lanes] = g.steps if offsets is None else g.steps + offsets
        self.al[lanes] = g.al


def chunks(lanes: int) -> list[tuple[int, int]]:
    return [(start, min(lanes, start + CHUNK_LANES)) for start in range(0, lanes, CHUNK_LANES)]


_executor: ThreadPoolExecutor | None = None
_executor_lock = threading.Lock()


def threads() -> int:
    """Worker threads for runs of several chunks (``GPUISA_THREADS``; default 1).

    NumPy releases the GIL inside its loops, so chunks could overlap on a second core,
    but the engine's Python work per instruction is a third of its time or more: on the
    2-core benchmark machine two threads were slower than one (``benchmarks``).
    """
    setting = os.environ.get("GPUISA_THREADS", "1")
    return int(setting) if setting.isdigit() and int(setting) > 0 else 1


def each_chunk(work: Callable[[int, int], None], spans: list[tuple[int, int]],
               shared: Shared) -> None:
    """Run ``work(start, end)`` for every chunk, on worker threads when there are several,
    skipping chunks that start after a lane that already failed."""

    def task(span: tuple[int, int]) -> None:
        if shared.failed_before(span[0]):
            return
        with np.errstate(all="ignore"):
            work(*span)

    count = threads()
    if count == 1 or len(spans) == 1:
        for span in spans:
            task(span)
        return
    global _executor
    with _executor_lock:
        if _executor is None or _executor._max_workers != count:
            _executor = ThreadPoolExecutor(count, thread_name_prefix="gpuisa-batch")
        executor = _executor
    for future in [executor.submit(task, span) for span in spans]:
        future.result()


def run_batch(program: DecodedProgram, state: ShaderState, entry: int, *,
              precision: Precision, max_steps: int) -> np.ndarray:
    """The engine entry point for vertex shaders (see :data:`.api.ENGINES`)."""
    steps = np.zeros(state.lanes, dtype=np.int64)
    shared = Shared(prepared(program),
                    RunContext(precision, state.uniforms, state.input_given), max_steps)

    def work(start: int, end: int) -> None:
        VertexRunner(shared, state, start, end, steps).run(entry)

    each_chunk(work, chunks(state.lanes), shared)
    shared.raise_failure(state.lanes)
    return steps
