// Reductions as module functions and methods, with NumPy's axis (int, tuple
// or None), keepdims and, for var/std, ddof.
#include "binding.hpp"

namespace fusecl::py_binding {

namespace {

struct Axes {
  std::vector<int> axes;
  bool all = true;
};

Axes axes_arg(const py::object& axis) {
  Axes r;
  if (axis.is_none()) return r;
  r.all = false;
  if (py::isinstance<py::tuple>(axis) || py::isinstance<py::list>(axis)) {
    for (auto a : axis) r.axes.push_back(py::cast<int>(py::int_(py::reinterpret_borrow<py::object>(a))));
  } else {
    r.axes.push_back(py::cast<int>(py::int_(axis)));
  }
  return r;
}

// dtype= and out= are accepted (np.sum(a) passes them as None) but only as None.
void no_dtype_out(const char* name, const py::object& dtype, const py::object& out) {
  if (!dtype.is_none())
    throw py::type_error(std::string("fusecl.") + name + ": dtype= is not supported; use a.astype(dtype)." + name + "()");
  if (!out.is_none())
    throw py::type_error(std::string("fusecl.") + name + ": out= is not supported; fusecl arrays are immutable");
}

// NumPy raises ValueError for min/max/argmin/argmax over nothing; the C++
// API throws fusecl::Error, which would reach Python as fusecl.Error.
void check_identity(Op op, const PyArray& a, const Axes& ax) {
  if (op != Op::Min && op != Op::Max && op != Op::ArgMin && op != Op::ArgMax) return;
  const Shape& s = a.shape();
  bool empty = ax.all && s.size() == 0;
  for (int axis : ax.axes) {
    if (axis < -s.ndim() || axis >= s.ndim()) return;  // the C++ API reports a bad axis
    empty |= s[axis < 0 ? axis + s.ndim() : axis] == 0;
  }
  if (empty) {
    static const char* numpy_names[] = {"minimum", "maximum", "argmin", "argmax"};
    const int i = op == Op::Min ? 0 : op == Op::Max ? 1 : op == Op::ArgMin ? 2 : 3;
    throw py::value_error(i < 2 ? "zero-size array to reduction operation " + std::string(numpy_names[i]) +
                                      " which has no identity"
                                : "attempt to get " + std::string(numpy_names[i]) + " of an empty sequence");
  }
}

}  // namespace

void register_reductions(py::module_& m, py::class_<PyArray>& cls) {
  struct Row { Op op; const char* name; };
#define FUSECL_PY_ROW(e, n, ...) Row{Op::e, #n},
  static constexpr Row rows[] = {FUSECL_REDUCE_OPS(FUSECL_PY_ROW)};
#undef FUSECL_PY_ROW
  for (const Row& r : rows) {
    const Op op = r.op;
    const char* name = r.name;
    const bool index = op == Op::ArgMin || op == Op::ArgMax;
    auto f = [op, name](const py::object& x, const py::object& axis, const py::object& dtype, const py::object& out,
                        bool keepdims) {
      no_dtype_out(name, dtype, out);
      PyArray a = as_array(x);
      Axes ax = axes_arg(axis);
      check_identity(op, a, ax);
      return PyArray{detail::make_reduce(op, a.node, ax.axes, ax.all, keepdims)};
    };
    if (index) {
      // argmin/argmax take one axis or None, and no dtype (NumPy's signature).
      auto g = [f](const py::object& x, const py::object& axis, const py::object& out, bool keepdims) {
        if (!axis.is_none() && !PyIndex_Check(axis.ptr()))
          throw py::type_error("'" + std::string(py::str(py::type::handle_of(axis).attr("__name__"))) +
                               "' object cannot be interpreted as an integer");
        return f(x, axis, py::none(), out, keepdims);
      };
      m.def(name, g, py::arg("a"), py::arg("axis") = py::none(), py::arg("out") = py::none(), py::arg("keepdims") = false);
      cls.def(name, g, py::arg("axis") = py::none(), py::arg("out") = py::none(), py::arg("keepdims") = false);
    } else {
      m.def(name, f, py::arg("a"), py::arg("axis") = py::none(), py::arg("dtype") = py::none(), py::arg("out") = py::none(),
            py::arg("keepdims") = false);
      cls.def(name, f, py::arg("axis") = py::none(), py::arg("dtype") = py::none(), py::arg("out") = py::none(),
              py::arg("keepdims") = false);
    }
  }
  m.attr("amin") = m.attr("min");
  m.attr("amax") = m.attr("max");

  for (bool sqrt : {false, true}) {
    const char* name = sqrt ? "std" : "var";
    auto f = [sqrt, name](const py::object& x, const py::object& axis, const py::object& dtype, const py::object& out,
                          int ddof, bool keepdims) {
      no_dtype_out(name, dtype, out);
      PyArray a = as_array(x);
      Axes ax = axes_arg(axis);
      return PyArray{detail::make_moment(a.node, ax.axes, ax.all, keepdims, ddof, sqrt)};
    };
    m.def(name, f, py::arg("a"), py::arg("axis") = py::none(), py::arg("dtype") = py::none(), py::arg("out") = py::none(),
          py::arg("ddof") = 0, py::arg("keepdims") = false);
    cls.def(name, f, py::arg("axis") = py::none(), py::arg("dtype") = py::none(), py::arg("out") = py::none(),
            py::arg("ddof") = 0, py::arg("keepdims") = false);
  }
  m.attr("stddev") = m.attr("std");  // the C++ name
}

}  // namespace fusecl::py_binding
