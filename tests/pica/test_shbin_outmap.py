"""output_map(dvle.outputs): libctru's DVLE_GenerateOutmap rules (shbin-format.md#dvle-outputs), by
hand."""

from __future__ import annotations

import pytest
from test_shbin_picasso import EXPECTED_A

from gpuisa.errors import ShbinError
from gpuisa.pica.shbin import Dvle, OutputEntry, OutputSemantic, output_map

U = 0x1F  # unused slot


def test_sample_a_vertex_shader():
    outmap = output_map(EXPECTED_A.entries[0].outputs)
    assert outmap.slots[:3] == (
        (0x00, 0x01, 0x02, 0x03),  # o0 position
        (0x08, 0x09, 0x0A, 0x0B),  # o1 color
        (0x0C, 0x0D, 0x0E, 0x0F),
    )  # o2.xy texcoord0, o2.zw texcoord1
    assert outmap.slots[3:] == ((U, U, U, U),) * 13
    assert (outmap.count, outmap.mask, outmap.texcoord_used) == (3, 0b111, True)
    assert outmap.words[:2] == (0x03020100, 0x0B0A0908)
    assert outmap.words[3] == 0x1F1F1F1F


def test_sample_a_geometry_shader_with_dummy():
    outmap = output_map(EXPECTED_A.entries[1].outputs)
    assert outmap.slots[:3] == ((0, 1, 2, 3), (U, U, U, U), (0x08, 0x09, 0x0A, U))
    assert (outmap.count, outmap.mask, outmap.texcoord_used) == (3, 0b111, False)


def test_codes_go_to_set_mask_bits_until_the_component_count():
    dvle = Dvle(
        outputs=(
            OutputEntry(OutputSemantic.POSITION, 0, 0b0101),  # x, z
            OutputEntry(OutputSemantic.VIEW, 1, 0b1111),  # 3 components: x, y, z
            OutputEntry(OutputSemantic.TEXCOORD0W, 2, 0b1000),  # w only
            OutputEntry(OutputSemantic.TEXCOORD2, 3, 0b1110),  # 2 components: y, z
            OutputEntry(OutputSemantic.DUMMY, 4, 0b1111),
            OutputEntry(7, 5, 0b1111),  # not a semantic: counted, no slots
            OutputEntry(OutputSemantic.NORMALQUAT, 6, 0b1111),
            OutputEntry(OutputSemantic.TEXCOORD1, 6, 0b0000),  # empty mask: counted once
            OutputEntry(OutputSemantic.COLOR, 15, 0b0011),
        )
    )
    outmap = output_map(dvle.outputs)
    assert outmap.slots[:7] == (
        (0x00, U, 0x01, U),
        (0x12, 0x13, 0x14, U),
        (U, U, U, 0x10),
        (U, 0x16, 0x17, U),
        (U, U, U, U),
        (U, U, U, U),
        (0x04, 0x05, 0x06, 0x07),
    )
    assert outmap.slots[15] == (0x08, 0x09, U, U)
    assert outmap.mask == 0b1000_0000_0111_1111 and outmap.count == 8
    assert outmap.texcoord_used


def test_later_entries_overwrite_slots_of_the_same_component():
    dvle = Dvle(
        outputs=(
            OutputEntry(OutputSemantic.COLOR, 0, 0b1111),
            OutputEntry(OutputSemantic.TEXCOORD0, 0, 0b0110),
        )
    )
    assert output_map(dvle.outputs).slots[0] == (0x08, 0x0C, 0x0D, 0x0B)


def test_register_outside_o0_o15_is_an_error():
    with pytest.raises(ShbinError) as info:
        output_map(Dvle(outputs=(OutputEntry(0, 0), OutputEntry(0, 16))).outputs)
    assert info.value.field == "outputs[1].register"
