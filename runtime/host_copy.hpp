// Large host-to-host copies on several cores. One core copies memory at about
// 10 GB/s, while a GPU's DMA engine moves 25-55 GB/s over PCIe 4/5: staged
// transfers (transfer.cpp) copy between the caller's memory and pinned
// staging memory, and with one thread that copy, not the bus, would be the
// limit.
#pragma once

#include <cstddef>

namespace fusecl::rt {

/// Copies `bytes` from `src` to `dst` (not overlapping), split over up to
/// copy_threads() threads when large enough to repay the hand-off (pieces of
/// at least 1 MiB); small copies are one memcpy on the calling thread. Safe
/// to call from several threads at once (they share the workers).
void copy_parallel(void* dst, const void* src, std::size_t bytes);

/// How many threads copy_parallel uses at most: FUSECL_COPY_THREADS if set
/// (1 disables the workers), else the hardware's threads, at most 8 (more do
/// not add memory bandwidth on common hosts). Read once.
unsigned copy_threads();

}  // namespace fusecl::rt
