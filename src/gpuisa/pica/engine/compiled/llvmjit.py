"""LLVM IR to machine code in this process, through llvmlite (LLVM's own optimiser and
code generator, for this machine's CPU): a module in, the address of a function out.

The machine code of a kernel refers to no address of this process (NumPy's EX2/LG2
loops are an argument), so it is kept between processes (:func:`compile_cached`,
:mod:`.objectcache`): a new process loads a shader's kernel in about a millisecond
instead of building and compiling it in 20-130 ms.  The compiled code lives as long as
the :class:`Compiled` record that holds its execution engine.
"""

from __future__ import annotations

import ctypes
import functools
import threading
from collections.abc import Callable
from dataclasses import dataclass

import llvmlite.binding as llvm
import numpy as np

from . import objectcache
from . import textir as ir

#: ``void run(int64 lo, int64 hi, int64 *args)``: ctypes releases the GIL for the call.
KERNEL = ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_int64, ctypes.c_void_p)
#: The optimisation passes run on each function: the kernels are explicit SIMD code
#: whose every register component lives in a stack slot of the entry block, so
#: promoting those to SSA values (SROA) is what matters; LLVM's O1 pipeline took 2.5-3.5
#: times as long to compile the benchmark shaders and made only skinning faster (10-20 %;
#: 2026-11-28, Zen 4).
PASSES = ("sroa",)
#: The code generator's optimisation levels: QUICK (-O0: instruction selection and
#: register allocation built for speed; half the compile time of OPTIMISED, kernels
#: 1.3-3.5 times as slow, measured 2026-11-28 on the benchmark shaders: its registers
#: spill) and OPTIMISED (-O2; -O1 compiled as slowly and ran no faster).
QUICK, OPTIMISED = 0, 2
_lock = threading.Lock()


@dataclass(frozen=True, slots=True)
class Compiled:
    """A compiled function and the execution engine that keeps its code alive."""

    function: object
    engine: object
    address: int


@functools.cache
def _host() -> tuple[object, str, str]:
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    return (llvm.Target.from_triple(llvm.get_process_triple()), llvm.get_host_cpu_name(),
            llvm.get_host_cpu_features().flatten())


def _target_machine(level: int = OPTIMISED):
    """A new target machine for this CPU (an execution engine takes ownership of the one
    it is made with), its code generator at ``level``."""
    target, cpu, features = _host()
    return target.create_target_machine(cpu=cpu, features=features,
                                        opt=level, codemodel="jitdefault", jit=True)


def optimised(module: ir.Module, machine) -> llvm.ModuleRef:
    """``module`` parsed, verified and optimised for ``machine``."""
    parsed = llvm.parse_assembly(str(module))
    parsed.triple = machine.triple
    parsed.data_layout = str(machine.target_data)
    parsed.verify()
    builder = llvm.create_pass_builder(machine, llvm.create_pipeline_tuning_options(0))
    passes = llvm.create_new_function_pass_manager()
    for name in PASSES:
        getattr(passes, f"add_{name}_pass")()
    for function in parsed.functions:
        if not function.is_declaration:
            passes.run(function, builder)
    return parsed


def compile_kernel(module: ir.Module, name: str = "run", signature=KERNEL,
                   level: int = OPTIMISED) -> Compiled:
    """The machine code of ``module`` (code generator at ``level``) and the function
    ``name`` in it, as a ctypes function of ``signature``."""
    with _lock:  # LLVM's global state (the target, the pass builders) is not thread-safe
        machine = _target_machine(level)
        parsed = optimised(module, machine)
        engine = llvm.create_mcjit_compiler(parsed, machine)
        engine.finalize_object()
        address = engine.get_function_address(name)
    return Compiled(signature(address), engine, address)


def compile_cached(key: str, make: Callable[[], ir.Module], name: str = "run",
                   signature=KERNEL, level: int = OPTIMISED) -> Compiled:
    """``compile_kernel(make(), name, signature, level)``, its machine code kept on disk:
    ``key`` names everything the module is built from (what this package's sources do
    with it is in the hash :func:`.objectcache.name` adds).  Code any process compiled
    before is loaded instead of built."""
    file_name = _file_name(key, name, level)
    payload = objectcache.read(file_name)
    if payload is not None:
        try:
            return _loaded(payload, name, signature, level)
        except (RuntimeError, ValueError) as error:  # a file this LLVM cannot load
            objectcache.discard(file_name, str(error))
    module = make()
    with _lock:
        machine = _target_machine(level)
        payload = machine.emit_object(optimised(module, machine))
    objectcache.write(file_name, payload)
    return _loaded(payload, name, signature, level)


def _file_name(key: str, name: str, level: int) -> str:
    _, cpu, features = _host()
    return objectcache.name(f"{key}\n{name}\n{level}",
                            f"{llvm.get_process_triple()} {cpu} {features}")


def cached(key: str, name: str = "run", level: int = OPTIMISED) -> bool:
    """Whether machine code of :func:`compile_cached` ``(key, ..., name, level)`` is on
    disk (some process compiled it before)."""
    return objectcache.holds(_file_name(key, name, level))


def _loaded(payload: bytes, name: str, signature, level: int) -> Compiled:
    """The function ``name`` of machine code ``payload`` (an object file) loaded here."""
    with _lock:
        machine = _target_machine(level)
        empty = llvm.parse_assembly("")
        empty.triple = machine.triple
        engine = llvm.create_mcjit_compiler(empty, machine)
        engine.add_object_file(llvm.ObjectFileRef.from_data(payload))
        engine.finalize_object()
        address = engine.get_function_address(name)
    if not address:
        raise ValueError(f"the code holds no function {name!r}")
    return Compiled(signature(address), engine, address)


def assembly(module: ir.Module) -> str:
    """The machine code of ``module`` as assembly text (for looking at kernels)."""
    with _lock:
        machine = _target_machine()
        return machine.emit_assembly(optimised(module, machine))


def address(array: np.ndarray) -> int:
    """The address of ``array``'s first element, for a kernel's argument table (a
    writable buffer's through ctypes' ``from_buffer``: a third of the cost of
    ``array.ctypes.data``, which a run of one vertex notices)."""
    if array.flags.writeable:
        return ctypes.addressof(ctypes.c_char.from_buffer(array))
    return array.ctypes.data
