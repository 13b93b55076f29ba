"""Texture fetches: nearest and bilinear sampling of a user-supplied 2D texture
(a2xx-isa.md#fetch-execution)."""

from __future__ import annotations

import numpy as np
import pytest
from test_a2xx_engine_support import patch_fetch, program

from gpuisa.a2xx import Texture, run_fragment
from gpuisa.errors import InputError

TEXELS = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)  # height 2, width 3


def sample(options: str, coords: np.ndarray, texture: object, **fields: int) -> np.ndarray:
    words = program(f"EXEC_END\n  FETCH: SAMPLE R2 = R0.xyz CONST(3) {options}\n")
    if fields:
        words = patch_fetch(words, 1, **fields)
    result = run_fragment(words, coords, textures={3: texture})
    return result.registers[2]


def uv(*pairs: tuple[float, float]) -> np.ndarray:
    return np.array([[u, v, 0, 0] for u, v in pairs], np.float32)


def test_nearest_normalized_coordinates() -> None:
    # texel centres at (i + 0.5) / 3, (j + 0.5) / 2
    coords = uv((0.1, 0.1), (0.5, 0.2), (0.9, 0.9), (1.5, -0.5))
    r = sample("MAG(POINT) MIN(POINT)", coords, TEXELS)
    # clamp to the edge texel outside [0, 1]
    np.testing.assert_array_equal(r, TEXELS[[0, 0, 1, 0], [0, 1, 2, 2]])


def test_bilinear_between_four_texels() -> None:
    coords = uv((0.5, 0.5))  # x = 1.5 - 0.5 = 1.0 -> texel 1 exactly; y = 1.0 - 0.5 = 0.5
    r = sample("MAG(LINEAR) MIN(LINEAR)", coords, TEXELS)
    np.testing.assert_allclose(r[0], 0.5 * TEXELS[0, 1] + 0.5 * TEXELS[1, 1])
    coords = uv((1 / 3, 0.25))  # x = 0.5: halfway between texels 0 and 1; y on row 0
    r = sample("MAG(LINEAR) MIN(LINEAR)", coords, TEXELS)
    np.testing.assert_allclose(r[0], 0.5 * TEXELS[0, 0] + 0.5 * TEXELS[0, 1], rtol=1e-6)


def test_unnormalized_coordinates_wrap_and_texture_filter() -> None:
    coords = uv((3.5, 0.5), (-0.5, 1.5))
    texture = Texture(TEXELS, filter="nearest", address="wrap")
    r = sample("", coords, texture, tx_coord_denorm=1)  # filters from the "fetch constant"
    np.testing.assert_array_equal(r, TEXELS[[0, 1], [0, 2]])


def test_missing_texture_reads_zeros_and_is_reported() -> None:
    words = program("EXEC_END\n  FETCH: SAMPLE R2 = R0.xyz CONST(5)\n")
    result = run_fragment(words, uv((0.5, 0.5)), textures={3: TEXELS})
    np.testing.assert_array_equal(result.registers[2], 0)
    assert result.unsupported_fetches == (1,)


def test_bad_texture() -> None:
    with pytest.raises(InputError, match=r"textures\[3\]: texture data must have shape"):
        sample("", uv((0, 0)), np.zeros((2, 2)))
    with pytest.raises(InputError, match="texture filter"):
        Texture(TEXELS, filter="cubic")
