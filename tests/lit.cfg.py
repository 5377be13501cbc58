# lit configuration for cgp-ad's tests of generated code (tests/lit) and the
# end-to-end numeric tests (tests/e2e). Every test runs the installed cgp-ad
# (--param prefix=...), compiles what it wrote with the system compiler and
# links it against the installed cgp_rt, as interface.md section 4 says.
import fcntl
import hashlib
import os
import shutil
import shlex
import subprocess
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
config.test_exec_root = os.path.abspath(params.get("exec_root", os.path.join(prefix, "..", "lit-out")))

cxx = params.get("cxx", "c++")
llvm_tools = params.get("llvm_tools", "/usr/lib/llvm-19/bin")
filecheck = params.get("filecheck", os.path.join(llvm_tools, "FileCheck"))
here = os.path.dirname(os.path.abspath(__file__))

# CGP_RT_CHECK_TAPE: the runtime checks the room of reserved tape pushes.
warnflags = "-std=c++17 -O2 -Wall -Wextra -DCGP_RT_CHECK_TAPE"
cxxflags = "%s -I%s/include" % (warnflags, prefix)
ldflags = "-L%s/lib -lcgp_rt -lm" % prefix
# Eigen (Debian's libeigen3-dev): tests of its fixed-size matrices need it
# (REQUIRES: eigen); %eigen is the flag that finds it, for cgp-ad and the
# compiler alike.
eigen_dir = "/usr/include/eigen3"
eigen_flags = "-isystem " + eigen_dir if os.path.isdir(os.path.join(eigen_dir, "Eigen")) else ""
if eigen_flags:
    config.available_features.add("eigen")
    cxxflags += " " + eigen_flags
sanitize = "-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all"


# The e2e checker's definitions (tests/e2e/harness/check.cpp) are compiled
# here once, not into every test: one object as %cxxflags builds tests and
# one as %cxxflags %sanitize does, in <exec_root>/harness. Each is rebuilt
# only when check.cpp, check.h or its compile command changed (a stamp beside
# it holds a hash of those and of the compiler's --version). ctest runs the
# lit, e2e and cuda suites at once with one exec root, each loading this
# file, hence the lock and the objects written under temporary names.
def build_harness_objects(source_dir, out_dir, objects):
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "build.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        compiler = shlex.split(cxx)
        try:
            version = subprocess.run(compiler + ["--version"], capture_output=True).stdout
        except OSError as e:
            lit_config.fatal("cannot run the C++ compiler %r: %s" % (cxx, e))
        sources = b"".join(open(os.path.join(source_dir, name), "rb").read() for name in ("check.h", "check.cpp"))
        pending = []
        for name, flags in objects:
            path = os.path.join(out_dir, name)
            temp = "%s.%d.tmp" % (path, os.getpid())
            command = compiler + shlex.split(flags) + ["-c", os.path.join(source_dir, "check.cpp"), "-o", temp]
            stamp = hashlib.sha256(sources + version + " ".join(command[:-1]).encode()).hexdigest()
            try:
                with open(path + ".stamp") as f:
                    if f.read() == stamp and os.path.exists(path):
                        continue
            except OSError:
                pass
            process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            pending.append((path, temp, stamp, command, process))
        failures = []
        for path, temp, stamp, command, process in pending:
            output = process.communicate()[0].decode(errors="replace")
            if process.returncode != 0:
                failures.append("%s\n%s" % (" ".join(command), output))
                if os.path.exists(temp):
                    os.remove(temp)
                continue
            if output:
                lit_config.warning("the e2e checker compiles with diagnostics:\n%s\n%s" % (" ".join(command), output))
            os.replace(temp, path)
            with open(path + ".stamp.tmp", "w") as f:
                f.write(stamp)
            os.replace(path + ".stamp.tmp", path + ".stamp")
        if failures:
            lit_config.fatal("cannot compile the e2e checker:\n" + "\n".join(failures))


harness_dir = os.path.join(here, "e2e", "harness")
harness_out = os.path.join(config.test_exec_root, "harness")
build_harness_objects(harness_dir, harness_out,
                      [("check-O2.o", warnflags), ("check-san.o", warnflags + " " + sanitize)])
harness = "-I%s %s" % (harness_dir, os.path.join(harness_out, "check-O2.o"))
san_harness = "-I%s %s" % (harness_dir, os.path.join(harness_out, "check-san.o"))

config.substitutions.append(("%cgpad", os.path.join(prefix, "bin", "cgp-ad")))
config.substitutions.append(("%install-prefix", prefix))
config.substitutions.append(("%cxxflags", cxxflags))
config.substitutions.append(("%ldflags", ldflags))
config.substitutions.append(("%sanitize", sanitize))
config.substitutions.append(("%san-harness", san_harness))
config.substitutions.append(("%harness", harness))
# %cxx compiles through tests/utils/cxx-generated-warnings, which fails a
# compile that warns in generated code (the user's code in a generated unit
# may warn: #line markers tell the two apart); check-strategies does too.
config.substitutions.append(("%cxx", os.path.join(here, "utils", "cxx-generated-warnings") + " " + cxx))
config.substitutions.append(("%check-strategies", os.path.join(here, "utils", "check-strategies")))
config.environment["CGPAD"] = os.path.join(prefix, "bin", "cgp-ad")
config.environment["CGPAD_PARSE_FLAGS"] = eigen_flags
config.substitutions.append(("%eigen", eigen_flags))
config.environment["CXX"] = cxx
config.environment["CXXFLAGS"] = cxxflags
config.environment["LDFLAGS"] = ldflags
config.environment["HARNESS"] = harness
config.substitutions.append(("%expect-exit", os.path.join(here, "utils", "expect-exit")))
config.substitutions.append(("%check-report", os.path.join(here, "utils", "check-report")))
# The report's test in a browser runs where Debian's chromium is installed
# (scripts/install-deps.sh installs it).
if any(shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome")):
    config.available_features.add("chromium")
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
