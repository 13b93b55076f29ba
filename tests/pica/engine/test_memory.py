"""The pool of recycled memory for large per-lane arrays (gpuisa.pica.engine.memory)."""

import gc

import numpy as np
import pytest

from gpuisa.pica.engine import memory

BIG = memory.MIN_POOLED_BYTES // 16  # lanes of (lanes, 4) float32: exactly the threshold


@pytest.fixture(autouse=True)
def empty_pool():
    memory.release()
    yield
    memory.release()


def test_small_arrays_are_plain_numpy_arrays():
    array = memory.lane_array(BIG - 1, 4, np.float32)
    assert array.flags.owndata and array.shape == (BIG - 1, 4) and not array.any()


def test_a_block_comes_back_only_when_its_last_view_is_gone():
    array = memory.lane_array(BIG, 4, np.float32)
    column = array.T[2]  # a view of a view
    del array
    gc.collect()
    assert memory.idle_bytes() == 0
    del column
    gc.collect()
    assert memory.idle_bytes() == BIG * 16


def test_recycled_blocks_are_zero_filled_unless_the_caller_writes_them_all():
    first = memory.lane_array(BIG, 4, np.float32)
    first[...] = 7.0
    address = first.__array_interface__["data"][0]
    del first
    again = memory.lane_array(BIG, 4, np.float32)
    assert again.__array_interface__["data"][0] == address  # the same memory...
    assert not again.any()  # ... zero-filled
    del again
    unfilled = memory.lane_array(BIG, 4, np.float32, fill=False)
    assert unfilled.__array_interface__["data"][0] == address
    assert memory.idle_bytes() == 0


def test_blocks_are_reused_only_for_the_same_size_and_dtype_views_fit():
    block = memory.lane_array(BIG, 4, np.float32)
    del block
    other = memory.lane_array(BIG * 2, 2, np.int64)  # 2 * 16 bytes per lane: other size
    assert memory.idle_bytes() == BIG * 16
    assert other.dtype == np.int64 and other.shape == (BIG * 2, 2) and not other.any()
    flags = memory.lane_array(BIG * 16, 1, np.bool_)  # BIG * 16 bytes: the idle block
    assert memory.idle_bytes() == 0 and flags.dtype == np.bool_ and not flags.any()


def test_idle_memory_is_bounded(monkeypatch):
    monkeypatch.setattr(memory, "IDLE_LIMIT", 3 * BIG * 16)
    arrays = [memory.lane_array(BIG, 4, np.float32) for _ in range(5)]
    del arrays
    gc.collect()
    assert memory.idle_bytes() == 3 * BIG * 16
