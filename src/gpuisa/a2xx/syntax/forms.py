"""The forms of Mesa's A2XX text: one tuple of pieces per CF clause, ALU line and fetch
kind, which the printer and the assembler both read."""

from __future__ import annotations

from collections.abc import Mapping

from .. import isa
from ..isa import AddressMode, CfKind, CfOpcode, ExecCondition, FetchKind
from .operands import AluDst, AluSrc, FetchDst, FetchSrc, Mnemonic, VectorOperands
from .pieces import Alt, AnySet, Is, Isnt, Lit, Name, Num, Options, Piece, Seq, opt

# --------------------------------------------------------------------------------------
# The forms
# --------------------------------------------------------------------------------------


def _keyword(keyword: str, name: str, *, hex: bool = False) -> tuple[Piece, ...]:
    """`` KEYWORD(value)``."""
    return (Lit(f" {keyword}("), Num(name, hex), Lit(")"))


def _flag(keyword: str, name: str, value: int = 1) -> Seq:
    return opt(Is(name, value), Lit(f" {keyword}"))


_ABSOLUTE = _flag("ABSOLUTE_ADDR", "address_mode", AddressMode.ABSOLUTE)
_BOOL_ADDR = opt(Isnt("bool_addr"), *_keyword("BOOL_ADDR", "bool_addr", hex=True))


def _cf_params(info: isa.CfOpInfo) -> tuple[Piece, ...]:
    if info.kind is CfKind.EXEC:
        parts = [
            opt(None, *_keyword("ADDR", "address", hex=True), *_keyword("CNT", "count", hex=True)),
            _flag("YIELD", "is_yield"),
            opt(Isnt("vc"), *_keyword("VC", "vc", hex=True)),
            _BOOL_ADDR,
            _ABSOLUTE,
        ]
        if info.condition is not ExecCondition.NONE:
            parts.append(opt(None, *_keyword("COND", "condition")))
    elif info.kind is CfKind.LOOP:
        parts = [
            opt(None, *_keyword("ADDR", "address", hex=True)),
            opt(None, *_keyword("LOOP_ID", "loop_id")),
            _ABSOLUTE,
        ]
    elif info.kind is CfKind.JMP_CALL:
        parts = [
            opt(None, *_keyword("ADDR", "address", hex=True)),
            opt(None, *_keyword("DIR", "direction")),
            _flag("FORCE_CALL", "force_call"),
            # COND is shown for predicated jumps; reading it sets predicated_jmp.
            opt(Is("predicated_jmp"), *_keyword("COND", "condition")),
            _BOOL_ADDR,
            _ABSOLUTE,
        ]
    elif info.kind is CfKind.ALLOC:
        buffer = Name(
            "buffer_select",
            isa.ALLOC_BUFFER_NAMES,
            "ALLOC buffer",
            {"COORD": isa.AllocBuffer.POSITION},  # the wiki's spelling
        )
        parts = [
            opt(None, *_keyword("SIZE", "size", hex=True)),
            _flag("NO_SERIAL", "no_serial"),
            _flag("ALLOC_MODE", "alloc_mode"),
        ]
        return (Lit(" "), buffer, Options(tuple(parts), "ALLOC"))
    else:
        return ()
    return (Options(tuple(parts), info.name),)


CF_MNEMONIC = Name("opcode", {op: op.name for op in CfOpcode}, "CF clause")
# CF line: the clause's name, then its parameters.
CF_FORMS: Mapping[CfOpcode, tuple[Piece, ...]] = {
    op: (CF_MNEMONIC, *_cf_params(info)) for op, info in isa.CF_OPS.items()
}

VECTOR_MNEMONIC = Mnemonic("vector_opc", {op: op.name for op in isa.VectorOpcode}, "vector")
# ALU line: the vector operation (the line's destination and operands).
VECTOR_FORM: tuple[Piece, ...] = (
    VECTOR_MNEMONIC,
    Lit("\t"),
    AluDst("vector_dest", "vector_write_mask", sets_export=True),
    Lit(" = "),
    VectorOperands(),
    _flag("CLAMP", "vector_clamp"),
)

# Wiki spellings of scalar operations (a2xx-isa.md#assembler), read but never printed.
SCALAR_ALIASES: Mapping[str, int] = {
    "MOV": isa.ScalarOpcode.MAXs,
    "RCP": isa.ScalarOpcode.RECIP_IEEE,
    "RSQ": isa.ScalarOpcode.RECIPSQ_IEEE,
    "EXP2": isa.ScalarOpcode.EXP_IEEE,
    "LOG2": isa.ScalarOpcode.LOG_IEEE,
    "PSETE": isa.ScalarOpcode.PRED_SETEs,
}
SCALAR_MNEMONIC = Mnemonic(
    "scalar_opc",
    {op: op.name for op in isa.ScalarOpcode},
    "scalar",
    predicated=False,
    aliases=SCALAR_ALIASES,
)
# Scalar line: the scalar operation, which reads source 3.
SCALAR_FORM: tuple[Piece, ...] = (
    SCALAR_MNEMONIC,
    Lit("\t"),
    AluDst("scalar_dest", "scalar_write_mask", sets_export=False),
    Lit(" = "),
    AluSrc(3),
    _flag("CLAMP", "scalar_clamp"),
)


