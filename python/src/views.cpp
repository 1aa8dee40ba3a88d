// Views with NumPy's syntax: basic indexing (integers, slices with any step,
// None, Ellipsis), .T, reshape, transpose and friends; concatenate and stack.
// All are fused views (index arithmetic in the consuming kernel), no copies.
#include "binding.hpp"

namespace fusecl::py_binding {

namespace {

[[noreturn]] void fancy_index() {
  throw py::type_error(
      "fusecl supports basic indexing only (integers, slices, None, ...): fancy indexing with integer or boolean "
      "arrays is not supported; for a mask use fusecl.where(mask, a, 0) or a reduction, or index on the host: "
      "a.numpy()[index]");
}

// operator.index(v) as int64 (TypeError for what is not an integer).
std::int64_t index_value(const py::handle& v) {
  PyObject* i = PyNumber_Index(v.ptr());
  if (!i) throw py::error_already_set();
  return py::cast<std::int64_t>(py::reinterpret_steal<py::object>(i));
}

std::optional<std::int64_t> opt_index(const py::handle& v) {
  if (v.is_none()) return std::nullopt;
  return index_value(v);
}

// Arrays and sequences as indices are NumPy's fancy indexing (an ndarray
// also has __index__, for its 0-d integer case).
bool is_array_index(const py::handle& k) {
  return py::isinstance<PyArray>(k) || py::isinstance<py::array>(k) || PyList_Check(k.ptr()) ||
         PyTuple_Check(k.ptr());
}

PyArray getitem(const PyArray& a, const py::object& key) {
  std::vector<py::object> items;
  if (py::isinstance<py::tuple>(key)) {
    for (auto k : key) items.push_back(py::reinterpret_borrow<py::object>(k));
  } else {
    items.push_back(key);
  }
  const int ndim = a.shape().ndim();
  int consumed = 0, ellipses = 0;
  for (const py::object& k : items) {
    if (k.is(py::ellipsis())) ++ellipses;
    else if (!k.is_none()) ++consumed;
  }
  if (ellipses > 1) throw py::index_error("an index can only have a single ellipsis ('...')");
  if (consumed > ndim)
    throw py::index_error("too many indices for array: array is " + std::to_string(ndim) + "-dimensional, but " +
                          std::to_string(consumed) + " were indexed");
  std::vector<Slice> spec;
  std::vector<int> drop;        // input axes an integer removes
  std::vector<int> new_axes;    // output positions of None
  int out_pos = 0;
  auto add_full = [&](int n) {
    for (int i = 0; i < n; ++i) spec.push_back(Slice{}), ++out_pos;
  };
  for (const py::object& k : items) {
    PyObject* p = k.ptr();
    if (k.is(py::ellipsis())) {
      add_full(ndim - consumed);
    } else if (k.is_none()) {
      new_axes.push_back(out_pos++);
    } else if (PySlice_Check(p)) {
      Slice s;
      s.start = opt_index(k.attr("start"));
      s.stop = opt_index(k.attr("stop"));
      const auto step = opt_index(k.attr("step"));
      s.step = step ? *step : 1;
      if (s.step == 0) throw py::value_error("slice step cannot be zero");
      spec.push_back(s);
      ++out_pos;
    } else if (PyBool_Check(p) || is_array_index(k)) {
      fancy_index();  // NumPy reads a bool as a 0-d mask
    } else if (PyIndex_Check(p)) {
      const int axis = int(spec.size());
      const std::int64_t dim = a.shape()[axis];
      std::int64_t i = index_value(k);
      if (i < -dim || i >= dim)
        throw py::index_error("index " + std::to_string(i) + " is out of bounds for axis " + std::to_string(axis) +
                              " with size " + std::to_string(dim));
      if (i < 0) i += dim;
      spec.push_back(Slice{i, i + 1, 1});
      drop.push_back(axis);
    } else {
      throw py::index_error("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or "
                            "boolean arrays are valid indices (fusecl supports the first four)");
    }
  }
  add_full(ndim - int(spec.size()));
  NodePtr n = detail::view_slice(a.node, spec);
  for (auto it = drop.rbegin(); it != drop.rend(); ++it) n = detail::view_squeeze(n, *it);
  for (int pos : new_axes) n = detail::view_expand_dims(n, pos);
  return PyArray{n};
}

// Dimensions as reshape takes them: -1 allowed (so not a Shape yet).
std::vector<std::int64_t> dims_of(const py::handle& shape) {
  std::vector<std::int64_t> dims;
  if (PyIndex_Check(shape.ptr()) && !py::isinstance<py::array>(shape)) return {index_value(shape)};
  for (auto d : py::iter(shape)) dims.push_back(index_value(d));
  return dims;
}

std::vector<std::int64_t> shape_args(const py::args& args) {
  // reshape(2, 3) and reshape((2, 3)) alike, as NumPy.
  if (args.size() == 1) return dims_of(args[0]);
  return dims_of(args);
}

std::vector<int> axes_args(const py::args& args) {
  std::vector<int> axes;
  if (args.size() == 1 && !PyIndex_Check(args[0].ptr())) {
    for (auto d : args[0]) axes.push_back(py::cast<int>(py::int_(py::reinterpret_borrow<py::object>(d))));
  } else {
    for (auto d : args) axes.push_back(py::cast<int>(py::int_(py::reinterpret_borrow<py::object>(d))));
  }
  return axes;
}

PyArray transpose_of(const PyArray& a, const py::args& axes) {
  if (axes.size() == 0 || (axes.size() == 1 && axes[0].is_none())) return PyArray{detail::view_transpose(a.node)};
  return PyArray{detail::view_permute(a.node, axes_args(axes))};
}

// NumPy promotes the inputs of concatenate to their common dtype.
std::vector<NodePtr> promoted_nodes(const py::iterable& arrays) {
  std::vector<NodePtr> nodes;
  for (auto x : arrays) nodes.push_back(as_array(x).node);
  if (nodes.empty()) throw py::value_error("need at least one array to concatenate");
  DType d = detail::node_dtype(nodes.front());
  for (const NodePtr& n : nodes) d = promote(d, detail::node_dtype(n));
  for (NodePtr& n : nodes)
    if (detail::node_dtype(n) != d) n = detail::make_cast(n, d);
  return nodes;
}

}  // namespace

void register_indexing(py::module_& m, py::class_<PyArray>& cls) {
  cls.def("__getitem__", &getitem);
  cls.def("__setitem__", [](const PyArray&, const py::object&, const py::object&) {
    throw py::type_error("fusecl arrays are immutable (each is a node of a lazy expression); build a new array, "
                         "e.g. fusecl.where(mask, new_values, a)");
  });
  cls.def("reshape", [](const PyArray& a, const py::args& shape) {
    return PyArray{detail::view_reshape(a.node, shape_args(shape))};
  });
  cls.def("transpose", &transpose_of);
  cls.def_property_readonly("T", [](const PyArray& a) { return PyArray{detail::view_transpose(a.node)}; });
  cls.def("ravel", [](const PyArray& a) { return PyArray{detail::view_reshape(a.node, {-1})}; });
  cls.def("flatten", [](const PyArray& a) { return PyArray{detail::view_reshape(a.node, {-1})}; });
  cls.def("squeeze", [](const PyArray& a, std::optional<int> axis) { return PyArray{detail::view_squeeze(a.node, axis)}; },
          py::arg("axis") = py::none());

  m.def("reshape", [](const py::object& x, const py::object& shape) {
    return PyArray{detail::view_reshape(as_array(x).node, dims_of(shape))};
  }, py::arg("a"), py::arg("newshape"));
  m.def("transpose", [](const py::object& x, const py::object& axes) {
    PyArray a = as_array(x);
    if (axes.is_none()) return PyArray{detail::view_transpose(a.node)};
    std::vector<int> ax;
    for (auto d : axes) ax.push_back(py::cast<int>(py::int_(py::reinterpret_borrow<py::object>(d))));
    return PyArray{detail::view_permute(a.node, ax)};
  }, py::arg("a"), py::arg("axes") = py::none());
  m.attr("permute_dims") = m.attr("transpose");
  m.def("squeeze", [](const py::object& x, std::optional<int> axis) {
    return PyArray{detail::view_squeeze(as_array(x).node, axis)};
  }, py::arg("a"), py::arg("axis") = py::none());
  m.def("expand_dims", [](const py::object& x, int axis) {
    return PyArray{detail::view_expand_dims(as_array(x).node, axis)};
  }, py::arg("a"), py::arg("axis"));
  m.def("flip", [](const py::object& x, std::optional<int> axis) {
    return PyArray{detail::view_flip(as_array(x).node, axis)};
  }, py::arg("m"), py::arg("axis") = py::none());
  m.def("broadcast_to", [](const py::object& x, const py::object& shape) {
    return PyArray{detail::view_broadcast(as_array(x).node, to_shape(shape))};
  }, py::arg("array"), py::arg("shape"));
  m.def("concatenate", [](const py::iterable& arrays, int axis) {
    return PyArray{detail::make_concat(promoted_nodes(arrays), axis)};
  }, py::arg("arrays"), py::arg("axis") = 0);
  m.def("stack", [](const py::iterable& arrays, int axis) {
    std::vector<NodePtr> nodes = promoted_nodes(arrays);
    const Shape first = detail::node_shape(nodes.front());
    const int a = normalize_axis(axis, first.ndim() + 1);
    for (NodePtr& n : nodes) {
      if (detail::node_shape(n) != first) throw py::value_error("all input arrays must have the same shape");
      n = detail::view_expand_dims(n, a);
    }
    return PyArray{detail::make_concat(nodes, a)};
  }, py::arg("arrays"), py::arg("axis") = 0);
}

}  // namespace fusecl::py_binding
