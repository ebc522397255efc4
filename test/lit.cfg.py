# -*- Python -*-
# lit configuration for Quanta's IR and pass tests.

import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "QUANTA"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.quanta_obj_root, "test")
config.excludes = [
    "lit.cfg.py",
    "lit.site.cfg.py",
    "lit.local.cfg",
    "CMakeLists.txt",
    "Inputs",
]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%quanta_src_root", config.quanta_src_root))
config.substitutions.append(("%quanta_obj_root", config.quanta_obj_root))
# Debian's interpreter (the one the build found), with the built package;
# in a sanitizer build a wrapper that loads the sanitizer runtime first.
config.substitutions.append(("%python", config.python_executable))
if config.sanitized:
    config.available_features.add("sanitized")
    # LLVM's inline allocators poison memory only on the instrumented side
    # of Debian's uninstrumented libMLIR: manual poisoning off.
    config.environment["ASAN_OPTIONS"] = ":".join(
        filter(None, ["allow_user_poisoning=0", os.environ.get("ASAN_OPTIONS")])
    )
config.environment["PYTHONPATH"] = os.path.join(
    config.quanta_obj_root, "python_packages"
)

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
# The JIT's compile cache: the one scripts/run-tests.sh makes for the whole
# run, else one in the build tree, never the user's.
config.environment["QUANTA_CACHE_DIR"] = os.environ.get(
    "QUANTA_CACHE_DIR", os.path.join(config.test_exec_root, "compile-cache")
)
llvm_config.use_default_substitutions()

# Quanta's tools first, then LLVM's (FileCheck, not, count).
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.quanta_tools_dir, append_path=True)

llvm_config.add_tool_substitutions(
    [
        ToolSubst("quant-opt", unresolved="fatal"),
        ToolSubst("quant-run", unresolved="fatal"),
        ToolSubst("quant-compile", unresolved="fatal"),
        ToolSubst("quant-translate", unresolved="fatal"),
        ToolSubst("quanta-capi-test", unresolved="fatal"),
    ],
    [config.quanta_tools_dir],
)

# The C compiler the build uses links quant-compile's objects into C tests.
config.substitutions.append(("%cc", config.c_compiler))

# JIT execution tests link MLIR's runner support libraries.
config.substitutions.append(
    (
        "%mlir_c_runner_utils",
        os.path.join(config.llvm_lib_dir, "libmlir_c_runner_utils.so"),
    )
)

# Execution tests of x86 kernels need the instructions they use.
if os.path.exists("/proc/cpuinfo"):
    with open("/proc/cpuinfo") as cpuinfo:
        cpu_flags = set(cpuinfo.read().split())
    for flag, feature in [
        ("avx2", "avx2"),
        ("avx512_vnni", "avx512vnni"),
        ("avx_vnni", "avxvnni"),
        ("avx512_bf16", "avx512bf16"),
    ]:
        if flag in cpu_flags:
            config.available_features.add(feature)
