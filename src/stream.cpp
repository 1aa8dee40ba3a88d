// Host views evaluated in chunks of rows (stream.hpp says what and why).
//
// Each chunk is an ordinary graph: a copy of the expression whose nodes have
// the chunk's rows, whose host views are device buffers of those rows, and
// whose device arrays are read through views of the same rows. The scheduler
// and the kernels are the ones every evaluation uses, so each chunk costs the
// kernels a device-resident evaluation of its rows would, and the kernel of
// the first chunk is reused (from the memory cache) by all the others.
#include "src/stream.hpp"

#include "src/stream_chunk.hpp"

#include "fusecl/error.hpp"
#include "runtime/env_settings.hpp"
#include "runtime/byte_size.hpp"
#include "runtime/stats_counters.hpp"
#include "src/device_state.hpp"
#include "src/materialize.hpp"
#include "src/views.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <exception>
#include <limits>
#include <map>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

namespace fusecl::detail {

namespace {

using namespace stream;

std::atomic<std::size_t> chunk_bytes_override{0};
std::atomic<std::int64_t> fault_at{-1};

constexpr std::size_t kDefaultChunkBytes = std::size_t(64) << 20;

std::size_t chunk_bytes_setting() {
  static const std::size_t from_env = [] {
    const auto v = rt::byte_size_setting("FUSECL_STREAM_CHUNK", "the default, 64 MiB");
    return v && *v > 0 ? std::size_t(*v) : kDefaultChunkBytes;
  }();
  const std::size_t o = chunk_bytes_override.load();
  return o ? o : from_env;
}


// Drains the queue when an exception leaves the pipeline, so that no work
// still queued reads host memory (or writes device memory) its caller frees.
class FinishOnThrow {
 public:
  explicit FinishOnThrow(rt::Runtime& r) : rt_(r) {}
  ~FinishOnThrow() {
    if (std::uncaught_exceptions() > count_) try {
        rt::finish(rt_);
      } catch (...) {  // the first error is the one to report
      }
  }
  FinishOnThrow(const FinishOnThrow&) = delete;
  FinishOnThrow& operator=(const FinishOnThrow&) = delete;

 private:
  rt::Runtime& rt_;
  int count_ = std::uncaught_exceptions();
};

void maybe_fault(std::int64_t k) {
  if (fault_at.load() == k) throw Error("fusecl test: fault injected in the pipeline at chunk " + std::to_string(k));
}

// Plans the streaming of `root` over the outermost axis of `axis_node`'s
// shape and evaluates what must be whole first. Returns the plan.
Plan prepare(const NodePtr& axis_node, std::uint64_t extra_row_bytes) {
  Plan p;
  p.flat = axis_node->shape.ndim() == 0;
  p.n = p.flat ? 1 : axis_node->shape.dims()[0];
  p.row_bytes = extra_row_bytes;
  plan_node(p, axis_node);
  if (!p.first.empty()) evaluate(p.first);  // streamed themselves where they read host views
  return p;
}

// Rows per chunk: the chunk's bytes within the setting and within a quarter
// of the device memory still free under the limit; a multiple of 128 where
// that is many rows, so that chunk starts stay aligned for in-place reads.
std::int64_t chunk_rows(rt::Runtime& r, const Plan& p, const Shape& shape, std::uint64_t* free_out) {
  const rt::MemoryBudget b = rt::memory_budget(r);
  const std::uint64_t free = b.limit > b.in_use ? b.limit - b.in_use : 0;
  const std::uint64_t target = std::min<std::uint64_t>(chunk_bytes_setting(), free / 4);
  *free_out = free;
  if (p.n <= 1 || p.row_bytes == 0) return std::max<std::int64_t>(p.n, 1);
  if (p.row_bytes > free / 2)
    throw Error("host_view: one row of shape " + shape.str() + " needs " + rt::exact_bytes(p.row_bytes) +
                " on the device, more than half the device memory free under the limit (" + rt::human_bytes(b.limit) +
                ", " + rt::human_bytes(b.in_use) + " in use); set FUSECL_DEVICE_MEMORY_LIMIT higher or reshape so that the "
                "outermost axis is longer");
  std::int64_t rows = std::max<std::int64_t>(1, std::int64_t(target / p.row_bytes));
  if (rows >= 256) rows -= rows % 128;
  return std::min(rows, p.n);
}

// ---- reductions across the streamed axis ----

template <class T>
bool better(T a, T b, bool max) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(b)) return false;  // the first NaN wins
    if (std::isnan(a)) return true;
  }
  return max ? a > b : a < b;
}

