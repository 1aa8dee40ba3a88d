// One process-wide lock around the graph and the device.
//
// Graph walks mark shared nodes, evaluation rewrites nodes in place (a node
// becomes a buffer and drops its inputs), and the runtime keeps one queue, one
// kernel cache and one buffer pool: none of this may run from two threads at
// once. Until evaluation is concurrent per device, every public entry point
// that reads or changes shared state holds this lock, so calls from several
// threads run one at a time and give the right answers. It is recursive
// because entry points call each other (a reduction evaluates its input early,
// a view of an evaluated array builds an elementwise node, ...).
#pragma once

#include <mutex>

namespace fusecl::detail {

std::recursive_mutex& api_mutex();

/// Holds the lock for the rest of the scope.
class ApiLock {
 public:
  ApiLock() : lock_(api_mutex()) {}

 private:
  std::lock_guard<std::recursive_mutex> lock_;
};

}  // namespace fusecl::detail
