// Reductions over short rows in lanes (ReduceSpec::lanes_per_row; where the
// scheduler takes it: lane_rows.cpp's lanes_for_rows). A row of R vectors
// (of width 1, its elements, where the row is no whole number of aligned
// vectors) takes T neighbouring work-items (lanes), lane l loading the row's vectors
// l, l + T, ..., l + (V - 1) T, V = ceil(R / T) (where T does not divide R,
// the lanes past vector R - 1 in the last round load that vector again and
// leave it out of their sums); a work-item takes K rows, S = local
// / T apart. So each load of a warp reads one contiguous span of whole rows
// (512 bytes of float4), where a work-item a row (rows of 24) or two (rows
// of 32) read every other 16 bytes of it and left the rest to a later load,
// and each work-item has K * V loads in flight. Then each row's T lanes meet
// in a tree: through warp shuffles (ReduceSpec::row_warp) or in local memory.
// Sums, products, maxima and minima (plain_body), moments of float32
// (moment_body) and of float64 and integers (chan_body), argmin / argmax
// (arg_body, each value with its index).
//
// On an H200 (2^26 floats, us, torch.compile in the same run): sum over rows
// of 24 / 32 70 / 67 against 83 / 77 before (71 / 71), max 69 / 67 against
// 82 / 81 (71 / 69), var over rows of 4 / 16 / 32 80 / 70 / 71 against 90 /
// 86 / 87 (81 / 87 / 71); K = 2 was best for var, level with 4 for sums
// (bench/RESULTS.md, fortieth session).
//
// Accuracy: a row is at most 32 vectors (16 for moments): each lane folds
// its V vectors in order, then its lanes in pairs, then the row's lanes meet
// in a tree, O((V + log2 m) u) for sums, as a work-group's tree is. Moments
// sum, in float64, the deviations from the row's first value and their
// squares, as render_moment.cpp's group form does, and end in M2 = b - a^2 /
// m: the same bound, with m at most 64 values here. Float64 moments take
// blocks of at most 8 values a lane (chan_body), as render_moment_chan.cpp's
// blocks of 32 do, so within its bound; the tests saw 8 ulps of the long
// double two passes with outliers as shifts.
#include "codegen/body.hpp"
#include "codegen/reduce_emitter.hpp"
#include "codegen/spelling.hpp"
#include "codegen/warp_shuffle.hpp"

#include <stdexcept>
#include <vector>

