"""Animations: one picture per frame while uniforms change by a fixed step per frame,
written as an animated GIF, an animated PNG or numbered PNG files."""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence

import numpy as np

from ...errors import InputError
from .shade import pillow
from .stages import declared

#: Frames written at most (bounds the time and the memory of one command).
MAX_FRAMES = 10_000
#: The longest frame: an APNG frame's delay is a 16-bit count of milliseconds as Pillow
#: writes it (a GIF's, of hundredths of a second).
MAX_FRAME_MS = 65_535


def stepped_uniforms(shbin: object, uniforms: Mapping[str, object] | None,
                     gs_uniforms: Mapping[str, object] | None,
                     steps: Mapping[str, Sequence[float]], frame: int, *,
                     dvle: int | None = None, gsh: int | None = None
                     ) -> tuple[dict[str, object], dict[str, object] | None]:
    """The vertex and geometry uniforms of frame ``frame``: each stepped uniform is its
    given value (0 if none) plus ``frame`` times its step, in whichever shader declares
    it."""
    vs_names = declared(shbin, dvle)
    gs_names = declared(shbin, gsh) if gsh is not None else set()
    vertex, geometry = dict(uniforms or {}), dict(gs_uniforms or {})
    for name, step in steps.items():
        # Without declared names (a Program, not a SHBIN) the vertex shader takes it.
        targets = [t for t, names in ((vertex, vs_names), (geometry, gs_names))
                   if name in names or (not vs_names | gs_names and t is vertex)]
        if not targets:
            raise InputError(f"--uniform-step {name}: no shader declares a uniform {name!r}")
        for table in targets:
            base = np.asarray(table.get(name, np.zeros(4)), dtype=np.float64)
            table[name] = base + frame * np.asarray(step, dtype=np.float64)
    return vertex, (geometry if gsh is not None else gs_uniforms)


def progress_printer(total: int, what: str = "frame") -> Callable[[int], None]:
    """Reports "frame k/total" (``what`` k/total) on standard error when it is a
    terminal, else nothing."""
    if not sys.stderr.isatty():
        return lambda done: None

    def report(done: int) -> None:
        end = "\n" if done == total else ""
        sys.stderr.write(f"\r{what} {done}/{total}{end}")
        sys.stderr.flush()

    return report


def numbered(path: str) -> bool:
    """Whether ``path`` is a pattern of numbered files (``frame_%03d.png``)."""
    return "%" in os.path.basename(path)


def frame_paths(path: str, count: int) -> list[str]:
    try:
        names = [path % k for k in range(count)]
    except (TypeError, ValueError):
        raise InputError(f"{path}: a numbered-file pattern needs one %d (e.g. "
                         f"frame_%03d.png)") from None
    if len(set(names)) != count:
        raise InputError(f"{path}: the pattern does not give each frame its own name")
    return names


def animation_bytes(frames: Sequence[np.ndarray], path: str, *,
                    frame_ms: int = 50) -> bytes:
    """Frames as an animated GIF (``.gif``) or PNG (``.png``/``.apng``), looping."""
    if isinstance(frame_ms, bool) or not isinstance(frame_ms, int) or not (
            1 <= frame_ms <= MAX_FRAME_MS):
        raise InputError(f"frame_ms must be 1..{MAX_FRAME_MS} milliseconds, got {frame_ms!r}")
    image = pillow()
    kind = os.path.splitext(path)[1].lower()
    if kind not in (".gif", ".png", ".apng"):
        raise InputError(f"{path}: an animation is written as .gif, .png or .apng (or "
                         f"numbered PNGs: frame_%03d.png)")
    pictures = [image.fromarray(f, "RGBA") for f in frames]
    buffer = io.BytesIO()
    if kind == ".gif":
        pictures = [p.convert("RGB").quantize(colors=255) for p in pictures]
        pictures[0].save(buffer, format="GIF", save_all=True, append_images=pictures[1:],
                         duration=frame_ms, loop=0, optimize=True)
    else:
        pictures[0].save(buffer, format="PNG", save_all=True, append_images=pictures[1:],
                         duration=frame_ms, loop=0)
    return buffer.getvalue()


def iterate_frames(count: int, make: Callable[[int], np.ndarray]) -> Iterator[np.ndarray]:
    if not 1 <= count <= MAX_FRAMES:
        raise InputError(f"--frames must be 1..{MAX_FRAMES}, got {count}")
    report = progress_printer(count)
    for k in range(count):
        yield make(k)
        report(k + 1)