// Keeps, per output, the first chunk's value that beats the others (NumPy's
// first-of-equals; a NaN wins) and its global index.
struct ArgCombine {
  DType dtype;
  bool max;
  std::vector<unsigned char> best;  // K values of dtype
  std::vector<std::int64_t> index;
  bool have = false;

  template <class T>
  void merge_as(const unsigned char* vals, const std::int64_t* idx, std::int64_t offset) {
    for (std::size_t j = 0; j < index.size(); ++j) {
      T v, b;
      std::memcpy(&v, vals + j * sizeof(T), sizeof(T));
      std::memcpy(&b, best.data() + j * sizeof(T), sizeof(T));
      if (!have || better(v, b, max)) {
        std::memcpy(best.data() + j * sizeof(T), &v, sizeof(T));
        index[j] = idx[j] + offset;
      }
    }
    have = true;
  }
  void merge(const unsigned char* vals, const std::int64_t* idx, std::int64_t offset) {
    switch (dtype) {
      case DType::Bool: return merge_as<std::uint8_t>(vals, idx, offset);
      case DType::Int8: return merge_as<std::int8_t>(vals, idx, offset);
      case DType::Int16: return merge_as<std::int16_t>(vals, idx, offset);
      case DType::Int32: return merge_as<std::int32_t>(vals, idx, offset);
      case DType::Int64: return merge_as<std::int64_t>(vals, idx, offset);
      case DType::UInt8: return merge_as<std::uint8_t>(vals, idx, offset);
      case DType::UInt16: return merge_as<std::uint16_t>(vals, idx, offset);
      case DType::UInt32: return merge_as<std::uint32_t>(vals, idx, offset);
      case DType::UInt64: return merge_as<std::uint64_t>(vals, idx, offset);
      case DType::Float32: return merge_as<float>(vals, idx, offset);
      case DType::Float64: return merge_as<double>(vals, idx, offset);
    }
  }
};

void download_all(rt::Runtime& r, const Node& n, void* dst) {
  const std::size_t bytes = std::size_t(n.shape.size()) * elem_bytes(n);
  if (bytes) rt::download(r, *n.buffer(), 0, bytes, dst);
}

// Runs chunk after chunk: `build(ch)` makes a chunk's expression (its
// uploads enqueued), `run(c, first, k)` enqueues its kernels and what uses
// their result. Chunk k+1 is built (its uploads enqueued) before chunk k's
// kernels, so where the stream has queues of its own the upload of k+1 runs
// while k computes and k-1 comes down.
template <class Build, class Run>
void pipeline(Chunker& ch, std::int64_t n, std::int64_t rows, Build&& build, Run&& run, std::int64_t head = 0) {
  rt::Runtime& r = ch.runtime();
  FinishOnThrow guard(r);
  struct Ready {
    NodePtr c;
    rt::Event uploaded;
    std::int64_t first = 0, count = 0;
  };
  auto make = [&](std::int64_t first) {
    // The first chunk may be shorter (`head` rows), so that the others start aligned.
    const std::int64_t count = std::min(first == 0 && head > 0 ? head : rows, n - first);
    ch.start(first, count);
    // Buffers the pool hands this chunk may still be read by kernels enqueued so far.
    if (ch.overlap) rt::stream_uploads_after_kernels(r);
    Ready c{build(ch), nullptr, first, count};
    if (ch.overlap) c.uploaded = rt::stream_uploads_done(r);
    return c;
  };
  Ready cur = make(0);
  for (std::int64_t k = 0;; ++k) {
    const bool more = cur.first + cur.count < n;
    Ready next;
    if (more) next = make(cur.first + cur.count);
    if (cur.uploaded) rt::kernels_wait(r, cur.uploaded);
    run(cur.c, cur.first, k);
    rt::counters().streamed_chunks++;
    maybe_fault(k);
    if (!more) break;
    cur = std::move(next);
  }
}

