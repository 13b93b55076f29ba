"""The compiled engine (engine name ``jit``): each (program, DVLE, precision) translated
into LLVM IR and compiled in this process with llvmlite, in milliseconds: vertex
shaders by :mod:`.native` (run by :mod:`.nativerun`), geometry shaders by
:mod:`.nativegeometry` (run by :mod:`.geometryrun`), both from the recipes' trees
(:mod:`.alu`, :mod:`.lower`) and the stack machine in IR (:mod:`.flowir`);
:mod:`.runner` registers the engine.  Importing this package imports nothing of LLVM;
its modules do.
"""
