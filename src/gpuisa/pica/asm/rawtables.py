"""gpuisa's raw SHBIN directives (docs/assembly-extensions.md, "Raw SHBIN fields"):
container fields and DVLE table entries that picasso's declarations cannot express.

They exist so that the disassembler can print *any* SHBIN the reader accepts as text that
assembles back to the same file: DVLP/DVLE version words, the operand descriptors' second
words, DVLE header fields that do not follow from the declarations, and table entries
that no declaration produces (unknown output semantics, two entries for one register,
empty or duplicate uniform names, label entries ...).  Every value is taken as written;
range checks are those of the fields' widths.
"""

from __future__ import annotations

from collections.abc import Callable

from ..shbin.records import Constant, ConstantKind, Label, OutputEntry, Uniform
from .cnum import strtoll
from .core import AssemblerCore
from .errors import AsmError, need
from .source import Statement, Tok

Handler = Callable[[AssemblerCore, Statement], None]

#: ``.dvle`` keys -> (Dvle field, largest value).
DVLE_KEYS = {
    "version": ("version", 0xFFFF),
    "type": ("shader_type", 1),
    "merge": ("merge_outmaps", 1),
    "inputs": ("input_mask", 0xFFFF),
    "outputs": ("output_mask", 0xFFFF),
    "mode": ("geometry_mode", 2),
    "fixedstart": ("fixed_vertex_start", 0xFF),
    "variablecount": ("variable_vertex_count", 0xFF),
    "fixedcount": ("fixed_vertex_count", 0xFF),
    "main": ("main_offset", 0xFFFFFFFF),
    "endmain": ("endmain_offset", 0xFFFFFFFF),
}
#: ``.dvlp`` keys -> largest value (``dvles`` only admits 0: "no DVLE, on purpose").
DVLP_KEYS = {"version": 0xFFFFFFFF, "dvles": 0}
#: Characters a name must spell as ``\\xHH``.
_UNQUOTABLE = frozenset(' "\\,;:')


def _int(tok: Tok, hi: int) -> int:
    text = tok.strip()
    parsed = strtoll(text.text)
    if parsed is None or parsed[1] != len(text.text):
        raise AsmError(f"Invalid value: {text.text}", text)
    if not 0 <= parsed[0] <= hi:
        raise AsmError(f"Value out of range (0..{hi}): {parsed[0]}", text)
    return parsed[0]


def _name(tok: Tok) -> str:
    """``"TEXT"``: printable ASCII except space, ``"``, ``\\``, ``,``, ``;`` and ``:``
    (which the lexer or the argument splitter would take), plus ``\\xHH`` escapes for any
    character 0x01-0x7F (names are NUL-terminated ASCII)."""
    text = tok.strip()
    raw = text.text
    if len(raw) < 2 or raw[0] != '"' or raw[-1] != '"':
        raise AsmError(f'expected a quoted name ("..."): {raw}', text)
    out, i = [], 1
    while i < len(raw) - 1:
        ch = raw[i]
        if ch == "\\":
            digits = raw[i + 2 : i + 4]
            if raw[i + 1 : i + 2] != "x" or len(digits) != 2 or i + 4 > len(raw) - 1:
                raise AsmError(f"invalid escape in name (expected \\xHH): {raw}", text)
            try:
                code = int(digits, 16)
            except ValueError:
                raise AsmError(f"invalid escape in name (expected \\xHH): {raw}", text) from None
            if not 0x01 <= code <= 0x7F:
                raise AsmError(f"a name holds ASCII characters 0x01-0x7F: {raw}", text)
            out.append(chr(code))
            i += 4
            continue
        if ch in _UNQUOTABLE or not " " <= ch <= "~":
            raise AsmError(f"invalid character in name (use \\xHH): {raw}", text)
        out.append(ch)
        i += 1
    return "".join(out)


def _values(st: Statement, count: int) -> list[Tok]:
    args = st.args
    toks = [need(args.arg(), args) for _ in range(count)]
    extra = args.arg()
    if extra is not None:
        raise AsmError("too many parameters", extra if extra.text else args.end_tok())
    return toks


