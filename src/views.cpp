#include "src/views.hpp"

#include "fusecl/error.hpp"
#include "src/device_state.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <unordered_map>

namespace fusecl::detail {

namespace {

Strided base_layout(const Node& x) {
  if (x.op == Op::View) return layout_of_view(x);
  return {x.shape, contiguous_strides(x.shape), 0};
}

bool is_identity(const Strided& s, const Node& target) {
  return s.offset == 0 && s.shape == target.shape && s.strides == contiguous_strides(target.shape);
}

// A view of `target` living on `device` (the viewed node's: a scalar has
// none, and a view of one, such as full(), must still belong to a device).
NodePtr make_view(const NodePtr& target, Strided s, const DevicePtr& device) {
  if (target->op != Op::Scalar && is_identity(s, *target)) return target;
  check_bytes(s.shape, size_of(target->dtype));
  auto n = new_node();
  n->op = Op::View;
  n->device = device;
  n->crosses = target->crosses;
  n->host = target->host;
  n->dtype = target->dtype;
  n->shape = std::move(s.shape);
  n->data = ViewData{std::move(s.strides), s.offset};
  n->depth = bounded_depth({&target, 1});
  n->inputs = {target};
  return n;
}

// f applied to a node that is not elementwise: a view of its storage.
NodePtr view_of_storage(const NodePtr& x, const ViewFn& f) {
  const NodePtr& target = x->op == Op::View ? x->inputs[0] : x;
  auto s = f(base_layout(*x));
  return s ? make_view(target, std::move(*s), x->device) : nullptr;
}

// Pushes f through elementwise nodes down to what they load; null if some
// layout cannot express it. Each elementwise node is copied with its inputs
// replaced by theirs pushed, depth first, on an explicit stack (a deep
// expression needs no deep recursion).
NodePtr push_view(const NodePtr& root, const ViewFn& f, std::unordered_map<const Node*, NodePtr>& memo) {
  if (auto it = memo.find(root.get()); it != memo.end()) return it->second;
  if (!is_elementwise(root->op)) return memo[root.get()] = view_of_storage(root, f);
  struct Frame {
    NodePtr x;     // the original
    NodePtr copy;  // its inputs are replaced one by one
    std::size_t next = 0;
  };
  std::vector<Frame> stack;
  stack.push_back({root, new_node(*root)});
  for (;;) {
    Frame& fr = stack.back();
    NodePtr done;  // the pushed value of fr.x, once known
    bool failed = false;
    if (fr.next < fr.copy->inputs.size()) {
      NodePtr& in = fr.copy->inputs[fr.next];
      if (in->shape.ndim() == 0) {  // 0-d inputs are uniform: nothing to remap
        ++fr.next;
        continue;
      }
      if (auto it = memo.find(in.get()); it != memo.end()) {
        if (!it->second) failed = true;
        else in = it->second, ++fr.next;
      } else if (!is_elementwise(in->op)) {
        NodePtr r = memo[in.get()] = view_of_storage(in, f);
        if (!r) failed = true;
        else in = std::move(r), ++fr.next;
      } else {
        NodePtr x = in;
        stack.push_back({x, new_node(*x)});  // fr is not used after this
        continue;
      }
      if (!failed) continue;
    } else {
      // The view's shape: f applied to our own shape.
      auto own = f(Strided{fr.x->shape, contiguous_strides(fr.x->shape), 0});
      if (!own) {
        failed = true;
      } else {
        fr.copy->shape = own->shape;
        // A pushed view may sit one level deeper than what it replaced; the
        // next node made on top applies the bound.
        std::uint32_t d = 0;
        for (const auto& i : fr.copy->inputs) d = std::max(d, i->depth);
        fr.copy->depth = d + 1;
        done = fr.copy;
      }
    }
    if (failed) {
      // Nothing above can be expressed either.
      for (const auto& g : stack) memo[g.x.get()] = nullptr;
      return nullptr;
    }
    memo[fr.x.get()] = done;
    stack.pop_back();
    if (stack.empty()) return done;
    Frame& parent = stack.back();
    parent.copy->inputs[parent.next++] = std::move(done);
  }
}

}  // namespace

NodePtr broadcast_scalar(const NodePtr& scalar, const Shape& shape, const DevicePtr& device) {
  return make_view(scalar, {shape, std::vector<std::int64_t>(std::size_t(shape.ndim()), 0), 0}, device);
}

Strided layout_of_view(const Node& view) { return {view.shape, view.view().strides, view.view().offset}; }

NodePtr apply_view(const NodePtr& x, const ViewFn& f) {
  std::unordered_map<const Node*, NodePtr> memo;
  if (auto r = push_view(x, f, memo)) return r;
  auto c = new_node();
  c->op = Op::Contiguous;
  c->device = x->device;
  c->crosses = x->crosses;
  c->host = x->host;
  c->dtype = x->dtype;
  c->shape = x->shape;
  c->depth = bounded_depth({&x, 1});
  c->inputs = {x};
  memo.clear();
  auto r = push_view(c, f, memo);
  if (!r) throw Error("internal: view not expressible even on contiguous memory");
  return r;
}

std::optional<Strided> reshape_strided(const Strided& s, const Shape& to) {
  if (s.shape.size() != to.size())
    throw ShapeError("cannot reshape array of size " + std::to_string(s.shape.size()) + " into shape " + to.str());
  Strided out{to, contiguous_strides(to), s.offset};
  if (to.size() == 0) return out;
  // Drop size-1 dimensions of the source; they carry no stride information.
  std::vector<std::int64_t> od, os;
  for (int i = 0; i < s.shape.ndim(); ++i)
    if (s.shape.dims()[std::size_t(i)] != 1) {
      od.push_back(s.shape.dims()[std::size_t(i)]);
      os.push_back(s.strides[std::size_t(i)]);
    }
  const auto& nd = to.dims();
  const std::size_t on = od.size(), nn = nd.size();
  std::vector<std::int64_t> ns(nn, 0);
  std::size_t oi = 0, oj = 1, ni = 0, nj = 1;
  while (ni < nn && oi < on) {
    std::int64_t np = nd[ni], op = od[oi];
    while (np != op) {
      if (np < op) np *= nd[nj++];
      else op *= od[oj++];
    }
    // The source dimensions of this group must be laid out one after another.
    for (std::size_t ok = oi; ok + 1 < oj; ++ok)
      if (os[ok] != od[ok + 1] * os[ok + 1]) return std::nullopt;
    ns[nj - 1] = os[oj - 1];
    for (std::size_t nk = nj - 1; nk > ni; --nk) ns[nk - 1] = ns[nk] * nd[nk];
    ni = nj++;
    oi = oj++;
  }
  // Trailing size-1 dimensions: any stride works.
  for (std::size_t nk = ni; nk < nn; ++nk) ns[nk] = 1;
  out.strides = std::move(ns);
  return out;
}

NodePtr broadcast_to(const NodePtr& x, const Shape& shape) {
  if (x->shape == shape) return x;
  const Shape from = x->shape;
  if (from.ndim() > shape.ndim())
    throw ShapeError("cannot broadcast shape " + from.str() + " to " + shape.str());
  for (int i = 0; i < from.ndim(); ++i) {
    auto d = from.dims()[std::size_t(i)], t = shape.dims()[std::size_t(shape.ndim() - from.ndim() + i)];
    if (d != t && d != 1) throw ShapeError("cannot broadcast shape " + from.str() + " to " + shape.str());
  }
  return apply_view(x, [shape](const Strided& s) -> std::optional<Strided> {
    const int lead = shape.ndim() - s.shape.ndim();
    std::vector<std::int64_t> st(std::size_t(shape.ndim()), 0);
    for (int i = 0; i < s.shape.ndim(); ++i)
      st[std::size_t(lead + i)] = s.shape.dims()[std::size_t(i)] == 1 ? 0 : s.strides[std::size_t(i)];
    return Strided{shape, std::move(st), s.offset};
  });
}

NodePtr reshape(const NodePtr& x, std::vector<std::int64_t> dims) {
  int infer = -1;
  std::int64_t known = 1;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == -1) {
      if (infer >= 0) throw ShapeError("can only specify one unknown dimension in reshape");
      infer = int(i);
    } else if (dims[i] < 0) {
      throw ShapeError("negative dimension " + std::to_string(dims[i]) + " in reshape");
    } else if (dims[i] == 0) {
      known = 0;
    } else if (known != 0 && __builtin_mul_overflow(known, dims[i], &known)) {
      throw ShapeError("array is too big: cannot reshape array of size " + std::to_string(x->shape.size()) +
                       " into a shape whose dimensions multiply past 2^63 - 1");
    }
  }
  if (infer >= 0) {
    if (known == 0 || x->shape.size() % known != 0)
      throw ShapeError("cannot reshape array of size " + std::to_string(x->shape.size()) + " into shape with -1");
    dims[std::size_t(infer)] = x->shape.size() / known;
  }
  Shape to(dims);
  if (to.size() != x->shape.size())
    throw ShapeError("cannot reshape array of size " + std::to_string(x->shape.size()) + " into shape " + to.str());
  if (to == x->shape) return x;
  return apply_view(x, [to](const Strided& s) { return reshape_strided(s, to); });
}

