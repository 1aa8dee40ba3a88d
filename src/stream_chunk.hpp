// One chunk of a streamed evaluation (stream.hpp): which parts of an
// expression follow the chunks of rows (the plan), and the chunk's copy of
// the expression, whose host views are device buffers of the chunk's rows
// and whose device arrays are read through views of the same rows.
#pragma once

#include "src/device_state.hpp"
#include "src/node.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace fusecl::detail::stream {

std::size_t elem_bytes(const Node& n);
/// Elements of one row: everything but the outermost axis (1 for a 0-d shape).
std::int64_t row_elems(const Shape& s);
/// `s` with `rows` as its outermost extent (a 0-d shape as it is).
Shape with_rows(const Shape& s, std::int64_t rows);
/// Whether reduction r reduces its input's outermost axis.
bool reduces_axis0(const Node& r);
/// Nodes whose outermost axis is their input's (or inputs'), row for row: a
/// chunk of their rows is computed from the same chunk of their inputs' rows.
bool row_structured(const Node& n);
/// Whether view v reads, for each of its rows i, only row i of `s` (whose
/// outermost extent is n): then v's chunk is a view of s's chunk.
bool row_for_row(const Node& v, const Node& s, std::int64_t n);

/// What must be whole before the chunks, and the bytes per row.
struct Plan {
  std::int64_t n = 0;                // rows of the streamed axis
  bool flat = false;                 // a 0-d root: its 0-d inputs are streamed with it
  std::vector<NodePtr> first;        // evaluated whole before the chunks
  std::uint64_t row_bytes = 0;       // host data read and results made, per row
  std::unordered_set<const Node*> seen;
};
/// Adds node n (whose outermost axis is the streamed one) and what it reads to the plan.
void plan_node(Plan& p, const NodePtr& n);

/// Makes the expression of one chunk, rows [r0, r0 + rows), chunk after chunk.
struct Chunker {
  Chunker(DeviceState& d, std::shared_ptr<DeviceState> p, std::uint64_t free) : dev(d), devp(std::move(p)), free_bytes(free) {}

  DeviceState& dev;
  std::shared_ptr<DeviceState> devp;
  bool overlap = false;  // uploads on the stream queue (rt::streams_overlap)
  std::uint64_t free_bytes = 0;  // device memory free under the limit when streaming began
  std::int64_t r0 = 0, rows = 0;
  std::unordered_map<const Node*, NodePtr> memo;  // this chunk's nodes
  // Host memory every chunk reads alike (a broadcast host view, one read
  // across the rows): uploaded once, by (host view, first, last element).
  std::map<std::tuple<const Node*, std::int64_t, std::int64_t>, std::pair<NodePtr, std::int64_t>> fixed;  // with its pad

  rt::Runtime& runtime() { return dev.runtime(); }

  // A device buffer holding host elements [first, first + count) of `hv`,
  // from its element `*pad` on (read in place, it starts at an aligned address
  // a few elements before them).
  NodePtr host_rows(const Node& hv, std::int64_t first, std::int64_t count, std::int64_t* pad);

  NodePtr view_of(const NodePtr& target, Shape shape, std::vector<std::int64_t> strides, std::int64_t offset);

  NodePtr clone(const NodePtr& n, NodeInputs inputs, Shape shape);

  // This chunk's rows of a node whose value is device data (or is made so
  // whole before the chunks): a view of them.
  NodePtr slice(const NodePtr& n);

  // A view of a host view: the host elements this chunk's rows reach are uploaded.
  NodePtr host_view_rows(const NodePtr& v);

  // The chunk of a node whose outermost axis is the streamed one.
  NodePtr cut(const NodePtr& n, bool flat = false);

  void start(std::int64_t first_row, std::int64_t count);
};

}  // namespace fusecl::detail::stream
