"""docs/reference/pica-isa.md is the generator's output for the current opcode table."""

from pathlib import Path

import pytest

from gpuisa.pica import isa, isadoc

PAGE = Path(__file__).resolve().parents[2] / isadoc.PAGE


def test_the_committed_page_is_the_generated_one():
    committed = PAGE.read_text(encoding="utf-8")
    assert committed == isadoc.page(), (
        f"{isadoc.PAGE} differs from the opcode table in gpuisa/pica/isa.py: "
        f"regenerate it with `{isadoc.COMMAND}` and commit it")


def test_every_opcode_value_has_a_row_and_an_anchor():
    text = isadoc.page()
    for info in isa.OPCODES.values():
        assert f'<a id="{isadoc.opcode_anchor(info)}"></a>' in text
    # the narrow opcode fields cover their whole ranges
    assert "| 0x2E–0x2F |" in text and "| 0x38–0x3F |" in text


def test_a_fact_without_words_stops_the_generator(monkeypatch):
    monkeypatch.delitem(isadoc._FLOW, "LOOP")
    with pytest.raises(isadoc.PageError, match="flow effect LOOP"):
        isadoc.page()


def test_the_command_line_prints_and_writes(tmp_path, capsys):
    assert isadoc.main([]) == 0
    assert capsys.readouterr().out == isadoc.page()
    target = tmp_path / "page.md"
    assert isadoc.main(["--write", str(target)]) == 0
    assert target.read_text(encoding="utf-8") == isadoc.page()