def _keys(st: Statement, keys: dict[str, int]) -> list[tuple[str, int, Tok]]:
    """``KEY=VALUE`` items separated by spaces."""
    items = []
    args = st.args
    while (tok := args.arg_space()) is not None:
        if not tok.text:
            continue
        key, eq, _ = tok.text.partition("=")
        lower = key.lower()
        if not eq or lower not in keys:
            known = ", ".join(keys)
            raise AsmError(f"expected KEY=VALUE with KEY one of {known}: {tok.text}", tok)
        items.append((lower, _int(tok.sub(len(key) + 1), keys[lower]), tok))
    if not items:
        raise AsmError("missing parameter", args.end_tok())
    return items


def _top_level(asm: AssemblerCore, st: Statement) -> None:
    if asm.stack:
        raise AsmError(f"{st.name.text} is not allowed inside a block", st.name)


def dvlp(asm: AssemblerCore, st: Statement) -> None:
    """``.dvlp version=V dvles=0``: DVLP word 0x04; a SHBIN without DVLEs."""
    _top_level(asm, st)
    for key, value, _ in _keys(st, DVLP_KEYS):
        if key == "version":
            asm.dvlp_version = value
        else:
            asm.no_dvles = st.name


def opdeschigh(asm: AssemblerCore, st: Statement) -> None:
    """``.opdeschigh V[, V ...]``: second words of the descriptor table's entries, from
    entry 0 on (a later ``.opdeschigh`` continues where the previous one stopped)."""
    _top_level(asm, st)
    args = st.args
    count = 0
    while (tok := args.arg()) is not None:
        asm.opdesc_high.append((_int(tok, 0xFFFFFFFF), tok))
        count += 1
    if not count:
        raise AsmError("missing parameter", args.end_tok())


def dvle(asm: AssemblerCore, st: Statement) -> None:
    """``.dvle KEY=VALUE ...``: header fields of the current DVLE, overriding what the
    declarations and the entry procedure give."""
    _top_level(asm, st)
    state = asm.current_dvle()
    for key, value, _ in _keys(st, {k: hi for k, (_, hi) in DVLE_KEYS.items()}):
        name = DVLE_KEYS[key][0]
        state.header[name] = bool(value) if name == "merge_outmaps" else value


def dvleconst(asm: AssemblerCore, st: Statement) -> None:
    """``.dvleconst TYPE, REG, W0, W1, W2, W3``: one raw constant-table entry."""
    _top_level(asm, st)
    state = asm.current_dvle()
    kind, reg, *words = _values(st, 6)
    state.constants.append(Constant(ConstantKind(_int(kind, 2)), _int(reg, 0xFFFF),
                                    tuple(_int(w, 0xFFFFFFFF) for w in words)))


def dvleout(asm: AssemblerCore, st: Statement) -> None:
    """``.dvleout SEMANTIC, REG, MASK, UPPER``: one raw output-table entry (it takes no
    part in the output mask or the collision check of ``.out``)."""
    _top_level(asm, st)
    state = asm.current_dvle()
    semantic, reg, mask, upper = _values(st, 4)
    state.outputs.append(OutputEntry(_int(semantic, 0xFFFF), _int(reg, 0xFFFF),
                                     _int(mask, 0xF), _int(upper, (1 << 28) - 1)))


def dvleuniform(asm: AssemblerCore, st: Statement) -> None:
    """``.dvleuniform FIRST, LAST, "NAME"``: one raw uniform-table entry, after the
    (sorted) entries of the declarations, in statement order."""
    _top_level(asm, st)
    state = asm.current_dvle()
    first, last, name = _values(st, 3)
    state.raw_uniforms.append(Uniform(_name(name), _int(first, 0xFFFF), _int(last, 0xFFFF)))


def dvlelabel(asm: AssemblerCore, st: Statement) -> None:
    """``.dvlelabel ID, OFFSET, UNKNOWN, "NAME"``: one label-table entry."""
    _top_level(asm, st)
    state = asm.current_dvle()
    ident, offset, unknown, name = _values(st, 4)
    state.labels.append(Label(_int(ident, 0xFFFFFFFF), _int(offset, 0xFFFFFFFF), _name(name),
                              _int(unknown, 0xFFFFFFFF)))


DIRECTIVES: dict[str, Handler] = {
    "dvlp": dvlp,
    "opdeschigh": opdeschigh,
    "dvle": dvle,
    "dvleconst": dvleconst,
    "dvleout": dvleout,
    "dvleuniform": dvleuniform,
    "dvlelabel": dvlelabel,
}
