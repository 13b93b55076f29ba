"""Running an XDK container's vertex shader with its inputs named by semantic
(a2xx-formats.md#xdk-vertex-input): the published Scaleform containers of
data/xdk-listings.txt, their fetch templates patched for per-semantic data, compared with
the dot products their listings compute, done in NumPy."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from xdk_listing_helpers import shaders

from gpuisa.a2xx import EmulatorConfig, VertexAttribute, run_vertex
from gpuisa.a2xx.cli import main
from gpuisa.a2xx.containers import Semantic, read_shader_file
from gpuisa.a2xx.engine.attributes import bind_attributes
from gpuisa.a2xx.engine.trace import trace
from gpuisa.errors import InputError

CONTAINERS = {ident: data for ident, _, data in shaders()}
VTEXTG = read_shader_file(CONTAINERS["8430646363-VTexTG"])
EALPHA = read_shader_file(CONTAINERS["8430646363-VTexTGEAlpha"])
XENOS = EmulatorConfig.for_target("xenos")

# mvp (c0, c1) and texgen (c2, c3) of both listings; small binary fractions, so that every
# product and sum below is exact in float32.
MVP = np.array([[0.5, 0, 0, -1], [0, -0.25, 0, 2]], np.float32)
TEXGEN = np.array([[1, 2, 0, 0.5], [0, 0, 4, -3]], np.float32)
CONSTANTS = np.concatenate([MVP, TEXGEN])
POSITIONS = np.array([[1, 2, 3, 1], [-4, 0.5, 0, 1], [8, -8, 0.25, 2]], np.float32)


def expected(positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """oPos = (dp4(pos, c0), dp4(pos, c1), 0, 1) and o0.xy = (dp4(pos, c2), dp4(pos, c3)),
    as the listings' dp4 oPos.x001 / oPos.y / o0.x / o0.y say."""
    n = len(positions)
    position = np.stack([positions @ MVP[0], positions @ MVP[1], np.zeros(n), np.ones(n)], 1)
    texcoord = np.stack([positions @ TEXGEN[0], positions @ TEXGEN[1]], 1)
    return position.astype(np.float32), texcoord.astype(np.float32)


def run(shader, attributes, **kwargs):
    return run_vertex(shader.words, attributes=attributes, elements=shader.vertex_elements,
                      float_constants=CONSTANTS, target="xenos", **kwargs)


def test_vtextg_with_four_component_positions() -> None:
    result = run(VTEXTG, {"POSITION": POSITIONS})
    position, texcoord = expected(POSITIONS)
    np.testing.assert_array_equal(result.exports[62], position)
    np.testing.assert_array_equal(result.exports[0][:, :2], texcoord)


def test_missing_components_read_zero_and_w_one() -> None:
    # D3D expands (x, y) to (x, y, 0, 1): the template's xyzw swizzle reads z = 0, w = 1.
    xy = POSITIONS[:, :2]
    result = run(VTEXTG, {"position0": xy})
    full = np.concatenate([xy, np.zeros((3, 1)), np.ones((3, 1))], 1).astype(np.float32)
    position, texcoord = expected(full)
    np.testing.assert_array_equal(result.exports[62], position)
    np.testing.assert_array_equal(result.exports[0][:, :2], texcoord)


def test_patched_fetch_words_follow_the_bit_tables() -> None:
    # Template 0x05F80000 0x00000688 0x00000000 (slot 3): CONST(31, 2), xyzw, format 0.
    bound = bind_attributes(VTEXTG.words, VTEXTG.vertex_elements,
                            {"POSITION": POSITIONS[:, :3]}, XENOS)
    # d1: swizzle xyz1 = 0b101_010_001_000 (0xA88), signed (bit 12) and integer number
    # format (bit 13) as the runtime sets them for floats, format 57 (FMT_32_32_32_FLOAT)
    # at bits 16-21; d2: stride 3 dwords.  d0 keeps CONST(31, 2): fetch slot 95.
    assert bound.words[9:12] == (0x05F80000, 0x00393A88, 0x00000003)
    assert bound.fetch_constants is not None and set(bound.fetch_constants) == {95}
    assert bound.vertex_buffers["POSITION0"] == POSITIONS[:, :3].astype("<f4").tobytes()
    adreno = bind_attributes(VTEXTG.words, VTEXTG.vertex_elements,
                             {"POSITION": POSITIONS[:, :3]}, EmulatorConfig())
    assert adreno.words[11] == 12  # the stride in bytes
    # Only template words change.
    assert [i for i, (a, b) in enumerate(zip(bound.words, VTEXTG.words, strict=True))
            if a != b] == [10, 11]


