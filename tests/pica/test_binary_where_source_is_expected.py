"""A binary file given where assembly source is expected (issue 28): one line saying what
the file is, by its first bytes, and what the command wants, for every command that
reads source.  (Before: five 'instruction outside block' errors full of binary bytes.)"""

import pytest

from gpuisa.pica.asm import assemble
from gpuisa.pica.cli import main

SOURCE = ".out o position\n.proc main\n    mov o, v0\n    end\n.end\n"


@pytest.fixture
def files(tmp_path):
    shbin = tmp_path / "s.shbin"
    shbin.write_bytes(assemble(SOURCE).to_bytes())
    png = tmp_path / "p.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4)
    noise = tmp_path / "n.pica"
    noise.write_bytes(bytes((k * 37 + 11) % 256 for k in range(2000)))  # NUL bytes in it
    latin = tmp_path / "l.pica"
    latin.write_bytes(SOURCE.replace(".end", "; caf\xe9\n.end", 1).encode("latin-1"))
    return shbin, png, noise, latin


def _pica(capsys, *argv):
    status = main([str(a) for a in argv])
    return status, capsys.readouterr().err


def test_a_shbin_given_to_pica_asm(files, tmp_path, capsys):
    shbin = files[0]
    status, err = _pica(capsys, "asm", "-o", tmp_path / "out.shbin", shbin)
    assert status == 1
    assert err == (f"pica: error: {shbin}: a SHBIN (compiled shader), not assembly source: "
                   f"pica asm wants picasso source text (.pica, .vsh); disassemble it with "
                   f"'pica disasm {shbin}'\n")


@pytest.mark.parametrize("argv, command, wants", [
    (("run", "{png}", "--inputs", "x.json"), "pica run", " or a SHBIN"),
    (("trace", "{png}", "--inputs", "x.json"), "pica trace", " or a SHBIN"),
    (("check", "{png}"), "pica check", ""),
    (("asm", "-o", "o.shbin", "{png}"), "pica asm", ""),
])
def test_an_image_given_as_a_shader(files, capsys, argv, command, wants):
    png = files[1]
    status, err = _pica(capsys, *(a.format(png=png) for a in argv))
    assert status == 1
    assert err == (f"pica: error: {png}: a PNG image, not assembly source: {command} wants "
                   f"picasso source text (.pica, .vsh){wants}\n")


def test_binary_noise_and_a_shbin_among_render_sources(files, capsys):
    shbin, _, noise, _ = files
    status, err = _pica(capsys, "check", noise)
    assert (status, err.count("\n")) == (1, 1)
    assert err.startswith(f"pica: error: {noise}: binary data, not assembly source")
    status, err = _pica(capsys, "render", noise, shbin, "--mesh", "m.ply", "-o", "x.png")
    assert status == 1 and "binary data, not assembly source: pica render wants" in err


def test_a_latin1_comment_is_still_source(files, tmp_path, capsys):
    latin = files[3]
    status, err = _pica(capsys, "asm", "-o", tmp_path / "out.shbin", latin)
    assert (status, err) == (0, "")
