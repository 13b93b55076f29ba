"""fileio.write_output: atomic for regular files, written through for everything else."""

from __future__ import annotations

import os
import stat
import threading

import pytest

from gpuisa.errors import InputError
from gpuisa.fileio import write_output, write_text


def _char_device(path, minor: int) -> None:
    """A character device node like /dev/null (minor 3) or /dev/full (minor 7), made in
    the test's directory so that a regression cannot clobber the machine's own."""
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, minor))
    except (PermissionError, OSError) as error:
        pytest.skip(f"cannot create a device node here: {error}")


def test_new_file_is_created_with_the_umask_mode(tmp_path):
    target = tmp_path / "out.bin"
    write_output(target, b"abc")
    assert target.read_bytes() == b"abc"
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~mask
    assert os.listdir(tmp_path) == ["out.bin"]  # no temporary left behind


def test_existing_file_is_replaced_and_keeps_its_mode(tmp_path):
    target = tmp_path / "out.bin"
    target.write_bytes(b"old contents")
    target.chmod(0o640)
    write_output(target, [b"new", b" ", b"contents"])
    assert target.read_bytes() == b"new contents"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


def test_a_symlink_stays_a_link_and_its_target_is_written(tmp_path):
    real = tmp_path / "real.bin"
    real.write_bytes(b"old")
    link = tmp_path / "link.bin"
    link.symlink_to(real)
    write_output(link, b"new")
    assert link.is_symlink()
    assert real.read_bytes() == b"new"


def test_a_dangling_symlink_creates_its_target(tmp_path):
    link = tmp_path / "link.bin"
    link.symlink_to(tmp_path / "made.bin")
    write_output(link, b"x")
    assert link.is_symlink()
    assert (tmp_path / "made.bin").read_bytes() == b"x"


def test_a_fifo_is_written_through_not_replaced(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    write_output(fifo, [b"through ", b"the pipe"])
    reader.join(timeout=10)
    assert received == [b"through the pipe"]
    assert stat.S_ISFIFO(fifo.stat().st_mode)


def test_a_device_node_stays_a_device(tmp_path):
    null = tmp_path / "null"
    _char_device(null, 3)
    write_output(null, b"discarded")
    assert stat.S_ISCHR(null.stat().st_mode)
    assert os.listdir(tmp_path) == ["null"]


def test_a_full_device_reports_no_space(tmp_path):
    full = tmp_path / "full"
    _char_device(full, 7)
    with pytest.raises(InputError, match=r"cannot write .*full: No space left on device"):
        write_output(full, b"x" * 100_000)
    assert stat.S_ISCHR(full.stat().st_mode)


def test_a_directory_is_refused(tmp_path):
    with pytest.raises(InputError, match="is a directory"):
        write_output(tmp_path, b"x")


def test_a_missing_directory_is_reported(tmp_path):
    with pytest.raises(InputError, match=r"cannot write .*No such file or directory"):
        write_output(tmp_path / "missing" / "out.bin", b"x")


def test_dash_is_standard_output(capfdbinary):
    write_output("-", [b"\x00\x01", b"\xff"])
    write_text("-", "text\n")
    assert capfdbinary.readouterr().out == b"\x00\x01\xfftext\n"


def test_a_failing_producer_leaves_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "out.bin"
    target.write_bytes(b"keep me")

    def chunks():
        yield b"partial"
        raise InputError("the producer failed")

    with pytest.raises(InputError, match="producer failed"):
        write_output(target, chunks())
    assert target.read_bytes() == b"keep me"
    assert os.listdir(tmp_path) == ["out.bin"]
