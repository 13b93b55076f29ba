"""LLVM IR to machine code in this process, through llvmlite (LLVM's own optimiser and
code generator, for this machine's CPU): a module in, the address of a function out.

The machine code of a kernel refers to no address of this process (NumPy's EX2/LG2
loops are an argument), so it could be kept between processes; compiling takes
milliseconds, so it is not.  The compiled code lives as long as the :class:`Compiled`
record that holds its execution engine.
"""

from __future__ import annotations

import ctypes
import functools
import threading
from dataclasses import dataclass

import llvmlite.binding as llvm
from llvmlite import ir

#: ``void run(int64 lo, int64 hi, int64 *args)``: ctypes releases the GIL for the call.
KERNEL = ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_int64, ctypes.c_void_p)
#: The optimisation passes run on each function: the kernels are explicit SIMD code
#: whose every register component lives in a stack slot, so promoting those to SSA
#: values (SROA) is what matters; LLVM's O1/O2 pipelines took 3-5 times as long to
#: compile the benchmark shaders and made them no faster (2026-11-27, Zen 4).
PASSES = ("sroa",)
#: The code generator's optimisation levels: QUICK (-O0: instruction selection and
#: register allocation built for speed; half the compile time of OPTIMISED and 5-15 %
#: slower kernels, measured 2026-11-27 on the benchmark shaders) and OPTIMISED (-O2).
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


def assembly(module: ir.Module) -> str:
    """The machine code of ``module`` as assembly text (for looking at kernels)."""
    with _lock:
        machine = _target_machine()
        return machine.emit_assembly(optimised(module, machine))
