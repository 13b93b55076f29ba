"""The mesh through the vertex fetches (a2xx-render.md#vertex-fetch): each attribute is
written in the fetch's own format, and the emulator's fetch reads back the value worked
out here by hand from the format's rules (a2xx-isa.md#formats)."""

from __future__ import annotations

import numpy as np
import pytest

from gpuisa.a2xx import assemble, run_vertex
from gpuisa.a2xx.engine import EmulatorConfig
from gpuisa.a2xx.render.bind import assign, bind_mesh, vertex_fetches
from gpuisa.errors import InputError
from gpuisa.render.mesh import mesh_from_arrays

MESH = mesh_from_arrays({
    "position": [[1.5, -2.0, 0.25], [0.0, 3.0, -1.0]],
    "faces": [[0, 1, 1]],
    "normal": [[0.0, -0.5, 1.0], [1.0, 0.25, -1.0]],
    "color": [[0.2, 0.5, 1.0, 0.0], [1.0, 0.0, 0.1, 1.0]],
})


def fetched(text: str, config: EmulatorConfig | None = None, toolchain: str | None = None,
            **overrides: str):
    config = config or EmulatorConfig()
    words = assemble("EXEC_END\n" + text, toolchain=toolchain)
    uses = vertex_fetches(words, config)
    buffers, constants = bind_mesh(MESH, uses, assign(uses, overrides))
    result = run_vertex(words, count=2, vertex_buffers=buffers, fetch_constants=constants,
                        config=config)
    return result.registers


PACKED = (
    "  FETCH: VERTEX R1.xyzw = R0.x FMT_32_32_32_FLOAT SIGNED STRIDE(12) CONST(4, 0)\n"
    "  FETCH: VERTEX R2.xyzw = R0.x FMT_16_16_16_16 SIGNED NORMALIZED STRIDE(8) CONST(4, 1)\n"
    "  FETCH: VERTEX R3.xyzw = R0.x FMT_8_8_8_8 UNSIGNED NORMALIZED STRIDE(4) CONST(4, 2)\n"
)


def test_packed_formats_read_back_what_the_rules_give():
    registers = fetched(PACKED)
    # Position: floats as they are; the component a 3-component format lacks reads 0.
    np.testing.assert_array_equal(registers[1], [[1.5, -2.0, 0.25, 0], [0, 3, -1, 0]])
    # Normal as signed normalised 16 bits in the mode the GLES driver's fetches use
    # (signed_rf_mode_all = 0, D3D's "zero, clamp minus one": read max(raw / 32767, -1)),
    # so raw = v * 32767 rounded: -0.5 -> -16383.5 -> -16384 (to even); 0 -> 0;
    # 1 -> 32767; 0.25 -> 8191.75 -> 8192; -1 -> -32767.
    raw = np.array([[0, -16384, 32767, 0], [32767, 8192, -32767, 0]])
    np.testing.assert_allclose(registers[2], np.maximum(raw / 32767, -1), rtol=1e-6)
    # Colour as unsigned normalised bytes (v / 255): 0.2 * 255 = 51, 0.5 * 255 = 127.5
    # -> 128 (to even), 0.1 * 255 = 25.5 -> 26.
    expected = np.array([[51, 128, 255, 0], [255, 0, 26, 255]]) / 255
    np.testing.assert_allclose(registers[3], expected, rtol=1e-7)


def test_signed_normalised_in_the_kernel_programs_mode():
    # The kernel's programs set signed_rf_mode_all on a later fetch (GL's "no zero": read
    # (raw + 0.5) * 2 / 65535), so raw = (v * 65535 - 1) / 2 rounded: -0.5 -> -16384.25
    # -> -16384; 0 -> -0.5 -> 0 (to even); 1 -> 32767; 0.25 -> 8191.375 -> 8191;
    # -1 -> -32768.
    registers = fetched(PACKED, toolchain="adreno-kernel")
    raw = np.array([[0, -16384, 32767, 0], [32767, 8191, -32768, 0]])
    np.testing.assert_allclose(registers[2], (raw + 0.5) * 2 / 65535, rtol=1e-6)


def test_fetches_on_one_slot_are_interleaved():
    # Stride 28 bytes: position at 0, colour as 4 floats at 12 (given by --attr).
    registers = fetched(
        "  FETCH: VERTEX R1.xyz1 = R0.x FMT_32_32_32_FLOAT SIGNED STRIDE(28) CONST(4, 0)\n"
        "  FETCH: VERTEX R2.xyzw = R0.x FMT_32_32_32_32_FLOAT SIGNED STRIDE(28) OFFSET(12) "
        "CONST(4, 0)\n", R2="color")
    np.testing.assert_array_equal(registers[1], [[1.5, -2.0, 0.25, 1], [0, 3, -1, 1]])
    np.testing.assert_allclose(registers[2], [[0.2, 0.5, 1.0, 0.0], [1.0, 0.0, 0.1, 1.0]],
                               rtol=1e-7)


def test_a_mini_fetch_reading_the_same_bytes_cannot_take_another_attribute():
    text = ("  FETCH: VERTEX R1.xyz1 = R0.x FMT_32_32_32_FLOAT SIGNED STRIDE(3) CONST(4, 0)\n"
            "  FETCH: VERTEX R2.xyz0 = R0.x FMT_32_32_32_FLOAT SIGNED STRIDE(3) CONST(4, 1)\n")
    xenos = EmulatorConfig.for_target("xenos")
    with pytest.raises(InputError, match=r"--attr R2=normal: .* reads the bytes the one "
                                         r"writing R1 reads \(position\).* mini fetch"):
        fetched(text, xenos, R2="normal")
    registers = fetched(text, xenos)  # both read the position, as xenos would
    np.testing.assert_array_equal(registers[2], [[1.5, -2.0, 0.25, 0], [0, 3, -1, 0]])
