// Row kernels' deep register form (issue 13): a GPU's rows longer than 16
// elements x 128 work-items hold 32 or 64 elements a work-item in registers
// (DeviceTuning::row_held_bytes, plan_row.cpp's deep_rows), in groups of
// at most 512, and compute softmax's exp again in each phase where keeping
// it would take too many registers (ReduceSpec::row_recompute). Run here
// with a GPU's layout on this device, against the long double host
// reference of tests/support/row_patterns.
#include "codegen/render.hpp"
#include "src/device_state.hpp"
#include "src/launch.hpp"
#include "src/schedule.hpp"
#include "support/device_rows.hpp"
#include "support/each_check.hpp"
#include "support/host_array.hpp"
#include "support/random_inputs.hpp"
#include "support/row_patterns.hpp"

#include <catch2/catch.hpp>

#include <fusecl/fusecl.hpp>

#include <cmath>
#include <string>
#include <vector>

using namespace fusecl;
using namespace fusecl::test;

namespace {

// An H200's row layout (launch.cpp), whatever this device is: groups of up
// to 1024 (`most`), 48 KiB of local memory, 16 elements a work-item in
// groups of 128 for short rows, and `held` bytes of loads a work-item for
// long ones.
detail::DeviceTuning gpu_layout(detail::DeviceState& dev, std::size_t held, std::size_t most = 1024) {
  auto t = h200_tuning(dev, held, most);
  t.row_reciprocal = false;  // one output phase, whose exp the test counts (reciprocal.hpp's second pass has its own)
  return t;
}

// pat along the last axis of d, seeded, planned with an H200's layout on
// this device (with or without division through the row's reciprocal): one
// row kernel, which `check` inspects, run, and its results against the host
// reference.
template <class Check>
void run_gpu_row_plan(const Pattern& pat, const Dims& d, std::uint64_t seed, bool reciprocal, Check check) {
  const auto h = inputs(d, 1, test_seed(seed), pat.lo, pat.hi, true);
  const auto y = pat.device(from_host(h, Shape(d)), 1);
  const auto node = y.node();
  {
    const detail::GraphLock lock{node.get()};
    auto t = gpu_layout(*node->device, 256);
    t.row_reciprocal = reciprocal;
    detail::Schedule s = detail::make_schedule({node}, t);
    REQUIRE(s.kernel_count() == 1);
    const auto& plan = s.steps[0].kernel.plan;
    REQUIRE(plan.kind == codegen::KernelKind::Row);
    check(plan);
    detail::run_schedule(*node->device, s);
  }
  check_rows(pat, h, y.to_host(), d, 1);
}

// Softmax over float64 rows of m (h: rows x m on the host), planned with an
// H200's layout: one row kernel, which `check` inspects, run, and against
// the host in long double.
template <class Check>
void run_f64_softmax(const std::vector<double>& h, std::int64_t rows, std::int64_t m, Check check) {
  const auto x = from_host(h, {rows, m});
  const auto e = exp(x - max(x, 1, true));
  const auto y = e / sum(e, 1, true);
  const auto node = y.node();
  {
    const detail::GraphLock lock{node.get()};
    detail::Schedule s = detail::make_schedule({node}, gpu_layout(*node->device, 256));
    REQUIRE(s.kernel_count() == 1);
    check(s.steps[0].kernel.plan);
    detail::run_schedule(*node->device, s);
  }
  const auto got = y.to_host();
  for (std::int64_t r = 0; r < rows; ++r) {
    long double mx = -INFINITY, sum_ = 0;
    for (std::int64_t j = 0; j < m; ++j) mx = std::max<long double>(mx, h[std::size_t(r * m + j)]);
    for (std::int64_t j = 0; j < m; ++j) sum_ += std::exp((long double)h[std::size_t(r * m + j)] - mx);
    for (std::int64_t j = 0; j < m; ++j) {
      const std::size_t i = std::size_t(r * m + j);
      const long double want = std::exp((long double)h[i] - mx) / sum_;
      REQUIRE_EACH(std::fabs((long double)got[i] - want) <= 64 * DBL_EPSILON * want + 1e-300L, "element " << i << ": got " << got[i] << ", want " << double(want));
    }
  }
}

struct Expect {
  std::int64_t m;
  int group;     // work-items a row (0: not one row kernel)
  int chunks;    // row_chunks: vectors of 4 (elements where rows are not whole vectors) a work-item holds
  bool recompute;  // softmax's exp computed again (patterns with a kept exp only)
};

}  // namespace

