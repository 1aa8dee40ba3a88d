// An H200's row layout (src/launch.cpp's GPU defaults), set on any device's
// tuning, for the tests that pin row kernels' GPU layouts wherever they run.
#pragma once

#include "src/scheduler.hpp"

#include <cstddef>

namespace fusecl::test {

/// Groups of up to 256 for reductions, 16-byte vectors, 16 elements a
/// work-item in groups of up to 128 for short rows, 48 KiB of local memory,
/// and `held` bytes of loads a work-item for long rows (0: none).
inline void h200_row_layout(detail::DeviceTuning& t, std::size_t held) {
  t.local_size = 256;
  t.vector_bytes = 16;
  t.elements_per_item = 16;
  t.row_group_cap = 128;
  t.row_register_elements = 16;
  t.row_items_cap = 1024;
  t.row_bytes = 49152;
  t.local_mem_bytes = 49152;
  t.row_held_bytes = held;
}

}  // namespace fusecl::test
