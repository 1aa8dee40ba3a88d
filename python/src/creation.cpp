// Arrays from host data (asarray: one upload) and generated on the device
// (zeros, ones, full, arange, linspace, eye, random): no upload at all.
#include "binding.hpp"

#include <cmath>

namespace fusecl::py_binding {

namespace {

// NumPy's dtype for a Python fill value when none is given.
DType value_dtype(const py::handle& v) {
  if (PyBool_Check(v.ptr())) return DType::Bool;
  if (PyLong_Check(v.ptr())) {  // as np.array(v): int64, else uint64 where it fits (else OverflowError later)
    int overflow = 0;
    (void)PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
    return overflow > 0 ? DType::UInt64 : DType::Int64;
  }
  if (PyFloat_Check(v.ptr())) return DType::Float64;
  return from_numpy_dtype(py::module_::import("numpy").attr("asarray")(v).attr("dtype"));
}

DType dtype_or(const py::object& dtype, DType fallback) {
  return dtype.is_none() ? fallback : from_numpy_dtype(dtype);
}

PyArray full(const py::object& shape, const py::object& fill, const py::object& dtype, const py::object& device) {
  py::object value = fill;
  if (is_stand_in(fill)) {
    // A fused function's number (fusecl.fuse): a slot broadcast to the shape,
    // so replays fill each call's value. A Python int without a dtype is
    // int64 in NumPy only while it fits (then uint64): a replay with one past
    // int64 runs the function. Otherwise (another device; a stand-in of no
    // trace running; an int past int64 now) its number, read as a Python value.
    const py::object v = stand_in_value(fill, false);
    const bool int_alone = dtype.is_none() && PyLong_Check(v.ptr()) && !PyBool_Check(v.ptr());
    if (stand_in_live(fill) && device.is_none() && (!int_alone || int_fits(v, DType::Int64))) {
      const DType d = dtype.is_none() ? value_dtype(v) : from_numpy_dtype(dtype);
      return PyArray{detail::view_broadcast(stand_in_node(fill, d, int_alone ? SlotCheck::InRange : SlotCheck::None),
                                            to_shape(shape))};
    }
    value = stand_in_value(fill, stand_in_live(fill));
  }
  const DType d = dtype.is_none() ? value_dtype(value) : from_numpy_dtype(dtype);
  py::object v = value;
  if (!PyBool_Check(v.ptr()) && !PyLong_Check(v.ptr()) && !PyFloat_Check(v.ptr())) v = v.attr("item")();
  return PyArray{detail::make_full(d, scalar_bits(v, d), to_shape(shape), device_arg(device))};
}

}  // namespace

void register_creation(py::module_& m) {
  m.def("asarray", [](const py::object& x, const py::object& dtype, const py::object& device) {
    if (py::isinstance<PyArray>(x)) {
      PyArray a = x.cast<PyArray>();
      if (!device.is_none()) a.node = detail::node_to_device(a.node, device_arg(device));
      if (!dtype.is_none() && from_numpy_dtype(dtype) != a.dtype()) a.node = detail::make_cast(a.node, from_numpy_dtype(dtype));
      return a;
    }
    py::object h = x;
    if (!dtype.is_none()) h = py::module_::import("numpy").attr("asarray")(x, dtype);
    return upload(h, device_arg(device));
  }, py::arg("a"), py::arg("dtype") = py::none(), py::arg("device") = py::none(),
  "Copies array-like host data to a device (one upload); a fusecl.Array is returned as it is.");

  m.def("host_view", [](const py::object& a, const py::object& device) { return host_view(a, device_arg(device)); },
        py::arg("a"), py::arg("device") = py::none(),
        "An array over a C-contiguous numpy.ndarray's own memory: nothing is copied now, and expressions over it are "
        "computed in chunks of rows, so data larger than the device's memory streams through it. Do not change the "
        "ndarray while results that read it are being computed.");

  m.def("full", &full, py::arg("shape"), py::arg("fill_value"), py::arg("dtype") = py::none(),
        py::arg("device") = py::none());
  m.def("zeros", [](const py::object& shape, const py::object& dtype, const py::object& device) {
    return full(shape, py::int_(0), py::object(to_numpy_dtype(dtype_or(dtype, DType::Float64))), device);
  }, py::arg("shape"), py::arg("dtype") = py::none(), py::arg("device") = py::none());
  m.def("ones", [](const py::object& shape, const py::object& dtype, const py::object& device) {
    return full(shape, py::int_(1), py::object(to_numpy_dtype(dtype_or(dtype, DType::Float64))), device);
  }, py::arg("shape"), py::arg("dtype") = py::none(), py::arg("device") = py::none());

  m.def("arange", [](const py::object& start, const py::object& stop, const py::object& step, const py::object& dtype,
                     const py::object& device) {
    py::object lo = start, hi = stop;
    if (hi.is_none()) hi = start, lo = py::int_(0);  // arange(stop)
    const bool ints = PyIndex_Check(lo.ptr()) && PyIndex_Check(hi.ptr()) && PyIndex_Check(step.ptr());
    const DType d = dtype_or(dtype, ints ? DType::Int64 : DType::Float64);
    if (d == DType::Bool) throw py::type_error("arange: bool is not a range type");
    const double s = step.cast<double>();
    if (s == 0) {  // NumPy divides by the step, and raises ZeroDivisionError
      PyErr_SetString(PyExc_ZeroDivisionError, "fusecl.arange: the step is 0");
      throw py::error_already_set();
    }
    return PyArray{detail::make_arange(d, lo.cast<double>(), hi.cast<double>(), s, device_arg(device))};
  }, py::arg("start"), py::arg("stop") = py::none(), py::arg("step") = 1, py::arg("dtype") = py::none(),
  py::arg("device") = py::none());

  m.def("linspace", [](double start, double stop, std::int64_t num, bool endpoint, const py::object& dtype,
                       const py::object& device) {
    const DType d = dtype_or(dtype, DType::Float64);
    if (num < 0) throw py::value_error("Number of samples, " + std::to_string(num) + ", must be non-negative.");
    if (is_float(d)) return PyArray{detail::make_linspace(d, start, stop, num, endpoint, device_arg(device))};
    // An integer dtype: the float64 values rounded down, as NumPy's linspace
    // (floor, then the cast); bool: nonzero is True.
    NodePtr f = detail::make_linspace(DType::Float64, start, stop, num, endpoint, device_arg(device));
    if (d != DType::Bool) f = detail::unary(Op::Floor, f);
    return PyArray{detail::make_cast(f, d)};
  }, py::arg("start"), py::arg("stop"), py::arg("num") = 50, py::arg("endpoint") = true, py::arg("dtype") = py::none(),
  py::arg("device") = py::none());

  m.def("eye", [](std::int64_t n, std::optional<std::int64_t> cols, std::int64_t k, const py::object& dtype,
                  const py::object& device) {
    return PyArray{detail::make_eye(dtype_or(dtype, DType::Float64), n, cols ? *cols : n, k, device_arg(device))};
  }, py::arg("N"), py::arg("M") = py::none(), py::arg("k") = 0, py::arg("dtype") = py::none(), py::arg("device") = py::none());

  // fusecl.random.uniform/normal (python/fusecl/random.py) add low/high and loc/scale as fused operations.
  for (bool normal : {false, true}) {
    m.def(normal ? "_random_normal" : "_random_uniform",
          [normal](const py::object& shape, std::uint64_t seed, const py::object& dtype, const py::object& device) {
            const DType d = dtype_or(dtype, DType::Float64);
            if (!is_float(d)) throw py::type_error("fusecl.random: dtype must be float32 or float64");
            return PyArray{detail::make_random(d, normal ? GenKind::Normal : GenKind::Uniform, to_shape(shape), seed,
                                               device_arg(device))};
          });
  }
}

}  // namespace fusecl::py_binding