TEST_CASE("row fusion: a GPU's long rows deep in registers, 32 or 64 elements a work-item", "[row]") {
  // 2049: 128 x 32, in vectors from each row's aligned start (row_skew: at
  // most 513 of them, 5 a work-item); 3000: 128 x 24 (its 750 vectors,
  // 6 a work-item, not the power of two above); 4096: 128 x 32; 8192: 256 x 32, keeping exp (8 bytes x 32 x 256 = 64 KiB); 16384:
  // 256 x 64, exp again; 32768: 512 x 64. Rows of 65536 would take 1024 x
  // 64: today's kernels (two here).
  const std::vector<Expect> cases{{2049, 128, 5, false}, {3000, 128, 6, false},  {4096, 128, 8, false},
                                  {8192, 256, 8, false},   {16384, 256, 16, true}, {32768, 512, 16, true},
                                  {65536, 0, 0, false}};
  const auto all = patterns();
  for (std::size_t which = 0; which < all.size(); ++which) {
    const Pattern& pat = all[which];
    const bool has_exp = which == 3 || which == 5;  // softmax, and softmax of a layer-normed row
    for (const Expect& c : cases) {
      // Every pattern at two lengths, softmax and layer norm at all.
      if (which != 3 && which != 4 && c.m != 4096 && c.m != 16384) continue;
      const Dims d{3, c.m};
      INFO(pat.name << " over rows of " << c.m);
      const auto h = inputs(d, 1, test_seed(0x13d0 + std::uint64_t(c.m) + which), pat.lo, pat.hi, true);
      const auto y = pat.device(from_host(h, Shape(d)), 1);
      const auto node = y.node();
      {
        const detail::GraphLock lock{node.get()};
        const auto t = gpu_layout(*node->device, 256);
        detail::Schedule s = detail::make_schedule({node}, t);
        if (c.group == 0) {
          CHECK(s.kernel_count() >= 2);
          for (const auto& st : s.steps) CHECK(st.kernel.plan.kind != codegen::KernelKind::Row);
        } else {
          REQUIRE(s.kernel_count() == 1);
          const auto& plan = s.steps[0].kernel.plan;
          const auto& rs = plan.reduce;
          REQUIRE(plan.kind == codegen::KernelKind::Row);
          CHECK(rs.local_size == c.group);
          CHECK(rs.rows_per_group == 1);
          CHECK(rs.row_chunks == c.chunks);
          CHECK(plan.width == 4);
          CHECK(rs.row_skew == (c.m % 4 != 0));
          CHECK(rs.row_recompute == (has_exp && c.recompute));
          // Kept, exp is computed once per element; computed again, in the sum's phase and the output's.
          if (which == 3) {
            const std::string src = codegen::render(plan, codegen::kernel_name(plan));
            std::size_t n = 0;
            for (auto at = src.find("exp("); at != std::string::npos; at = src.find("exp(", at + 1)) ++n;
            CHECK(n == (c.recompute ? 2u : 1u));
          }
        }
        detail::run_schedule(*node->device, s);
      }
      const auto got = y.to_host();
      check_rows(pat, h, got, d, 1);
    }
  }
}

