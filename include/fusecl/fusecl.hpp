// fusecl: NumPy-style array math, fused into one generated OpenCL kernel per
// expression, with compiled kernels cached in memory and on disk.
#pragma once

#include "fusecl/array.hpp"
#include "fusecl/device.hpp"
#include "fusecl/dtype.hpp"
#include "fusecl/error.hpp"
#include "fusecl/fuse.hpp"
#include "fusecl/generate.hpp"
#include "fusecl/reduce.hpp"
#include "fusecl/shape.hpp"
#include "fusecl/stats.hpp"
#include "fusecl/views.hpp"
