// Python operands of an operation: NEP 50's strong arrays and NumPy scalars,
// weak Python scalars, and their conversion to nodes.
#include "binding.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <utility>

namespace fusecl::py_binding {

namespace {

template <class T>
std::uint64_t bits(T v) {
  std::uint64_t b = 0;
  std::memcpy(&b, &v, sizeof(T));
  return b;
}


// A Python int as the integer dtype d; nullopt where it does not fit.
std::optional<std::uint64_t> int_bits_if_fits(const py::handle& value, DType d) {
  int overflow = 0;
  const long long s = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
  if (s == -1 && PyErr_Occurred()) throw py::error_already_set();
  if (overflow < 0) return std::nullopt;
  if (overflow > 0) {
    if (d != DType::UInt64) return std::nullopt;
    const unsigned long long u = PyLong_AsUnsignedLongLong(value.ptr());
    if (PyErr_Occurred()) {
      PyErr_Clear();
      return std::nullopt;
    }
    return bits(std::uint64_t(u));
  }
  auto as = [&]<class T>(T) -> std::optional<std::uint64_t> {
    if (!std::in_range<T>(s)) return std::nullopt;
    return bits(T(s));
  };
  switch (d) {
    case DType::Int8: return as(std::int8_t{});
    case DType::Int16: return as(std::int16_t{});
    case DType::Int32: return as(std::int32_t{});
    case DType::Int64: return as(std::int64_t{});
    case DType::UInt8: return as(std::uint8_t{});
    case DType::UInt16: return as(std::uint16_t{});
    case DType::UInt32: return as(std::uint32_t{});
    case DType::UInt64: return as(std::uint64_t{});
    default: return 0;
  }
}

// A Python int as the integer dtype d, or OverflowError as NumPy 2 raises.
std::uint64_t int_bits(const py::handle& value, DType d) {
  if (auto b = int_bits_if_fits(value, d)) return *b;
  PyErr_Format(PyExc_OverflowError, "Python integer %S out of bounds for %s", value.ptr(),
               std::string(dtype_name(d)).c_str());
  throw py::error_already_set();
}


}  // namespace

bool is_numpy_scalar(const py::handle& x) {
  static py::object generic = py::module_::import("numpy").attr("generic");
  return py::isinstance(x, generic);
}

bool int_fits(const py::handle& value, DType d) {
  return bool(int_bits_if_fits(py::int_(py::reinterpret_borrow<py::object>(value)), d));
}

bool is_negative(const py::handle& value) {
  const int negative = PyObject_RichCompareBool(value.ptr(), py::int_(0).ptr(), Py_LT);
  if (negative < 0) throw py::error_already_set();
  return negative;
}

void check_exponent(const py::handle& value) {
  if (is_negative(value))
    throw py::value_error("Integers to negative integer powers are not allowed. (NumPy raises this too; make the base "
                          "or the exponent a float for a float power)");
}

std::uint64_t scalar_bits(const py::handle& value, DType d) {
  if (is_float(d)) {
    const double v = PyFloat_AsDouble(value.ptr());  // OverflowError for ints past double, as NumPy
    if (v == -1.0 && PyErr_Occurred()) throw py::error_already_set();
    return d == DType::Float32 ? bits(float(v)) : bits(v);
  }
  if (d == DType::Bool) {
    const int t = PyObject_IsTrue(value.ptr());
    if (t < 0) throw py::error_already_set();
    return bits(std::uint8_t(t));
  }
  if (PyFloat_Check(value.ptr())) {
    // A float value for an integer dtype (full(shape, 2.5, dtype=int32)):
    // truncated as NumPy's casting does.
    const double v = PyFloat_AsDouble(value.ptr());
    if (!std::isfinite(v)) throw py::value_error("cannot convert float " + std::to_string(v) + " to integer");
    return int_bits(py::int_(py::reinterpret_borrow<py::object>(value)), d);
  }
  return int_bits(py::int_(py::reinterpret_borrow<py::object>(value)), d);
}

std::optional<Operand> to_operand(const py::handle& x) {
  Operand o;
  if (py::isinstance<PyArray>(x)) {
    o.node = x.cast<const PyArray&>().node;
    o.dtype = detail::node_dtype(o.node);
    return o;
  }
  if (is_stand_in(x)) {
    // A fused function's number: weak as a Python number is, strong with its
    // dtype as a NumPy scalar is. Of the trace running now, each use becomes
    // a slot (a weak one's dtype is known only beside the other operands);
    // of another (one that escaped the function), the number is a constant.
    auto n = to_operand(stand_in_value(x, false));
    if (n && stand_in_live(x)) {
      if (n->strong) n->node = stand_in_node(x, n->dtype);
      else n->stand_in = py::reinterpret_borrow<py::object>(x);
    }
    return n;
  }
  PyObject* p = x.ptr();
  if (is_numpy_scalar(x)) {
    // NumPy scalars are strong (NEP 50): np.float64(2) * float32 array is
    // float64. Checked first: np.float64 is a subclass of Python's float.
    o.dtype = from_numpy_dtype(x.attr("dtype"));
    o.node = detail::make_scalar(o.dtype, scalar_bits(x.attr("item")(), o.dtype));
    return o;
  }
  if (PyBool_Check(p)) {
    o.strong = false, o.weak = WeakKind::Bool, o.dtype = DType::Bool;
  } else if (PyLong_Check(p)) {
    o.strong = false, o.weak = WeakKind::Int, o.dtype = DType::Int64;
  } else if (PyFloat_Check(p)) {
    o.strong = false, o.weak = WeakKind::Float, o.dtype = DType::Float64;
  } else if (py::isinstance<py::array>(x) || PyList_Check(p) || PyTuple_Check(p)) {
    PyArray a = upload(x, default_device());
    o.node = a.node;
    o.dtype = a.dtype();
    return o;
  } else {
    return std::nullopt;
  }
  o.value = py::reinterpret_borrow<py::object>(x);
  return o;
}

NodePtr operand_node(const Operand& x, DType d) {
  if (x.node) return x.node;  // binary() and friends cast arrays themselves
  if (x.stand_in) return stand_in_node(x.stand_in, d, x.check);
  return detail::make_scalar(d, scalar_bits(x.value, d));
}

DType common_dtype(const std::vector<const Operand*>& xs) {
  bool any_strong = false;
  for (const Operand* x : xs) any_strong |= x->strong;
  std::optional<DType> strong;
  for (const Operand* x : xs)
    if (x->strong || !any_strong) strong = strong ? promote(*strong, x->dtype) : x->dtype;
  DType r = *strong;
  if (any_strong)
    for (const Operand* x : xs)
      if (!x->strong) r = promote_weak(r, x->weak);
  return r;
}

PyArray as_array(const py::handle& x) {
  if (py::isinstance<PyArray>(x)) return x.cast<PyArray>();
  if (is_stand_in(x)) {
    const Operand o = *to_operand(x);
    if (!o.strong) return weak_alone(o);
    // A NumPy scalar's stand-in: its slot, of its own dtype (or, escaped from
    // its trace, its number).
    if (stand_in_live(x)) return PyArray{o.node};
    return upload(stand_in_value(x, false), default_device());
  }
  return upload(x, default_device());
}

Shape to_shape(const py::handle& shape) {
  if (PyLong_Check(shape.ptr()) || PyIndex_Check(shape.ptr())) return Shape{py::cast<std::int64_t>(py::int_(py::reinterpret_borrow<py::object>(shape)))};
  std::vector<std::int64_t> dims;
  for (auto d : py::iter(shape)) dims.push_back(py::cast<std::int64_t>(py::int_(py::reinterpret_borrow<py::object>(d))));
  return Shape(std::move(dims));
}

py::tuple shape_tuple(const Shape& s) {
  py::tuple t(std::size_t(s.ndim()));
  for (int i = 0; i < s.ndim(); ++i) t[std::size_t(i)] = py::int_(s[i]);
  return t;
}

Device device_arg(const py::object& device) {
  if (device.is_none()) return default_device();
  if (!py::isinstance<Device>(device))
    throw py::type_error("device= takes a fusecl.Device (open one once with fusecl.open_device(\"spec\")), not " +
                         std::string(py::str(py::type::handle_of(device).attr("__name__"))));
  return device.cast<Device>();
}

}  // namespace fusecl::py_binding
