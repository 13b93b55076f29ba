"""The benchmark workloads: four shaders, their inputs, and the same math in plain NumPy.

Each :class:`Workload` has picasso source, a function making N vertices of inputs and
the uniforms, and a direct NumPy implementation of what the shader computes (float32,
without the PICA's rounding rules) as the yardstick "how fast can NumPy do this math".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from gpuisa.pica import Program
from gpuisa.pica.asm import assemble
from gpuisa.pica.shbin import Shbin

TRANSFORM = """
; position = mvp * pos: four DP4
.fvec mvp[4]
.in pos
.out opos position
.proc main
    dp4 opos.x, mvp[0], pos
    dp4 opos.y, mvp[1], pos
    dp4 opos.z, mvp[2], pos
    dp4 opos.w, mvp[3], pos
    end
.end
"""

LIGHTING = """
; per-vertex diffuse + specular lighting; the specular term only where N.L > 0
.fvec light_dir, half_dir, diffuse, specular, ambient
.constf k(0.0, 1.0, 0.5, 8.0)
.in pos
.in nrm
.out opos position
.out oclr color
.proc main
    dp3 r0.x, nrm, nrm
    rsq r0.x, r0.x
    mul r1.xyz, nrm, r0.xxx
    dp3 r2.x, light_dir, r1
    max r2.x, k.xxxx, r2.x
    mov r3, ambient
    mad r3, r2.xxxx, diffuse, r3
    cmp k.xxxx, lt, lt, r2
    ifc cmp.x
        dp3 r4.x, half_dir, r1
        max r4.x, k.xxxx, r4.x
        mul r4.x, r4.x, r4.x
        mul r4.x, r4.x, r4.x
        mad r3, r4.xxxx, specular, r3
    .end
    mov oclr, r3
    mov opos, pos
    end
.end
"""

SKINNING = """
; linear blend skinning: four bone influences in a LOOP, bone rows through a0.x
.fvec bones[48]
.ivec influences
.constf k(0.0, 1.0, 3.0, 0.0)
.in pos
.in idx
.in wgt
.out opos position
.proc main
    mov r0, k.xxxx
    mov r1, idx
    mov r2, wgt
    for influences
        mul r5.x, k.z, r1.x
        mova a0.x, r5.x
        dp4 r3.x, bones[a0.x], pos
        dp4 r3.y, bones[a0.x + 1], pos
        dp4 r3.z, bones[a0.x + 2], pos
        mad r0.xyz, r3.xyz, r2.xxx, r0.xyz
        mov r1, r1.yzwx
        mov r2, r2.yzwx
    .end
    mov r0.w, k.y
    mov opos, r0
    end
.end
"""

POINT_SPRITE = """
; geometry shader: each point becomes a quad of two triangles
.fvec size
.constf k(1.0, -1.0, 0.0, 0.0)
.in pos
.in col
.out opos position
.out oclr color
.proc main
    mov r1, k
    mul r0, size, r1.xyzz
    setemit 0
    add opos, pos, -r0.xxzz
    mov oclr, col
    emit
    setemit 1
    add opos, pos, r0.xyzz
    mov oclr, col
    emit
    setemit 2, prim
    add opos, pos, r0.yxzz
    mov oclr, col
    emit
    setemit 0, prim inv
    add opos, pos, r0.xxzz
    mov oclr, col
    emit
    end