NodePtr permute(const NodePtr& x, std::vector<int> axes) {
  const int n = x->shape.ndim();
  if (int(axes.size()) != n)
    throw ShapeError("axes don't match array: " + std::to_string(axes.size()) + " axes for shape " + x->shape.str());
  std::vector<bool> seen(std::size_t(n), false);
  for (auto& a : axes) {
    a = normalize_axis(a, n);
    if (seen[std::size_t(a)]) throw ShapeError("repeated axis in transpose of shape " + x->shape.str());
    seen[std::size_t(a)] = true;
  }
  return apply_view(x, [axes](const Strided& s) -> std::optional<Strided> {
    std::vector<std::int64_t> d, st;
    for (int a : axes) {
      d.push_back(s.shape.dims()[std::size_t(a)]);
      st.push_back(s.strides[std::size_t(a)]);
    }
    return Strided{Shape(std::move(d)), std::move(st), s.offset};
  });
}

NodePtr transpose(const NodePtr& x) {
  std::vector<int> axes(std::size_t(x->shape.ndim()));
  std::iota(axes.rbegin(), axes.rend(), 0);
  return permute(x, axes);
}

NodePtr slice(const NodePtr& x, const std::vector<SliceSpec>& spec) {
  const int n = x->shape.ndim();
  if (int(spec.size()) > n)
    throw ShapeError("too many indices (" + std::to_string(spec.size()) + ") for array of shape " + x->shape.str());
  struct Resolved { std::int64_t start, len, step; };
  std::vector<Resolved> r;
  for (int i = 0; i < n; ++i) {
    const std::int64_t dim = x->shape.dims()[std::size_t(i)];
    SliceSpec s = i < int(spec.size()) ? spec[std::size_t(i)] : SliceSpec{};
    if (s.step == 0) throw ShapeError("slice step cannot be zero");
    // Python's slice.indices().
    std::int64_t lo = s.step > 0 ? 0 : -1, hi = s.step > 0 ? dim : dim - 1;
    auto clampi = [&](std::optional<std::int64_t> v, std::int64_t dflt) {
      if (!v) return dflt;
      std::int64_t t = *v < 0 ? *v + dim : *v;
      return std::clamp(t, lo, hi);
    };
    const std::int64_t start = clampi(s.start, s.step > 0 ? 0 : dim - 1);
    const std::int64_t stop = clampi(s.stop, s.step > 0 ? dim : -1);
    // Lengths as CPython computes them: no overflow for any step (a step below
    // -INT64_MAX is taken as -INT64_MAX, as Python does, so that -step exists).
    const std::int64_t step = std::max(s.step, -std::numeric_limits<std::int64_t>::max());
    std::int64_t len = 0;
    if (step > 0 && stop > start) len = (stop - start - 1) / step + 1;
    if (step < 0 && start > stop) len = (start - stop - 1) / (-step) + 1;
    // With at most one element the step moves nothing; 1 keeps stride * step in range.
    r.push_back({len ? start : 0, len, len > 1 ? step : 1});
  }
  return apply_view(x, [r](const Strided& s) -> std::optional<Strided> {
    Strided o{s.shape, s.strides, s.offset};
    std::vector<std::int64_t> d;
    for (std::size_t i = 0; i < r.size(); ++i) {
      o.offset += r[i].start * s.strides[i];
      o.strides[i] = s.strides[i] * r[i].step;
      d.push_back(r[i].len);
    }
    o.shape = Shape(std::move(d));
    return o;
  });
}

