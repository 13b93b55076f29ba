"""Shaders shared by the render and pipeline tests."""

#: Position and colour passed through.
PASS = """
.in pos
.in col
.out opos position
.out oclr color
.proc main
    mov opos, pos
    mov oclr, col
    end
.end
"""

#: Geometry shader, point mode: each point becomes a square of half-side ``size``
#: around it, two triangles (the second closed with the winding flag).
POINT_TO_QUAD = """
.gsh point c0
.entry gmain
.fvec size
.constf corner0(-1.0, -1.0, 0.0, 0.0)
.constf corner1(1.0, -1.0, 0.0, 0.0)
.constf corner2(-1.0, 1.0, 0.0, 0.0)
.constf corner3(1.0, 1.0, 0.0, 0.0)
.in pos
.in col
.out opos position
.out oclr color
.proc gmain
    mov r0, size
    setemit 0
    mul r1, corner0, r0
    add opos, pos, r1
    mov oclr, col
    emit
    setemit 1
    mul r1, corner1, r0
    add opos, pos, r1
    mov oclr, col
    emit
    setemit 2, prim
    mul r1, corner2, r0
    add opos, pos, r1
    mov oclr, col
    emit
    setemit 0, prim inv
    mul r1, corner3, r0
    add opos, pos, r1
    mov oclr, col
    emit
    end
.end
"""
