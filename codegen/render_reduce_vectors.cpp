// A reduction work-item's elements in vectors (render_reduce.cpp's kernels
// call these): a GroupPerOutput work-item's range (plain, in compensated
// chains, an arg-reduction's lanes with their indices, the vector met in
// halves, the overlapping last vector), and ThreadPerOutput's rows a lane
// each.
#include "codegen/reduce_emitter.hpp"

namespace fusecl::codegen {

bool overlap_tail(const KernelPlan& plan) { return plan.width > 1 && !plan.aligned && plan.ndim == 0; }

// The elements past a work-item's last whole vector as the vector ending
// its range (body.hpp says what the block declares and runs). Where the
// range has no whole vector, or the loads are aligned (then a
// vector may not start just anywhere: a whole array's last part), the
// scalar loop takes the elements past the last whole vector (tail_start).
// The scalar loop's dependent steps cost more than the vectors: on PoCL,
// 2^22 floats, sum / max over rows of 40 1541 / 1025 us against 625 / 500
// over rows of 48 (fifty-third session).
std::string overlap_block(const KernelPlan& plan, DType t, HelperSet& helpers, const std::string& step) {
  if (!overlap_tail(plan)) return "";
  const int W = plan.width;
  const std::string Ws = std::to_string(W);
  std::string b = "    if (nvec > 0 && lid == 0 && r_end - r_begin > nvec * " + Ws + ") {\n";
  b += "      const long p = o * m + r_end - " + Ws + ";\n" + emit_reduced_coordinates(plan, "r_end - " + Ws, "      ") +
       emit_body(plan, W, "p", "      ", helpers);
  b += "      const " + cl_type(detail::signed_of_size(size_of(t)), W) + " k_ = " +
       lane_test(t, W, ">=", "(" + Ws + " - (r_end - r_begin - nvec * " + Ws + "))") + ";\n";
  return b + step + "    }\n";
}

// An arg-reduction's lane-wise step in vectors whose lanes each see their
// elements in order: the mask (integers of the value's size) of the lanes
// where value v replaces `acc`: strictly better, or NaN where acc is not (the
// better() helper's outcome for a later index: the first of equal values,
// the first NaN, stay).
// (NaN tests as x != x: PoCL's isnan on vectors cost argmax over rows of
// 40 floats 2.36 ms against 2.17.)
std::string arg_takes(const ReduceEmitter& e, const std::string& v, const std::string& acc) {
  std::string t = "(" + v + (e.info.combine == Op::Maximum ? " > " : " < ") + acc + ")";
  return is_float(e.rs.acc) ? "(" + t + " | ((" + v + " != " + v + ") & (" + acc + " == " + acc + ")))" : t;
}

// better()'s order lane by lane: a lane with no element (index < 0) loses,
// NaN wins, the lower index settles ties (and orders two NaN).
std::string arg_better_mask(const ReduceEmitter& e, const std::string& x, const std::string& ix, const std::string& y,
                            const std::string& iy) {
  const std::string cmp = e.info.combine == Op::Maximum ? " > " : " < ", lower = "(" + iy + " < " + ix + ")";
  std::string better = "(" + y + cmp + x + ") | ((" + y + " == " + x + ") & " + lower + ")";
  if (is_float(e.rs.acc))
    better = "select((" + y + " != " + y + ") | " + better + ", (" + y + " != " + y + ") & " + lower + ", (" + x + " != " + x + "))";
  return "(" + iy + " >= 0) & ((" + ix + " < 0) | " + better + ")";
}

std::string arg_index_type(const ReduceSpec& rs, int W) { return cl_type(size_of(rs.acc) == 8 ? DType::Int64 : DType::Int32, W); }

std::string arg_halves(const ReduceEmitter& e, int W, const std::string& ind, std::string& a, std::string& ia) {
  std::string b;
  for (int w = W / 2; w >= 2; w /= 2) {
    const std::string ws = std::to_string(w), T = cl_type(e.rs.acc, w), I = arg_index_type(e.rs, w);
    const std::string x = "a" + ws + "_", y = "b" + ws + "_", ix = "ia" + ws + "_", iy = "ib" + ws + "_", t = "t" + ws + "_";
    b += ind + "{\n" + ind + "  const " + T + " " + x + " = " + a + ".lo, " + y + " = " + a + ".hi;\n";
    b += ind + "  const " + I + " " + ix + " = " + ia + ".lo, " + iy + " = " + ia + ".hi;\n";
    b += ind + "  const " + I + " " + t + " = " + arg_better_mask(e, x, ix, y, iy) + ";\n";
    a = "c" + ws + "_", ia = "ic" + ws + "_";
    b += ind + "  " + T + " " + a + " = select(" + x + ", " + y + ", " + t + ");\n" + ind + "  " + I + " " + ia + " = select(" + ix + ", " + iy + ", " + t + ");\n";
  }
  return b;
}

std::string uniform_blocks(int B, const std::string& L, const std::string& type, const std::string& v, const std::string& identity,
                           const VectorAt& load, const BlockFold& fold) {
  std::vector<std::string> gs;
  for (int k = 0; k < B; ++k) gs.push_back("g" + std::to_string(k) + "_");
  const auto block = [&](bool last) {
    std::string s = "      " + type;
    for (int k = 0; k < B; ++k) s += std::string(k ? "," : "") + " " + gs[std::size_t(k)];
    s += ";\n";
    for (int k = 0; k < B; ++k) {
      const std::string q = "q0_ + lid + " + std::to_string(k) + " * " + L, g = gs[std::size_t(k)];
      s += "      {\n" + load(last ? "min(" + q + ", nvec - 1)" : "(" + q + ")", "        ");
      s += "        " + g + " = " + (last ? q + " < nvec ? " + v + " : " + identity : v) + ";\n      }\n";
    }
    return s + fold(gs, "      ");
  };
  const std::string BL = std::to_string(B) + " * " + L;
  return "    long q0_ = 0;\n    for (; q0_ + " + BL + " <= nvec; q0_ += " + BL + ") {\n" + block(false) + "    }\n" +
         "    if (q0_ < nvec) {\n" + block(true) + "    }\n";
}

namespace {

// The elements of a GroupPerOutput work-item's range past its last whole
// vector as one vector x_: the one that ends the range, overlapping the last
// whole vector, whose lanes before them hold the reduction's identity
// instead, taken by the row's work-item 0 into `step` (overlap_block).
std::string overlap_step(const ReduceEmitter& e, const std::string& step) {
  const std::string AW = cl_type(e.rs.acc, e.plan.width), v = "v" + std::to_string(e.rs.input);
  return overlap_block(e.plan, e.rs.acc, e.helpers,
                       "      const " + AW + " x_ = select((" + AW + ")(" + reduce_identity(e.info.identity, e.rs.acc) + "), " + v + ", k_);\n" + step);
}
// Where the scalar loop over the elements past the last whole vector starts.
std::string tail_start(const ReduceEmitter& e) {
  const std::string whole = "r_begin + nvec * " + std::to_string(e.plan.width);
  return overlap_tail(e.plan) ? "(nvec > 0 ? r_end : " + whole + ")" : whole;
}

// A GroupPerOutput loop in vectors summing into C compensated chains
// (ReduceSpec::chains): each step of C * L vectors gives chain c vector
// q + c * L, each in a block of its own (the body's names repeat), then the
// vectors left take chain 0; the chains meet in vectors, then chain 0's lanes
// are added into acc.
// `tail` is the scalar step of the elements past the last whole vector.
std::string chained_vector_sum(const ReduceEmitter& e, int C, const std::string& v, const std::string& L, const std::string& tail) {
  const KernelPlan& plan = e.plan;
  const int W = plan.width;
  const std::string Ws = std::to_string(W), AW = cl_type(e.rs.acc, W), Cs = std::to_string(C);
  auto chain = [](const std::string& base, int c) { return c == 0 ? base : base + std::to_string(c); };
  auto step = [&](int c, const std::string& ind) {
    const std::string q = c == 0 ? "q" : "(q + " + std::to_string(c) + " * " + L + ")";
    const std::string a = chain("accv", c), k = chain("compv", c), in2 = ind + "  ";
    return ind + "{\n" + in2 + "const long p = o * m + r_begin + " + q + " * " + Ws + ";\n" +
           emit_reduced_coordinates(plan, "r_begin + " + q + " * " + Ws, in2) + emit_body(plan, W, "p", in2, e.helpers) + in2 +
           kahan_step(a, k, v, AW) + "\n" + ind + "}\n";
  };
  std::string b = "  {\n";
  for (int c = 0; c < C; ++c)
    b += "    " + AW + " " + chain("accv", c) + " = (" + AW + ")(0), " + chain("compv", c) + " = (" + AW + ")(0);\n";
  b += "    const long nvec = (r_end - r_begin) / " + Ws + ";\n    long q = lid;\n";
  b += "    for (; q + " + std::to_string(C - 1) + " * " + L + " < nvec; q += " + Cs + " * " + L + ") {\n";
  for (int c = 0; c < C; ++c) b += step(c, "      ");
  b += "    }\n    for (; q < nvec; q += " + L + ")\n" + step(0, "      ");
  b += overlap_step(e, "      " + kahan_step("accv", "compv", "x_", AW) + "\n");
  // The chains into chain 0, in vectors, then its lanes as one chain's.
  b += "    accv = accv - compv";
  for (int c = 1; c < C; ++c) b += " + (" + chain("accv", c) + " - " + chain("compv", c) + ")";
  b += ";\n";
  for (int j = 0; j < W; ++j) b += "    acc += accv" + lane(j) + ";\n";
  return b + "    for (long r = " + tail_start(e) + " + lid; r < r_end; r += " + L + ") {\n" + tail + "    }\n  }\n";
}

// A GroupPerOutput work-item's vector accv (with its NaN flags accv_nan
// where noted apart) into acc: its halves met in vectors down to one value,
// then that value into acc. Only where any order gives the same result:
// integers (exact), and float max / min, whose lanes hold no NaN (fmax
// skips it; the flags say where it was) and whose order decides no more
// than fmax's sign of a zero. A lane at a time through the NaN-propagating
// helper cost a row of 64 floats as much as its loads on PoCL: max over
// rows of 64 at 2^22 822 us against 303 for sum (fifty-third session).
std::string lanes_in_halves(const ReduceEmitter& e) {
  const DType t = e.rs.acc;
  std::string a = "accv", f = "accv_nan", s = "    {\n";
  for (int w = e.plan.width / 2; w >= 1; w /= 2) {
    const std::string ws = std::to_string(w), x = "h" + ws + "_", xf = "hn" + ws + "_";
    if (e.nan_apart) {
      s += "      const " + cl_type(t, w) + " " + x + " = " + (e.info.combine == Op::Maximum ? "fmax(" : "fmin(") + a + ".lo, " + a + ".hi);\n";
      s += "      const " + cl_type(detail::signed_of_size(size_of(t)), w) + " " + xf + " = " + f + ".lo | " + f + ".hi;\n";
    } else {
      s += "      const " + cl_type(t, w) + " " + x + " = " + e.combine(a + ".lo", a + ".hi", w) + ";\n";
    }
    a = x, f = xf;
  }
  const std::string last = e.nan_apart ? "(" + f + " ? (" + e.A + ")(NAN) : " + a + ")" : a;
  return s + "      acc = " + e.combine("acc", last, 1) + ";\n    }\n";
}

// A GroupPerOutput arg-reduction in vectors (a CPU's: scheduler.cpp): each
// lane keeps its best value and its index (IW lanes, ints where the row's
// indices fit), the lanes then met by better() in scalars, which settles
// ties and NaN by index, then the elements past the last whole vector.
std::string arg_vectors(const ReduceEmitter& e, const std::string& L, const std::string& tail) {
  const KernelPlan& plan = e.plan;
  const int W = plan.width;
  const std::string Ws = std::to_string(W), AW = cl_type(e.rs.acc, W), IW = arg_index_type(e.rs, W), v = "v" + std::to_string(e.rs.input);
  std::string iota = "(" + IW + ")(";
  for (int j = 0; j < W; ++j) iota += (j ? ", " : "") + std::to_string(j);
  std::string b = "  {\n    " + AW + " accv = (" + AW + ")(0);\n    " + IW + " idxv = (" + IW + ")(-1);\n";
  b += "    const long nvec = (r_end - r_begin) / " + Ws + ";\n";
  b += "    for (long q = lid; q < nvec; q += " + L + ") {\n";
  b += "      const long p = o * m + r_begin + q * " + Ws + ";\n";
  b += emit_reduced_coordinates(plan, "r_begin + q * " + Ws, "      ") + emit_body(plan, W, "p", "      ", e.helpers);
  // A lane's first element is taken whatever it is (idxv < 0).
  b += "      const " + IW + " t_ = (idxv < 0) | " + arg_takes(e, v, "accv") + ";\n";
  b += "      accv = select(accv, " + v + ", t_);\n      idxv = select(idxv, (" + IW + ")(r_begin + q * " + Ws + ") + " + iota + "), t_);\n    }\n";
  // The overlapping last vector: its lanes before the elements left take nothing.
  std::string last = "      const " + IW + " t_ = ((idxv < 0) | " + arg_takes(e, "x_", "accv") + ") & k_;\n";
  last += "      accv = select(accv, x_, t_);\n      idxv = select(idxv, (" + IW + ")(r_end - " + Ws + ") + " + iota + "), t_);\n";
  b += overlap_step(e, last);
  // The lanes meet in halves, then the last two through better().
  std::string a = "accv", ia = "idxv";
  b += arg_halves(e, W, "    ", a, ia);
  for (int j = 0; j < 2; ++j)
    b += "    if (" + e.better + "(acc, idx, " + a + lane(j) + ", (long)" + ia + lane(j) + ")) { acc = " + a + lane(j) + "; idx = " + ia + lane(j) + "; }\n";
  for (int w = W / 2; w >= 2; w /= 2) b += "    }\n";
  return b + "    for (long r = " + tail_start(e) + " + lid; r < r_end; r += " + L + ") {\n" + tail + "    }\n  }\n";
}

// One vector accumulator (with its compensation, or NaN flags where noted
// apart), the overlapping tail, then its lanes into acc: in halves where
// any order gives the same result (lanes_in_halves), else in order.
std::string vector_loop(const ReduceEmitter& e, const std::string& L, const std::string& tail) {
  const KernelPlan& plan = e.plan;
  const int W = plan.width;
  const std::string Ws = std::to_string(W), AW = cl_type(e.rs.acc, W), v = "v" + std::to_string(e.rs.input);
  std::string b = "  {\n    " + AW + " accv = (" + AW + ")(" + reduce_identity(e.info.identity, e.rs.acc) + ");\n";
  if (e.kahan) b += "    " + AW + " compv = (" + AW + ")(0);\n";
  b += e.nan_declare("accv", W, "    ");
  b += "    const long nvec = (r_end - r_begin) / " + Ws + ";\n";
  const auto step = [&](const std::string& x) { return e.kahan ? kahan_step("accv", "compv", x, AW) : e.vector_step("accv", x, W); };
  // Vector q's position, coordinates and loads (its body's value v).
  const auto vector_at = [&](const std::string& q, const std::string& ind) {
    return ind + "const long p = o * m + r_begin + " + q + " * " + Ws + ";\n" + emit_reduced_coordinates(plan, "r_begin + " + q + " * " + Ws, ind) +
           emit_body(plan, W, "p", ind, e.helpers);
  };
  if (e.rs.blocks > 0) {
    const auto fold = [&](const std::vector<std::string>& gs, const std::string& ind) {
      std::string s;
      for (const auto& g : gs) s += ind + step(g) + "\n";
      return s;
    };
    b += uniform_blocks(e.rs.blocks, L, AW, v, "(" + AW + ")(" + reduce_identity(e.info.identity, e.rs.acc) + ")", vector_at, fold);
  } else {
    b += "    for (long q = lid; q < nvec; q += " + L + ") {\n" + vector_at("q", "      ") + "      " + step(v) + "\n    }\n";
  }
  b += overlap_step(e, "      " + step("x_") + "\n");
  if (!e.kahan && (e.nan_apart || !is_float(e.rs.acc))) {
    b += lanes_in_halves(e);
  } else {
    b += e.nan_apply("accv", W, "    ");
    for (int j = 0; j < W; ++j) {
      if (e.kahan) b += "    acc += accv" + lane(j) + " - compv" + lane(j) + ";\n";
      else b += "    acc = " + e.combine("acc", "accv" + lane(j), 1) + ";\n";
    }
  }
  return b + "    for (long r = " + tail_start(e) + " + lid; r < r_end; r += " + L + ") {\n" + tail + "    }\n  }\n";
}

}  // namespace

std::string group_vectors(const ReduceEmitter& e, const std::string& L, const std::string& tail) {
  // Compensated sums only (ReduceSpec::chains); one chain keeps the text it had.
  const int C = e.kahan && !e.nan_apart ? std::max(1, int(e.rs.chains)) : 1;
  if (C > 1) return chained_vector_sum(e, C, "v" + std::to_string(e.rs.input), L, tail);
  if (e.arg) return arg_vectors(e, L, tail);
  return vector_loop(e, L, tail);
}

// A work-item's W neighbouring rows of M elements, a lane each
// (ReduceSpec::row_lanes with ThreadPerOutput; lane_rows.cpp's
// rows_in_lanes): the W * M elements are loaded as M vectors and turned
// into M vectors of lanes (rows_into_lanes), then each lane folds its row's
// elements in order, as a work-item folds its row in scalars: the same
// operations on the same values, lane by lane, so the same results. The
// outputs are W neighbouring values, stored as one vector. The last
// work-item's rows short of a whole vector take `rows_left`, the scalar
// loop (o from o0_ to n).
std::string lanes_rows(const ReduceEmitter& e, const std::string& rows_left) {
  const KernelPlan& plan = e.plan;
  const ReduceSpec& rs = e.rs;
  const int W = plan.width, M = rs.row_lane_length;
  const std::string Ws = std::to_string(W), Ms = std::to_string(M), AW = cl_type(rs.acc, W), v = "v" + std::to_string(rs.input);
  std::string b = "  const long o0_ = (long)get_global_id(0) * " + Ws + ";\n  if (o0_ >= n) return;\n";
  b += "  if (o0_ + " + Ws + " <= n) {\n";
  const RowLanes l = reduction_rows_in_lanes(plan, "    ");
  b += l.load;
  b += "    " + AW + " acc = (" + AW + ")(" + reduce_identity(e.info.identity, rs.acc) + ");\n";
  if (e.kahan) b += "    " + AW + " comp = (" + AW + ")(0);\n";
  const std::string IW = arg_index_type(rs, W);  // an arg-reduction's index: integers of the value's size (select's masks)
  if (e.arg) b += "    " + IW + " idx = (" + IW + ")(0);\n";
  b += e.nan_declare("acc", W, "    ");
  b += "    #pragma unroll\n    for (int r = 0; r < " + Ms + "; ++r) {\n" + l.take + emit_body(plan, W, "r", "      ", e.helpers, &l.rest);
  if (e.arg) {  // each lane's elements in order (arg_takes)
    b += "      if (r == 0) {\n        acc = " + v + ";\n      } else {\n        const " + IW + " t_ = " + arg_takes(e, v, "acc") + ";\n";
    b += "        acc = select(acc, " + v + ", t_);\n        idx = select(idx, (" + IW + ")(r), t_);\n      }\n    }\n";
    return b + "    vstore" + Ws + "(convert_long" + Ws + "(idx), 0, out0 + o0_);\n  } else {\n" + rows_left + "  }\n";
  }
  b += "      " + (e.kahan ? kahan_step("acc", "comp", v, AW) : e.vector_step("acc", v, W)) + "\n    }\n";
  b += e.nan_apply("acc", W, "    ");
  if (e.kahan) b += "    acc = acc - comp;\n";
  const FinishValue f = finish_value(plan, "acc", W, "    ", e.helpers);
  b += f.statements + "    vstore" + Ws + "(" + f.value + ", 0, out0 + o0_);\n  } else {\n" + rows_left + "  }\n";
  return b;
}

}  // namespace fusecl::codegen