NodePtr expand_dims(const NodePtr& x, int axis) {
  std::vector<std::int64_t> d = x->shape.to_vector();
  const int a = normalize_axis(axis, x->shape.ndim() + 1);
  d.insert(d.begin() + a, 1);
  return reshape(x, d);
}

NodePtr squeeze(const NodePtr& x, std::optional<int> axis) {
  std::vector<std::int64_t> d;
  const int n = x->shape.ndim();
  const int only = axis ? normalize_axis(*axis, n) : -1;
  if (axis && x->shape.dims()[std::size_t(only)] != 1)
    throw ShapeError("cannot select an axis to squeeze out which has size not equal to one (axis " +
                     std::to_string(*axis) + " of shape " + x->shape.str() + ")");
  for (int i = 0; i < n; ++i) {
    const auto di = x->shape.dims()[std::size_t(i)];
    if (di == 1 && (only < 0 || i == only)) continue;
    d.push_back(di);
  }
  return reshape(x, d);
}

NodePtr flip(const NodePtr& x, std::optional<int> axis) {
  std::vector<SliceSpec> spec(std::size_t(x->shape.ndim()));
  if (axis) spec[std::size_t(normalize_axis(*axis, x->shape.ndim()))].step = -1;
  else for (auto& s : spec) s.step = -1;
  return slice(x, spec);
}

