"""The ``Name=value`` options of a fetch instruction in Xenia's and the XDK's listings
(``tfetch2D r0, r1.xy, tf0, MagFilter=linear, OffsetX=-1.5``) read into the fields of the
fetch's layout in ``isa.py`` (a2xx-isa.md#xna-text): each option's name, its field and
the values the field holds, so that a value the field cannot hold is refused, never
wrapped."""

from __future__ import annotations

import re
from collections.abc import Mapping

from . import isa


class TextError(Exception):
    """A line of a listing that cannot be read; the caller adds where."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


#: Xenia's names of a filter field's values (isa.TexFilter; "keep" is 3, the fetch
#: constant's filter) and of the aniso filter's (isa.AnisoFilter; "keep" is the unused 6).
FILTER_NAMES = ("point", "linear", "basemap", "keep")
ANISO_NAMES = ("disabled", "max1to1", "max2to1", "max4to1", "max8to1", "max16to1", "keep")
# Option -> field set to 1 by "true", 0 by "false".
_TEXTURE_FLAGS = {
    "FetchValidOnly": "fetch_valid_only", "UnnormalizedTextureCoords": "tx_coord_denorm",
    "UseComputedLOD": "use_comp_lod", "UseRegisterLOD": "use_reg_lod",
    "UseRegisterGradients": "use_reg_gradients",
}
#: Option -> its field and the names of the field's values (by value), in the order
#: Xenia prints them.
TEXTURE_NAMED: Mapping[str, tuple[str, tuple[str, ...]]] = {
    "MagFilter": ("mag_filter", FILTER_NAMES), "MinFilter": ("min_filter", FILTER_NAMES),
    "MipFilter": ("mip_filter", FILTER_NAMES), "AnisoFilter": ("aniso_filter", ANISO_NAMES),
    "VolMagFilter": ("vol_mag_filter", FILTER_NAMES),
    "VolMinFilter": ("vol_min_filter", FILTER_NAMES),
}
# Option -> signed fixed-point field and its units per 1.0.
_TEXTURE_FIXED = {
    "LODBias": ("lod_bias", isa.LOD_BIAS_DIVISOR),
    "OffsetX": ("offset_x", isa.TEXEL_OFFSET_DIVISOR),
    "OffsetY": ("offset_y", isa.TEXEL_OFFSET_DIVISOR),
    "OffsetZ": ("offset_z", isa.TEXEL_OFFSET_DIVISOR),
}
_VERTEX_FLAGS = {"RoundIndex": "is_index_rounded", "Signed": "format_comp_all"}
_VERTEX_NAMED: Mapping[str, tuple[str, Mapping[str, int] | tuple[str, ...]]] = {
    "NumFormat": ("num_format_all", {"fraction": 0, "integer": 1}),
    "DataFormat": ("format", {f.name: int(f) for f in isa.SurfaceFormat}),
}
_TEXTURE_OPTIONS = (*_TEXTURE_FLAGS, *TEXTURE_NAMED, *_TEXTURE_FIXED)
_VERTEX_OPTIONS = (*_VERTEX_FLAGS, *_VERTEX_NAMED, "ExpAdjust", "Offset", "Stride",
                   "PrefetchCount")


def texture_options(values: dict[str, int], options: list[str]) -> None:
    """Set the fields a texture fetch's options give."""
    layout = isa.TEXTURE_FETCH_LAYOUT
    for option in options:
        key, value = _split(option)
        if _common(values, option, _TEXTURE_FLAGS, TEXTURE_NAMED):
            continue
        if key in _TEXTURE_FIXED:
            field, units = _TEXTURE_FIXED[key]
            width = layout[field].width
            raw = _fixed(option, value, units, -(1 << width - 1), (1 << width - 1) - 1)
            values[field] = raw & ((1 << width) - 1)
        else:
            raise TextError(f"unknown texture fetch option '{option}' (the options: "
                            f"{', '.join(_TEXTURE_OPTIONS)})")


def vertex_options(values: dict[str, int], options: list[str]) -> int:
    """Set the fields a vertex fetch's options give; return Xenia's ``Offset``, which
    lies outside the layout's fields (a2xx-isa.md#xna-text)."""
    layout = isa.VERTEX_FETCH_LAYOUT
    offset = 0
    for option in options:
        key, value = _split(option)
        if _common(values, option, _VERTEX_FLAGS, _VERTEX_NAMED):
            continue
        if key == "ExpAdjust":
            width = layout["exp_adjust_all"].width
            raw = _fixed(option, value, 1, -(1 << width - 1), (1 << width - 1) - 1)
            values["exp_adjust_all"] = raw & ((1 << width) - 1)
        elif key == "Offset":
            width = isa.XENIA_VERTEX_OFFSET_BITS
            offset = _fixed(option, value, 1, -(1 << width - 1), (1 << width - 1) - 1)
            offset &= (1 << width) - 1
        elif key == "Stride":
            values["stride"] = _fixed(option, value, 1, 0, layout["stride"].max)
        elif key == "PrefetchCount":
            values["prefetch_count"] = _fixed(option, value, 1, 1,
                                              layout["prefetch_count"].max + 1) - 1
        else:
            raise TextError(f"unknown vertex fetch option '{option}' (the options: "
                            f"{', '.join(_VERTEX_OPTIONS)})")
    return offset


def _common(values: dict[str, int], option: str, flags: Mapping[str, str],
            named: Mapping[str, tuple[str, Mapping[str, int] | tuple[str, ...]]]) -> bool:
    """Set the field of a true/false or a named option; False if it is neither."""
    key, value = _split(option)
    if key in flags:
        values[flags[key]] = _flag(option, value)
    elif key in named:
        field, names = named[key]
        if isinstance(names, tuple):  # names by value
            names = {name: number for number, name in enumerate(names)}
        values[field] = _named(option, value, names)
    else:
        return False
    return True


def _split(option: str) -> tuple[str, str]:
    key, _, value = option.partition("=")
    return key.strip(), value.strip()


def _flag(option: str, value: str) -> int:
    if value not in ("true", "false"):
        raise TextError(f"'{option}': the value is true or false")
    return int(value == "true")


def _named(option: str, value: str, names: Mapping[str, int]) -> int:
    if value not in names:
        raise TextError(f"'{option}': the value is one of {', '.join(names)}")
    return names[value]


def _fixed(option: str, value: str, units: int, low: int, high: int) -> int:
    """``value`` in ``units`` per 1.0, a whole number from ``low`` to ``high``."""
    if re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)", value) is None:
        raise TextError(f"'{option}': the value is not a number")
    scaled = float(value) * units
    if scaled != int(scaled) or not low <= scaled <= high:
        step = "" if units == 1 else f" in steps of {1 / units:g}"
        raise TextError(f"'{option}': the value is {low / units:g} to {high / units:g}{step}")
    return int(scaled)
