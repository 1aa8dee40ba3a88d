// The forms of a row kernel's loops over whole vectors held in registers:
// which chunks test the row's end (full_chunks), which loops compute the
// chunk past it and skip only its update or store (masked_phase, and the
// output loop's rule in render_row.cpp), and which sums add without Kahan's
// compensation (plain_sum). Each is a rule measured on an H200; the comments
// give the figures.
#include "codegen/row_render.hpp"
#include "fusecl/result_type.hpp"

#include <algorithm>

namespace fusecl::codegen::row {

namespace {
// Whether the loop over the instructions `need` marks (per_element) computes
// a transcendental function itself, not one an earlier phase kept.
bool computes_transcendental(const RowRender& rr, const std::vector<char>& need) {
  for (std::size_t j = 0; j < need.size(); ++j)
    if (need[j] == 1 && !rr.held[j] && is_transcendental(rr.plan.instrs[j].op)) return true;
  return false;
}
}  // namespace

// In registers, with the row's length m a constant of the source, every
// work-item's first F = R / T chunks lie wholly in its row (R the row's
// elements, or its vectors in whole vectors; T work-items a row): only the
// chunks from F on test the row's end (the unrolled loop keeps no test and
// no exit before them), and rows past the last (the last group's) compute
// on the last row's loads, as their loads already read it, and store
// nothing. An H200, 2^26 floats, element by element (us, softmax / layer
// norm, so against a test at every chunk): rows of 129 138 / 134 against
// 155 / 155, 197 136 / 135 against 155 / 149, 257 137 / 135 against 146 /
// 148, 385 135 / 133 against 145 / 141; rows of 511 to 2047 level
// (bench/RESULTS.md, forty-second session). Softmax's kernel over rows of
// 257 is 856 instructions against 1280. -1 where it does not apply.
long long RowRender::full_chunks() const {
  if (!registers() || split() || grid() || columns() || lanes() || skew() || staged() || plan.reduce.row_length == 0) return -1;
  const long long m = plan.reduce.row_length, w = width();
  if (m % w != 0) return -1;
  return m / w / std::stoll(T);
}

// Whether reduction k's loop over whole vectors is masked (RowRender::masked):
// it computes the chunk past the row's end and skips only the accumulator's
// update there, instead of leaving the loop (the same bits). Not the
// kernel's first reduction, and only where the extra chunk costs nothing,
// because no warp could skip it (a row within a warp, or a lane of every
// warp of the row in its last chunk: 32 lanes, NVIDIA's warp and the
// narrowest measured), or little, because it computes no transcendental
// function (layer norm's squared deviations). An H200, 2^26 floats (bench/
// RESULTS.md, forty-seventh session): layer norm over rows of 800 143 -> 131
// us, 900 142 -> 132, 20 142 -> 141; softmax (its output loop masked too:
// render_row.cpp) over rows of 20 149 -> 142, 44 139 -> 135, 52 138 -> 134;
// every other length from 20 to 16384 within 0.6. Masking the first
// reduction's loop too cost about 1 more in layer norm; softmax's sum over
// rows of 800, which a warp of the row could skip, 4 more.
bool masked_phase(const RowRender& rr, std::size_t k, const std::vector<char>& need) {
  const KernelPlan& plan = rr.plan;
  const auto earlier = plan.instrs.begin() + std::ptrdiff_t(k);
  if (!rr.maskable() || std::none_of(plan.instrs.begin(), earlier, [](const Instr& in) { return is_row_reduction(in); }))
    return false;
  const long long T = std::stoll(rr.T), full = rr.full_chunks();
  // The row's work-items with a chunk past the full ones (at least one, fewer than T).
  const long long past = plan.reduce.row_length / rr.width() - full * T;
  constexpr long long warp = 32;
  return T <= warp || past > T - warp || !computes_transcendental(rr, need);
}

// Whether a sum's loop over whole vectors in registers adds plainly, without
// Kahan's compensation: where each lane of a work-item adds at most 4 terms,
// the compensation is no more accurate than the lanes' and work-items' trees
// after it (a plain sum of 4 terms is off by at most 3 ulp of their sum of
// magnitudes, the trees by a few ulp more either way), and it costs about 5
// instructions an element: where the loop computes a transcendental function
// (softmax's exp and its sum), in rows of at least 8 work-items, those are
// what the kernel waits on. An H200, 2^26 floats (bench/RESULTS.md,
// forty-seventh session): softmax over rows of 600 140 -> 131 us, 300 138 ->
// 132, 1100 151 -> 139, 100 to 900 0.4 to 3 less; over rows of 2 or 4
// work-items (20 to 52) 2 to 6 more, and layer norm, whose sums compute no
// transcendental, 0.5 to 1 more over rows of 100 to 300: both keep it.
bool plain_sum(const RowRender& rr, const std::vector<char>& need) {
  // Whole vectors of rows in registers (the row's length a constant or not:
  // the same sum either way), a work-item's K chunks its lanes' terms.
  if (!rr.registers() || rr.width() < 2 || rr.skew() || rr.lanes() || rr.columns() || rr.split() || rr.staged() ||
      rr.grid() || std::stoll(rr.K) > 4 || std::stoll(rr.T) < 8)
    return false;
  return computes_transcendental(rr, need);
}

// A CPU's compensated sums in several chains (ReduceSpec::chains; the
// planner sets them where a row has as many steps): none where the loop
// computes a transcendental, whose throughput, not the chain of additions,
// bounds it (softmax's sum of exp). The 2-core PoCL machine, 2^22 floats,
// one chain / four, us, two runs: softmax over rows of 1024 1545 / 1487 and
// 1526 / 1524, over axis 0 of 2048 x 2048 4360 / 5030 and 4944 / 5038, over
// rows of 10 in lanes 2358 / 2630 and 2340 / 2407; layer norm the same rows
// 1459 / 709, 4428 / 3814, 1974 / 1400 (bench/RESULTS.md, fiftieth session).
int sum_chains(const RowRender& rr, const std::vector<char>& need) {
  return rr.plan.reduce.chains > 1 && !computes_transcendental(rr, need) ? int(rr.plan.reduce.chains) : 1;
}

}  // namespace fusecl::codegen::row
