// cuda_runtime.h - stands in for the CUDA runtime header under the host
// emulation: with -I tests/cuda/emu, a source's #include <cuda_runtime.h>
// gets cuda_emulation.h (see tests/cuda/README.md).
#include "cuda_emulation.h"