// The public API's entry points.
NodePtr view_reshape(const NodePtr& x, std::vector<std::int64_t> shape) {
  const GraphLock lock{x.get()};
  return reshape(x, std::move(shape));
}
NodePtr view_permute(const NodePtr& x, std::vector<int> axes) {
  const GraphLock lock{x.get()};
  return permute(x, std::move(axes));
}
NodePtr view_transpose(const NodePtr& x) {
  const GraphLock lock{x.get()};
  return transpose(x);
}
NodePtr view_slice(const NodePtr& x, const std::vector<Slice>& per_axis) {
  const GraphLock lock{x.get()};
  return slice(x, per_axis);
}
NodePtr view_broadcast(const NodePtr& x, const Shape& shape) {
  const GraphLock lock{x.get()};
  return broadcast_to(x, shape);
}
NodePtr view_expand_dims(const NodePtr& x, int axis) {
  const GraphLock lock{x.get()};
  return expand_dims(x, axis);
}
NodePtr view_squeeze(const NodePtr& x, std::optional<int> axis) {
  const GraphLock lock{x.get()};
  return squeeze(x, axis);
}
NodePtr view_flip(const NodePtr& x, std::optional<int> axis) {
  const GraphLock lock{x.get()};
  return flip(x, axis);
}

NodePtr make_concat(const std::vector<NodePtr>& xs, int axis) {
  if (xs.empty()) throw Error("concatenate: need at least one array");
  DevicePtr device = common_device(xs, "concatenate");
  const GraphLock lock(xs);
  const Shape& first = xs.front()->shape;
  if (first.ndim() == 0) throw ShapeError("concatenate: zero-dimensional arrays cannot be concatenated");
  const int a = normalize_axis(axis, first.ndim());
  DType dtype = xs.front()->dtype;
  std::vector<std::int64_t> dims = first.to_vector();
  dims[std::size_t(a)] = 0;
  for (const auto& x : xs) {
    bool ok = x->shape.ndim() == first.ndim();
    for (int i = 0; ok && i < first.ndim(); ++i)
      if (i != a && x->shape.dims()[std::size_t(i)] != first.dims()[std::size_t(i)]) ok = false;
    if (!ok)
      throw ShapeError("concatenate: all the input array dimensions except for the concatenation axis must match exactly, got " +
                       first.str() + " and " + x->shape.str());
    if (__builtin_add_overflow(dims[std::size_t(a)], x->shape.dims()[std::size_t(a)], &dims[std::size_t(a)]))
      throw ShapeError("array is too big: concatenating along axis " + std::to_string(a) +
                       " gives more elements than a 64-bit index can count");
    dtype = promote(dtype, x->dtype);
  }
  auto n = new_node();
  n->op = Op::Concat;
  n->device = std::move(device);
  n->crosses = std::any_of(xs.begin(), xs.end(), [](const NodePtr& x) { return x->crosses; });
  n->host = std::any_of(xs.begin(), xs.end(), [](const NodePtr& x) { return x->host; });
  n->dtype = dtype;
  n->shape = Shape(std::move(dims));
  check_bytes(n->shape, size_of(dtype));
  n->data = ConcatData{a};
  n->weight = 1;
  for (const auto& x : xs) n->inputs.push_back(make_cast(x, dtype));
  n->depth = bounded_depth(span_of(n->inputs));
  return n;
}

}  // namespace fusecl::detail
