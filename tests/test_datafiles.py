"""datafiles: malformed or hostile input files are InputErrors, never other exceptions or
large allocations (issue 12, item 9)."""

from __future__ import annotations

import io
import math
import zipfile

import numpy as np
import pytest

from gpuisa import datafiles
from gpuisa.datafiles import json_numbers, load_json, load_npy, load_npz, read_input
from gpuisa.errors import InputError


def _npy_with_header(shape: tuple[int, ...], payload: bytes = b"") -> bytes:
    """An .npy image whose header claims ``shape`` of float32 but holds ``payload``."""
    stream = io.BytesIO()
    header = {"descr": "<f4", "fortran_order": False, "shape": shape}
    np.lib.format.write_array_header_1_0(stream, header)
    return stream.getvalue() + payload


def test_a_good_npy_and_npz_load(tmp_path):
    values = np.arange(8, dtype=np.float32).reshape(2, 4)
    np.save(tmp_path / "a.npy", values)
    np.savez(tmp_path / "b.npz", v0=values, v1=values + 1)
    assert np.array_equal(load_npy(str(tmp_path / "a.npy")), values)
    arrays = load_npz(str(tmp_path / "b.npz"))
    assert sorted(arrays) == ["v0", "v1"]
    assert np.array_equal(arrays["v1"], values + 1)


@pytest.mark.parametrize("loader", [load_npy, load_npz])
def test_an_empty_file_is_an_input_error(tmp_path, loader):
    path = tmp_path / "empty.bin"
    path.write_bytes(b"")
    with pytest.raises(InputError, match=r"empty\.bin: .*empty file"):
        loader(str(path))


def test_a_header_claiming_more_rows_than_the_file_holds_allocates_nothing(tmp_path):
    path = tmp_path / "huge.npy"
    path.write_bytes(_npy_with_header((99_999_999_999, 4), b"\0" * 16))
    with pytest.raises(InputError, match=r"huge\.npy: .*shape \(99999999999, 4\)"):
        load_npy(str(path))


def test_a_truncated_array_is_an_input_error(tmp_path):
    path = tmp_path / "short.npy"
    path.write_bytes(_npy_with_header((2, 4), b"\0" * 31))  # 32 bytes needed
    with pytest.raises(InputError, match=r"short\.npy"):
        load_npy(str(path))


def test_a_huge_member_header_inside_an_npz_is_refused(tmp_path):
    path = tmp_path / "huge.npz"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("v0.npy", _npy_with_header((10**11, 4), b"\0" * 16))
    with pytest.raises(InputError, match=r"huge\.npz: v0\.npy: .*more than the file holds"):
        load_npz(str(path))


def test_object_arrays_are_refused(tmp_path):
    stream = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        stream, {"descr": "|O", "fortran_order": False, "shape": (1,)})
    path = tmp_path / "objects.npy"
    path.write_bytes(stream.getvalue() + b"\0" * 8)
    with pytest.raises(InputError, match="objects"):
        load_npy(str(path))


def test_an_npz_given_as_npy_is_named(tmp_path):
    np.savez(tmp_path / "b.npz", v0=np.zeros(4))
    (tmp_path / "b.npz").rename(tmp_path / "b.npy")
    with pytest.raises(InputError, match=r"found an \.npz archive"):
        load_npy(str(tmp_path / "b.npy"))


def test_json_nested_5000_deep_is_an_input_error(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 5000 + "]" * 5000)
    with pytest.raises(InputError, match="nested more than 16 levels"):
        load_json(str(path))


def test_json_nested_just_over_the_limit_is_refused_and_at_the_limit_read(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 17 + "]" * 17)
    with pytest.raises(InputError, match="nested more than 16 levels"):
        load_json(str(path))
    path.write_text("[" * 16 + "]" * 16)
    assert load_json(str(path)) is not None


def test_json_integers_of_thousands_of_digits_are_an_input_error(tmp_path):
    path = tmp_path / "long.json"
    path.write_text('{"v0": [' + "9" * 5000 + "]}")
    with pytest.raises(InputError, match="an integer of 5000 digits"):
        load_json(str(path))


def test_json_with_a_byte_order_mark_is_read(tmp_path):
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + b'{"c0": [1, 2, 3, 4]}')
    assert load_json(str(path)) == {"c0": [1, 2, 3, 4]}


def test_invalid_utf8_json_names_the_byte(tmp_path):
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{"c0": "\xff"}')
    with pytest.raises(InputError, match=r"not UTF-8 text .* at byte 8"):
        load_json(str(path))


def test_a_file_over_the_limit_is_refused_without_reading_it_whole(tmp_path, monkeypatch):
    path = tmp_path / "big.bin"
    path.write_bytes(b"x" * 1025)
    assert read_input(str(path), limit=1025) == b"x" * 1025
    with pytest.raises(InputError, match=r"big\.bin: larger than 1 KiB"):
        read_input(str(path), limit=1024)


def test_an_endless_device_is_refused(monkeypatch):
    monkeypatch.setattr(datafiles, "MAX_INPUT_BYTES", 1 << 20)
    with pytest.raises(InputError, match="/dev/zero: larger than 1 MiB"):
        read_input("/dev/zero", limit=datafiles.MAX_INPUT_BYTES)


def test_a_directory_or_missing_file_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="cannot read: Is a directory"):
        read_input(str(tmp_path))
    with pytest.raises(InputError, match="cannot read: No such file"):
        read_input(str(tmp_path / "missing"))


def test_json_numbers_turns_the_special_strings_into_floats():
    # "inf", "+inf", "-inf", "nan" in any case, at any depth; numbers pass as they are
    out = json_numbers([["INF", "-inf", 1], ["+Inf", "NaN", 2.5]], "x.json: v0")
    assert out[0][:2] == [math.inf, -math.inf] and out[0][2] == 1
    assert out[1][0] == math.inf and math.isnan(out[1][1]) and out[1][2] == 2.5


def test_json_numbers_refuses_other_strings_and_with_numbers_only_other_values():
    with pytest.raises(InputError, match=r"x.json: v0: 'one' is not a number"):
        json_numbers([1.0, "one"], "x.json: v0")
    # a bool uniform is a value of its own, unless only numbers are wanted
    assert json_numbers(True, "b0") is True
    with pytest.raises(InputError, match="b0: True is not a number"):
        json_numbers([True], "b0", numbers_only=True)
    with pytest.raises(InputError, match=r"c0: \{\} is not a number"):
        json_numbers([{}], "c0", numbers_only=True)