// Downloads results on the stream's download queue from a thread of its own,
// so that they overlap the next chunks' uploads and kernels; at most two
// wait at a time, which bounds the chunks held on the device.
class Downloader {
 public:
  explicit Downloader(rt::Runtime& r) : r_(r), thread_([this] { loop(); }) {}
  ~Downloader() {
    {
      const std::lock_guard<std::mutex> lock(m_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  Downloader(const Downloader&) = delete;
  Downloader& operator=(const Downloader&) = delete;

  void push(std::shared_ptr<rt::DeviceBuffer> buf, rt::Event after, std::size_t bytes, void* dst) {
    std::unique_lock<std::mutex> lock(m_);
    cv_.wait(lock, [&] { return jobs_.size() < 2 || error_; });
    if (error_) std::rethrow_exception(error_);
    jobs_.push_back({std::move(buf), std::move(after), bytes, dst});
    cv_.notify_all();
  }
  /// Waits for every download; rethrows the first failure.
  void finish() {
    std::unique_lock<std::mutex> lock(m_);
    cv_.wait(lock, [&] { return jobs_.empty() || error_; });
    if (error_) std::rethrow_exception(error_);
  }

 private:
  struct Job {
    std::shared_ptr<rt::DeviceBuffer> buf;
    rt::Event after;
    std::size_t bytes;
    void* dst;
  };
  void loop() {
    std::unique_lock<std::mutex> lock(m_);
    for (;;) {
      cv_.wait(lock, [&] { return !jobs_.empty() || stop_; });
      if (jobs_.empty()) return;
      Job& j = jobs_.front();
      if (!error_) {
        lock.unlock();
        std::exception_ptr failed;
        try {
          rt::stream_download(r_, *j.buf, j.bytes, j.dst, j.after);
        } catch (...) {
          failed = std::current_exception();
        }
        lock.lock();
        if (failed && !error_) error_ = failed;
      }
      jobs_.pop_front();  // its buffer goes back to the pool only now
      cv_.notify_all();
    }
  }

  rt::Runtime& r_;
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<Job> jobs_;
  std::exception_ptr error_;
  bool stop_ = false;
  std::thread thread_;  // last: starts once the rest is made
};

// A reduction whose reduced axes include the streamed one: per-chunk partial
// results (kept dimensions as the result's), combined at the end.
void reduce_across(const NodePtr& root) {
  DeviceState& dev = *root->device;
  rt::Runtime& r = dev.runtime();
  const NodePtr x = root->inputs[0];
  Plan p = prepare(x, 0);
  std::uint64_t free = 0;
  const std::int64_t rows = chunk_rows(r, p, x->shape, &free);
  Chunker ch{dev, root->device, free};
  FinishOnThrow guard(r);
  const std::int64_t n = p.n, chunks = x->shape.size() == 0 ? 1 : (n + rows - 1) / rows;
  const auto& rd = root->reduce();
  if (chunks <= 1) {  // one chunk: the reduction itself, as on device data
    ch.start(0, n);
    NodePtr c = ch.clone(root, {ch.cut(x)}, root->shape);
    evaluate({c});
    rt::counters().streamed_chunks++;
    become_buffer(*root, c->buffer());
    return;
  }
  ch.overlap = rt::streams_overlap(r);
  const bool arg = reduce_info(root->op).finish == Finish::Index;
  const bool all_axes = int(rd.axes.size()) == x->shape.ndim() && x->shape.ndim() > 1;
  const std::int64_t k_out = root->shape.size();
  const std::int64_t row = row_elems(x->shape);
  ArgCombine comb{x->dtype, root->op == Op::ArgMax, {}, {}};
  std::shared_ptr<rt::DeviceBuffer> stack;
  DType part = root->dtype;
  if (arg) {
    comb.best.resize(std::size_t(k_out) * elem_bytes(*x));
    comb.index.resize(std::size_t(k_out));
  } else {
    if (root->op == Op::Mean) part = x->dtype;  // sums of the (already widened) input
    stack = rt::allocate(r, std::size_t(chunks * k_out) * std::size_t(size_of(part)));
  }
  std::vector<unsigned char> vals;
  std::vector<std::int64_t> idx;
  pipeline(ch, n, rows, [&](Chunker& c) { return c.cut(x); }, [&](const NodePtr& xc, std::int64_t first, std::int64_t k) {
    if (arg) {
      NodePtr ic = make_reduce_ex(root->op, xc, rd.axes, all_axes, true, 0, false);
      NodePtr vc = make_reduce_ex(root->op == Op::ArgMax ? Op::Max : Op::Min, xc, rd.axes, all_axes, true, 0, false);
      evaluate({ic, vc});
      vals.resize(std::size_t(k_out) * elem_bytes(*vc));
      idx.resize(std::size_t(k_out));
      download_all(r, *vc, vals.data());
      download_all(r, *ic, idx.data());
      comb.merge(vals.data(), idx.data(), all_axes || x->shape.ndim() == 1 ? first * row : first);
    } else {
      NodePtr pc = make_reduce_ex(root->op == Op::Mean ? Op::Sum : root->op, xc, rd.axes, false, true, 0, false);
      evaluate({pc});
      rt::copy_buffer(r, *pc->buffer(), 0, *stack, std::size_t(k * k_out) * std::size_t(size_of(part)),
                      std::size_t(k_out) * std::size_t(size_of(part)));
    }
  });
  if (arg) {
    become_buffer(*root, rt::upload(r, comb.index.data(), comb.index.size() * sizeof(std::int64_t)));
    return;
  }
  NodePtr s = make_buffer(stack, part, Shape{chunks, k_out}, root->device);
  NodePtr f = make_reduce_ex(root->op, s, {0}, false, false, 0, rd.post_sqrt);
  if (root->op == Op::Mean) std::get<ReduceData>(f->data).divisor = rd.divisor;
  evaluate({f});
  become_buffer(*root, f->buffer());
}

bool across_rows(const Node& root) {
  return op_class(root.op) == OpClass::Reduce && reduces_axis0(root) && root.inputs[0]->shape.ndim() > 0;
}

// Every chunk of root's rows: `run(c, first row)` computes chunk c (whose
// first row is `first`) and enqueues what reads its result. `head_for(rows)`
// may ask for a shorter first chunk.
template <class Run, class Head>
void stream_rows(const NodePtr& root, Run&& run, Head&& head_for) {
  DeviceState& dev = *root->device;
  rt::Runtime& r = dev.runtime();
  Plan p = prepare(root, std::uint64_t(row_elems(root->shape)) * elem_bytes(*root));
  if (root->shape.size() == 0) return;
  std::uint64_t free = 0;
  const std::int64_t rows = chunk_rows(r, p, root->shape, &free);
  Chunker ch{dev, root->device, free};
  ch.overlap = rt::streams_overlap(r);
  pipeline(ch, p.n, rows, [&](Chunker& c) { return c.cut(root, p.flat); },
           [&](const NodePtr& c, std::int64_t first, std::int64_t) { run(c, first); }, head_for(rows));
}

}  // namespace

namespace {
bool refresh(Node& n, std::uint32_t epoch) {
  if (!n.host) return false;
  if (n.op == Op::HostView) return true;
  if (n.mark == epoch) return n.host;  // shared below two paths: walked once
  n.mark = epoch;
  bool any = false;
  for (const auto& in : n.inputs) any = refresh(*in, epoch) || any;
  n.host = any;
  return any;
}
}  // namespace

bool refresh_host(Node& n) { return refresh(n, next_walk_epoch()); }

bool chunkable(const Node& root) {
  return root.op == Op::HostView || root.op == Op::View || is_elementwise(root.op) || row_structured(root) ||
         across_rows(root);
}

bool streams_to_host(const Node& root) { return !across_rows(root); }

void evaluate_streamed(const NodePtr& root) {
  if (across_rows(*root)) return reduce_across(root);
  rt::Runtime& r = root->device->runtime();
  const std::uint64_t es = elem_bytes(*root);
  const std::uint64_t total = std::uint64_t(root->shape.size()) * es;
  const rt::MemoryBudget b = rt::memory_budget(r);
  if (total > (b.limit > b.in_use ? b.limit - b.in_use : 0))
    throw Error("host_view: the result of shape " + root->shape.str() + " (" + rt::exact_bytes(total) +
                ") does not fit the device memory free under the limit (" + rt::human_bytes(b.limit) + ", " +
                rt::human_bytes(b.in_use) + " in use): write it to host memory with to_host(span), which streams it in "
                "chunks, or reduce it first");
  std::shared_ptr<rt::DeviceBuffer> full = rt::allocate(r, std::size_t(total));
  const std::uint64_t row_bytes = std::uint64_t(row_elems(root->shape)) * es;
  stream_rows(
      root,
      [&](const NodePtr& c, std::int64_t first) {
        evaluate({c});
        rt::copy_buffer(r, *c->buffer(), 0, *full, std::size_t(first * row_bytes), std::size_t(c->shape.size()) * es);
      },
      [](std::int64_t) { return std::int64_t(0); });
  become_buffer(*root, std::move(full));
}

void stream_to_host(const NodePtr& root, void* dst) {
  rt::Runtime& r = root->device->runtime();
  const std::size_t es = elem_bytes(*root);
  const std::size_t row_bytes = std::size_t(row_elems(root->shape)) * es;
  auto* out = static_cast<unsigned char*>(dst);
  auto no_head = [](std::int64_t) { return std::int64_t(0); };
  if (rt::streams_overlap(r)) {
    Downloader down(r);
    stream_rows(
        root,
        [&](const NodePtr& c, std::int64_t first) {
          evaluate({c});
          down.push(c->buffer(), rt::mark(r), std::size_t(c->shape.size()) * es, out + std::size_t(first) * row_bytes);
        },
        no_head);
    down.finish();
    return;
  }
  // Devices sharing the host's memory write each chunk's result straight
  // into `dst` where the chunk starts 128-byte aligned: a first chunk of a
  // few rows brings the others' starts there (chunks are multiples of 128
  // rows), and it alone is copied.
  auto head = [&](std::int64_t rows) -> std::int64_t {
    const auto at = reinterpret_cast<std::uintptr_t>(dst);
    if (at % 128 == 0 || rows < 256) return 0;
    for (std::int64_t h = 1; h < 128; ++h)
      if ((at + std::uintptr_t(h) * row_bytes) % 128 == 0) return h;
    return 0;
  };
  stream_rows(
      root,
      [&](const NodePtr& c, std::int64_t first) {
        void* to = out + std::size_t(first) * row_bytes;
        const std::size_t bytes = std::size_t(c->shape.size()) * es;
        if (auto in_place = rt::wrap_host_out(r, to, bytes)) {
          if (evaluate_into(c, in_place)) return rt::host_sync(r, *in_place);
        }
        evaluate({c});
        download_all(r, *c, to);
      },
      head);
}

NodePtr first_chunk(const NodePtr& root) {
  const NodePtr& axis_node = across_rows(*root) ? root->inputs[0] : root;
  Plan p = prepare(axis_node, 0);
  std::uint64_t free = 0;
  const std::int64_t rows = chunk_rows(root->device->runtime(), p, axis_node->shape, &free);
  Chunker ch{*root->device, root->device, free};
  ch.start(0, std::min(rows, p.n));
  if (!across_rows(*root)) return ch.cut(root, p.flat);
  const auto& axes = root->reduce().axes;
  const bool all_axes = int(axes.size()) == axis_node->shape.ndim() && axis_node->shape.ndim() > 1;
  return make_reduce_ex(root->op == Op::Mean ? Op::Sum : root->op, ch.cut(axis_node), axes, all_axes, true, 0, false);
}

std::size_t set_stream_chunk_bytes(std::size_t bytes) { return chunk_bytes_override.exchange(bytes); }
void set_stream_fault(std::int64_t k) { fault_at.store(k); }

}  // namespace fusecl::detail
