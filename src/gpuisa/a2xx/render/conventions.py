"""Where a vertex lands on the picture: the clip volume, viewport and pixel centres of
each target (a2xx-render.md#conventions).

Both targets see the draw through the same fixed pipeline state: the viewport is the
whole picture with the viewport transform engine on (``PA_CL_VTE_CNTL``: every scale
and offset enabled, the position divided by w), no scissor, no culling, a depth test
that keeps the nearer fragment.  What differs:

* **clip space z**: Xenos runs Direct3D 9 with ``PA_CL_CLIP_CNTL.DX_CLIP_SPACE_DEF`` set,
  so ``0 <= z <= w``; Mesa's freedreno A2XX driver's rasterizer state sets that
  register to 0 (OpenGL: ``-w <= z <= w``);
* **pixel centres** (``PA_SU_VTX_CNTL.PIX_CENTER``): Direct3D 9 samples pixel ``i`` at
  window coordinate ``i`` (Xenia adds half a pixel to every vertex to reproduce it on a
  host API); OpenGL, as Mesa sets it for GL's half-pixel centres, at ``i + 0.5``.

The window coordinates are ``x_w = (x/w + 1) * width/2`` and ``y_w = (1 - y/w) *
height/2`` (clip-space y up, the picture's first row at the top), so a full-screen quad
at ``x, y = +-w`` covers every pixel on both targets.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import InputError
from ..engine.config import TARGETS


@dataclass(frozen=True, slots=True)
class Conventions:
    """``near``: the lowest z/w inside the clip volume (0 or -1; the far plane is
    z = w); ``centre``: the window coordinate of pixel 0's sample point (0 or 0.5)."""

    target: str
    near: float
    centre: float

    @classmethod
    def for_target(cls, target: str) -> Conventions:
        if target not in TARGETS:
            raise InputError(f"target must be one of {', '.join(TARGETS)}, not {target!r}")
        if target == "xenos":
            return cls(target, 0.0, 0.0)
        return cls(target, -1.0, 0.5)
