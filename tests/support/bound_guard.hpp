// Raises (or sets) the graph bound, max_fused_ops(), for one test.
#pragma once

#include "src/node.hpp"

#include <cstdint>

namespace fusecl::test {

class BoundGuard {
 public:
  explicit BoundGuard(std::uint32_t n) : previous_(detail::set_max_fused_ops(n)) {}
  ~BoundGuard() { detail::set_max_fused_ops(previous_); }
  BoundGuard(const BoundGuard&) = delete;
  BoundGuard& operator=(const BoundGuard&) = delete;

 private:
  std::uint32_t previous_;
};

}  // namespace fusecl::test