TEST_CASE("row fusion: a GPU's whole-vector rows hold the vectors they need, a group of one row 4 for 3", "[row]") {
  // plan_row.cpp: rows of 44 over 4 work-items (32 rows a group) hold 3
  // vectors each, not 4; 300 over 32 (4 rows) 3; 2200 over 128 5, not 8;
  // but 1500 over 128, a group of one row, keeps 4 for its 3 (layer norm
  // 10-20 us slower on an H200 with 3). Softmax and layer norm, rows
  // enough for whole groups and one part full, against the host reference.
  struct Case {
    std::int64_t m;
    int per_row, rows, chunks;
  };
  const std::vector<Case> cases{{44, 4, 32, 3}, {300, 32, 4, 3}, {1500, 128, 1, 4}, {2200, 128, 1, 5}};
  const auto all = patterns();
  for (std::size_t which : {std::size_t(3), std::size_t(4)}) {
    const Pattern& pat = all[which];
    for (const Case& c : cases) {
      INFO(pat.name << " over rows of " << c.m);
      run_gpu_row_plan(pat, {4 * std::int64_t(c.rows) + 1, c.m}, 0x45d0 + std::uint64_t(c.m) + which, false,
                       [&](const codegen::KernelPlan& plan) {
                         CHECK(plan.width == 4);
                         CHECK(plan.aligned);
                         CHECK(plan.reduce.local_size == c.per_row * c.rows);
                         CHECK(plan.reduce.rows_per_group == c.rows);
                         CHECK(plan.reduce.row_chunks == c.chunks);
                       });
    }
  }
}

