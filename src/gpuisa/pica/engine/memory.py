"""Recycled memory for the per-lane arrays of large runs (registers, flags, step counts).

Fresh memory is expensive: the first write to a page costs more than the writing itself
(on the 2-core VM of ``benchmarks/README.md``, about 10 ms per 16 MiB of 4 KiB pages).
The C allocator recycles a freed block only while it is small (glibc hands blocks over
32 MiB, and the top of its heap beyond its trim threshold, back to the system), so a
run of 10^6 lanes that uses nine registers of 16 MiB, or any run of 10^7 lanes, would
get all of its memory fresh every time: the lighting benchmark's kernel took 135 ms on
fresh memory and 65 ms on recycled memory.

So large arrays come from this pool: each is a NumPy view of a ``ctypes`` array over a
block the pool owns; when the last view is gone (the caller dropped its results), a
``weakref.finalize`` on the ctypes array puts the block back for the next run of the
same size.  At most :data:`IDLE_LIMIT` bytes are kept idle; older blocks are freed.
"""

from __future__ import annotations

import ctypes
import threading
import weakref
from collections import OrderedDict

import numpy as np

#: Arrays smaller than this are plain NumPy arrays (the C allocator recycles them).
MIN_POOLED_BYTES = 1 << 20
#: The most memory kept for reuse while no array uses it.
IDLE_LIMIT = 1 << 29

# Reentrant: a finalizer can run inside the locked region of its own thread (a garbage
# collection started by an allocation there).
_lock = threading.RLock()
# Idle blocks, oldest first: (id of the block) -> block.
_idle: OrderedDict[int, np.ndarray] = OrderedDict()
_idle_bytes = 0


def lane_array(lanes: int, width: int, dtype: type | np.dtype, fill: bool = True
               ) -> np.ndarray:
    """A C-contiguous ``(lanes, width)`` array of ``dtype``, zero-filled unless ``fill``
    is False (the caller writes every element)."""
    dtype = np.dtype(dtype)
    size = lanes * width * dtype.itemsize
    if size < MIN_POOLED_BYTES:
        return (np.zeros if fill else np.empty)((lanes, width), dtype)
    block = _take(size)
    if block is None:
        block = (np.zeros if fill else np.empty)(size, np.uint8)
    elif fill:
        block.fill(0)
    owner = (ctypes.c_char * size).from_buffer(block)
    weakref.finalize(owner, _give_back, block).atexit = False
    return np.frombuffer(owner, dtype).reshape(lanes, width)


def _take(size: int) -> np.ndarray | None:
    global _idle_bytes
    with _lock:
        # A copy of the items: a finalizer may give a block back during the search.
        for key, block in list(_idle.items()):
            if block.size == size and _idle.pop(key, None) is not None:
                _idle_bytes -= size
                return block
    return None


def _give_back(block: np.ndarray) -> None:
    global _idle_bytes
    with _lock:
        _idle[id(block)] = block
        _idle_bytes += block.size
        while _idle_bytes > IDLE_LIMIT:
            _, oldest = _idle.popitem(last=False)
            _idle_bytes -= oldest.size


def idle_bytes() -> int:
    """How much memory the pool keeps for reuse now."""
    with _lock:
        return _idle_bytes


def release() -> None:
    """Free every idle block (arrays still in use are not affected)."""
    global _idle_bytes
    with _lock:
        _idle.clear()
        _idle_bytes = 0
