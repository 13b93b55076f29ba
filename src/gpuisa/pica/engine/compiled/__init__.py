"""The compiled engine (engine name ``jit``): each (program, DVLE, precision) turned into
the source of a Numba kernel (:mod:`.codegen`, :mod:`.geometry`), compiled once and
cached on disk (:mod:`.kernels`, :mod:`.cache`), run by :mod:`.runner`; small runs use
one kernel that interprets any program (:mod:`.interpreter`).  The arithmetic is the
recipes' (``engine/rules``) through the intrinsics of :mod:`.intrinsics`; control flow
is ``flow/stacks`` compiled through :mod:`.stacks`.  Importing this package imports
nothing of Numba; its modules do.
"""
