// Pieces shared by the elementwise and reduction renderers: the kernel body
// (one `const T vK = ...;` line per instruction) and index arithmetic.
#pragma once

#include "codegen/kernel_plan.hpp"
#include "codegen/spelling.hpp"

#include <string>
#include <vector>

namespace fusecl::codegen {

/// Declares c0..c{ndim-1}, the coordinates of flat position `pos` in the index
/// space d0..d{ndim-1}; empty when no load is strided.
std::string emit_coordinates(const KernelPlan& plan, const std::string& pos, const std::string& indent);
/// Declares c<first>..c<last-1>, the coordinates of `pos` in the index space
/// d<first>..d<last-1> alone. A reduction's kept coordinates (the first
/// reduce.kept_dims) come from its output o, once, and only the reduced ones
/// from its position r in the range, at every element: a column sum then
/// divides nothing per element (on PoCL, a 64-bit division per element took
/// most of a sum over axis 0).
std::string emit_coordinates(const KernelPlan& plan, const std::string& pos, const std::string& indent, int first, int last);
/// A reduction's coordinates at position r of output o's range: those of o
/// (emitted once, before the loop, by emit_coordinates(plan, "o", ind, 0,
/// kept_dims)) are taken as declared; these are the reduced ones.
std::string emit_reduced_coordinates(const KernelPlan& plan, const std::string& r, const std::string& indent);

/// Every instruction of the plan as a declaration of v<k>, at flat position
/// `pos` (the first of `width` consecutive positions when width > 1; vector
/// bodies are only rendered for plans without strided loads or generators).
/// With `only`, just the instructions k with only[k] != 0 (a row kernel's
/// phase computes the part of the body one reduction or the output needs).
/// With `reciprocals`, the divisions it marks (reciprocal.hpp) divide
/// through their divisor's reciprocal, folding their range tests into the
/// uint variable it names.
struct Reciprocals {
  const std::vector<char>* marked = nullptr;
  std::string range;
  std::string lanes;  // a mask of the lanes whose quotients count in the range (empty: all)
};
std::string emit_body(const KernelPlan& plan, int width, const std::string& pos, const std::string& indent,
                      HelperSet& helpers, const std::vector<char>* only = nullptr, const Reciprocals* reciprocals = nullptr);

/// Scalar argument `slot` as a value of type T: the same in every lane of a
/// vector of `width`.
std::string scalar_value(int slot, const std::string& T, int width);
/// Elementwise entry k of `instrs` (a body, or a reduction's finish) on its
/// operands, entry i named prefix + i + suffix: the one spelling that
/// emit_body and finish_value share.
std::string spell_entry(const std::vector<Instr>& instrs, std::size_t k, const std::string& prefix, const std::string& suffix,
                        int width, HelperSet& helpers);

/// Stores every output of the element at flat position `pos`, one line each
/// (at the element's own coordinates c0.. where the outputs are strided views:
/// emit_coordinates must have declared them).
std::string emit_stores(const KernelPlan& plan, const std::string& pos, const std::string& indent);
/// Stores every output as `width`-wide vectors at `pos`, a multiple of width:
/// through vector pointers where `aligned` (outputs are whole buffers, and
/// every vector starts at a multiple of its size), else with vstore.
std::string emit_vector_stores(const KernelPlan& plan, int width, const std::string& pos, bool aligned,
                               const std::string& indent);

/// A row kernel's lanes in its last vector, part full (ReduceSpec::row_lanes:
/// lane j is its own row, at offset ls_<j> from the vector's first, and lanes
/// from nv_ on are past the last row; whole vectors are loaded and stored
/// whole, render_row_lanes.cpp): `width` values of `type` gathered from
/// buf[pos + ls_<j>]; the lanes of v stored there, lane 0's always (every
/// vector has it), the others while they are rows; and every output so.
std::string emit_lane_load(const std::string& type, const std::string& buf, const std::string& pos, int width);
std::string emit_lane_store(const std::string& v, const std::string& buf, const std::string& pos, int width, const std::string& indent);
std::string emit_lane_stores(const KernelPlan& plan, int width, const std::string& pos, const std::string& indent);
/// W rows of M neighbouring elements at `src` (W * M elements, loaded as M
/// vectors of W) turned in registers into M vectors of lanes, one line
/// each: dst[r]'s lane j is row j's element r (render_row_lanes.cpp). The
/// row kernels' lanes form and the reductions over rows in lanes load so.
std::string rows_into_lanes(const std::string& type, int W, int M, const std::string& src, const std::string& dst, const std::string& ind);
/// A lone reduction's W neighbouring rows of M elements from row o0_, a lane
/// each (ReduceSpec::row_lanes with ThreadPerOutput; render_reduce.cpp's
/// lanes_rows, render_moment.cpp's lanes_sums): `load` loads every
/// contiguous load of the body there and turns it into lanes (rc<k>[M]),
/// `take` names step r's values (v<k> = rc<k>[r]), and `rest` marks the
/// body's other instructions (uniform loads, scalars, arithmetic), which
/// emit_body computes at each step.
struct RowLanes {
  std::string load, take;
  std::vector<char> rest;
};
RowLanes reduction_rows_in_lanes(const KernelPlan& plan, const std::string& ind);

std::string param_declaration(const KernelPlan& plan, const Param& p);
/// Every parameter of the plan's kernel, declared, one a line: the signature's text.
std::string param_list(const KernelPlan& plan);
/// ".s<j>": lane j of a vector.
std::string lane(int j);
/// Each lane's index, 0 to w - 1, compared (`op`) with the int expression
/// `bound`, as a select() mask for values of t's size: whether lane j
/// satisfies j op bound.
std::string lane_test(DType t, int w, const std::string& op, const std::string& bound);
/// b where cond, else a: select() on vectors; on scalars the conditional
/// operator (a scalar comparison is an int, which a double's select() takes
/// ambiguously).
std::string pick(const std::string& a, const std::string& b, const std::string& cond, int w);
/// A float max or min over many elements, stepped with fmax / fmin (one
/// instruction on a GPU), which skip NaN, with NaN noted apart in an int
/// flag (isnan's result type at width w) that marks the accumulator NaN
/// once the loop is done: the NaN-propagating helper tests both operands at
/// every element (softmax over rows of 1024 floats at 2^26 on an H200: 133
/// us against 147; bench/RESULTS.md, twenty-fifth session). The flag starts
/// from the accumulator, which a loop may take over NaN already.
/// Whether a reduction combining with `combine` over dtype t notes NaN so: a float max or min.
bool nan_noted(Op combine, DType t);
std::string nan_note_declare(DType t, const std::string& flag, const std::string& acc, int w, const std::string& indent);
std::string nan_note_step(Op combine, const std::string& acc, const std::string& flag, const std::string& v);
std::string nan_note_apply(DType t, const std::string& acc, const std::string& flag, int w, const std::string& indent);
std::string program_prelude(const KernelPlan& plan);
std::string render_reduce(const KernelPlan& plan, const std::string& name);
/// Whether a GroupPerOutput work-item takes the elements past its range's
/// last whole vector as one vector ending the range (overlap_block): vectors
/// whose loads may start anywhere (not aligned), over contiguous rows.
bool overlap_tail(const KernelPlan& plan);
/// Where overlap_tail, the block that takes them (render_reduce_vectors.cpp):
/// where the range [r_begin, r_end) of nvec whole vectors has elements past
/// them, the row's work-item 0 evaluates the body at the vector ending the
/// range, overlapping the last whole one, declares k_, the mask (integers of
/// t's size) of its lanes that hold those elements, then runs `step`; empty
/// elsewhere.
std::string overlap_block(const KernelPlan& plan, DType t, HelperSet& helpers, const std::string& step);
/// A reduction kernel's whole text: the prelude, `helpers` (after `body` was
/// rendered, so that it holds what the body uses), and the kernel, with
/// reqd_work_group_size(x, y, 1) where x > 0.
std::string reduce_kernel_text(const KernelPlan& plan, const std::string& name, const std::string& sig, const HelperSet& helpers,
                               const std::string& body, int x = 0, int y = 1);
/// A GroupPerOutput kernel's output o and its group's range [r_begin,
/// r_end): a part of `groups` where split, each (but the last) a multiple of
/// the width long (render_reduce.cpp).
std::string group_prologue(const KernelPlan& plan);
/// A GroupPerOutput kernel's work-items a row: its group's, but where the
/// group takes ReduceSpec::rows_per_group short rows, local_size / that.
int group_row_items(const ReduceSpec& rs);
/// The line declaring lid, the work-item's place in its row (and with
/// several rows a group, row_, the row's place in the group).
std::string group_lid(const ReduceSpec& rs);
/// A __local array `name` of the row's (lid-indexed) values: the group's
/// array, or with several rows a group a pointer to this row's part of it.
std::string group_local(const ReduceSpec& rs, const std::string& type, const std::string& name);
/// The condition under which a work-item stores its row's result: lid 0,
/// and with several rows a group a row before the last output.
std::string group_store_test(const ReduceSpec& rs);
/// A ColumnBlock kernel's first lines (render_reduce.cpp): its work-item
/// (lx, ly), block blk, part of the rows [r_begin, r_end) and first output o.
std::string column_block_prologue(const KernelPlan& plan);
/// A reduction over short rows in lanes (ReduceSpec::lanes_per_row), plain or a moment (render_lane_rows.cpp).
std::string render_lane_rows(const KernelPlan& plan, const std::string& name);
/// A reduction's result from its accumulator `acc`: divided by the mean's
/// divisor, then its square root for std (render_reduce.cpp).
std::string reduce_finish(const ReduceSpec& rs, const std::string& acc);
/// What a reduction plan stores from its accumulator `acc` (of `width`
/// lanes): `statements` (indented by `ind`; empty without a finish) to write
/// before the store, and `value`, the expression to store: reduce_finish's,
/// then the plan's finish computed from it (render_finish.cpp).
struct FinishValue {
  std::string statements, value;
};
FinishValue finish_value(const KernelPlan& plan, const std::string& acc, int width, const std::string& ind, HelperSet& helpers);
/// The stores of a reduction's values (softmax's pair's max and sum, a
/// moment kernel's variance and mean: reduce_values of them, as stored) at
/// `at`, a line each indented by `ind`: out<k>[at] = values[k], or with
/// `width` > 1 as vectors there; with a finish, its statements and the one
/// store of its value in out0.
std::string store_values(const KernelPlan& plan, const std::vector<std::string>& values, int width, const std::string& at,
                         const std::string& ind, HelperSet& helpers);
/// A moment kernel's stores of output o, indented by `ind`: out0 from M2 `q`
/// over the divisor (times `scale` where given), its square root for std,
/// and with moment 2 out1 from the float64 sum `s`, through store_values (render_moment.cpp).
std::string moment_store(const KernelPlan& plan, const std::string& ind, const std::string& q, const std::string& s, const std::string& scale,
                         HelperSet& helpers);
/// A moment kernel's group sums in local memory: counts shn, means shm,
/// M2s shq, sums shs (render_moment.cpp).
std::string moment_locals(const ReduceSpec& rs);
/// A split moment kernel's partials in scratch, one array each of `n *
/// groups`: counts pn, means pm, M2s pq, sums ps, and a chan_moment's x0 px
/// (moment_partial_bytes in all).
std::string moment_partial_pointers(const ReduceSpec& rs);
/// A reduction plan with reduce.moment (render_moment.cpp).
std::string render_moment(const KernelPlan& plan, const std::string& name);
/// The end of a split moment kernel's group (render_moment.cpp): lid 0 stores
/// its partial at `at` (`partial`: statements), and where the last group
/// finishes (SplitFinish::LastGroup) that group meets the partials
/// (`combine`) and lid 0 stores the results (`store`).
std::string moment_split_end(const ReduceSpec& rs, const std::string& partial, const std::string& combine, const std::string& store);
/// A moment kernel of a float64 body: blocks met in Chan's update (render_moment_chan.cpp).
std::string render_moment_chan(const KernelPlan& plan, const std::string& name);
/// A float64 body's moment stores of output o, indented by `ind`: out0 from
/// M2 `q` over the divisor (inf where `q` is NaN but the plain sum `s` is
/// finite: squares past DBL_MAX), its square root for std, and with moment
/// 2 out1 from `s` (render_moment_chan.cpp; render_lane_rows.cpp's lanes).
std::string chan_moment_store(const KernelPlan& plan, const std::string& ind, const std::string& q, const std::string& s, HelperSet& helpers);
std::string render_row(const KernelPlan& plan, const std::string& name);
/// The local memory a row kernel declares: its combine's, a value (in the
/// column form a vector) per work-item and reduction where a row has several
/// work-items, and with ReduceSpec::row_staged its staging arrays'.
std::size_t row_local_bytes(const KernelPlan& plan);
/// Bytes per element of the loads a row plan's register form holds (those
/// varying along the row that some phase reads).
std::size_t row_held_load_bytes(const KernelPlan& plan);
/// Bytes per element of the values other than loads that a row plan's
/// register form keeps between its phases (row::kept: softmax's exp(x - max)),
/// as the plan stands (none with ReduceSpec::row_recompute).
std::size_t row_kept_bytes(const KernelPlan& plan);
/// Whether a row plan has softmax's pair of reductions, max(g) and then
/// sum(exp(g - max(g))) over the same float g, which ReduceSpec::row_online
/// computes in one pass.
bool online_softmax(const KernelPlan& plan);
/// Whether a row plan's reductions can be split over segments of its rows
/// (ReduceSpec::row_split): each one's partials merge, as no reduction reads
/// another but the second of a pair codegen::row::split_pairs finds.
bool row_splittable(const KernelPlan& plan);

/// A reduction's start value in its accumulator dtype t (render_reduce.cpp).
std::string reduce_identity(Identity id, DType t);
/// `{ y_ = x - comp; t_ = acc + y_; comp = (t_ - acc) - y_; acc = t_; }`: x
/// added into acc compensated, in vectors of `type` or scalars; comp is 0
/// once t_ is not finite (render_reduce.cpp).
std::string kahan_step(const std::string& acc, const std::string& comp, const std::string& x, const std::string& type);

/// An elementwise plan with tiles (plan.tile != 0): render_tiled.cpp.
std::string render_tiled(const KernelPlan& plan, const std::string& name);
/// The same with plan.tile_registers (a CPU's blocks in registers): render_tiled_registers.cpp.
/// Both tiled forms (render_tiled.cpp): the batch coordinates c<d> (every
/// index dimension but X = ndim-1 and Y = tile_axis) declared from what is
/// left of the flat group index g_ once the tiles are taken out of it; and
/// the flat position of coordinates c0..c<ndim-1> (the output's, contiguous).
std::string tile_batch_coordinates(const KernelPlan& plan);
std::string tile_position(const KernelPlan& plan);
std::string render_tiled_registers(const KernelPlan& plan, const std::string& name);

}  // namespace fusecl::codegen
