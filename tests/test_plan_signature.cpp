// The kernel plan's signature is the in-memory kernel cache's key, so a plan
// field it missed would make two different kernels share one cache entry.
// These tests change every field of a plan, at any depth, one at a time —
// found through the same hana reflection signature() walks, whose
// completeness the static_asserts in codegen/kernel_plan.hpp guarantee — and
// check that each change shows in the signature.
#include "codegen/kernel_plan.hpp"

#include <boost/hana/adapt_struct.hpp>
#include <boost/hana/first.hpp>
#include <boost/hana/for_each.hpp>
#include <boost/hana/second.hpp>
#include <boost/hana/string.hpp>

#include <catch2/catch.hpp>

#include <cstddef>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

using namespace fusecl;
using namespace fusecl::codegen;
namespace hana = boost::hana;

// The guard itself: an adaptation that leaves a field out, or names one
// twice, is refused; nested aggregates count as one field.
struct ListsAll { int a = 0; std::vector<int> b; bool c = false; };
struct LeavesOneOut { int a = 0; std::vector<int> b; bool c = false; };
struct ListsOneTwice { int a = 0; std::vector<int> b; bool c = false; };
struct Nests { ListsAll inner; int d = 0; };
BOOST_HANA_ADAPT_STRUCT(ListsAll, a, b, c);
BOOST_HANA_ADAPT_STRUCT(LeavesOneOut, a, c);
BOOST_HANA_ADAPT_STRUCT(ListsOneTwice, a, b, b);
BOOST_HANA_ADAPT_STRUCT(Nests, inner, d);
static_assert(reflects_every_field<ListsAll>());
static_assert(!reflects_every_field<LeavesOneOut>());
static_assert(!reflects_every_field<ListsOneTwice>());
static_assert(reflects_every_field<Nests>());

namespace {

// A plan in which every vector has an element, so that the walk below reaches
// the fields of vector elements too. It need not describe a kernel that
// renders: only its signature is taken.
KernelPlan every_field_populated() {
  KernelPlan p;
  p.kind = KernelKind::Reduce;
  Instr load;
  load.op = Op::Buffer;
  load.slot = 0;
  load.access = Access::Strided;
  Instr add;
  add.op = Op::Add;
  add.a = 0;
  add.b = 0;
  p.instrs = {load, add};
  p.outputs = {1};
  p.buffer_dtypes = {DType::Float32};
  p.scalar_dtypes = {DType::Int32};
  p.ndim = 2;
  p.width = 4;
  p.reduce.input = 1;
  Instr value;  // the reduction's value, then its square root (KernelPlan::finish)
  value.op = Op::Sum;
  Instr root;
  root.op = Op::Sqrt;
  root.a = 0;
  p.finish = {value, root};
  return p;
}

// The signature in hex, so that a failed check prints readable bytes.
std::string hex_signature(const KernelPlan& p) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  for (const unsigned char byte : signature(p)) {
    out += digits[byte >> 4];
    out += digits[byte & 15];
  }
  return out;
}

// One plan per field: `base` with that field alone changed, and the field's path.
struct Change {
  std::string path;
  KernelPlan plan;
};

// Changes each field reachable from the value get(plan) returns, recursing like
// the signature's encoding: struct fields through hana, a vector's length (one
// element appended) and each of its elements' fields, integers and enums by
// one, bools negated.
template <class Get>
void change_each_field(const KernelPlan& base, Get get, const std::string& path, std::vector<Change>& out) {
  using T = std::remove_cvref_t<decltype(get(std::declval<KernelPlan&>()))>;
  auto changed = [&](auto&& edit) {
    KernelPlan p = base;
    edit(get(p));
    out.push_back({path, std::move(p)});
  };
  if constexpr (hana::Struct<T>::value) {
    hana::for_each(hana::accessors<T>(), [&](auto field) {
      auto member = hana::second(field);
      change_each_field(base, [get, member](KernelPlan& p) -> auto& { return member(get(p)); },
                        path + "." + hana::to<const char*>(hana::first(field)), out);
    });
  } else if constexpr (reflection_detail::is_vector<T>::value) {
    changed([](T& v) { v.emplace_back(); });
    KernelPlan probe = base;
    const std::size_t n = get(probe).size();
    REQUIRE(n > 0);  // else the elements' fields would go unchecked
    for (std::size_t i = 0; i < n; ++i)
      change_each_field(base, [get, i](KernelPlan& p) -> auto& { return get(p)[i]; },
                        path + "[" + std::to_string(i) + "]", out);
  } else if constexpr (std::is_same_v<T, bool>) {
    changed([](bool& v) { v = !v; });
  } else if constexpr (std::is_enum_v<T>) {
    changed([](T& v) { v = T(std::underlying_type_t<T>(v) + 1); });
  } else {
    static_assert(std::is_integral_v<T>, "a plan field of a kind this walk does not change");
    changed([](T& v) { v = T(v + 1); });
  }
}

std::vector<Change> one_field_changes(const KernelPlan& base) {
  std::vector<Change> out;
  change_each_field(base, [](KernelPlan& p) -> KernelPlan& { return p; }, "plan", out);
  return out;
}

}  // namespace

TEST_CASE("equal plans have equal signatures", "[codegen][signature]") {
  const KernelPlan a = every_field_populated();
  const KernelPlan b = every_field_populated();
  CHECK(hex_signature(a) == hex_signature(b));
  CHECK(hex_signature(KernelPlan{}) == hex_signature(KernelPlan{}));
}

TEST_CASE("changing any one field of a plan changes its signature", "[codegen][signature]") {
  const KernelPlan base = every_field_populated();
  const std::string base_signature = hex_signature(base);
  const std::vector<Change> changes = one_field_changes(base);
  // Fields from each level of the walk: the top, a vector element's, a nested struct's.
  const auto visited = [&](const std::string& path) {
    for (const Change& c : changes)
      if (c.path == path) return true;
    return false;
  };
  CHECK(visited("plan.kind"));
  CHECK(visited("plan.instrs[0].gen"));
  CHECK(visited("plan.reduce.local_size"));

  std::vector<std::string> signatures;
  for (const Change& c : changes) {
    INFO("changed " << c.path);
    signatures.push_back(hex_signature(c.plan));
    CHECK(signatures.back() != base_signature);
  }
  // Nor do two different changes collide with each other.
  for (std::size_t i = 0; i < signatures.size(); ++i)
    for (std::size_t j = i + 1; j < signatures.size(); ++j) {
      INFO("changed " << changes[i].path << " and " << changes[j].path);
      CHECK(signatures[i] != signatures[j]);
    }
}

TEST_CASE("a value moved from one vector of the plan to the next changes the signature", "[codegen][signature]") {
  // Concatenated without lengths, both would be "Float32 Float64".
  KernelPlan a, b;
  a.buffer_dtypes = {DType::Float32, DType::Float64};
  b.buffer_dtypes = {DType::Float32};
  b.scalar_dtypes = {DType::Float64};
  CHECK(hex_signature(a) != hex_signature(b));
}
