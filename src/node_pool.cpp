// Where nodes come from: a per-thread list of free node blocks.
//
// Every operation makes a node and every evaluation drops the graph it ran
// (Black-Scholes: about 90 nodes a call). glibc's malloc keeps only seven
// blocks of a size in its per-thread cache, so most of those went through its
// slower bins; malloc and free were a quarter of the host time of an
// evaluation. Here a thread keeps up to kKeep blocks it has freed and hands
// them out again first.
//
// A node made on one thread and dropped on another goes to the second's list:
// the last reference's release orders the first thread's writes before the
// reuse, as it does for malloc. Under AddressSanitizer there is no pool, so
// that a use after free is still reported.
#include "src/node.hpp"

#include <cstddef>
#include <new>

namespace fusecl::detail {

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kPooled = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kPooled = false;
#else
constexpr bool kPooled = true;
#endif
#else
constexpr bool kPooled = true;
#endif

// A thousand nodes (about 300 KB): a graph or two of the sizes that are
// built again and again; a larger graph's release gives the rest back.
constexpr std::size_t kKeep = 1024;

struct FreeBlock {
  FreeBlock* next;
};

// Set once a thread's pool is destroyed (thread exit; for the main thread,
// before static objects that may still hold arrays). Trivially destructible,
// so it can be read until the thread is gone.
thread_local bool pool_gone = false;

struct Pool {
  FreeBlock* head = nullptr;
  std::size_t count = 0;
  Pool() = default;
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;
  ~Pool() {
    while (head) {
      FreeBlock* b = head;
      head = b->next;
      ::operator delete(b);
    }
    pool_gone = true;
  }
};

// One pool per block type; in practice one type: the block allocate_shared
// makes for a Node and its reference counts.
template <class T>
Pool& pool_of() {
  thread_local Pool pool;
  return pool;
}

template <class T>
struct NodeAllocator {
  using value_type = T;
  static_assert(sizeof(T) >= sizeof(FreeBlock) && alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__);

  NodeAllocator() = default;
  template <class U>
  NodeAllocator(const NodeAllocator<U>&) {}

  T* allocate(std::size_t n) {
    if (kPooled && n == 1 && !pool_gone) {
      Pool& p = pool_of<T>();
      if (FreeBlock* b = p.head) {
        p.head = b->next;
        --p.count;
        return reinterpret_cast<T*>(b);
      }
    }
    return static_cast<T*>(::operator new(n * sizeof(T)));
  }

  void deallocate(T* ptr, std::size_t n) noexcept {
    if (kPooled && n == 1 && !pool_gone) {
      Pool& p = pool_of<T>();
      if (p.count < kKeep) {
        p.head = ::new (static_cast<void*>(ptr)) FreeBlock{p.head};
        ++p.count;
        return;
      }
    }
    ::operator delete(ptr);
  }

  template <class U>
  bool operator==(const NodeAllocator<U>&) const {
    return true;
  }
};

}  // namespace

NodePtr new_node() { return std::allocate_shared<Node>(NodeAllocator<Node>{}); }
NodePtr new_node(const Node& copy) { return std::allocate_shared<Node>(NodeAllocator<Node>{}, copy); }

}  // namespace fusecl::detail
