#include "src/api_lock.hpp"

namespace fusecl::detail {

std::recursive_mutex& api_mutex() {
  // Never destroyed: arrays released by static destructors of other
  // translation units still take it.
  static auto* m = new std::recursive_mutex;
  return *m;
}

}  // namespace fusecl::detail
