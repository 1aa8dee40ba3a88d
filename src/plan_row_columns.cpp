// The column and lanes forms of a row kernel's plan (render_row.cpp and
// render_row_lanes.cpp render them): rows along leading axes read along the
// kept inner axes, a vector of columns a work-item (the column form); and a
// CPU's short rows along the last axes, a lane of a vector each (the lanes
// form). plan_row.cpp tries them before its general form.
#include "src/plan_row_parts.hpp"

#include "codegen/body.hpp"
#include "src/row_fusion.hpp"

#include <algorithm>
#include <optional>
#include <vector>

namespace fusecl::detail {

using codegen::Access;

namespace {

// The column form's fan-in (ReduceSpec::row_columns): every work-item of a
// vector of columns reads the second level's F partials, and F of them the
// first level's T / F each, so a smaller F saves more reads than it adds:
// T / 8 (2 at least), where the rows' form's meet_fanin takes the square
// root. At most the setting. On an H200, 2^26 floats, softmax over axis 0 of
// 128 x 524288 (32 work-items down each vector) 186 us at 4 against 473 in
// one level of 32, 193 at 2; over axis 0 of 32 x 2097152 (8 down each) 161
// at 2 against 202 in one level (bench/RESULTS.md, thirty-sixth session).
int column_fanin(std::int64_t T, int setting) {
  if (setting == 0) return 0;
  return int(std::min<std::int64_t>(setting, std::max<std::int64_t>(2, T / 8)));
}

// The column form's register budget: bytes of each loaded array a work-item
// holds (16 vectors of 4 floats; plan_row_columns says why).
constexpr std::int64_t kColumnRegisterBytes = 256;

}  // namespace

// The column form of a row kernel (ReduceSpec::row_columns), where it
// applies: the row's axes are one run of axes with kept axes after it
// ([outer, row, inner] in C order, inner > 1: a softmax over axis 0), and
// every operand is read contiguously in that order (or is uniform). The
// general form would read such rows with a stride, finding each element's
// coordinates by division, and a GPU's work-items of one row would read
// one column each, apart: softmax over axis 0 of 4096 x 1024 floats took
// 48 ms on the 2-core PoCL machine, against 1.7 over axis 1.
std::optional<ScheduledKernel> plan_row_columns(BodyBuilder& b, const Shape& shape, const std::vector<int>& axes,
                                                const DeviceTuning& tuning, const RowSplit* split) {
  const int first = axes.front(), last = axes.back();
  if (last - first + 1 != int(axes.size())) return std::nullopt;  // not one run of axes
  std::int64_t outer = 1, m = 1, inner = 1;
  std::vector<int> perm, group;
  for (int i = 0; i < shape.ndim(); ++i) {
    const std::int64_t d = shape.dims()[std::size_t(i)];
    const int g = i < first ? 0 : i <= last ? 1 : 2;
    (g == 0 ? outer : g == 1 ? m : inner) *= d;
    perm.push_back(i);
    group.push_back(g);
  }
  if (inner <= 1) return std::nullopt;  // rows along the last axes: the general form reads them in place
  collapse(b, shape, perm, group);
  for (const auto& in : b.plan.instrs)
    if ((in.op == Op::Buffer || in.op == Op::Generate) && in.access != Access::Contiguous && in.access != Access::Uniform)
      return std::nullopt;  // plan_row classifies the loads again for the general form

  // A work-item takes w neighbouring columns as one vector (w divides the
  // inner extent, so a vector never leaves its outer block); a group takes
  // `cols` such vectors side by side (on a GPU 32 columns, as the column
  // reductions read them) and T work-items per column, which step down the
  // rows T apart and combine their partials in local memory. A CPU gives
  // each column one work-item (row_items_cap) and each group enough columns
  // to amortize it, but groups enough for every core.
  const int w = tiling_width(row_width(b.plan, tuning.vector_bytes), inner);
  const std::int64_t vectors = outer * (inner / w);
  // Split columns (plan_row): the layout is a segment's, each a "column" of its own.
  const std::int64_t rows = m, segments = split ? split_segments(m, split->segments, tuning.row_column_segment) : 1;
  if (split) m = segment_length(rows, segments);
  const std::int64_t columns = vectors * segments;
  // Groups of the reductions' size: row_group_cap suits rows held in
  // registers, not this loop (an H200 at 2^26, softmax over axis 0 of 8192
  // x 8192: 493 us in groups of 256, 665 in groups of 128).
  const std::int64_t L = std::max<std::int64_t>(1, std::min<std::int64_t>(tuning.local_size, std::int64_t(tuning.max_work_group_size)));
  std::int64_t cols = tuning.row_items_cap == 1 ? L : std::clamp<std::int64_t>(codegen::kColumnBlock / w, 1, L);
  auto lanes = [&] {  // work-items down each vector of columns
    std::int64_t t = std::max<std::int64_t>(1, std::min<std::int64_t>(L / cols, tuning.row_items_cap));
    while (t > 1 && t / 2 * tuning.elements_per_item >= m) t /= 2;
    return t;
  };
  auto groups = [&] { return (columns + cols - 1) / cols; };
  int widest = 1;  // bytes of the widest value
  std::int64_t combine_bytes = 0;  // local memory per work-item of the combine: a vector per reduction
  for (const auto& in : b.plan.instrs) {
    widest = std::max(widest, size_of(in.dtype));
    if (codegen::is_row_reduction(in)) combine_bytes += std::int64_t(size_of(in.dtype)) * w;
  }
  const std::int64_t local_mem = std::int64_t(tuning.local_mem_bytes);
  std::int64_t chunks = 0;  // the register form's vectors per work-item (0: the loop)
  std::int64_t T = 0;
  if (tuning.row_items_cap > 1) {
    // The register form, on GPUs, for short rows: each work-item holds its
    // rows' loads in registers (up to kColumnRegisterBytes of each), so the
    // group's block of columns is read from memory once, all its loads in
    // flight together, where the loop form reads it once per phase. T work-
    // items down each vector: up to 8 vectors each while that leaves at most
    // 32 work-items, else 32 with more vectors each; longer rows loop. At
    // least a 32-byte sector of columns side by side, more where T is small
    // (up to local_size work-items), fewer where columns are few. On an H200
    // (softmax / layer norm over axis 0, 2^26 floats, in us): 512 x 131072
    // 267 / 226 against 377 / 362 looping; 16 x 4194304 259 / 272 against 521
    // / 369; at 2^24, 256 x 65536 85 / 74 against 94 / 112. Longer rows held
    // so (more work-items down each vector, in groups of up to 1024: one
    // group a multiprocessor, whose loads wait on its combines) lost to the
    // loop: 1024 x 65536 435-748 against 401 (bench/RESULTS.md, twenty-first
    // session). With the meet's fan-in column_fanin's, 8 vectors before 32
    // work-items gained on every shape (softmax over axis 0 of 128 x 524288
    // 147 us against 186 with 4, of 16 x 4194304 144 against 167; thirty-
    // sixth session).
    const std::int64_t per = std::max<std::int64_t>(1, kColumnRegisterBytes / (std::int64_t(w) * widest));
    const std::int64_t most = largest_row_group(tuning);  // c * t is a power of two
    const std::int64_t narrowest = std::max<std::int64_t>(1, 32 / (std::int64_t(w) * widest));
    std::int64_t t = 1;
    while (t < 32 && t * 8 < m) t *= 2;
    // The combine's local memory (none with one work-item down each vector).
    auto fits_local = [&](std::int64_t c) { return t == 1 || c * t * combine_bytes <= local_mem; };
    std::int64_t c = std::max<std::int64_t>(narrowest, codegen::kColumnBlock / w);
    while (c > narrowest && (c * t > most || !fits_local(c))) c /= 2;
    while (c * t < tuning.local_size && c * 2 * t <= most && fits_local(c * 2) && c < columns) c *= 2;
    while (c > narrowest && (columns + c - 1) / c < tuning.target_groups / 4) c /= 2;
    while (c > 1 && c / 2 >= columns) c /= 2;
    if (t * per >= m && c * t <= most && (columns + c - 1) / c >= tuning.target_groups / 16 && fits_local(c)) {
      cols = c;
      T = t;
      chunks = (m + t - 1) / t;
    }
  }
  if (chunks == 0) {  // the loop form
    T = lanes();
    while (cols > 1 && cols / 2 >= columns) cols /= 2;
    if (T == 1) {
      while (cols > 1 && groups() < tuning.target_groups) cols /= 2;
    } else {
      // Few columns fill few groups: narrower blocks (down to 2 vectors, a
      // 32-byte sector of floats per row step) for more groups, each with more
      // work-items down its columns; where even that leaves a GPU mostly idle,
      // the general form, a group per column, keeps more work-items busy. On
      // an H200 (softmax and layer norm over axis 0): 4096 x 1024 58 and 53 us
      // in blocks of 2 against 190 and 134 in blocks of 8 and 117 in the
      // general form; 1024 x 64 12 and 16 in the column form, 10 and 12 in the
      // general one (bench/RESULTS.md, twentieth session).
      while (cols > 2 && groups() < tuning.target_groups / 4) cols /= 2;
      T = lanes();
      if (groups() < tuning.target_groups / 16) return std::nullopt;
    }
    // Fewer work-items down each vector where their combine would pass local memory.
    while (T > 1 && cols * T * combine_bytes > local_mem) T /= 2;
  }

  b.plan.width = std::uint8_t(w);
  b.plan.ndim = 0;
  b.plan.reduce.row_columns = true;
  b.plan.reduce.local_size = std::uint16_t(cols * T);
  b.plan.reduce.rows_per_group = std::uint16_t(cols);
  b.plan.reduce.row_chunks = std::uint8_t(chunks);
  b.plan.reduce.row_fanin = std::uint8_t(column_fanin(T, tuning.row_fanin));
  b.plan.reduce.row_online = chunks == 0 && online_pass(b.plan, tuning) && !(split && split->segments);
  b.args.count = rows == 0 ? 0 : vectors;
  b.args.reduce_count = rows;
  b.args.row_stride = inner;
  if (split) mark_split(b, *split, segments);
  take_chains(b, tuning);
  return ScheduledKernel{std::move(b.plan), std::move(b.args)};
}

// The lanes form (ReduceSpec::row_lanes), on a device whose rows get one
// work-item each (a CPU), for rows along the last axes of at most two
// vectors: each lane of a work-item's vector is a row of its own, so a
// short row's elements (in the general form, all or part of them in its
// scalar tail) are computed in vectors, and each row's reductions end in
// their lane, with no combine of lanes per row. Every operand is read
// contiguously or is uniform (render_row_lanes.cpp). On the 2-core PoCL
// machine at 2^22 floats (ms, lanes / general form): softmax over rows of 4
// 2.8 / 23, of 10 2.7 / 23, of 20 2.9 / 8.8, of 31 3.1 / 11.8; layer norm
// over rows of 10 2.4 / 18.5; x / sum(x) over rows of 10 1.9 / 7.4, of 31
// 2.6 / 5.0. Rows of one or two whole vectors take it only where the row
// computes two reductions or more, each of which the general form ends
// across a vector's lanes before the next can start: softmax over rows of
// 16 2.7 / 6.2, of 32 2.8 / 4.0; softmax of a layer-normed row 3.6 / 14.8
// and 3.2 / 8.9; layer norm 1.95 / 2.8 and 1.9 / 2.0; but x / sum(x) 1.6 /
// 1.05 and 1.6 / 0.8, x - mean(x) 1.6 / 1.1 and 1.5 / 0.8 (medians of three
// rounds; bench/RESULTS.md, fifty-first session).
std::optional<ScheduledKernel> plan_row_lanes(BodyBuilder& b, const Shape& shape, const std::vector<int>& axes,
                                              const DeviceTuning& tuning) {
  if (tuning.row_items_cap != 1 || !tuning.row_lanes || axes.empty()) return std::nullopt;
  const int first = axes.front();
  if (axes.back() != shape.ndim() - 1 || int(axes.size()) != shape.ndim() - first) return std::nullopt;  // not the last axes
  std::int64_t rows = 1, m = 1;
  std::vector<int> perm, group;
  for (int i = 0; i < shape.ndim(); ++i) {
    (i < first ? rows : m) *= shape.dims()[std::size_t(i)];
    perm.push_back(i);
    group.push_back(i < first ? 0 : 1);
  }
  if (rows < 2 || m < 1) return std::nullopt;  // (empty rows launch nothing; a row kernel holds none)
  collapse(b, shape, perm, group);
  if (!contiguous_or_uniform(b.plan)) return std::nullopt;  // plan_row classifies the loads again for the general form
  const int w = row_width(b.plan, tuning.vector_bytes);
  const auto reductions = std::count_if(b.plan.instrs.begin(), b.plan.instrs.end(), codegen::is_row_reduction);
  if (w < 2 || m > 2 * w || ((m == w || m == 2 * w) && reductions < 2)) return std::nullopt;
  const std::int64_t vectors = (rows + w - 1) / w;
  const int cols = lane_group_size(vectors, tuning);  // a group of vectors, each a work-item's
  b.plan.width = std::uint8_t(w);
  b.plan.ndim = 0;
  b.plan.reduce.row_columns = true;
  b.plan.reduce.row_lanes = true;
  b.plan.reduce.row_lane_length = std::uint8_t(m);  // m <= 2 * w <= 32
  b.plan.reduce.local_size = std::uint16_t(cols);
  b.plan.reduce.rows_per_group = std::uint16_t(cols);
  b.plan.reduce.row_chunks = 0;
  b.plan.reduce.row_fanin = std::uint8_t(tuning.row_fanin);
  b.plan.reduce.row_online = online_pass(b.plan, tuning);
  b.args.count = vectors;
  b.args.reduce_count = m;
  b.args.row_stride = rows;
  take_chains(b, tuning);
  return ScheduledKernel{std::move(b.plan), std::move(b.args)};
}

}  // namespace fusecl::detail
