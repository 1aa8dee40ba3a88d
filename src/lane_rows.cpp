// Reductions over short rows in lanes (lane_rows.hpp): a GPU's lane-row
// form and a CPU's rows a lane each, and where each is taken.
#include "src/lane_rows.hpp"

#include "src/body_builder.hpp"

#include <algorithm>
#include <limits>

namespace fusecl::detail {

namespace {

std::int64_t fewest_lanes(std::int64_t vectors, std::int64_t most) {
  std::int64_t T = 1;
  while (T < 32 && (vectors + T - 1) / T > most) T *= 2;
  return T;
}
constexpr int kLaneRowsPerItem = 2, kLaneRowBytes = 16;

}  // namespace

// Whether an arg-reduction's values over m elements take vectors with
// their indices beside them: ints of the value's size (codegen's
// arg_index_type, so that select takes both), which hold the indices where
// the values are 8 bytes, or 4 bytes and m fits an int.
bool arg_lanes_fit(const codegen::ReduceSpec& rs, std::int64_t m) {
  return size_of(rs.acc) == 8 || (size_of(rs.acc) == 4 && m <= std::numeric_limits<std::int32_t>::max());
}

// Short rows along the last axes on a GPU in lanes (codegen ReduceSpec::
// lanes_per_row, render_lane_rows.cpp): a row of m elements in vectors of
// 16 bytes (8 where m is no multiple of 16 bytes) takes T lanes, the
// largest power of two up to 32 that divides its R = m / W vectors, each
// lane V = R / T of them, at most 4; each
// work-item takes kLaneRowsPerItem rows, fewer where the groups would not
// fill the device. Rows of at most 32 vectors (128 floats), 16 for moments
// (float64 sums a lane: var over rows of 128 took 75 us so against 73 in
// the group form). On an H200, 2^26 floats, us (torch.compile in the same
// run): sum / max / var over rows of 4 80 / 79 / 80 against 86 / 88 / 90
// before (83 / 83 / 81); of 24 70 / 69 / 70 against 83 / 82 / 82 (71 / 71 /
// 84); of 32 67 / 67 / 71 against 77 / 80 / 88 (71 / 69 / 71); of 64 67 /
// 67 / 72 against 68 / 69 / 78 (71 / 71 / 70). Two rows a work-item: var
// over rows of 24 took 76 with 4, 82 with 8 (bench/RESULTS.md, fortieth
// session). Rows whose vectors no power of two T divides with V <= 4
// (rows of 10, 14, 20, 28, 36, 40, 44, 52, 56, 60, 100, ...) take the
// fewest lane slots, some lanes idle in the last round: sum / max / var
// over rows of 14 69 / 71 / 75 against 77 / 89 / 81 before (torch.compile
// 73 / 73 / 78), of 44 68 / 71 / 71 against 84 / 89 / 91 (69 / 72 / 74), of
// 60 68 / 71 / 75 against 107 / 115 / 90 (74 / 71 / 70); rows of 2 and 6
// floats (vectors of 2) sum in 109 and 74 against 131 and 77
// (forty-first session).
//
// argmin / argmax (render_lane_rows.cpp's arg_body), rows of up to 255
// vectors (ReduceSpec::row_vectors is a byte; rows of 1024 floats, 256
// vectors, took 92 us in the group form and as many in lanes): the fewest
// lanes that leave each at most 4 vectors (8 past 32
// vectors), since each level of the lanes' tree moves a value and its
// index and runs better()'s branches (with the most lanes dividing the
// row's vectors, as above, rows of 32 / 64 / 128 floats took 118 / 128 /
// 140 us); a work-item a row where a lane takes more than 4 vectors (two
// rows each: rows of 256 / 512 / 1024 floats 99 / 99 / 100 us, one: 93 /
// 92 / 91). On an H100, 2^26 elements, us (the group form before;
// torch.compile): float32 rows of 16 / 24 / 32 / 64 / 128 / 256 / 512 /
// 1000 102 / 100 / 101 / 97 / 94 / 94 / 93 / 98 against 144 / 153 / 120 /
// 113 / 109 / 108 / 111 / 108 (106 / 112 / 103 / 101 / 99 / 99 / 95 / 94);
// float64 rows of 8 / 16 / 32 199 / 198 / 187 against 298 / 700 / 215 (209
// / 195 / 192); int8 rows of 32 / 256 / 1000 38 / 37 / 42 against 58 / 67 /
// 55 (56 / 66 / 62) (bench/RESULTS.md, fifty-eighth session).
//
// var / std of float64 and integers (a chan_moment, render_lane_rows.cpp's
// chan_body), rows of up to 32 vectors of 2 (64 doubles): the fewest lanes,
// at least 2, that divide the row's vectors and leave each at most 32 bytes
// of its buffers (64 where none do: rows of 24 doubles), each lane's values
// one block of Chan's update. Before, a work-item took a row of up to 16 in
// scalars and a group several longer rows. On an H100, 2^26 doubles, var
// over rows of 64 / 32 / 24 / 16 / 8 / 4 took 182 / 186 / 190 / 191 / 200 /
// 218 us against 208 / 215 / 212 / 212 / 201 / 223 before (torch.compile
// 186 / 188 / - / 192 / 201 / 221); mean and var over rows of 64 186
// against 216 (189); var of int32 over rows of 64 97 against 150
// (bench/RESULTS.md, sixty-sixth session).
//
// Rows of 17 to 32 elements that are no whole number of aligned vectors
// (rows of 17, 25, 31; views starting mid-vector) take lanes of scalars,
// at most 8 a lane: a work-item a row read 32 rows 68 to 128 bytes apart at
// each load, and a group's rows overflowed the L1 cache from rows of about
// 24 floats on (argmax over rows of 31 446 us, of 25 325). On an H100,
// 2^26 floats, us (before; torch.compile): argmax over rows of 17 / 21 /
// 25 / 31 109 / 101 / 99 / 104 (116 / 194 / 325 / 446; 435 / 368 / 306 /
// 242), sum 97 / 97 / 96 / 99 (114 / 121 / 124 / 121; 136 / 120 / 105 /
// 102), max over rows of 25 / 31 117 / 116 (118 / 129; 123 / 117). Not
// max / min over rows below 24, which a work-item a row reads from the
// cache (rows of 17 99 us, 109 in lanes), nor moments (their float64 sums
// a lane; var over rows of 17 takes 121, torch.compile 212).
bool lanes_for_rows(BodyBuilder& b, std::int64_t n, std::int64_t m, bool arg, bool online, bool across_rows, const DeviceTuning& tuning) {
  auto& rs = b.plan.reduce;
  if (!tuning.lane_rows || (arg && !arg_lanes_fit(rs, m)) || online || across_rows || n < 1 || tuning.local_size < 64) return false;
  const bool chan = codegen::chan_moment(rs);
  codegen::KernelPlan trial = b.plan;
  std::int64_t W = choose_width(trial, kLaneRowBytes, m);
  while (W > 2 && m % W != 0) W /= 2;  // rows of 10 floats: vectors of 2
  trial.width = std::uint8_t(W);
  const bool whole = W >= 2 && m % W == 0 && vector_loads_aligned(trial, b.args);
  const Op combine = reduce_info(rs.op).combine;
  const bool scalars = !whole && !rs.moment && m > 16 && m <= 32 && (arg || m >= 24 || (combine != Op::Maximum && combine != Op::Minimum));
  if (!whole && !scalars) return false;
  if (scalars) W = 1, trial.width = 1;
  const std::int64_t vectors = m / W;
  if (vectors < 1 || vectors > (rs.moment && !chan ? 16 : arg ? 255 : 32)) return false;
  std::int64_t T = 1, V = 0;
  if (chan) {
    // A float64 moment (render_lane_rows.cpp's chan_body): each lane's
    // values one block of Chan's update, so every lane as many (T divides
    // the row's vectors) and at most kMomentChanBlock. The fewest lanes, at
    // least 2 (so that each load of a warp reads whole 32-byte sectors of a
    // row; a work-item a row of 16 doubles read 8 bytes in 128 at each
    // load), that leave each lane at most 4 vectors (each level of the
    // lanes' tree moves three doubles) and 32 bytes of its buffers, else
    // 64: on an H100, var of 2^26 doubles over rows of 64 / 32 / 16 took
    // 182 / 186 / 191 us with 32 bytes a lane against 184 / 191 / 207 with
    // 64, and var of int32 over rows of 64 103 with 16 bytes against 97
    // with 32 (bench/RESULTS.md, sixty-sixth session).
    if (!whole || vectors < 2) return false;
    const std::int64_t loaded = widest_buffer_bytes(trial);
    const auto lanes_within = [&](std::int64_t bytes) {
      std::int64_t t = 2;
      while (t <= 32 && (vectors % t != 0 || vectors / t > 4 || (vectors / t) * W > codegen::kMomentChanBlock || (vectors / t) * W * loaded > bytes))
        t *= 2;
      return t;
    };
    T = lanes_within(32);
    if (T > 32) T = lanes_within(64);
    if (T > 32) return false;
    V = vectors / T;
  } else if (arg || scalars) {
    T = fewest_lanes(vectors, scalars || vectors > 32 ? 8 : 4);
    V = (vectors + T - 1) / T;
  } else {
    while (T < 32 && vectors % (2 * T) == 0) T *= 2;
    V = vectors / T;
  }
  if (V > 4 && !arg && !scalars) {
    // No whole number of vectors a lane: the fewest lane slots T * ceil(R /
    // T), the fewer lanes (more vectors a lane, fewer shuffles) on a tie;
    // lanes past the row's last vector idle in the last round. Not for
    // moments in vectors of 2 (var over rows of 10 and 18: 86 and 93 us so
    // against 71 and 94 before).
    if (rs.moment && W < 4) return false;
    std::int64_t best = 0;
    for (std::int64_t t = 2; t <= 32; t *= 2) {
      const std::int64_t v = (vectors + t - 1) / t;
      if (v <= 4 && (best == 0 || t * v < best)) best = t * v, T = t, V = v;
    }
    if (V > 4) return false;
  }
  // An arg-reduction's lanes of more than 4 vectors take one row each
  // (their loads in flight are enough; two rows' values and indices cost
  // more, above).
  int L = tuning.local_size, K = arg && V > 4 ? 1 : kLaneRowsPerItem;
  const auto groups = [&] { return (n + K * L / T - 1) / (K * L / T); };
  while (K > 1 && groups() < tuning.target_groups) K /= 2;
  while (L > std::max<std::int64_t>(64, T) && groups() < tuning.target_groups) L /= 2;
  b.plan.width = trial.width;
  b.plan.aligned = true;
  rs.strategy = codegen::ReduceStrategy::GroupPerOutput;
  rs.local_size = std::uint16_t(L);
  rs.lanes_per_row = std::uint8_t(T);
  rs.row_vectors = std::uint8_t(vectors);
  rs.rows_per_item = std::uint8_t(K);
  rs.rows_per_group = std::uint16_t(K * L / T);
  rs.row_warp = tuning.row_warp > 0 && L % tuning.row_warp == 0 && T <= tuning.row_warp ? std::uint8_t(tuning.row_warp) : 0;
  return true;
}

// A CPU's (row_items_cap 1) reductions over rows along the last axes of 2
// to 2w elements (w the vector width: 32 floats), each lane of a work-item's
// vector a row (codegen ReduceSpec::row_lanes with ThreadPerOutput;
// render_reduce.cpp's lanes_rows): its w rows' elements loaded in m vectors
// and turned into lanes, each lane folding its row in order (the same
// results as a work-item a row in scalars), the w results stored as one
// vector. A work-item a row in scalars (rows of up to 16) or in one vector
// and a scalar tail (17 to 31) read the rows element by element. Not
// compensated sums over rows of two whole vectors, which a work-item a row
// adds in two chains of vectors faster. The 2-core PoCL machine, 2^22
// floats, sum / max / sum(exp(x)) (us, in lanes against before): rows of 3
// 241 / 266 / 690 against 2449 / 1779 / 14153; of 10 462 / 452 / 816
// against 3942 / 1502 / 13831; of 16 791 / 634 / 1126 against 879 / 1617 /
// 1981; of 20 710 / 661 / 1348 against 1516 / 2049 / 4520; of 31 817 / 922
// / 1812 against 3247 / 2323 / 7755; of 32 693 / 724 / 1400 against 584 /
// 1119 / 1271 (bench/RESULTS.md, fifty-second session). Sums, products,
// max, min and means in float or 32- and 64-bit integers whose every load
// is contiguous or uniform, and moment kernels (var / std of float32, with
// the mean; render_moment.cpp's lanes_sums, float64 sums in lanes, rows of
// two whole vectors too): var over rows of 3 / 10 / 17 / 32 400 / 480 /
// 573 / 728 us against 2539 / 2093 / 1547 / 864 a work-item a row (or a
// group of 16 rows of 32; bench/RESULTS.md, fifty-third session); and
// argmin / argmax (each lane's index beside its value, a later element
// taking over only where strictly better, or NaN first: the scalar fold's
// outcome): over rows of 3 / 10 / 17 / 32 310 / 571 / 783 / 830 us against
// 9054 / 7009 / 25752 / 20291. Not softmax's pair.
bool rows_in_lanes(BodyBuilder& b, std::int64_t n, std::int64_t m, bool arg, bool online, const DeviceTuning& tuning) {
  auto& rs = b.plan.reduce;
  if (tuning.row_items_cap != 1 || !tuning.row_lanes || online || b.plan.ndim != 0 || m < 2 || (rs.out != rs.acc && !arg)) return false;
  if (codegen::chan_moment(rs)) return false;  // no lane form of render_moment_chan.cpp's
  if (!rs.moment) {  // a moment kernel's body is float32, its sums float64 (render_moment.cpp's lanes_sums)
    const Op c = reduce_info(rs.op).combine;
    if (c != Op::Add && c != Op::Mul && c != Op::Maximum && c != Op::Minimum) return false;
    if (rs.acc != DType::Float32 && rs.acc != DType::Float64 && rs.acc != DType::Int32 && rs.acc != DType::Int64 &&
        rs.acc != DType::UInt32 && rs.acc != DType::UInt64)
      return false;
  }
  if (!contiguous_or_uniform(b.plan)) return false;
  const int w = widest_width(b.plan, tuning.vector_bytes);
  const bool compensated = !rs.moment && is_float(rs.acc) && reduce_info(rs.op).summation == Summation::Kahan;
  if (w < 2 || m > 2 * w || (m == 2 * w && compensated) || n < w) return false;
  rs.strategy = codegen::ReduceStrategy::ThreadPerOutput;
  rs.row_lanes = true;
  rs.row_lane_length = std::uint8_t(m);
  b.plan.width = std::uint8_t(w);
  rs.local_size = std::uint16_t(lane_group_size((n + w - 1) / w, tuning));
  return true;
}

}  // namespace fusecl::detail
