// device_launch_parameters.h - while cgp-ad parses a CUDA source, the toolkit header of this name is
// its own prelude (prelude.h says why).
#include "prelude.h"
