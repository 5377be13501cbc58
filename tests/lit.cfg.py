# lit configuration for cgp-ad's tests of generated code (tests/lit) and the
# end-to-end numeric tests (tests/e2e). Every test runs the installed cgp-ad
# (--param prefix=...), compiles what it wrote with the system compiler and
# links it against the installed cgp_rt, as interface.md section 4 says.
import os
import lit.formats

config.name = "cgp-ad"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".cpp", ".cu", ".test"]
config.excludes = ["harness", "Inputs", "emu"]
config.test_source_root = os.path.dirname(__file__)

params = lit_config.params
prefix = params.get("prefix")
if not prefix:
    lit_config.fatal("run lit with --param prefix=<install prefix of cgp-ad>")
config.test_exec_root = params.get("exec_root", os.path.join(prefix, "..", "lit-out"))

cxx = params.get("cxx", "c++")
llvm_tools = params.get("llvm_tools", "/usr/lib/llvm-19/bin")
filecheck = params.get("filecheck", os.path.join(llvm_tools, "FileCheck"))
here = os.path.dirname(os.path.abspath(__file__))

cxxflags = "-std=c++17 -O2 -Wall -Wextra -I%s/include" % prefix
ldflags = "-L%s/lib -lcgp_rt -lm" % prefix
sanitize = "-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all"

config.substitutions.append(("%cgpad", os.path.join(prefix, "bin", "cgp-ad")))
config.substitutions.append(("%cxxflags", cxxflags))
config.substitutions.append(("%ldflags", ldflags))
config.substitutions.append(("%sanitize", sanitize))
config.substitutions.append(("%harness", "-I" + os.path.join(here, "e2e", "harness")))
config.substitutions.append(("%cxx", cxx))
config.substitutions.append(("%check-strategies", os.path.join(here, "utils", "check-strategies")))
config.environment["CGPAD"] = os.path.join(prefix, "bin", "cgp-ad")
config.environment["CXX"] = cxx
config.environment["CXXFLAGS"] = cxxflags
config.environment["LDFLAGS"] = ldflags
config.environment["HARNESS"] = "-I" + os.path.join(here, "e2e", "harness")
config.substitutions.append(("%expect-exit", os.path.join(here, "utils", "expect-exit")))
config.substitutions.append(("FileCheck", filecheck))
config.substitutions.append(("%not", os.path.join(llvm_tools, "not")))

# Sanitizer runs must not depend on the caller's environment.
config.environment["ASAN_OPTIONS"] = "detect_leaks=1:abort_on_error=0"
config.environment["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
for var in ("CGP_DEBUG", "CGP_STATS", "CGP_MEMORY_BUDGET", "CGP_PROFILE", "CGP_TEST_DUMP"):
    config.environment.pop(var, None)

# CUDA (tests/cuda, tests/lit/cuda): generated gradient kernels run under the
# host emulation of CUDA (tests/cuda/emu), built with the C++ compiler, plain
# and with ThreadSanitizer; %nvcc-compile also compiles them with nvcc for
# sm_80 and sm_90 where nvcc is installed, and says it skipped elsewhere. No
# test needs a GPU.
emu = os.path.join(here, "cuda", "emu", "cuda_emulation.h")
config.substitutions.append(("%cuda-emulation", "-x c++ -include " + emu + " -I" +
                             os.path.join(here, "cuda", "harness")))
config.substitutions.append(("%nvcc-compile", os.path.join(here, "utils", "nvcc-compile")))
config.environment["CGP_PREFIX"] = prefix
config.substitutions.append(("%tsan", "-O1 -g -fsanitize=thread"))
config.environment["TSAN_OPTIONS"] = "halt_on_error=1:exitcode=66"
