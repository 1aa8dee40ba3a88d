#include "runtime/host_copy.hpp"

#include "runtime/env_settings.hpp"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace fusecl::rt {

namespace {

constexpr std::size_t kMinPiece = std::size_t(1) << 20;

// Workers waiting for pieces of copies. Made on first use and never
// destroyed: its threads block on the condition variable until the process
// ends, so no copy can find them gone during static destruction.
class CopyWorkers {
 public:
  explicit CopyWorkers(unsigned n) {
    for (unsigned i = 0; i < n; ++i) std::thread([this] { run(); }).detach();
  }

  // Runs every task, `tasks[0]` on the calling thread, and returns when all are done.
  void run_all(std::vector<std::function<void()>>& tasks) {
    struct Done {
      std::mutex m;
      std::condition_variable cv;
      std::size_t left;
    } done;
    done.left = tasks.size() - 1;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      for (std::size_t i = 1; i < tasks.size(); ++i)
        queue_.push_back([&done, &task = tasks[i]] {
          task();
          const std::lock_guard<std::mutex> l(done.m);
          if (--done.left == 0) done.cv.notify_one();
        });
    }
    cv_.notify_all();
    tasks[0]();
    std::unique_lock<std::mutex> lock(done.m);
    done.cv.wait(lock, [&] { return done.left == 0; });
  }

 private:
  void run() {
    for (;;) {
      std::function<void()> task;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        cv_.wait(lock, [&] { return !queue_.empty(); });
        task = std::move(queue_.front());
        queue_.pop_front();
      }
      task();
    }
  }

  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
};

unsigned threads_setting() {
  const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
  return unsigned(int_setting({"FUSECL_COPY_THREADS", std::min<long long>(hardware, 8), 1, 256, false,
                               "the hardware's threads, at most 8"}));
}

}  // namespace

unsigned copy_threads() {
  static const unsigned n = threads_setting();
  return n;
}

void copy_parallel(void* dst, const void* src, std::size_t bytes) {
  const std::size_t pieces = std::min<std::size_t>(copy_threads(), bytes / kMinPiece);
  if (pieces <= 1) {
    if (bytes) std::memcpy(dst, src, bytes);
    return;
  }
  static CopyWorkers* const workers = new CopyWorkers(copy_threads() - 1);
  // Pieces of whole cache lines, the last one taking the rest.
  const std::size_t step = (bytes / pieces) & ~std::size_t(63);
  std::vector<std::function<void()>> tasks;
  tasks.reserve(pieces);
  for (std::size_t i = 0; i < pieces; ++i) {
    const std::size_t begin = i * step;
    const std::size_t n = i + 1 == pieces ? bytes - begin : step;
    tasks.push_back([=] { std::memcpy(static_cast<char*>(dst) + begin, static_cast<const char*>(src) + begin, n); });
  }
  workers->run_all(tasks);
}

}  // namespace fusecl::rt
