import pytest

from gpuisa.bits import Field, Layout
from gpuisa.errors import EncodingError, IsaTableError


def test_layout_rejects_overlap_and_out_of_range():
    with pytest.raises(IsaTableError, match="b overlaps field a"):
        Layout("t", [("a", 0, 4), ("b", 3, 2)], 8)
    with pytest.raises(IsaTableError, match="does not lie within"):
        Layout("t", [("a", 6, 4)], 8)
    with pytest.raises(IsaTableError, match="declared twice"):
        Layout("t", [("a", 0, 1), ("a", 1, 1)], 8)


def test_pack_unpack_and_unused_mask_on_wide_words():
    layout = Layout("t", [("lo", 0, 4), Field("hi", 90, 6)], 96)
    word = layout.pack({"lo": 0xA, "hi": 0x3F})
    assert word == 0xA | (0x3F << 90)
    assert layout.unpack(word) == {"lo": 0xA, "hi": 0x3F}
    assert layout.unused_mask == ((1 << 96) - 1) & ~0xF & ~(0x3F << 90)
    # pack keeps fields that are not named
    assert layout.pack({"lo": 1}, word) == 1 | (0x3F << 90)


def test_pack_errors_name_the_field():
    layout = Layout("t", [("a", 0, 3)], 8)
    with pytest.raises(EncodingError, match="field 'a' is 3 bits wide; 8 does not fit"):
        layout.pack({"a": 8})
    with pytest.raises(EncodingError, match="no field 'b'"):
        layout.pack({"b": 0})