def test_two_semantics_and_d3dcolor_bytes() -> None:
    color = np.array([[0.5, 1, -2, 4], [0, 0, 0, 1], [8, 7, 6, 5]], np.float32)
    result = run(EALPHA, {"POSITION": POSITIONS, "COLOR": color})
    position, texcoord = expected(POSITIONS)
    np.testing.assert_array_equal(result.exports[62], position)
    np.testing.assert_array_equal(result.exports[0][:, :2], texcoord)
    np.testing.assert_array_equal(result.exports[1], color)  # mov o1, r1
    raw = np.array([[255, 0, 51, 102], [1, 2, 3, 4], [0, 128, 255, 17]], np.uint8)
    result = run(EALPHA, {"POSITION": POSITIONS, "COLOR0": raw})
    np.testing.assert_array_equal(result.exports[1], raw.astype(np.float32) / np.float32(255))
    result = run(EALPHA, {"POSITION": POSITIONS, "COLOR0": VertexAttribute(raw, False)})
    np.testing.assert_array_equal(result.exports[1], raw.astype(np.float32))


def test_two_fetches_of_one_semantic_read_the_same_data() -> None:
    # Both of VTexTGEAlpha's fetches declared as POSITION0: each reads POSITION0's buffer
    # with its own destination (r1, exported as o1; r0).
    elements = (Semantic("POSITION", 0, slot=3), Semantic("POSITION", 0, slot=4))
    result = run_vertex(EALPHA.words, attributes={"POSITION": POSITIONS}, elements=elements,
                        float_constants=CONSTANTS, target="xenos")
    np.testing.assert_array_equal(result.exports[1], POSITIONS)
    np.testing.assert_array_equal(result.exports[62], expected(POSITIONS)[0])


def test_trace_shows_the_patched_fetch() -> None:
    steps = trace(VTEXTG.words, "vertex", elements=VTEXTG.vertex_elements,
                  attributes={"POSITION": POSITIONS[:, :3]}, target="xenos")
    fetch = next(step for step in steps if step.slot == 3)
    assert "DataFormat=FMT_32_32_32_FLOAT, Stride=3" in fetch.text
    assert fetch.constants == ("reads POSITION0",)
    assert fetch.changes[0].after == (1.0, 2.0, 3.0, 1.0)  # r0 = POSITIONS[0].xyz, w = 1


def test_indices_fetch_rows_in_their_order() -> None:
    result = run(VTEXTG, {"POSITION": POSITIONS}, indices=[2, 0])
    np.testing.assert_array_equal(result.exports[62], expected(POSITIONS[[2, 0]])[0])


@pytest.mark.parametrize(
    ("shader", "attributes", "kwargs", "message"),
    [
        (VTEXTG, {"POSITION": POSITIONS, "NORMAL": POSITIONS}, {},
         "attributes: the shader reads POSITION0; it has no NORMAL0"),
        (EALPHA, {"POSITION": POSITIONS}, {},
         "attributes: the shader reads COLOR0, POSITION0; COLOR0 is missing"),
        (VTEXTG, {"POSITION": np.zeros((3, 5))}, {},
         "attributes: POSITION0: give one row of 1-4 components per vertex, not shape (3, 5)"),
        (VTEXTG, {"POSITION": POSITIONS}, {"count": 4},
         "count is 4, but the attributes hold 3 vertices"),
        (EALPHA, {"POSITION": POSITIONS, "COLOR": POSITIONS[:2]}, {},
         "attributes: every semantic needs one row per vertex, not POSITION0 3, COLOR0 2"),
        (VTEXTG, {"POSITION": np.zeros((3, 2), np.uint8)}, {},
         "no Xenos vertex format holds 2 component(s) of uint8"),
        (VTEXTG, {"PLACE": POSITIONS}, {}, "'PLACE' is not a semantic"),
        (VTEXTG, None, {"count": 3}, "the vertex fetch of POSITION0 is a template"),
        # An index of 5000 digits (more than int() converts), quoted to 40 characters.
        (VTEXTG, {"POSITION" + "1" * 5000: POSITIONS}, {},
         "'POSITION" + "1" * 31 + "... is not a semantic (a D3DDECLUSAGE name and an "
         "optional index of up to 4 digits"),
    ],
    ids=range(9),
)
def test_errors_name_the_semantics(shader, attributes, kwargs, message) -> None:
    with pytest.raises(InputError) as caught:
        run(shader, attributes, **kwargs)
    assert message in str(caught.value)