TEST_CASE("row fusion: a GPU's whole-vector loops compute a partial last chunk and skip its update under a predicate", "[row]") {
  // render_row_loops.cpp (masked_phase) and render_row.cpp (the output
  // loop): the chunk past a row's end is computed on the repeated
  // last vector and its store (output loop) or accumulator update (a
  // reduction's loop but the first) skipped under in_, not left by a break,
  // where that chunk is the only one partly past the row (rows of 1100: 128
  // work-items of 4 chunks, the 4th wholly past every row, keep the break).
  // A reduction's loop so where no warp (32 lanes) could skip that chunk
  // (softmax's sum over rows of 20: 2 work-items a row; of 900: 64, 33 of
  // them with a 4th chunk) or where it computes no transcendental (layer
  // norm's squared deviations over rows of 800: 64 work-items, 8 with a 4th
  // chunk); softmax's sum over rows of 800 computes exp and keeps its break.
  // The output loop so where it reads only loads and values kept in masked
  // loops: softmax's exp kept in an unmasked loop exists only for the chunks
  // in the row. Rows whose chunks are all whole (1024) test nothing.
  struct Case {
    std::size_t pattern;  // 3 softmax, 4 layer norm
    std::int64_t m;
    int chunks;
    int reductions;  // reduction loops masked
    bool output;     // output loop masked
  };
  const std::vector<Case> cases{{4, 800, 4, 1, true},  {4, 900, 4, 1, true},   {4, 52, 4, 1, true},
                                {4, 20, 3, 1, true},   {4, 1100, 4, 0, false},  {4, 1024, 4, 0, false},
                                {3, 800, 4, 0, false}, {3, 1100, 4, 0, false}, {3, 900, 4, 1, true},
                                {3, 20, 3, 1, true},   {3, 52, 4, 1, true}};
  const auto all = patterns();
  auto count = [](const std::string& text, const std::string& what) {
    int n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  for (const Case& c : cases)
    for (const bool reciprocal : {false, true}) {  // with the reciprocal's second pass over the same loop
      const Pattern& pat = all[c.pattern];
      INFO(pat.name << " over rows of " << c.m << (reciprocal ? ", through the reciprocal" : ""));
      // 131 rows: the last group's partly past the array.
      run_gpu_row_plan(pat, {2 * 64 + 3, c.m}, 0x46a0 + std::uint64_t(c.m) + c.pattern, reciprocal,
                       [&](const codegen::KernelPlan& plan) {
                         CHECK(plan.width == 4);
                         CHECK(plan.reduce.row_chunks == c.chunks);
                         const std::string text = codegen::render(plan, "k");
                         const int outputs = c.output ? (reciprocal ? 2 : 1) : 0;
                         // A masked reduction's update and a masked output loop's stores, each under in_.
                         CHECK(count(text, "        if (in_) {\n") == c.reductions);
                         CHECK(count(text, "const bool in_ = !(") == c.reductions + outputs);
                         CHECK(count(text, ") break;") == (c.m == 1024 ? 0 : 2 - c.reductions + (reciprocal ? 2 : 1) - outputs));
                         CHECK((text.find("rq_") != std::string::npos) == reciprocal);
                       });
    }
}

TEST_CASE("row fusion: a GPU's short sums computing exp add plainly, in rows of at least 8 work-items", "[row]") {
  // render_row_loops.cpp's plain_sum: where a work-item's lanes each add at most 4
  // terms of a sum whose loop computes a transcendental (softmax's exp),
  // Kahan's compensation is dropped (it is no more accurate than the trees
  // after it there), in rows of at least 8 work-items; rows of 2 or 4
  // (20, 52), longer chunks (rows of 4096: 8 a work-item) and layer norm's
  // sums (no transcendental) keep it. Results against the host reference.
  struct Case {
    std::size_t pattern;  // 3 softmax, 4 layer norm
    std::int64_t m;
    bool plain;
  };
  const std::vector<Case> cases{{3, 100, true},  {3, 300, true},  {3, 600, true},   {3, 1100, true},
                                {3, 20, false},  {3, 52, false},  {3, 4096, false}, {4, 300, false},
                                {4, 600, false}, {4, 1100, false}};
  const auto all = patterns();
  for (const Case& c : cases) {
    const Pattern& pat = all[c.pattern];
    INFO(pat.name << " over rows of " << c.m);
    run_gpu_row_plan(pat, {2 * 64 + 3, c.m}, 0x47b0 + std::uint64_t(c.m) + c.pattern, true,
                     [&](const codegen::KernelPlan& plan) {
                       CHECK(plan.width == 4);
                       const int items = plan.reduce.local_size / plan.reduce.rows_per_group;
                       CHECK(plan.reduce.row_chunks <= 4 + 4 * (c.m == 4096));
                       CHECK((items >= 8 && plan.reduce.row_chunks <= 4) == (c.plain || c.pattern == 4));
                       const std::string text = codegen::render(plan, "k");
                       // Softmax's sum is its one compensated sum; layer norm has two.
                       CHECK((text.find("compv") == std::string::npos) == c.plain);
                     });
  }
}

TEST_CASE("row fusion: a GPU's rows of an odd number of vectors over two work-items take every other row's rotated", "[row]") {
  // ReduceSpec::row_rotate (plan_row.cpp, RowRender::vector_at): rows of 20
  // floats, 5 vectors over 2 work-items, start mid-sector every other row;
  // those take vector (q + 1) mod V at chunk position q (V the row's
  // vectors), the row's last position its first vector, in the loads and in
  // every loop's positions.
  // Rows of 24 (even: never mid-sector) and of 44 and 52 (4 work-items)
  // are not rotated. 131 and 132 rows: the last row even and odd, the last
  // group's rows past the array loading the last row's vectors. Results
  // against the host reference, every pattern over rows of 20; then doubles.
  struct Case {
    std::size_t pattern;
    std::int64_t m;
    bool rotated;
  };
  std::vector<Case> cases{{3, 24, false}, {4, 24, false}, {3, 44, false}, {4, 52, false}};
  const auto all = patterns();
  for (std::size_t which = 0; which < all.size(); ++which) cases.push_back({which, 20, true});
  for (const Case& c : cases)
    for (const std::int64_t rows : {std::int64_t(2 * 64 + 3), std::int64_t(2 * 64 + 4)})
      for (const bool reciprocal : {false, true}) {
        const Pattern& pat = all[c.pattern];
        INFO(pat.name << " over " << rows << " rows of " << c.m << (reciprocal ? ", through the reciprocal" : ""));
        run_gpu_row_plan(pat, {rows, c.m}, 0x48a0 + std::uint64_t(c.m) + c.pattern + std::uint64_t(rows), reciprocal,
                         [&](const codegen::KernelPlan& plan) {
                           CHECK(plan.width == 4);
                           const int items = plan.reduce.local_size / plan.reduce.rows_per_group;
                           CHECK(items == (c.m <= 24 ? 2 : 4));
                           CHECK(plan.reduce.row_rotate == c.rotated);
                           const std::string text = codegen::render(plan, "k");
                           CHECK((text.find("const int rot_ = (int)(o & 1) & (int)((m / 4) & 1);") != std::string::npos) == c.rotated);
                           CHECK((text.find("const long p = oc * m + (r + rot_) * 4 - (r + rot_ == m / 4 ? m : 0);") !=
                                  std::string::npos) == c.rotated);
                         });
      }
  // Doubles: rows of 18 are 9 vectors of 2 over 2 work-items, rotated; 132
  // rows, values different in every lane, softmax against long double.
  const std::int64_t rows = 2 * 64 + 4, m = 18;
  std::vector<double> h(std::size_t(rows * m));
  for (std::size_t i = 0; i < h.size(); ++i) h[i] = std::sin(double(i) * 0.61) * 30.0 + double(i % 5) * 0.25;
  run_f64_softmax(h, rows, m, [](const codegen::KernelPlan& plan) {
    CHECK(plan.width == 2);
    CHECK(plan.reduce.local_size / plan.reduce.rows_per_group == 2);
    CHECK(plan.reduce.row_rotate);
  });
}

TEST_CASE("row fusion: a GPU's short rows of an odd number of 8-byte vectors take 8-byte vectors", "[row]") {
  // plan_row.cpp's narrowed_rows: rows of 2 mod 4 floats from 10 to 86, and
  // of 12 and 28, in float2, the fewest work-items a row (up to 8) that hold
  // at most 8 elements each (not the rule of 2^k - 1 vectors: rows of 14 and
  // 30 over 2 and 4 work-items of up to 4 vectors, the last short; rows of
  // 66 to 86 over 8 of 5 or 6). Every pattern over rows of 10 and 30,
  // softmax and layer norm over the rest, 131 and 132 rows (the last group
  // partly past the array), with and without the reciprocal's second pass,
  // against the host reference. Rows of 6, 20, 36, 64 and 90 keep 16-byte
  // vectors (or none); doubles' rows of 10 are not narrowed.
  struct Case {
    std::int64_t m;
    int items;  // work-items a row; 0: not narrowed
  };
  const std::vector<Case> cases{{10, 2}, {12, 2}, {14, 2}, {18, 4}, {22, 4}, {26, 4}, {28, 4}, {30, 4}, {34, 8},
                                {38, 8}, {42, 8}, {58, 8}, {62, 8}, {66, 8}, {86, 8}, {6, 0},  {20, 0}, {36, 0},
                                {64, 0}, {90, 0}};
  const auto all = patterns();
  for (const Case& c : cases)
    for (std::size_t which = 0; which < all.size(); ++which) {
      const Pattern& pat = all[which];
      const std::string name = pat.name;
      if (c.m != 10 && c.m != 30 && name != "softmax" && name != "layer norm") continue;
      for (const std::int64_t rows : {std::int64_t(2 * 64 + 3), std::int64_t(2 * 64 + 4)})
        for (const bool reciprocal : {false, true}) {
          INFO(pat.name << " over " << rows << " rows of " << c.m << (reciprocal ? ", through the reciprocal" : ""));
          run_gpu_row_plan(pat, {rows, c.m}, 0x49c0 + std::uint64_t(c.m) * 7 + which + std::uint64_t(rows), reciprocal,
                           [&](const codegen::KernelPlan& plan) {
                             const int items = plan.reduce.local_size / plan.reduce.rows_per_group;
                             const std::string text = codegen::render(plan, "k");
                             if (c.items == 0) {
                               CHECK(plan.width != 2);
                               CHECK(text.find("float2") == std::string::npos);
                               return;
                             }
                             CHECK(plan.width == 2);
                             CHECK(plan.aligned);
                             CHECK(items == c.items);
                             CHECK(plan.reduce.row_staged == 0);
                             CHECK(!plan.reduce.row_rotate);
                             CHECK(int(plan.reduce.row_chunks) == int((c.m / 2 + items - 1) / items));
                             CHECK(text.find("*(__global const float2*)(in0 + off0 + p)") != std::string::npos);
                           });
        }
    }
  // Doubles' rows of 10: 16-byte vectors of 2, as before.
  const std::int64_t rows = 2 * 64 + 3, m = 10;
  std::vector<double> h(std::size_t(rows * m));
  for (std::size_t i = 0; i < h.size(); ++i) h[i] = std::sin(double(i) * 0.37) * 20.0 + double(i % 3) * 0.5;
  run_f64_softmax(h, rows, m, [](const codegen::KernelPlan& plan) { CHECK(plan.width == 2); });
}

TEST_CASE("row fusion: the deep register form within the device's groups, the bytes held, and switched off", "[row]") {
  // Whether y's schedule is one row kernel, and its group.
  auto layout_of = [](const Array<float>& y, std::size_t held, std::size_t most) {
    const auto node = y.node();
    const detail::GraphLock lock{node.get()};
    const detail::Schedule s = detail::make_schedule({node}, gpu_layout(*node->device, held, most));
    const bool one = s.kernel_count() == 1 && s.steps[0].kernel.plan.kind == codegen::KernelKind::Row;
    return std::pair{one, one ? int(s.steps[0].kernel.plan.reduce.local_size) : 0};
  };
  auto row = [](std::int64_t m) { return from_host(std::vector<float>(std::size_t(3 * m), 0.5f), {3, m}); };
  auto norm = [](const Array<float>& a) { return a - mean(a, 1, true); };
  // Groups of at most 256 (the device's largest): rows of 16384 still fit (256 x 64), 32768 not.
  CHECK(layout_of(norm(row(16384)), 256, 256) == std::pair{true, 256});
  CHECK(layout_of(norm(row(32768)), 256, 256) == std::pair{false, 0});
  // 128 bytes a work-item: 32 floats, rows of 16384 in 512, of 32768 not.
  CHECK(layout_of(norm(row(16384)), 128, 1024) == std::pair{true, 512});
  CHECK(layout_of(norm(row(32768)), 128, 1024) == std::pair{false, 0});
  // Two float rows read (8 bytes an element): 32 each within 256 bytes, rows of 8192 in 256.
  const auto two = row(8192) + row(8192) * 2.0f;
  CHECK(layout_of(two - mean(two, 1, true), 256, 1024) == std::pair{true, 256});
  // Off (0 bytes): rows of 8192 as before, 512 x 16; 32768 today's kernels.
  CHECK(layout_of(norm(row(8192)), 0, 1024) == std::pair{true, 512});
  CHECK(layout_of(norm(row(32768)), 0, 1024) == std::pair{false, 0});
  // Rows of 2048 and less keep their layouts: 128 x 16.
  CHECK(layout_of(norm(row(2048)), 256, 1024) == std::pair{true, 128});
  // longest_row says where one row kernel ends: 512 x 64 floats.
  CHECK(detail::longest_row(gpu_layout(*row(1).node()->device, 256), sizeof(float)) == 32768);
  CHECK(detail::longest_row(gpu_layout(*row(1).node()->device, 0), sizeof(float)) == 16384);
}

TEST_CASE("row fusion: float64 rows deep in registers", "[row]") {
  // 8 bytes an element: 32 a work-item at most; rows of 8192 in 256, of
  // 16384 in 512, softmax's exp computed again in both ((8 + 8) x 32 x 256
  // bytes pass 64 KiB).
  for (const std::int64_t m : {8192, 16384}) {
    INFO("rows of " << m);
    std::vector<double> h(std::size_t(3 * m));
    for (std::size_t i = 0; i < h.size(); ++i) h[i] = std::sin(double(i) * 0.37) * 20.0 + double(i % 7);
    run_f64_softmax(h, 3, m, [&](const codegen::KernelPlan& plan) {
      CHECK(plan.reduce.local_size == (m == 8192 ? 256 : 512));
      CHECK(plan.width == 2);
      CHECK(plan.reduce.row_chunks == 16);
      CHECK(plan.reduce.row_recompute);
    });
  }
}