.end
"""


#: A 27-word lighting shader kept as raw instruction words and operand descriptors (a
#: workload for comparing PICA200 emulators, not written in picasso): o0 = MVP v0;
#: N = normalize(M3 v1); diffuse min(max(L.N, 0), 1) times a colour plus ambient, times v2;
#: JMPC skips a halving where L.N > 0.25 (about 37 % of these inputs); specular
#: max(H.N, 0)^4; o3 = N.
PEER_LIGHTING_CODE = (
    0x08020000, 0x08021001, 0x08022002, 0x08023003, 0x06024080, 0x06025081, 0x06026082,
    0x06210800, 0x3E211006, 0x22011805, 0x06427800, 0x3242A906, 0x3642A907, 0x22628908,
    0x02629984, 0x22802984, 0xBA42C90A, 0xB2804C00, 0x2282AA09, 0x4C214004, 0x06A2B800,
    0x32A2AA86, 0x22A15A86, 0x22A15A86, 0xE22AB68B, 0x4C610004, 0x88000000,
)
PEER_LIGHTING_OPDESCS = (
    0x0006C368, 0x0006C364, 0x0006C362, 0x0006C361, 0x0006C36F, 0x0006C00E, 0x0006C008,
    0x0006CAA8, 0x0000036F, 0x0006D54F, 0x00000000, 0x0D86C00F,
)


@dataclass(frozen=True)
class Workload:
    name: str
    source: str | Program  # picasso source, or a bare program run from word 0
    inputs: Callable[[int, np.random.Generator], dict[str, np.ndarray]]
    uniforms: Callable[[np.random.Generator], dict[str, object]]
    numpy: Callable[[dict[str, np.ndarray], dict[str, object]], object]

    @cached_property
    def shbin(self) -> Shbin | Program:
        if isinstance(self.source, Program):
            return self.source
        return assemble([(f"{self.name}.v.pica", self.source)])


def _positions(n: int, rng: np.random.Generator) -> np.ndarray:
    pos = rng.uniform(-100, 100, (n, 4)).astype(np.float32)
    pos[:, 3] = 1.0
    return pos


def _mvp(rng: np.random.Generator) -> np.ndarray:
    return rng.uniform(-2, 2, (4, 4)).astype(np.float32)


def _transform_numpy(inputs, uniforms):
    return inputs["pos"] @ np.asarray(uniforms["mvp"], np.float32).T


def _lighting_inputs(n, rng):
    nrm = rng.normal(size=(n, 4)).astype(np.float32)
    nrm[:, 3] = 0.0
    return {"pos": _positions(n, rng), "nrm": nrm}


def _lighting_uniforms(rng):
    light = np.array([0.3, 0.5, 0.8, 0.0], np.float32)
    half = np.array([0.2, 0.6, 0.77, 0.0], np.float32)
    return {"light_dir": light / np.linalg.norm(light), "half_dir": half / np.linalg.norm(half),
            "diffuse": [0.8, 0.7, 0.6, 1.0], "specular": [0.5, 0.5, 0.5, 0.0],
            "ambient": [0.1, 0.1, 0.1, 0.0]}


def _lighting_numpy(inputs, uniforms):
    u = {k: np.asarray(v, np.float32) for k, v in uniforms.items()}
    nrm = inputs["nrm"][:, :3]
    unit = nrm / np.sqrt((nrm * nrm).sum(axis=1, keepdims=True))
    ndl = unit @ u["light_dir"][:3]
    color = u["diffuse"] * np.maximum(ndl, 0)[:, None] + u["ambient"]
    spec = np.maximum(unit @ u["half_dir"][:3], 0) ** 4
    lit = ndl > 0
    color[lit] += u["specular"] * spec[lit, None]
    return color, inputs["pos"]


BONES = 16


def _skinning_inputs(n, rng):
    wgt = rng.random((n, 4)).astype(np.float32)
    wgt /= wgt.sum(axis=1, keepdims=True)
    return {"pos": _positions(n, rng),
            "idx": rng.integers(0, BONES, (n, 4)).astype(np.float32), "wgt": wgt}


def _skinning_uniforms(rng):
    return {"bones": rng.uniform(-1, 1, (3 * BONES, 4)).astype(np.float32),
            "influences": [3, 0, 0, 0]}


def _skinning_numpy(inputs, uniforms):
    bones = np.asarray(uniforms["bones"], np.float32).reshape(BONES, 3, 4)
    idx = inputs["idx"].astype(np.intp)
    out = np.zeros((len(idx), 3), np.float32)
    for k in range(4):
        out += np.einsum("nij,nj->ni", bones[idx[:, k]], inputs["pos"]) * inputs["wgt"][:, k:k + 1]
    return out


def _sprite_inputs(n, rng):
    return {"pos": _positions(n, rng), "col": rng.random((n, 4)).astype(np.float32)}


def _sprite_numpy(inputs, uniforms):
    s = np.float32(uniforms["size"][0])
    corners = np.array([[-s, -s], [s, -s], [-s, s], [s, s]], np.float32)
    pos = np.repeat(inputs["pos"][:, None, :], 4, axis=1)
    pos[:, :, :2] += corners
    return pos.reshape(-1, 4), np.repeat(inputs["col"], 4, axis=0)


def _peer_inputs(n, rng):
    nrm = rng.normal(size=(n, 4)).astype(np.float32)
    nrm[:, :3] /= np.linalg.norm(nrm[:, :3], axis=1, keepdims=True)
    nrm[:, 3] = 0.0
    pos = rng.uniform(-1, 1, (n, 4)).astype(np.float32)
    pos[:, 3] = 1.0
    return {"v0": pos, "v1": nrm, "v2": rng.uniform(-2, 2, (n, 4)).astype(np.float32)}


_PEER_UNIFORMS = {
    "c0": (1.2, 0, 0, 0.1), "c1": (0, 1.6, 0, -0.2), "c2": (0, 0, -1.002, -0.2002),
    "c3": (0, 0, -1, 0), "c4": (0.8, -0.6, 0, 0), "c5": (0.6, 0.8, 0, 0), "c6": (0, 0, 1, 0),
    "c7": (0.30305, 0.50508, 0.80812, 0), "c8": (1, 0.9, 0.8, 1), "c9": (0.1, 0.1, 0.15, 0),
    "c10": (0, 1, 0.5, 2), "c11": (0, 0.3162, 0.9487, 0), "c12": (0.25, 0.25, 0, 0),
    "c13": (0.5, 0.5, 0.5, 0),
}


def _peer_numpy(inputs, uniforms):
    c = {k: np.asarray(v, np.float32) for k, v in uniforms.items()}
    mvp = np.stack([c["c0"], c["c1"], c["c2"], c["c3"]])
    pos = inputs["v0"] @ mvp.T
    normal = inputs["v1"][:, :3] @ np.stack([c["c4"], c["c5"], c["c6"]])[:, :3].T
    normal /= np.sqrt((normal * normal).sum(axis=1, keepdims=True))
    ndl = np.clip(normal @ c["c7"][:3], 0, 1)
    color = (c["c8"] * ndl[:, None] + c["c9"]) * inputs["v2"]
    color[ndl <= 0.25] *= 0.5
    spec = np.maximum(normal @ c["c11"][:3], 0) ** 4
    return pos, color, spec[:, None] * c["c13"] + color


WORKLOADS = {
    "transform": Workload("transform", TRANSFORM,
                          lambda n, rng: {"pos": _positions(n, rng)},
                          lambda rng: {"mvp": _mvp(rng)}, _transform_numpy),
    "lighting": Workload("lighting", LIGHTING, _lighting_inputs, _lighting_uniforms,
                         _lighting_numpy),
    "skinning": Workload("skinning", SKINNING, _skinning_inputs, _skinning_uniforms,
                         _skinning_numpy),
    "peer-lighting": Workload("peer-lighting",
                              Program(PEER_LIGHTING_CODE, PEER_LIGHTING_OPDESCS),
                              _peer_inputs, lambda rng: dict(_PEER_UNIFORMS), _peer_numpy),
    "geometry": Workload("geometry", POINT_SPRITE, _sprite_inputs,
                         lambda rng: {"size": [0.5, 0.5, 0.5, 0.5]}, _sprite_numpy),
}
