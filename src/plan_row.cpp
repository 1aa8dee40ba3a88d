// Row kernels' plans (a reduction and what consumes it in one kernel;
// render_row.cpp renders them): the group layout of a row (work-items a row,
// rows a group, elements each work-item holds in registers, the deep
// register form of long rows on GPUs), rows split over segments, and the
// grid form of a whole array; plan_row_columns.cpp plans the column form
// (rows along leading axes) and a CPU's lanes form, which plan_row tries
// first.
// scheduler.cpp plans the elementwise and reduction kernels.
#include "src/scheduler.hpp"

#include "src/body_builder.hpp"
#include "src/plan_row_parts.hpp"

#include "codegen/body.hpp"
#include "codegen/reciprocal.hpp"
#include "codegen/spelling.hpp"
#include "src/row_fusion.hpp"

#include <algorithm>
#include <bit>
#include <optional>
#include <string>

namespace fusecl::detail {

using codegen::Access;
using codegen::Instr;

// Softmax's max and sum in one pass (ReduceSpec::row_online), for a row
// kernel that loops over its rows, on GPUs: there each pass over the row
// reads memory (the rows in flight pass the cache at large sizes). A CPU
// keeps the two-pass form, whose loop form computes exp once per element
// (render_row.cpp's stash); the online pass computes it again for the output.
bool online_pass(const codegen::KernelPlan& plan, const DeviceTuning& tuning) {
  return tuning.row_items_cap > 1 && codegen::online_softmax(plan);
}

// The largest work-group a row kernel takes (a power of two, at most 1024):
// a long row's in registers (plan_row, longest_row), the column form's.
std::int64_t largest_row_group(const DeviceTuning& tuning) {
  std::int64_t most = 1;
  while (most * 2 <= std::min<std::int64_t>(std::int64_t(tuning.max_work_group_size), 1024)) most *= 2;
  return most;
}

// Rows split over segments: the length of each of `segments` segments of a
// row of m (render_row_split.cpp computes it alike), and how many segments
// a row of m takes, given (the output kernel's: the partials kernel's
// count) or of about `target` each, none of them empty.
std::int64_t segment_length(std::int64_t m, std::int64_t segments) { return ((m + segments - 1) / segments + 15) / 16 * 16; }
std::int64_t split_segments(std::int64_t m, std::int64_t given, std::int64_t target) {
  if (given > 0) return given;
  std::int64_t s = std::max<std::int64_t>(1, (m + target - 1) / target);
  while (s > 1 && (s - 1) * segment_length(m, s) >= m) --s;
  return s;
}

// A CPU's row loops add their compensated sums in several chains
// (DeviceTuning::reduce_chains; render_row.cpp's reduction_phase): a work-
// item alone on its core (a row, a vector of columns, a vector of short
// rows in lanes) waited on one chain's additions. The 2-core PoCL machine,
// 2^22 floats: layer norm over rows of 1024 took 1422 us in one chain, 642
// in four (bench/RESULTS.md, fiftieth session). The general form's loop
// (row_chunks 0) and the column and lanes forms; not skewed or split rows,
// nor rows of fewer steps than chains, where the chains' rotation and sum
// cost a row more than they save (layer norm over rows of 16, one vector
// each: 389 us against 349).
void take_chains(BodyBuilder& b, const DeviceTuning& tuning) {
  const auto& rs = b.plan.reduce;
  const int C = tuning.reduce_chains;
  const std::int64_t steps = rs.row_columns ? b.args.reduce_count : b.args.reduce_count / std::max(1, int(b.plan.width));
  if (C > 1 && b.plan.width > 1 && !rs.row_skew && rs.row_split == 0 && (rs.row_columns || rs.row_chunks == 0) && steps >= C)
    b.plan.reduce.chains = std::uint8_t(C);
}

// A split row kernel's part: the partials kernel stores each reduction's
// partials (its outputs), the output kernel reads them (a buffer slot each,
// the schedule's pending outputs), both over `segments` segments a row.
void mark_split(BodyBuilder& b, const RowSplit& split, std::int64_t segments) {
  b.plan.reduce.row_split = split.segments == 0 ? 1 : 2;
  b.args.groups = segments;
  if (split.segments == 0) {
    b.plan.outputs.clear();
    for (std::size_t k = 0; k < b.plan.instrs.size(); ++k)
      if (codegen::is_row_reduction(b.plan.instrs[k])) b.plan.outputs.push_back(std::int16_t(k));
    return;
  }
  for (std::size_t k = 0; k < b.plan.instrs.size(); ++k) {
    Instr& in = b.plan.instrs[k];
    if (!codegen::is_row_reduction(in)) continue;
    in.c = std::int16_t(b.plan.buffer_dtypes.size());
    b.plan.buffer_dtypes.push_back(in.dtype);
    b.args.inputs.push_back(InputBuffer{nullptr, split.partials.at(k)});
  }
}

namespace {

// A long row's layout in the deep register form (deep_rows): its group (0:
// not taken), the most elements each work-item holds, and whether values
// phases share are computed again rather than kept.
struct DeepRows {
  std::int64_t group = 0, elements = 0;
  bool recompute = false;
};
DeepRows deep_rows(const codegen::KernelPlan& plan, std::int64_t m, const DeviceTuning& tuning);
// The deep form's fewest elements a work-item, and its largest group.
constexpr std::int64_t kDeepFewestElements = 32;
std::int64_t deep_largest_group(const DeviceTuning& tuning) { return std::min<std::int64_t>(largest_row_group(tuning), 512); }

// The fan-in of the meet of a row's T work-items' partials (render_row.cpp's
// meet_partials): in two levels each reads T / F partials, then F, fewest
// where F is near the square root of T; at most the setting (0: a tree).
// Local-memory reads, not barriers, were the cost: an H200, 2^26 floats,
// softmax over rows of 257 (32 work-items a row) 172 us at 8 against 233 in
// one level of 32; rows of 129 (16 a row) 165 at 4 against 185 at 8.
int meet_fanin(std::int64_t T, int setting) {
  if (setting == 0) return 0;
  int f = 1;
  while (std::int64_t(f) * f < T) f *= 2;
  return std::min(f, setting);
}

// The deep register form (GPUs): a long row's work-items each hold E = 32
// or 64 of its elements (at most row_held_bytes of loads), in a group of G
// = m / E work-items (a power of two): the smallest E that leaves G at most
// 256, else the largest allowed with G at most 512 (a group of 1024 leaves a
// work-item 64 registers on an H200, fewer than 32 floats and the rest
// need: it spills). Fewer work-items a row than 16 elements each gave mean
// more rows resident and shorter combines. Values that several phases
// compute (softmax's exp) are kept too while a group's held bytes stay
// within 64 KiB (three groups of 256 resident with 32 floats and their exp
// each); beyond that they are computed again (ReduceSpec::row_recompute).
// On an H200, 2^26 floats, softmax / layer norm (us): rows of 8192 as 256 x
// 32, keeping exp, 158 / 135, computing it again 168, against 202 / 152 as
// 512 x 16; rows of 16384 as 256 x 64 177 / 137 (512 x 32: 185 / 135,
// keeping exp 238; 1024 x 16: 269 / 190); rows of 32768 as 512 x 64 221 /
// 151 (1024 x 32: 223-240 / 156, spilling; two kernels: 249 / 229); rows of
// 65536 as 1024 x 64: 599 / 565, spilling: not taken (bench/RESULTS.md,
// twenty-fifth session). Rows of 2048 and less keep their layouts.
DeepRows deep_rows(const codegen::KernelPlan& plan, std::int64_t m, const DeviceTuning& tuning) {
  DeepRows d;
  const std::int64_t shallow = std::int64_t(std::max(1, tuning.row_register_elements)) * std::max(1, tuning.row_group_cap);
  if (tuning.row_held_bytes == 0 || m <= shallow) return d;
  const auto held = std::int64_t(codegen::row_held_load_bytes(plan));  // bytes per element a work-item holds
  if (held == 0) return d;
  const std::int64_t most = deep_largest_group(tuning);
  auto group_for = [&](std::int64_t e) {
    std::int64_t g = 1;
    while (g * e < m) g *= 2;
    return g;
  };
  for (std::int64_t e = kDeepFewestElements; e * held <= std::int64_t(tuning.row_held_bytes); e *= 2) {
    const std::int64_t g = group_for(e);
    if (g > most) continue;
    d.elements = e, d.group = g;
    if (g <= 256) break;
  }
  if (d.group == 0) return d;
  const auto kept = std::int64_t(codegen::row_kept_bytes(plan));
  d.recompute = kept > 0 && (held + kept) * d.elements * d.group > 64 * 1024;
  return d;
}

}  // namespace

std::int64_t longest_row(const DeviceTuning& tuning, std::uint64_t bytes_per_element) {
  const auto cached = std::int64_t(tuning.row_bytes / std::max<std::uint64_t>(1, bytes_per_element));
  if (tuning.row_items_cap <= 1 || tuning.row_bytes == 0) return cached;
  // plan_row's largest group for a long row, each work-item with row_register_elements.
  std::int64_t longest = std::max(cached, largest_row_group(tuning) * std::max(1, tuning.row_register_elements));
  // The deep register form's (deep_rows), a work-item holding as many elements as row_held_bytes allows.
  const auto bytes = std::int64_t(std::max<std::uint64_t>(1, bytes_per_element));
  std::int64_t e = kDeepFewestElements;
  while (e * 2 * bytes <= std::int64_t(tuning.row_held_bytes)) e *= 2;
  if (e * bytes <= std::int64_t(tuning.row_held_bytes)) longest = std::max(longest, deep_largest_group(tuning) * e);
  return longest;
}

namespace {

// Rows staged through local memory (ReduceSpec::row_staged), on GPUs: rows
// of up to kStageLongest elements that are no multiple of the vector width
// w, which the register form held in skewed vectors (more than a vector a
// work-item, up to 4 work-items a row); with DeviceTuning::row_stage 2 every
// row held in registers but the deep form's, to compare. An H200, 2^26
// floats, softmax / layer norm (us, staged / in skewed vectors /
// torch.compile): rows of 5 189 / 194 against 296 / 270 (244 / 252), 9 168
// / 168 against 321 / 336 (302 / 238), 17 173 / 166 against 238 / 216 (304
// / 246), 31 201 / 195 against 203 / 219 (181 / 171), 33 210 / 210 against
// 247 / 220 (375 / 335); but rows of 45 185 / 186 against 184 / 172. Not
// rows of 3 (a vector or less a work-item: 210 / 217 against 179 / 190,
// element by element), nor those whose many work-items' loads are coalesced
// as they are (65: 213 / 215 against 166 / 175; 257: 211 / 209 against 150
// / 148), nor whole vectors (1024: 198 / 191 against 132 / 134)
// (bench/RESULTS.md, thirty-second session).
constexpr std::int64_t kStageLongest = 40;
bool stage_rows(const DeviceTuning& tuning, const DeepRows& deep, const RowSplit* split, std::int64_t m, int w, std::int64_t per_row,
                std::int64_t k) {
  if (tuning.row_stage == 0 || tuning.row_items_cap <= 1 || deep.group > 0 || split) return false;
  return tuning.row_stage == 2 || (m % w != 0 && m <= kStageLongest && per_row <= 4 && k > w);
}
// Short rows of 4-byte elements, on a GPU of 16-byte vectors, that run
// faster in 8-byte vectors (float2, as Inductor reads rows of 10), the
// fewest work-items a row (a power of two, at most 8) that hold at most 8
// elements each (not the rule of rows of 2^k or 2^k - 1 vectors): rows of 2
// mod 4 floats from 10 to 86, an odd number of 8-byte vectors (from 10 to 38
// staged through local memory otherwise, stage_rows; from 42 element by
// element), and rows of 12 and 28 (3 and 7 16-byte vectors over 2 and 4
// work-items otherwise). An H200, 2^26 floats, softmax / layer norm (us,
// 8-byte vectors against before; torch.compile in brackets): rows of 10 145
// / 136-140 against 155 / 163-169 (143 / 139), 12 129 / 130 against 161 /
// 144-152 (134 / 134), 14 133 / 130 against 149-151 / 140-141 (138 / 133),
// 22 141 / 134 against 172 / 161 (138 / 142), 26 140 / 131 against 170 /
// 162 (144 / 134), 28 135 / 130 against 139 / 134, 30 132-134 / 131 against
// 175 / 170 (140 / 140), 34 155-160 / 150-154 against 175 / 190 (188 /
// 160), 38 146-149 / 142-145 against 173 / 185 (170 / 156), 58 131 / 131
// against 137-140 / 133-138, 74 135 / 134 against 138 / 138, 82 135-136 /
// 137 against 143 / 140-141; 78 and 86 2-5 less; 18, 42 to 54 and 62 to 70
// within 3 either way. Not rows of 6 (182 / 168 against 161 / 165), 20 or 36
// (149 / 139 against 138 / 133, 151 / 148 against 141 / 134), nor rows of 90
// to 126 (8 work-items of up to 8 vectors: 137-148 / 137-143 against 132-141
// / 132-134; 16 of 3 or 4: 5 less to 5 more) (bench/RESULTS.md, forty-ninth
// session).
bool narrowed_rows(const codegen::KernelPlan& plan, const DeviceTuning& tuning, std::int64_t m) {
  if (tuning.row_items_cap <= 1 || tuning.vector_bytes != 16 || row_width(plan, 16) != 4 || row_width(plan, 8) != 2) return false;
  return m % 4 == 2 ? m >= 10 && m <= 86 : m == 12 || m == 28;
}

// The most local memory a group's staging arrays and combine take: 24 KiB
// leaves an H200's SM nine groups.
constexpr std::uint64_t kStageBytes = 24 * 1024;

// Whether a row kernel divides by its rows' values through their reciprocal
// (codegen ReduceSpec::row_reciprocal): where it has such a division and
// outputs to compute (a split row's partials kernel has none).
bool row_reciprocal(const codegen::KernelPlan& plan, const DeviceTuning& tuning) {
  return tuning.row_reciprocal && plan.reduce.row_split != 1 && codegen::has_reciprocal_divisions(plan);
}

}  // namespace

ScheduledKernel plan_row(std::span<const NodePtr> roots, const std::vector<const Node*>& reductions, const std::vector<int>& axes,
                         const DeviceTuning& device_tuning, const PendingOutputs* pending, const RowPartials* partials,
                         const RowSplit* split) {
  DeviceTuning tuning = device_tuning;  // narrowed_rows may take narrower vectors for this kernel
  bool narrowed = false;
  const Shape& shape = roots.front()->shape;
  BodyBuilder b(shape, pending);
  b.row_reductions = &reductions;
  if (partials) b.row_partials = partials->output;
  b.plan.kind = codegen::KernelKind::Row;
  for (const auto& root : roots) b.plan.outputs.push_back(b.visit(body_root(root)));
  if (!partials)
    if (auto k = plan_row_columns(b, shape, axes, tuning, split)) {
      k->plan.reduce.row_reciprocal = row_reciprocal(k->plan, tuning);
      return std::move(*k);
    }
  if (!partials && !split)
    if (auto k = plan_row_lanes(b, shape, axes, tuning)) {
      k->plan.reduce.row_reciprocal = row_reciprocal(k->plan, tuning);
      return std::move(*k);
    }

  // Index space as a reduction's: kept axes first, the row's axes last, never
  // merged across; the output, in the root's C order, is stored through
  // strides where that order differs (a row along an outer axis).
  std::vector<int> perm, group;
  std::int64_t n = 1, m = 1;
  for (int pass = 0; pass < 2; ++pass)
    for (int i = 0; i < shape.ndim(); ++i) {
      const bool in_row = std::binary_search(axes.begin(), axes.end(), i);
      if (in_row != (pass == 1)) continue;
      perm.push_back(i);
      group.push_back(pass);
      (in_row ? m : n) *= shape.dims()[std::size_t(i)];
    }
  std::vector<std::int64_t> ost = contiguous_strides(shape);
  const IndexSpace sp = collapse(b, shape, perm, group, &ost);
  std::vector<std::int64_t> contiguous(sp.dims.size());
  std::int64_t acc = 1;
  for (std::size_t i = sp.dims.size(); i-- > 0;) {
    contiguous[i] = acc;
    acc *= sp.dims[i];
  }
  const bool out_strided = ost != contiguous;
  const bool strided = std::any_of(b.plan.instrs.begin(), b.plan.instrs.end(), [](const Instr& i) {
    return codegen::is_strided(i.access) && (i.op == Op::Buffer || i.op == Op::Generate);
  });
  b.plan.ndim = strided || out_strided ? std::uint8_t(sp.dims.size()) : 0;
  if (b.plan.ndim) b.args.dims = sp.dims;
  if (!partials && !split && b.plan.ndim == 0 && narrowed_rows(b.plan, tuning, m)) {
    narrowed = true;
    tuning.vector_bytes /= 2;
    tuning.elements_per_item = 8;
    tuning.row_items_cap = std::min(tuning.row_items_cap, 8);
  }
  if (out_strided) {
    b.plan.out_strided = true;
    b.args.out_strides = std::move(ost);
  }
  // Work-items step through their row one element each: neighbours read
  // neighbours (coalesced on a GPU). Each row gets the work-items that give
  // each about tuning.elements_per_item elements, at most a group (of at most
  // tuning.row_group_cap); short rows share a group, so that few work-items
  // idle and the trees stay short. Where a work-item has at most
  // tuning.row_register_elements elements they stay in its registers between
  // the phases (the register form).
  b.plan.width = 1;
  // Split rows (rows along the last axes only; plan_row_columns splits the
  // others): the layout is a segment's, each a row of its own.
  const std::int64_t segments = split ? split_segments(m, split->segments, tuning.row_segment) : 1;
  const std::int64_t row_length = m;
  if (split) {
    m = segment_length(row_length, segments);
    n *= segments;
  }
  std::int64_t L = std::max(1, std::min(tuning.local_size, tuning.row_group_cap));
  std::int64_t holds = std::max(1, tuning.row_register_elements);  // the most elements a work-item holds
  DeepRows deep;
  if (tuning.row_items_cap > 1 && !partials) {
    deep = deep_rows(b.plan, m, tuning);
    if (deep.group > 0) {
      L = deep.group;
      holds = deep.elements;
    } else {
      // A long row on a GPU gets a larger group, up to the device's largest,
      // where that lets it stay in registers: read from memory once, where in
      // the loop form each phase re-reads it, and the rows of all the groups
      // in flight pass the L2 cache (rows of 8192 floats on an H200 took 406
      // us at 2^26 in groups of 128, looping).
      const std::int64_t most = largest_row_group(tuning);
      std::int64_t big = L;
      while (big * 2 <= most && big * tuning.row_register_elements < m) big *= 2;
      if (big * tuning.row_register_elements >= m) L = big;
    }
  }
  std::int64_t per_row = 1;
  while (per_row < std::min<std::int64_t>(L, tuning.row_items_cap) && per_row * tuning.elements_per_item < m) per_row *= 2;
  if (deep.group > 0) per_row = L;  // a row a group
  // Rows of 41 to 127 that are no whole vectors, on a GPU: at most 10
  // elements a work-item, up to 16 work-items a row (rows of 41 to 64 took
  // 4 work-items, in vectors from each row's aligned start, rows of 81 to
  // 127 8 work-items of 11 to 16 elements). An H200, 2^26 floats, softmax /
  // layer norm (us, so against before; torch.compile): rows of 41 139 / 136
  // against 198 / 180 (308 / 278), 50 137 / 133 against 195 / 177 (135 /
  // 141), 63 132 / 133 against 182 / 170 (185 / 194), 97 136 / 132 against
  // 157 / 159 (193 / 182), 121 133 / 132 against 159 / 158 (159 / 145), 127
  // 131 / 131 against 157 / 157 (151 / 137); rows of 65 to 80 keep 8 (65
  // with 16: 152 / 149 against 136 / 133) (bench/RESULTS.md, forty-second
  // session).
  if (tuning.row_items_cap > 1 && !partials && !split && deep.group == 0 && m > kStageLongest &&
      m % row_width(b.plan, tuning.vector_bytes) != 0)
    while (per_row < 16 && per_row * 2 <= std::min<std::int64_t>(L, tuning.row_items_cap) && (m + per_row - 1) / per_row > 10) per_row *= 2;
  // Rows of v whole vectors, v a power of two or one less from 3 to 32, on a
  // GPU: at most two vectors a work-item (the last work-item one where v is
  // odd), none idle; fewer where elements_per_item gives fewer. An H200,
  // 2^26 floats, softmax / layer norm (us, two vectors each against the
  // work-items elements_per_item gives, 16 there; torch.compile): rows of
  // 16 131 / 130 against 211 / 215 (one work-item of 4 vectors; 134 / 134),
  // 28 142 / 134 against 160 / 163 (2 of 4; 135 / 137), 32 131 / 130
  // against 144 / 147 (2 of 4; 133 / 133), 60 137 / 131 against 139 / 142
  // (4 of 4; 132 / 139), 64 131 / 131 against 133 / 134, 128 131 / 133
  // against 133 / 134 (8 of 4). Where some work-item would idle, two vectors
  // each lost: rows of 20 173 / 160 against 150 / 144, 36 194 / 169 against
  // 141 / 135, 120 139 / 133 against 131 / 132 (bench/RESULTS.md,
  // forty-third session). Rows of 3 vectors too (12 floats: two work-items,
  // every other row rotated below): 160 / 144 against 180 / 172 in one work-
  // item (torch.compile 133 / 133; forty-eighth session). Rows that
  // narrowed_rows takes (floats' rows of 12 and 28 among them) skip this
  // rule: their work-items come from elements_per_item alone.
  if (tuning.row_items_cap > 1 && !partials && !split && deep.group == 0 && !narrowed) {
    const std::int64_t w = row_width(b.plan, tuning.vector_bytes), v = m / w;
    if (m % w == 0 && v >= 3 && v <= 32 && (std::has_single_bit(std::uint64_t(v)) || std::has_single_bit(std::uint64_t(v + 1))))
      per_row = std::max(per_row, std::min<std::int64_t>(std::int64_t(std::bit_ceil(std::uint64_t(v))) / 2,
                                                         std::min<std::int64_t>(L, tuning.row_items_cap)));
  }
  // Rows a group of L takes at T work-items each: no more than there are.
  auto group_rows = [L, n](std::int64_t T) {
    std::int64_t r = L / T;
    while (r > 1 && r / 2 >= n) r /= 2;
    return r;
  };
  // Short rows staged through local memory (stage_rows) take a work-item
  // each below twice elements_per_item: it holds all of its row, and no
  // partials meet. An H200, 2^26 floats, softmax / layer norm (us, a work-
  // item a row / the work-items elements_per_item gives): rows of 17 173 /
  // 166 against 195 / 195 (2); of 25 189 / 188 against 195 / 187 (2); but
  // of 33 212 / 205 against 210 / 210 (4) (bench/RESULTS.md, thirty-second
  // session).
  const bool one_staged = !partials && b.plan.ndim == 0 && m < 2 * std::int64_t(tuning.elements_per_item) &&
                          stage_rows(tuning, deep, split, m, row_width(b.plan, tuning.vector_bytes), 1, std::int64_t(std::bit_ceil(std::uint64_t(m))));
  if (one_staged) per_row = 1;
  std::int64_t rows = group_rows(per_row);
  // A work-item per row (CPUs): groups enough for every compute unit.
  if (per_row == 1 && tuning.row_items_cap == 1)
    while (rows > 1 && (n + rows - 1) / rows < tuning.target_groups) rows /= 2;
  const std::int64_t chunks = (m + per_row - 1) / per_row;
  std::int64_t k = 1;
  while (k < chunks) k *= 2;
  const bool in_registers = k <= holds || one_staged;
  b.plan.reduce.local_size = std::uint16_t(per_row * rows);
  b.plan.reduce.rows_per_group = std::uint16_t(rows);
  b.plan.reduce.row_chunks = std::uint8_t(in_registers ? k : 0);
  b.plan.reduce.row_recompute = in_registers && deep.recompute;
  if (in_registers && b.plan.ndim == 0 && !partials) {
    // The register form in whole vectors: a work-item's elements are k / w
    // vectors of w neighbours, w * T apart, loaded and stored through vector
    // pointers (a GPU's 16-byte loads: softmax over rows of 1024 on an H200
    // 143 us against 155 element by element). Every row must start on a
    // multiple of w, and every load.
    const int w = row_width(b.plan, tuning.vector_bytes);
    b.plan.width = std::uint8_t(w);
    // Rows that are no multiple of w in vectors from the multiple of w at
    // or below each row's start (ReduceSpec::row_skew): a row of m takes
    // at most (m + 2w - 2) / w of them, so a work-item may hold one vector
    // more than k elements. Where that gains: the deep form's work-items,
    // which held 32 or 64 elements one by one, and short rows, of up to 4
    // work-items each with more than a vector; in between, a row's scalar
    // loads are coalesced over its many work-items, and the masks of its
    // first and last vectors cost more than the vectors gain. An H200, 2^26
    // floats, softmax (us, in vectors / element by element / torch.compile):
    // rows of 5001 171 / 247 / 257, 8191 159 / 196 / 205, 12289 235 / 233
    // (then today's two kernels) / 235; rows of 5 295 / 353 / 249, 17 241 /
    // 409 / 296, 33 251 / 303 / 374; but rows of 3 487 / 197, 65 268 / 204,
    // 511 207 / 169, 1001 170 / 157, 2047 176 / 162 (bench/RESULTS.md,
    // thirtieth session).
    const std::int64_t skewed = (row_length + 2 * w - 2) / w, skewed_chunks = (skewed + per_row - 1) / per_row;
    const bool skew_gains = deep.group > 0 || (per_row <= 4 && k > w);
    if (stage_rows(tuning, deep, split, row_length, w, per_row, k)) {
      // Element by element, through local memory (ReduceSpec::row_staged).
      b.plan.width = 1;
      b.plan.reduce.row_staged = std::uint8_t(std::clamp(tuning.vector_bytes, 1, 128));
    } else if (w > 1 && k >= w && row_length % w == 0 && vector_loads_aligned(b.plan, b.args)) {
      // The row's vectors a work-item holds, not the power of two above
      // them, as element by element below (rows of 44 floats over 4 work-
      // items: 3 vectors each, where 4 loaded the last vector twice). An
      // H200, 2^26 floats, softmax / layer norm (us, power of two / needed):
      // rows of 44 148 / 139, 137 / 136; 300 168 / 138, 135 / 131; 2200
      // 148 / 134, 134 / 134; 5000 132 / 134, 145 / 135; 12000 135 / 135,
      // 151 / 141. But a group of one row whose work-items need 3 keeps 4:
      // layer norm over rows of 1100 to 1500 took 145-159 us with 3, 131-139
      // with 4 (softmax 1-3 us faster with 3; bench/RESULTS.md, forty-fifth
      // session).
      const std::int64_t need = ((m + w - 1) / w + per_row - 1) / per_row;
      b.plan.aligned = true;
      b.plan.reduce.row_chunks = std::uint8_t(std::min<std::int64_t>(k / w, need == 3 && rows == 1 ? 4 : need));
      // Two work-items a row of an odd number of 16-byte vectors, on a GPU:
      // every other row starts mid-sector, and its vectors go rotated by one
      // (ReduceSpec::row_rotate), so that no store writes part of a sector
      // that another instruction completes. An H200, 2^26 floats, layer norm
      // / softmax over rows of 20 (us, rotated / not; torch.compile 132-138 /
      // 137): 131-132 / 138 against 139-140 / 142-143. Rows of 4 work-items
      // moved both ways (44: -1 to -4; 28, 36: +3 to +9; softmax over 52 +5;
      // bench/RESULTS.md, forty-eighth session): not taken there.
      b.plan.reduce.row_rotate = per_row == 2 && tuning.row_items_cap > 1 && tuning.vector_bytes == 16 && (row_length / w) % 2 == 1;
    } else if (w > 1 && k >= w && tuning.row_skew && skew_gains && !split && skewed_chunks * w <= std::max(k, holds) + w &&
               vector_loads_aligned(b.plan, b.args)) {
      b.plan.aligned = true;
      b.plan.reduce.row_skew = true;
      b.plan.reduce.row_chunks = std::uint8_t(skewed_chunks);
    } else {
      b.plan.width = 1;
    }
  }
  // Element by element, a work-item holds the row's chunks, not the power of
  // two above them: each chunk is a load (rows of 257, 32 work-items each:
  // 9 loads, where 16 loaded the row's last element 7 times).
  // An H200, 2^26 floats, softmax over rows of 257: 233 us against 264.
  if (in_registers && b.plan.width == 1) b.plan.reduce.row_chunks = std::uint8_t(chunks);
  // A row just past a power of two of work-items' elements_per_item (rows of
  // 257: 32 work-items of 8 or 9) takes half the work-items, each with up to
  // a quarter more than it holds otherwise, where at least kFewestItems are
  // left: fewer partials meet. An H200, 2^26 floats, softmax / layer norm
  // (us): rows of 257 150 / 150 against 159 / 156 (16 work-items, not 32),
  // 1025 148 / 145 against 171 / 164 (64, not 128); but rows of 129 163 / 172
  // against 162 / 161 (8, not 16), 65 312 / 322 against 168 / 174 (4, not 8)
  // (bench/RESULTS.md, thirty-first session).
  constexpr std::int64_t kFewestItems = 16;
  if (in_registers && b.plan.width == 1 && deep.group == 0 && per_row >= 2 * kFewestItems && !split && !partials) {
    const std::int64_t half = per_row / 2, more = (m + half - 1) / half;
    if (more <= holds + holds / 4) {
      per_row = half;
      rows = group_rows(per_row);
      b.plan.reduce.local_size = std::uint16_t(per_row * rows);
      b.plan.reduce.rows_per_group = std::uint16_t(rows);
      b.plan.reduce.row_chunks = std::uint8_t(more);
    }
  }
  // Staging arrays that would leave too few groups resident, or not fit:
  // fewer rows to a group where they are a work-item's each (down to a warp
  // of them), else none.
  auto stage_fits = [&] { return codegen::row_local_bytes(b.plan) <= std::min<std::uint64_t>(tuning.local_mem_bytes, kStageBytes); };
  while (b.plan.reduce.row_staged > 0 && per_row == 1 && rows > 32 && !stage_fits()) {
    rows /= 2;
    b.plan.reduce.local_size = b.plan.reduce.rows_per_group = std::uint16_t(rows);
  }
  if (b.plan.reduce.row_staged > 0 && !stage_fits()) b.plan.reduce.row_staged = 0;
  b.plan.reduce.row_fanin = std::uint8_t(meet_fanin(per_row, tuning.row_fanin));
  b.args.count = row_length == 0 ? 0 : n / segments;  // rows; empty rows have no elements to store
  b.args.reduce_count = row_length;
  if (partials) {
    // Grid form: one row, the whole array, over as many groups as fill the
    // device (each combines the partials first, so not more than that).
    b.plan.reduce.combine = true;
    b.plan.reduce.local_size = std::uint16_t(L);
    b.plan.reduce.rows_per_group = 1;
    b.plan.reduce.row_chunks = 0;
    b.args.groups = partials->groups;
    b.args.count = std::clamp<std::int64_t>((m + L - 1) / L, m == 0 ? 0 : 1, std::int64_t(tuning.target_groups) * 4);
  }
  // A row's work-items combine their partials within warps through
  // shuffles where every group is whole warps (a few short rows are not).
  // An H200, 2^26 floats, softmax (us, shuffles / local memory): rows of 257
  // (32 work-items each) 159 / 173, 511 139 / 149, 2047 148 / 163, 4099 175
  // / 190; layer norm over rows of 17 215 / 230 (bench/RESULTS.md,
  // thirty-first session).
  const auto& rs = b.plan.reduce;
  if (tuning.row_warp > 0 && rs.local_size % tuning.row_warp == 0 && rs.local_size / rs.rows_per_group > 1)
    b.plan.reduce.row_warp = std::uint8_t(tuning.row_warp);
  // A row that loops steps through it in vectors where every load is
  // contiguous or uniform (CPUs gain most from explicit vectors).
  if (b.plan.reduce.row_chunks == 0 && b.plan.ndim == 0) b.plan.width = std::uint8_t(row_width(b.plan, tuning.vector_bytes));
  b.plan.reduce.row_online = b.plan.reduce.row_chunks == 0 && !partials && online_pass(b.plan, tuning) && !(split && split->segments);
  if (split) mark_split(b, *split, segments);
  b.plan.reduce.row_reciprocal = row_reciprocal(b.plan, tuning);
  // The row length a constant of the source (DeviceTuning::row_constant)
  // where the row is held in registers: the clamps and offsets of a work-
  // item's loads become constants, and only its chunks that may pass the
  // row's end test it (render_row.cpp's full_chunks). An H200, 2^26 floats,
  // softmax (us, the constant / the argument): rows of 3 139 / 180, 17 162
  // / 174, 31 176 / 201, 129 154 / 162, 257 145 / 150, 1001 135 / 146, 2047
  // 134 / 147 (bench/RESULTS.md, thirty-third session). Rows of 65 to 127,
  // held by 4 or 8 work-items element by element, lost with a test of the
  // row's end at every chunk (65 194 / 166, 97 217 / 181) and gain with the
  // tests only where needed: softmax / layer norm over rows of 65 137 / 135
  // against 168 / 176, 97 158 / 160 against 183 / 178, 127 158 / 158 against
  // 171 / 168 (forty-second session).
  if (tuning.row_constant && b.plan.reduce.row_chunks > 0 && !split && !partials &&
      row_length <= std::int64_t(UINT32_MAX))
    b.plan.reduce.row_length = std::uint32_t(row_length);
  take_chains(b, tuning);
  return {std::move(b.plan), std::move(b.args)};
}


}  // namespace fusecl::detail