def test_fetch_constants_of_a_sequence_keep_their_slots() -> None:
    # The list form the engine takes: entry 0 binds vertex buffer "vb" at slot 0; the
    # attribute takes the highest free slot, 95.
    bound = bind_attributes(VTEXTG.words, VTEXTG.vertex_elements, {"POSITION": POSITIONS},
                            XENOS, vertex_buffers={"vb": b"\0" * 16}, fetch_constants=["vb"])
    assert bound.fetch_constants is not None
    assert sorted(bound.fetch_constants) == [0, 95] and bound.fetch_constants[0] == "vb"


@pytest.mark.parametrize("elements", [[1, 2], 5, "POSITION"])
def test_elements_must_be_semantic_records(elements: object) -> None:
    with pytest.raises(InputError, match="elements must be a container's vertex elements"):
        run_vertex(VTEXTG.words, attributes={"POSITION": POSITIONS}, elements=elements,
                   target="xenos")


def test_raw_microcode_and_patched_fetches_take_no_attributes() -> None:
    with pytest.raises(InputError, match="no vertex elements: give its vertex data as buffers"):
        run_vertex(VTEXTG.words, attributes={"POSITION": POSITIONS}, target="xenos")
    patched = bind_attributes(VTEXTG.words, VTEXTG.vertex_elements,
                              {"POSITION": POSITIONS}, XENOS).words
    with pytest.raises(InputError, match=r"slot 3\) already has format FMT_32_32_32_32_FLOAT"):
        run_vertex(patched, attributes={"POSITION": POSITIONS},
                   elements=VTEXTG.vertex_elements, target="xenos")


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_run_and_trace(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    shader = tmp_path / "vtextg.xvu"
    shader.write_bytes(CONTAINERS["8430646363-VTexTG"])
    xy = POSITIONS[:, :2]
    inputs = tmp_path / "vin.json"
    inputs.write_text(json.dumps({"count": 3, "attributes": {"POSITION": xy.tolist()}}))
    constants = tmp_path / "c.json"
    constants.write_text(json.dumps({"float": {"mvp": MVP.tolist(), "texgen": TEXGEN.tolist()}}))
    code, out, err = cli(capsys, "run", str(shader), "--inputs", str(inputs), "--constants",
                         str(constants), "--format", "json")
    assert (code, err) == (0, "")
    full = np.concatenate([xy, np.zeros((3, 1)), np.ones((3, 1))], 1)
    position, texcoord = expected(full.astype(np.float32))
    data = json.loads(out)
    assert data["position"] == position.tolist()
    assert [row[:2] for row in data["param0"]] == texcoord.tolist()

    npz = tmp_path / "vin.npz"
    colors = np.array([[255, 0, 51, 102], [1, 2, 3, 4], [0, 128, 255, 17]], np.uint8)
    np.savez(npz, POSITION=POSITIONS, COLOR=colors)
    alpha = tmp_path / "ealpha.xvu"
    alpha.write_bytes(CONTAINERS["8430646363-VTexTGEAlpha"])
    code, out, err = cli(capsys, "run", str(alpha), "--inputs", str(npz), "--constants",
                         str(constants), "--format", "json")
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert data["position"] == expected(POSITIONS)[0].tolist()
    assert data["param1"] == (colors.astype(np.float32) / np.float32(255)).tolist()

    code, out, err = cli(capsys, "trace", str(shader), "--inputs", str(inputs))
    assert code == 0 and "DataFormat=FMT_32_32_FLOAT" in out and "reads POSITION0" in out


def test_cli_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    shader = tmp_path / "vtextg.xvu"
    shader.write_bytes(CONTAINERS["8430646363-VTexTG"])
    inputs = tmp_path / "vin.json"
    inputs.write_text(json.dumps({"attributes": {"NORMAL": [[1, 2, 3]]}}))
    code, out, err = cli(capsys, "run", str(shader), "--inputs", str(inputs))
    assert (code, out) == (1, "")
    assert err == (f"a2xx: error: --inputs {inputs}: attributes: the shader reads POSITION0; "
                   "it has no NORMAL0\n")
    code, _, err = cli(capsys, "run", str(shader), "--count", "2")
    assert code == 1 and err.startswith(
        f"a2xx: error: {shader}: the vertex fetch of POSITION0 is a template")
    inputs.write_text(json.dumps({"attributes": {"COLOR": {"dtype": "uint8", "data": [[1]],
                                                           "normalized": "yes"}}}))
    code, _, err = cli(capsys, "run", str(shader), "--inputs", str(inputs))
    assert code == 1 and "normalized must be true or false" in err
