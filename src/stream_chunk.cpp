// One chunk of a streamed evaluation: the plan and the chunk's expression (stream_chunk.hpp).
#include "src/stream_chunk.hpp"

#include "fusecl/error.hpp"
#include "runtime/byte_size.hpp"

#include <string>

namespace fusecl::detail::stream {

std::size_t elem_bytes(const Node& n) { return std::size_t(size_of(n.dtype)); }

std::int64_t row_elems(const Shape& s) {
  std::int64_t r = 1;
  for (int i = 1; i < s.ndim(); ++i) r *= s.dims()[std::size_t(i)];
  return r;
}

Shape with_rows(const Shape& s, std::int64_t rows) {
  if (s.ndim() == 0) return s;
  std::vector<std::int64_t> d(s.dims().begin(), s.dims().end());
  d[0] = rows;
  return Shape(std::move(d));
}

bool reduces_axis0(const Node& r) {
  const auto& axes = r.reduce().axes;
  return !axes.empty() && axes.front() == 0;
}

bool row_structured(const Node& n) {
  if (op_class(n.op) == OpClass::Reduce) return !reduces_axis0(n);
  if (n.op == Op::Contiguous) return true;
  if (n.op == Op::Concat) return n.concat_axis() != 0;
  return false;
}

bool row_for_row(const Node& v, const Node& s, std::int64_t n) {
  if (s.shape.ndim() == 0 || s.shape.dims()[0] != n || v.shape.ndim() == 0) return false;
  const ViewData& vd = v.view();
  const std::int64_t row = row_elems(s.shape);
  if (vd.strides[0] != row) return false;
  std::int64_t lo = vd.offset, hi = vd.offset;
  for (int d = 1; d < v.shape.ndim(); ++d) {
    const std::int64_t span = vd.strides[std::size_t(d)] * (v.shape.dims()[std::size_t(d)] - 1);
    (span < 0 ? lo : hi) += span;
  }
  return lo >= 0 && hi < row;
}


void plan_node(Plan& p, const NodePtr& n) {
  if (!n->host || !p.seen.insert(n.get()).second) return;
  if (n->op == Op::HostView) {
    p.row_bytes += std::uint64_t(row_elems(n->shape)) * elem_bytes(*n);
  } else if (n->op == Op::View) {
    const NodePtr& s = n->inputs[0];
    if (s->op == Op::HostView) {
      p.row_bytes += std::uint64_t(row_elems(n->shape)) * elem_bytes(*n);
    } else if (s->host) {
      if (row_structured(*s) && row_for_row(*n, *s, p.n)) plan_node(p, s);
      else p.first.push_back(s);
    }
  } else if (is_elementwise(n->op)) {
    for (const auto& in : n->inputs) {
      if (in->shape.ndim() != 0 || p.flat) plan_node(p, in);
      else if (in->host) p.first.push_back(in);  // a 0-d value every chunk reads: made once
    }
  } else if (row_structured(*n)) {
    p.row_bytes += std::uint64_t(row_elems(n->shape)) * elem_bytes(*n);
    for (const auto& in : n->inputs) plan_node(p, in);
  } else {
    p.first.push_back(n);  // a reduction across the rows, a concatenation along them
  }
}

NodePtr Chunker::host_rows(const Node& hv, std::int64_t first, std::int64_t count, std::int64_t* pad) {
  const std::size_t es = elem_bytes(hv);
  const auto* src = static_cast<const unsigned char*>(hv.host_data()) + std::size_t(first) * es;
  const std::size_t bytes = std::size_t(count) * es;
  std::size_t pad_bytes = 0;
  std::shared_ptr<rt::DeviceBuffer> buf;
  if (overlap) buf = rt::stream_upload(runtime(), src, bytes);
  else buf = rt::wrap_host(runtime(), src, bytes, &pad_bytes);
  if (!buf) {
    buf = rt::upload(runtime(), src, bytes);
    pad_bytes = 0;
  }
  *pad = std::int64_t(pad_bytes / es);
  return make_buffer(std::move(buf), hv.dtype, Shape{count + *pad}, devp);
}

NodePtr Chunker::view_of(const NodePtr& target, Shape shape, std::vector<std::int64_t> strides, std::int64_t offset) {
  if (target->op == Op::Buffer && offset == 0 && shape == target->shape && strides == contiguous_strides(shape))
    return target;
  auto v = new_node();
  v->op = Op::View;
  v->device = target->device ? target->device : devp;
  v->dtype = target->dtype;
  v->shape = std::move(shape);
  v->data = ViewData{std::move(strides), offset};
  v->depth = target->depth + 1;
  v->inputs = {target};
  return v;
}

NodePtr Chunker::clone(const NodePtr& n, NodeInputs inputs, Shape shape) {
  auto c = new_node();
  c->op = n->op;
  c->dtype = n->dtype;
  c->shape = std::move(shape);
  c->device = n->device;
  c->crosses = n->crosses;
  c->data = n->data;
  c->weight = n->weight;
  c->depth = n->depth;
  c->inputs = std::move(inputs);
  return c;
}

NodePtr Chunker::slice(const NodePtr& n) {
  return view_of(n, with_rows(n->shape, rows), contiguous_strides(n->shape), r0 * row_elems(n->shape));
}

NodePtr Chunker::host_view_rows(const NodePtr& v) {
  const Node& hv = *v->inputs[0];
  const ViewData& vd = v->view();
  const int nd = v->shape.ndim();
  const std::int64_t base = vd.offset + (nd ? r0 * vd.strides[0] : 0);
  std::int64_t lo = base, hi = base;
  for (int d = 0; d < nd; ++d) {
    const std::int64_t len = d == 0 ? rows : v->shape.dims()[std::size_t(d)];
    const std::int64_t span = vd.strides[std::size_t(d)] * (len - 1);
    (span < 0 ? lo : hi) += span;
  }
  const bool same_every_chunk = nd == 0 || vd.strides[0] == 0;
  const std::uint64_t es = elem_bytes(hv);
  const std::uint64_t range = std::uint64_t(hi - lo + 1) * es;
  const std::uint64_t used = std::uint64_t(rows * row_elems(v->shape)) * es;
  const std::uint64_t whole = std::uint64_t(hv.shape.size()) * es;
  // Rows spread across the host view (a transpose, a slice with a step):
  // each chunk would upload much more than it reads, so the whole of it
  // goes up once, where it fits; a range no device memory can hold is an error.
  if (!same_every_chunk && range > 2 * used + 4096 && whole <= free_bytes / 2) {
    lo = 0;
    hi = hv.shape.size() - 1;
  } else if (!same_every_chunk && range > free_bytes / 4) {
    throw Error("host_view: cannot stream a view of host data of shape " + hv.shape.str() + " as " + v->shape.str() +
                ": a chunk of " + std::to_string(rows) + " rows reads " + rt::human_bytes(range) +
                " spread across the host array (a transpose or permutation across the outermost axis), and neither "
                "that nor the whole " + rt::human_bytes(whole) + " fits the device memory free under the limit (" +
                rt::human_bytes(free_bytes) + "); make it contiguous in host memory first, or evaluate it in pieces");
  }
  const auto key = std::make_tuple(&hv, lo, hi);
  std::pair<NodePtr, std::int64_t> buf;
  if (auto it = fixed.find(key); it != fixed.end()) {
    buf = it->second;
  } else {
    buf.first = host_rows(hv, lo, hi - lo + 1, &buf.second);
    if (same_every_chunk || (lo == 0 && hi == hv.shape.size() - 1)) fixed.emplace(key, buf);
  }
  return view_of(buf.first, with_rows(v->shape, rows), vd.strides, base - lo + buf.second);
}

NodePtr Chunker::cut(const NodePtr& n, bool flat) {
  if (auto it = memo.find(n.get()); it != memo.end()) return it->second;
  NodePtr c;
  if (n->op == Op::HostView) {
    std::int64_t pad = 0;
    NodePtr buf = host_rows(*n, r0 * row_elems(n->shape), rows * row_elems(n->shape), &pad);
    const Shape shape = with_rows(n->shape, rows);
    c = pad == 0 ? make_buffer(buf->buffer(), n->dtype, shape, devp) : view_of(buf, shape, contiguous_strides(shape), pad);
  } else if (n->op == Op::View) {
    const NodePtr& s = n->inputs[0];
    const ViewData& vd = n->view();
    if (s->op == Op::HostView) c = host_view_rows(n);
    else if (s->host && row_structured(*s) && s->shape.ndim() > 0 && row_for_row(*n, *s, s->shape.dims()[0]))
      c = view_of(cut(s), with_rows(n->shape, rows), vd.strides, vd.offset);
    else
      c = view_of(s, with_rows(n->shape, rows), vd.strides, vd.offset + (n->shape.ndim() ? r0 * vd.strides[0] : 0));
  } else if (is_elementwise(n->op)) {
    NodeInputs ins;
    ins.reserve(n->inputs.size());
    for (const auto& in : n->inputs) ins.push_back(in->shape.ndim() != 0 || (flat && in->host) ? cut(in, flat) : in);
    c = clone(n, std::move(ins), with_rows(n->shape, rows));
  } else if (n->host && row_structured(*n)) {
    NodeInputs ins;
    for (const auto& in : n->inputs) ins.push_back(cut(in, flat));
    c = clone(n, std::move(ins), with_rows(n->shape, rows));
  } else if (n->shape.ndim() == 0) {
    c = n;  // a 0-d value every chunk reads as it is
  } else {
    c = slice(n);
  }
  memo.emplace(n.get(), c);
  return c;
}

void Chunker::start(std::int64_t first_row, std::int64_t count) {
  r0 = first_row;
  rows = count;
  memo.clear();
}

}  // namespace fusecl::detail::stream
