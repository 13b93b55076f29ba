"""picasso's descriptor-table model (pica-assembly.md#opdesc-allocation), values by hand."""

import pytest

from gpuisa.errors import EncodingError
from gpuisa.pica.descriptors import DescriptorTable, care_mask
from gpuisa.pica.isa import OPCODES, Opcode


@pytest.mark.parametrize(
    ("opcode", "dst_mask", "expected"),
    [
        # pica-assembly.md#care-masks initial masks with nothing cleared
        (Opcode.DP4, 0xF, 0x003FFFFF),
        (Opcode.MAD, 0xF, 0x7FFFFFFF),
        (Opcode.LITP, 0x1, 0x00001FFF),
        # CMP: src1 + src2 (0x003FFFF0) minus src1 z, w (bits 5-8)
        (Opcode.CMP, 0x0, 0x003FFFF0 & ~0x1E0),
        # ADD writing only x (bit 3): y, z, w of src1 (bits 5-10) and src2 (14-19) cleared
        (Opcode.ADD, 0x8, 0x003FFFFF & ~0x7E0 & ~(0x3F << 14)),
        # DP3: w of src1 (bits 5-6) and of src2 (14-15)
        (Opcode.DP3, 0x8, 0x003FFFFF & ~0x60 & ~(0x3 << 14)),
        # DPH: w of src1 only
        (Opcode.DPHI, 0xF, 0x003FFFFF & ~0x60),
        # RCP: y, z, w of src1 (bits 5-10)
        (Opcode.RCP, 0xF, 0x00001FFF & ~0x7E0),
        # MOVA writing a0.y only: x (bits 11-12) and z, w (bits 5-8) of src1 cleared
        (Opcode.MOVA, 0x4, 0x00001FFF & ~0x1800 & ~0x1E0),
        # MAD writing w only: x, y, z of all three sources
        (Opcode.MAD, 0x1, 0x7FFFFFFF & ~(0x3F << 7) & ~(0x3F << 16) & ~(0x3F << 25)),
    ],
)
def test_care_masks(opcode, dst_mask, expected):
    assert care_mask(OPCODES[opcode], dst_mask) == expected


def test_first_fit_merge_from_the_doc_example():
    table = DescriptorTable()
    # rcp r0, v0.x: dst xyzw, src1 xxxx, caring about the mask and src1 x only
    rcp = 0xF | 0x00 << 5
    assert table.allocate(rcp, care_mask(OPCODES[Opcode.RCP], 0xF)) == 0
    # mov r1, v1: dst xyzw, src1 xyzw (0x1B): agrees on mask, negate and component x
    mov = 0xF | 0x1B << 5
    assert table.allocate(mov, care_mask(OPCODES[Opcode.MOV], 0xF)) == 0
    assert table.values == [0xF | 0x1B << 5]
    assert table.masks == [0x1FFF]


def test_mad_swap_moves_the_entry_below_32():
    table = DescriptorTable()
    for i in range(40):
        table.allocate(i << 4 | 0xF, 0x1FFF)  # 40 distinct format-1u descriptors
    k, swapped = table.allocate_mad(0x7FFFFFFF, 0x7FFFFFFF)
    assert (k, swapped) == (0, 40)
    assert table.values[0] == 0x7FFFFFFF
    assert table.values[40] == 0xF  # the old entry 0


def test_limits():
    table = DescriptorTable()
    for i in range(128):
        table.pin(i)
    with pytest.raises(EncodingError, match="too many operand descriptors"):
        table.allocate(1 << 30, 0x7FFFFFFF)