def scalar_line_printed(v: Mapping[str, int]) -> bool:
    """Mesa prints the scalar line when its write mask is set or the vector's is empty;
    without it the scalar write mask is 0."""
    return bool(v["scalar_write_mask"] or not v["vector_write_mask"])


FETCH_MNEMONIC = Mnemonic(
    "opcode",
    {op: info.mesa for op, info in isa.FETCH_OPS.items()},
    "fetch",
    aliases={op.name: op for op in isa.FetchOpcode},  # the names Mesa prints as "?"
    unnamed="?",
)
_FILTERS = (
    ("MAG", "mag_filter", isa.TexFilter.USE_FETCH_CONST, isa.TEX_FILTER_NAMES),
    ("MIN", "min_filter", isa.TexFilter.USE_FETCH_CONST, isa.TEX_FILTER_NAMES),
    ("MIP", "mip_filter", isa.TexFilter.USE_FETCH_CONST, isa.TEX_FILTER_NAMES),
    ("ANISO", "aniso_filter", isa.AnisoFilter.USE_FETCH_CONST, isa.ANISO_FILTER_NAMES),
    (
        "ARBITRARY",
        "arbitrary_filter",
        isa.ArbitraryFilter.USE_FETCH_CONST,
        isa.ARBITRARY_FILTER_NAMES,
    ),
    ("VOL_MAG", "vol_mag_filter", isa.TexFilter.USE_FETCH_CONST, isa.TEX_FILTER_NAMES),
    ("VOL_MIN", "vol_min_filter", isa.TexFilter.USE_FETCH_CONST, isa.TEX_FILTER_NAMES),
)
_VERTEX_OPTIONS = Options(
    (
        Alt(
            (
                opt(
                    None,
                    Lit(" "),
                    Name(
                        "format",
                        {f: f.name for f in isa.MESA_VERTEX_FORMAT_NAMES},
                        "vertex format",
                        {f.name: f for f in isa.SurfaceFormat},
                    ),
                ),
                opt(None, *_keyword("TYPE", "format", hex=True)),
            )
        ),
        opt(None, Lit(" "), Name("format_comp_all", {1: "SIGNED", 0: "UNSIGNED"}, "signedness")),
        _flag("NORMALIZED", "num_format_all", 0),
        opt(None, *_keyword("STRIDE", "stride")),
        opt(Isnt("offset"), *_keyword("OFFSET", "offset")),
        # The wiki's older spelling has no selector: CONST(n).
        opt(
            None,
            Lit(" CONST("),
            Num("const_index"),
            opt(None, Lit(", "), Num("const_index_sel")),
            Lit(")"),
        ),
    ),
    "vertex fetch",
)
_TEXTURE_OPTIONS = Options(
    (
        opt(None, *_keyword("CONST", "const_idx")),
        _flag("VALID_ONLY", "fetch_valid_only"),
        _flag("DENORM", "tx_coord_denorm"),
        *(
            opt(Isnt(name, use_const), Lit(f" {label}("), Name(name, names, label), Lit(")"))
            for label, name, use_const, names in _FILTERS
        ),
        # Mesa prints use_comp_lod, which is 0 whenever it is printed.
        opt(Is("use_comp_lod", 0), Lit(" LOD(0) LOD_BIAS("), Num("lod_bias"), Lit(")")),
        opt(Isnt("use_reg_lod"), *_keyword("REG_LOD", "use_reg_lod")),
        _flag("USE_REG_GRADIENTS", "use_reg_gradients"),
        opt(
            None,
            Lit(" LOCATION("),
            Name("sample_location", {loc: loc.name for loc in isa.SampleLocation}, "location"),
            Lit(")"),
        ),
        opt(
            AnySet(("offset_x", "offset_y", "offset_z")),
            Lit(" OFFSET("),
            Num("offset_x"),
            Lit(","),
            Num("offset_y"),
            Lit(","),
            Num("offset_z"),
            Lit(")"),
        ),
    ),
    "texture fetch",
)
# FETCH line: opcode, destination, source and the kind's options.
FETCH_FORMS: Mapping[FetchKind, tuple[Piece, ...]] = {
    FetchKind.VERTEX: (
        FETCH_MNEMONIC,
        Lit("\t"),
        FetchDst(),
        Lit(" = "),
        FetchSrc(1),
        _VERTEX_OPTIONS,
    ),
    FetchKind.TEXTURE: (
        FETCH_MNEMONIC,
        Lit("\t"),
        FetchDst(),
        Lit(" = "),
        FetchSrc(3),
        _TEXTURE_OPTIONS,
    ),
}