namespace fusecl::codegen {

namespace {

struct Lanes {
  int W, T, R, V, K, S;  // width, lanes a row, vectors a row, vectors a lane (at most), rows a work-item, rows apart
  // Whether lane vector j (lane l's vector l + j T) is past the row's end in some lanes.
  bool partial(int j) const { return (j + 1) * T > R; }
};

Lanes lanes_of(const KernelPlan& plan) {
  const ReduceSpec& rs = plan.reduce;
  const int T = rs.lanes_per_row;
  return {plan.width, T, rs.row_vectors, lane_rounds(rs), rs.rows_per_item, rs.local_size / T};
}

std::string row_at(int k, const Lanes& f) { return "base_ + " + std::to_string(k * f.S); }

// The work-item's lane and first row, and `m` as the constant it is.
std::string prologue(const KernelPlan& plan, const Lanes& f) {
  const std::string T = std::to_string(f.T);
  std::string b = "  const long m = " + std::to_string(lane_row_length(plan)) + "L;\n";
  b += "  const int lid_ = (int)get_local_id(0), lane_ = lid_ % " + T + ";\n";
  return b + "  const long base_ = (long)get_group_id(0) * " + std::to_string(plan.reduce.rows_per_group) + " + lid_ / " + T + ";\n";
}

// Row k's scope: its output o (rows past the last read the last, and store
// nothing), its kept coordinates, then for each of the lane's vectors j its
// position, coordinates and loads, and fold(k, j, value of width W). Where
// vector j is past the row's end in some lanes (Lanes::partial), those
// lanes load the row's last vector again and ok_ is false there: every lane
// loads, so that the loads stay in step and a shuffle after them finds
// every lane, and the fold leaves the value out.
template <class Fold>
std::string load_row(const KernelPlan& plan, const Lanes& f, HelperSet& h, int k, const std::string& declare, const Fold& fold) {
  const ReduceSpec& rs = plan.reduce;
  const std::string v = "v" + std::to_string(rs.input);
  std::string b = "  {\n    const long o = min(" + row_at(k, f) + ", n - 1);\n" + emit_coordinates(plan, "o", "    ", 0, rs.kept_dims) + declare;
  for (int j = 0; j < f.V; ++j) {
    const std::string q = "lane_ + " + std::to_string(j * f.T);
    if (f.partial(j))
      b += "    {\n      const bool ok_ = " + q + " < " + std::to_string(f.R) + ";\n      const long r = (long)min(" + q + ", " +
           std::to_string(f.R - 1) + ") * " + std::to_string(f.W) + ";\n";
    else
      b += "    {\n      const long r = (long)(" + q + ") * " + std::to_string(f.W) + ";\n";
    b += "      const long p = o * m + r;\n" + emit_reduced_coordinates(plan, "r", "      ") + emit_body(plan, f.W, "p", "      ", h);
    b += fold(k, j, v) + "    }\n";
  }
  return b + "  }\n";
}

// The row's lanes meet in a tree down to lane 0: records of `per` values
// of dtype t (xs, one record after another: K rows' values), each pair of
// records through `combine(x, y, d)`, statements making record x the pair's
// (d: the level's distance, T / 2 down to 1, a constant or d_). Through
// shuffles within a warp, or in local memory with a barrier a level (every
// work-item reaches each).
template <class Combine>
std::string meet(const KernelPlan& plan, const Lanes& f, HelperSet& h, DType t, const std::vector<std::string>& xs, std::size_t per,
                 const Combine& combine) {
  if (f.T == 1) return "";
  using Names = std::vector<std::string>;
  const auto named = [&](const std::string& stem) {
    Names n;
    for (std::size_t i = 0; i < per; ++i) n.push_back(stem + (per > 1 ? std::to_string(i) : "") + "_");
    return n;
  };
  const Names ys = named("y"), ls = named("x");
  const std::string T = cl_type(t);
  std::string b;
  if (plan.reduce.row_warp > 0 && shufflable(t)) {
    for (int d = f.T / 2; d > 0; d /= 2)
      for (std::size_t r = 0; r < xs.size(); r += per) {
        b += "  {";
        for (std::size_t i = 0; i < per; ++i) b += " " + shuffle_down(h, t, "const " + T + " " + ys[i] + " =", xs[r + i], std::to_string(d) + "u");
        b += " " + combine(Names(xs.begin() + std::ptrdiff_t(r), xs.begin() + std::ptrdiff_t(r + per)), ys, std::to_string(d)) + " }\n";
      }
    return b;
  }
  const std::string L = std::to_string(plan.reduce.local_size);
  const auto at = [&](std::size_t i) { return std::to_string(i) + " * " + L + " + lid_"; };
  b += "  __local " + T + " shl_[" + std::to_string(xs.size() * std::size_t(plan.reduce.local_size)) + "];\n";
  for (std::size_t i = 0; i < xs.size(); ++i) b += "  shl_[" + at(i) + "] = " + xs[i] + ";\n";
  b += "  barrier(CLK_LOCAL_MEM_FENCE);\n";
  b += "  for (int d_ = " + std::to_string(f.T / 2) + "; d_ > 0; d_ >>= 1) {\n    if (lane_ < d_) {\n";
  for (std::size_t r = 0; r < xs.size(); r += per) {
    b += "      {";
    for (std::size_t i = 0; i < per; ++i) b += " " + T + " " + ls[i] + " = shl_[" + at(r + i) + "];";
    for (std::size_t i = 0; i < per; ++i) b += " const " + T + " " + ys[i] + " = shl_[" + at(r + i) + " + d_];";
    b += " " + combine(ls, ys, "d_");
    for (std::size_t i = 0; i < per; ++i) b += " shl_[" + at(r + i) + "] = " + ls[i] + ";";
    b += " }\n";
  }
  b += "    }\n    barrier(CLK_LOCAL_MEM_FENCE);\n  }\n";
  for (std::size_t i = 0; i < xs.size(); ++i) b += "  " + xs[i] + " = shl_[" + at(i) + "];\n";
  return b;
}

// One value a record, combined alone ("x = ...(x, y);").
template <class Combine>
auto each(const Combine& combine) {
  return [combine](const std::vector<std::string>& x, const std::vector<std::string>& y, const std::string&) { return combine(x[0], y[0]); };
}

std::string plain_body(const KernelPlan& plan, const Lanes& f, HelperSet& h) {
  const ReduceSpec& rs = plan.reduce;
  const ReduceInfo& info = reduce_info(rs.op);
  const std::string A = cl_type(rs.acc), AW = cl_type(rs.acc, f.W);
  const auto combine = [&](const std::string& a, const std::string& b, int w) { return spell(info.combine, rs.acc, rs.acc, a, b, "", w, h); };
  std::string b = prologue(plan, f);
  std::vector<std::string> xs;
  for (int k = 0; k < f.K; ++k) xs.push_back("a" + std::to_string(k) + "_");
  for (const auto& x : xs) b += "  " + A + " " + x + ";\n";
  for (int k = 0; k < f.K; ++k) {
    const auto fold = [&](int kk, int j, const std::string& v) {
      std::string s;
      if (!f.partial(j)) s = j == 0 ? "      w_ = " + v + ";\n" : "      w_ = " + combine("w_", v, f.W) + ";\n";
      else if (j == 0) s = "      w_ = ok_ ? " + v + " : (" + AW + ")(" + reduce_identity(info.identity, rs.acc) + ");\n";
      else s = "      if (ok_) w_ = " + combine("w_", v, f.W) + ";\n";
      if (j + 1 < f.V) return s;
      // The vector's lanes in pairs.
      std::vector<std::string> ls;
      for (int l = 0; l < f.W; ++l) ls.push_back(f.W > 1 ? "w_" + lane(l) : "w_");
      while (ls.size() > 1) {
        std::vector<std::string> next;
        for (std::size_t i = 0; i + 1 < ls.size(); i += 2) next.push_back(combine(ls[i], ls[i + 1], 1));
        if (ls.size() % 2) next.push_back(ls.back());
        ls = next;
      }
      return s + "      " + xs[std::size_t(kk)] + " = " + ls[0] + ";\n";
    };
    b += load_row(plan, f, h, k, "    " + AW + " w_;\n", fold);
  }
  b += meet(plan, f, h, rs.acc, xs, 1, each([&](const std::string& x, const std::string& y) { return x + " = " + combine(x, y, 1) + ";"; }));
  for (int k = 0; k < f.K; ++k) {
    const FinishValue v = finish_value(plan, xs[std::size_t(k)], 1, "    ", h);
    const std::string store = "out0[" + row_at(k, f) + "] = " + v.value + ";";
    b += "  if (lane_ == 0 && " + row_at(k, f) + " < n) " + (v.statements.empty() ? store + "\n" : "{\n" + v.statements + "    " + store + "\n  }\n");
  }
  return b;
}

// The row's first value as a double into `into`, loaded by every lane
// (where no warp shuffle takes it from lane 0).
std::string row_first_value(const KernelPlan& plan, const std::string& into, HelperSet& h) {
  return "    {\n      const long p = o * m;\n" + emit_reduced_coordinates(plan, "0", "      ") + emit_body(plan, 1, "p", "      ", h) + "      " +
         into + " = (double)v" + std::to_string(plan.reduce.input) + ";\n    }\n";
}

// Moments: each row's shift is its first value, lane 0's first element,
// which the row's lanes take through a shuffle or load again.
std::string moment_body(const KernelPlan& plan, const Lanes& f, HelperSet& h) {
  const ReduceSpec& rs = plan.reduce;
  const bool mean = rs.moment == 2, warps = rs.row_warp > 0;
  const std::string FW = cl_type(DType::Float32, f.W);
  std::string b = prologue(plan, f);
  std::vector<std::string> xs;
  for (int k = 0; k < f.K; ++k) {
    const std::string ks = std::to_string(k);
    b += "  double a" + ks + "_ = 0, b" + ks + "_ = 0, c" + ks + "_ = 0;\n";
    xs.push_back("a" + ks + "_"), xs.push_back("b" + ks + "_");
    if (mean) xs.push_back("c" + ks + "_");
  }
  for (int k = 0; k < f.K; ++k) {
    const std::string ks = std::to_string(k);
    std::string declare = "    double sh = 0;\n";
    if (!warps) {
      declare += row_first_value(plan, "sh", h);
    }
    const auto fold = [&](int, int j, const std::string& value) {
      std::string s = "      const " + FW + " w_ = " + value + ";\n";
      if (j == 0 && warps)
        s += "      " + shuffle_index(h, DType::Float32, "const float f_ =", f.W > 1 ? "w_.s0" : "w_", "(uint)((lid_ & 31) - lane_)") +
             "\n      sh = (double)f_;\n";
      if (f.partial(j)) s += "      if (ok_) {\n";
      for (int l = 0; l < f.W; ++l)
        s += "      { const double x_ = (double)" + (f.W > 1 ? "w_" + lane(l) : std::string("w_")) + ", d_ = x_ - sh; a" + ks + "_ += d_; b" + ks +
             "_ = fma(d_, d_, b" + ks + "_);" + (mean ? " c" + ks + "_ += x_;" : "") + " }\n";
      if (f.partial(j)) s += "      }\n";
      return s;
    };
    b += load_row(plan, f, h, k, declare, fold);
  }
  b += meet(plan, f, h, DType::Float64, xs, 1, each([](const std::string& x, const std::string& y) { return x + " += " + y + ";"; }));
  for (int k = 0; k < f.K; ++k) {
    const std::string ks = std::to_string(k);
    b += "  if (lane_ == 0 && " + row_at(k, f) + " < n) {\n    const long o = " + row_at(k, f) + ";\n";
    b += "    const double nd = (double)m, t_ = b" + ks + "_ - a" + ks + "_ * (a" + ks + "_ / nd);\n";
    // M2 clamped below 0 (rounding; NaN stays NaN).
    b += moment_store(plan, "    ", "t_ < 0 ? 0.0 : t_", "c" + ks + "_", "", h) + "  }\n";
  }
  return b;
}

// Moments of a float64 body (chan_moment: var / std of float64 and of
// integers). Each lane's values are a block around its first value (V * W
// of them, at most kMomentChanBlock: lanes_for_rows), summed as
// render_moment_chan.cpp's blocks are and turned into the block's mean,
// relative to the row's first value x0, and its M2 (that file says why the
// blocks and x0); then the row's lanes meet in Chan's update. T divides the
// row's vectors, so the two sides of every meeting hold as many values, n_l
// T / (2 d) at distance d: f = 1/2 and no division. The values' plain sum
// beside them: the mean, and NumPy's inf where squares overflow
// (chan_moment_store).
std::string chan_body(const KernelPlan& plan, const Lanes& f, HelperSet& h) {
  const ReduceSpec& rs = plan.reduce;
  const bool warps = rs.row_warp > 0;
  const int nl = f.V * f.W;  // a lane's values
  if (f.V * f.T != f.R || nl > kMomentChanBlock)
    throw std::logic_error("internal: a float64 moment's lanes take whole blocks (lanes_for_rows)");
  const std::string D = cl_type(DType::Float64, f.W);
  const auto total = [&](const std::string& x) {  // a vector's lanes in pairs
    std::vector<std::string> ls;
    for (int l = 0; l < f.W; ++l) ls.push_back(f.W > 1 ? x + lane(l) : x);
    while (ls.size() > 1) {
      std::vector<std::string> next;
      for (std::size_t i = 0; i + 1 < ls.size(); i += 2) next.push_back("(" + ls[i] + " + " + ls[i + 1] + ")");
      ls = next;
    }
    return ls[0];
  };
  std::string b = prologue(plan, f);
  std::vector<std::string> xs;  // each row's mean relative to x0, M2, sum
  for (int k = 0; k < f.K; ++k) {
    const std::string ks = std::to_string(k);
    b += "  double m" + ks + "_ = 0, q" + ks + "_ = 0, c" + ks + "_ = 0;\n";
    for (const char* x : {"m", "q", "c"}) xs.push_back(x + ks + "_");
  }
  for (int k = 0; k < f.K; ++k) {
    const std::string ks = std::to_string(k);
    std::string declare = "    double x0 = 0, s_ = 0;\n    " + D + " a_ = (" + D + ")(0), b_ = a_, c_ = a_;\n";
    if (!warps)
      declare += row_first_value(plan, "x0", h);
    const auto fold = [&](int, int j, const std::string& value) {
      std::string s = "      const " + D + " x_ = " + (f.W > 1 ? "convert_" + D + "(" + value + ")" : "(double)" + value) + ";\n";
      if (j == 0) {
        s += "      s_ = x_" + std::string(f.W > 1 ? ".s0" : "") + ";\n";
        if (warps) s += "      " + shuffle_index(h, DType::Float64, "x0 =", "s_", "(uint)((lid_ & 31) - lane_)") + "\n";
      }
      s += "      { const " + D + " d_ = x_ - s_; a_ += d_; b_ = fma(d_, d_, b_); c_ += x_; }\n";
      if (j + 1 < f.V) return s;
      // The lane's block: its mean relative to x0 and its M2, clamped below
      // 0 (rounding; NaN stays NaN).
      s += "      {\n        const double a = " + total("a_") + ", i_ = 1.0 / " + std::to_string(nl) + ".0, t_ = " + total("b_") + " - a * (a * i_);\n";
      s += "        m" + ks + "_ = (s_ - x0) + a * i_;\n        q" + ks + "_ = t_ < 0 ? 0.0 : t_;\n        c" + ks + "_ = " + total("c_") + ";\n      }\n";
      return s;
    };
    b += load_row(plan, f, h, k, declare, fold);
  }
  const int half = nl * f.T / 2;  // over d: each side's count
  b += meet(plan, f, h, DType::Float64, xs, 3, [&](const std::vector<std::string>& x, const std::vector<std::string>& y, const std::string& d) {
    return "const double dl_ = " + y[0] + " - " + x[0] + "; " + x[1] + " += " + y[1] + " + dl_ * dl_ * ((double)(" + std::to_string(half) + " / " + d +
           ") * 0.5); " + x[0] + " += dl_ * 0.5; " + x[2] + " += " + y[2] + ";";
  });
  for (int k = 0; k < f.K; ++k) {
    const std::string ks = std::to_string(k);
    b += "  if (lane_ == 0 && " + row_at(k, f) + " < n) {\n    const long o = " + row_at(k, f) + ";\n";
    b += chan_moment_store(plan, "    ", "q" + ks + "_", "c" + ks + "_", h) + "  }\n";
  }
  return b;
}

// argmin / argmax: each lane keeps, lane by lane of its vectors, its best
// value and that value's index (ints of the value's size: arg_index_type),
// a later vector's element taking over only where strictly better or NaN
// first (arg_takes: each lane sees its elements in order). The vector's
// lanes meet in halves (arg_better_mask), the last two and then the row's
// lanes through better(), which settles ties and NaN by the lower index:
// the first extreme, as the scalar fold has it, whatever the order.
std::string arg_body(const KernelPlan& plan, const Lanes& f, HelperSet& h) {
  const ReduceSpec& rs = plan.reduce;
  const ReduceEmitter e{plan, rs, reduce_info(rs.op), h, false, true, cl_type(rs.acc), arg_better(rs, h)};
  const std::string A = e.A, AW = cl_type(rs.acc, f.W), IW = arg_index_type(rs, f.W);
  std::string iota = f.W > 1 ? "(" + IW + ")(" : "0";
  for (int j = 0; f.W > 1 && j < f.W; ++j) iota += (j ? ", " : "") + std::to_string(j) + (j + 1 == f.W ? ")" : "");
  std::string b = prologue(plan, f);
  std::vector<std::string> xs, is;
  for (int k = 0; k < f.K; ++k) {
    xs.push_back("a" + std::to_string(k) + "_"), is.push_back("i" + std::to_string(k) + "_");
    b += "  " + A + " " + xs.back() + " = 0;\n  long " + is.back() + " = -1;\n";
  }
  const auto take = [&](const std::string& x, const std::string& ix, const std::string& y, const std::string& iy) {
    return "if (" + e.better + "(" + x + ", " + ix + ", " + y + ", " + iy + ")) { " + x + " = " + y + "; " + ix + " = " + iy + "; }";
  };
  for (int k = 0; k < f.K; ++k) {
    const auto fold = [&](int kk, int j, const std::string& v) {
      const std::string at = "(" + IW + ")(r) + " + iota;
      std::string s;
      if (j == 0) {
        s = "      w_ = " + v + ";\n      iw_ = " + (f.partial(j) ? "ok_ ? " + at + " : (" + IW + ")(-1)" : at) + ";\n";
      } else {
        const std::string step = "{ const " + IW + " t_ = " + arg_takes(e, v, "w_") + "; w_ = select(w_, " + v + ", t_); iw_ = select(iw_, " +
                                 at + ", t_); }";
        // Past the row's end in this lane: nothing (its earlier vectors were in the row).
        s = "      " + (f.partial(j) ? "if (ok_) " : std::string()) + step + "\n";
      }
      if (j + 1 < f.V) return s;
      // The vector's lanes in halves, then the last two through better().
      std::string a = "w_", ia = "iw_";
      s += arg_halves(e, f.W, "      ", a, ia);
      for (int l = 0; l < std::min(f.W, 2); ++l)
        s += "      " + take(xs[std::size_t(kk)], is[std::size_t(kk)], f.W > 1 ? a + lane(l) : a, "(long)" + (f.W > 1 ? ia + lane(l) : ia)) + "\n";
      for (int w = f.W / 2; w >= 2; w /= 2) s += "      }\n";
      return s;
    };
    b += load_row(plan, f, h, k, "    " + AW + " w_;\n    " + IW + " iw_;\n", fold);
  }
  // The row's lanes meet down to lane 0.
  if (f.T > 1 && rs.row_warp > 0 && shufflable(rs.acc)) {
    for (int d = f.T / 2; d > 0; d /= 2)
      for (int k = 0; k < f.K; ++k) {
        const std::string ds = std::to_string(d) + "u";
        b += "  { " + shuffle_down(h, rs.acc, "const " + A + " y_ =", xs[std::size_t(k)], ds) + " " +
             shuffle_down(h, DType::Int64, "const long iy_ =", is[std::size_t(k)], ds) + " " + take(xs[std::size_t(k)], is[std::size_t(k)], "y_", "iy_") +
             " }\n";
      }
  } else if (f.T > 1) {
    const std::string L = std::to_string(rs.local_size), n = std::to_string(f.K * rs.local_size);
    b += "  __local " + A + " shl_[" + n + "];\n  __local long shli_[" + n + "];\n";
    for (int k = 0; k < f.K; ++k)
      b += "  shl_[" + std::to_string(k) + " * " + L + " + lid_] = " + xs[std::size_t(k)] + "; shli_[" + std::to_string(k) + " * " + L + " + lid_] = " +
           is[std::size_t(k)] + ";\n";
    b += "  barrier(CLK_LOCAL_MEM_FENCE);\n  for (int d_ = " + std::to_string(f.T / 2) + "; d_ > 0; d_ >>= 1) {\n    if (lane_ < d_) {\n";
    for (int k = 0; k < f.K; ++k) {
      const std::string at = std::to_string(k) + " * " + L + " + lid_";
      b += "      { " + A + " x_ = shl_[" + at + "]; long ix_ = shli_[" + at + "]; " + take("x_", "ix_", "shl_[" + at + " + d_]", "shli_[" + at + " + d_]") +
           " shl_[" + at + "] = x_; shli_[" + at + "] = ix_; }\n";
    }
    b += "    }\n    barrier(CLK_LOCAL_MEM_FENCE);\n  }\n";
    for (int k = 0; k < f.K; ++k) b += "  " + is[std::size_t(k)] + " = shli_[" + std::to_string(k) + " * " + L + " + lid_];\n";
  }
  for (int k = 0; k < f.K; ++k) b += "  if (lane_ == 0 && " + row_at(k, f) + " < n) out0[" + row_at(k, f) + "] = " + is[std::size_t(k)] + ";\n";
  return b;
}

}  // namespace

std::string render_lane_rows(const KernelPlan& plan, const std::string& name) {
  HelperSet helpers;
  const Lanes f = lanes_of(plan);
  const std::string sig = param_list(plan);
  const bool arg = reduce_info(plan.reduce.op).finish == Finish::Index;
  const std::string body = chan_moment(plan.reduce) ? chan_body(plan, f, helpers)
                           : plan.reduce.moment   ? moment_body(plan, f, helpers)
                           : arg                  ? arg_body(plan, f, helpers)
                                                  : plain_body(plan, f, helpers);
  return reduce_kernel_text(plan, name, sig, helpers, body, plan.reduce.local_size);
}

}  // namespace fusecl::codegen
