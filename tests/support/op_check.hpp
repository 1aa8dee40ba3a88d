// Shared machinery of the op tests (test_ops_*.cpp, test_random_dags.cpp):
// dispatch over the 11 element types, host Values to and from device arrays,
// many outputs evaluated as one kernel (a Batch), and comparison of device
// results with the reference evaluator, reporting the first mismatches with
// their inputs.
//
// Kernel builds dominate the run time of these tests (every new kernel
// structure is compiled once), so a test puts everything it can into one
// Batch: all ops of one dtype (or dtype pair) become the outputs of a single
// kernel, and further sizes or scalar values reuse that structure for free.
#pragma once

#include "support/random_inputs.hpp"
#include "support/value.hpp"

#include <fusecl/fusecl.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

namespace fusecl::test {

// ---- the element types ----------------------------------------------------------------

template <class... Ts>
struct TypeList {};

using AllTypes = TypeList<bool, std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t, std::uint16_t,
                          std::uint32_t, std::uint64_t, float, double>;

/// Calls f(std::type_identity<T>{}) for each T of the list, in order.
template <class... Ts, class F>
void for_each_type(TypeList<Ts...>, F&& f) {
  (f(std::type_identity<Ts>{}), ...);
}

// ---- host values <-> device arrays -----------------------------------------------------

/// One upload of `xs` (all of dtype T) as a 1-d array.
template <class T>
Array<T> to_device(const std::vector<Value>& xs) {
  std::vector<T> host;
  host.reserve(xs.size());
  for (const Value& x : xs) host.push_back(x.as<T>());
  return from_host(host);
}

/// The values of an array (evaluating it if needed), as Values of its dtype.
/// A bool array is read as its raw bytes, which must be 0 or 1: any other
/// byte b comes back as uint8(b), which matches no bool (to_host() would
/// quietly turn it into true, but fused arithmetic on it would not).
template <class T>
std::vector<Value> to_values(const Array<T>& a) {
  std::vector<Value> out;
  out.reserve(static_cast<std::size_t>(a.size()));
  if constexpr (std::is_same_v<T, bool>) {
    std::vector<std::uint8_t> bytes(static_cast<std::size_t>(a.size()));
    detail::node_to_host(a.node(), bytes.data(), bytes.size());
    for (std::uint8_t b : bytes) out.push_back(b <= 1 ? Value(b == 1) : Value(b));
  } else {
    const auto host = a.to_host();
    for (std::size_t i = 0; i < host.size(); ++i) out.push_back(Value(static_cast<T>(host[i])));
  }
  return out;
}

/// The smallest length >= n that is 13 more than a multiple of 16, so that
/// every vector width (2, 4, 8, 16) leaves a scalar tail behind the vector
/// loop (13 elements at width 16, 5 at 8, 1 at 4 and 2).
std::size_t with_tail(std::size_t n);

/// Runs of at most 7 elements: shorter than the vector widths 8 and 16, so an
/// array of one run goes through the scalar tail only.
constexpr std::size_t kTailRun = 7;

/// A seed for one test case, derived from the run's base seed (test_seed())
/// and the case's name, so that cases get different inputs but one
/// FUSECL_TEST_SEED reproduces them all.
std::uint64_t case_seed(std::uint64_t base, const std::string& name);

/// Input options suited to the device: no subnormal inputs if it flushes them.
InputOptions device_input_options();

/// Whether the device can run kernels with this dtype (float64 needs cl_khr_fp64).
bool dtype_available(DType t);

// ---- comparison ------------------------------------------------------------------------

/// How a device value must relate to the reference value.
struct Tolerance {
  double ulps = 0;  // float results: allowed ulp distance (tolerance_ulps())
  /// Exact float ops (ulps == 0) must also get the sign of a zero right,
  /// except where NumPy leaves it open (min/max of +0 and -0): set this there.
  bool zero_sign_free = false;
  double floor = 0;  // ulps of max(|want|, floor) (error_floor())
};

/// A device mismatch the test attributes to a known defect of the OpenCL
/// implementation (see known_device_defect()) rather than to fusecl: given
/// element i and the device's value, the defect's description, or nullptr.
using Excuse = std::function<const char*(std::size_t i, const Value& got)>;

struct Comparison {
  std::string failure;  // "" when every element matched or was excused
  std::string excused;  // "" when no element was excused
};

/// Compares `got` with `want` elementwise (both of dtype t). Elements with
/// skip[i] set are not compared. A failure reports the number of mismatches
/// and the first few, each with `describe(i)` (the inputs of element i).
Comparison compare_values(const std::string& what, DType t, const std::vector<Value>& got,
                          const std::vector<Value>& want, Tolerance tol,
                          const std::function<std::string(std::size_t)>& describe,
                          const std::vector<char>* skip = nullptr, const Excuse& excuse = nullptr);

/// Known defects of an OpenCL implementation's built-in math functions that
/// these tests ran into and that the lane-block layout (below) does not
/// avoid; each was reproduced with a hand-written OpenCL kernel without
/// fusecl (the reproductions are in the comments in op_check.cpp).
/// For `op` computed in float dtype `t` on inputs `args` (the operands of
/// every element, in the op's order), whether element i's device value `got`
/// is explained by one of them: its description, or nullptr. Always nullptr
/// with FUSECL_TEST_STRICT_DEVICE=1 in the environment, or on other platforms.
const char* known_device_defect(Op op, DType t, const std::vector<const std::vector<Value>*>& args, std::size_t i,
                                const Value& got);

/// Whether one device value is acceptable (see compare_values).
bool value_matches(DType t, const Value& got, const Value& want, Tolerance tol);

// ---- input layout ------------------------------------------------------------------------
//
// Edge values and full-range random values are laid out in lane blocks: each
// value fills an aligned block of 16 elements (a whole vector at every width
// up to 16), and a short scalar tail follows. A vector then never mixes, say,
// an infinity with a tiny number. OpenCL requires the lanes of a built-in to
// be independent, but PoCL 3.1 (LLVM 15, SLEEF; the project's CI device)
// breaks that in several of its vector math functions; reproduced with
// hand-written kernels, one work-item each:
//  - float16 sin/cos/tan: sin(vload16(0, in)) with in = 1e-10f x 16 and
//    in[5] = 1e30f gives 0.0134 for lane 0 (lanes below ~0.01 are wrong once
//    another lane is >= ~1e7 or infinite);
//  - double8 pow: pow(0.2996, -5.93) = 0 instead of 1272.6 when another lane
//    has base 0, infinity or NaN.
// Those are device bugs, not fusecl's; with lane blocks the tests still check
// every value on the vector path and the scalar path, and the cross-lane
// wiring of fusecl's kernels is checked by runs of mixed moderate values
// (which those bugs do not touch) at every vector width. (PoCL's double8 /
// double16 fmod is wrong even for mixed moderate values, 14 % 11.25 giving
// 0.53125, and beside a lane fmod(x, nan) or a subnormal divisor: fusecl
// does not call it; see codegen/spelling.cpp.)

/// The element order of a lane-block layout of n distinct values: value i
/// at 16 consecutive positions (16 i .. 16 i + 15), then values 0..6 once
/// more as a scalar tail. Its length, 16 n + min(n, 7), leaves a scalar tail
/// at every vector width (all 7 at widths 8 and 16; at width 4 the first
/// four share a vector).
std::vector<std::size_t> lane_blocks(std::size_t n);

/// v[idx[0]], v[idx[1]], ...
template <class V>
std::vector<V> gather(const std::vector<V>& v, const std::vector<std::size_t>& idx) {
  std::vector<V> out;
  out.reserve(idx.size());
  for (std::size_t i : idx) out.push_back(v[i]);
  return out;
}

/// n random values of moderate magnitude, never zero, of either sign (signed
/// dtypes): floats a third each log-uniformly in [2^-30, 16), multiples of
/// 1/4 in [1/4, 16) and integers in [1, 16] (quotients of such values are
/// where PoCL's double8 fmod went wrong), integers in [1, 16], bools all true.
/// Safe to mix within a vector, even as divisors and bases of pow (PoCL's
/// vector sin is wrong beside lanes >= 1e7; its pow beside a zero base).
std::vector<Value> moderate_values(DType t, std::size_t n, std::uint64_t seed);

/// The vector widths kernels are tested at: 1 (scalar) to 16, OpenCL's widest.
constexpr int kVectorWidths[] = {1, 2, 4, 8, 16};

/// While alive, kernels whose widest element type has `element_bytes` bytes
/// run at vector width `width` (the scheduler's vector size is set to their
/// product; 1-d contiguous kernels take it); the device default returns after.
class VectorWidth {
 public:
  VectorWidth(int element_bytes, int width);
  ~VectorWidth();
  VectorWidth(const VectorWidth&) = delete;
  VectorWidth& operator=(const VectorWidth&) = delete;
};

// ---- a batch of outputs evaluated as one kernel ----------------------------------------

/// Collects arrays of one shape, evaluates them together (one kernel: the
/// library fuses elementwise outputs of one shape, as fusecl::eval(a, b, c)
/// does) and hands back their values.
class Batch {
 public:
  template <class R>
  std::size_t add(std::string name, const Array<R>& out) {
    nodes_.push_back(out.node());
    entries_.push_back({std::move(name), dtype_of_v<R>, [out] { return to_values(out); }, out.node()});
    return entries_.size() - 1;
  }

  std::size_t size() const { return entries_.size(); }
  const std::string& name(std::size_t i) const { return entries_[i].name; }
  DType dtype(std::size_t i) const { return entries_[i].dtype; }

  /// Evaluates every output. Returns "" on success; if the evaluation throws
  /// (say the generated OpenCL C does not compile), returns the message
  /// followed by which outputs fail on their own, each evaluated as its own
  /// kernel to pinpoint the culprit.
  std::string evaluate();

  /// Kernels the last evaluate() launched (1 when everything fused).
  std::uint64_t kernels_launched() const { return kernels_; }

  /// The values of output i (after evaluate()).
  std::vector<Value> values(std::size_t i) const { return entries_[i].download(); }

 private:
  struct Entry {
    std::string name;
    DType dtype;
    std::function<std::vector<Value>()> download;
    detail::NodePtr node;
  };
  std::vector<detail::NodePtr> nodes_;
  std::vector<Entry> entries_;
  std::uint64_t kernels_ = 0;
};

/// "x=int8(-128) y=int8(-1)" for element i of the named input vectors.
std::string describe_inputs(const std::vector<std::pair<const char*, const std::vector<Value>*>>& inputs,
                            std::size_t i);

}  // namespace fusecl::test
