// fusecl.Array's attributes and its conversions to NumPy and Python values
// (each evaluates: one kernel schedule, one download).
#include "binding.hpp"

namespace fusecl::py_binding {

namespace {

// The one element of a size-1 array as a Python scalar (bool(), float(), int()).
py::object item(const PyArray& a, const char* what) {
  if (a.shape().size() != 1) {
    if (std::string(what) == "bool")
      throw py::value_error(a.shape().size() == 0
                                ? "The truth value of an empty array is ambiguous. Use `array.size > 0` to check that an array is not empty."
                                : "The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()");
    if (std::string(what) == "item") throw py::value_error("can only convert an array of size 1 to a Python scalar");
    throw py::type_error("only length-1 arrays can be converted to Python scalars");
  }
  // NumPy 2.5 converts only 0-d arrays with int() and float() (bool() and
  // item() take any one-element array).
  if (a.shape().ndim() != 0 && (std::string(what) == "int" || std::string(what) == "float"))
    throw py::type_error("only 0-dimensional arrays can be converted to Python scalars (as in NumPy 2.5; a.item() "
                         "takes any one-element array)");
  return download(a).attr("reshape")(py::tuple()).attr("item")();
}

}  // namespace

void register_array(py::module_& m, py::class_<PyArray>& cls) {
  (void)m;
  cls.def_property_readonly("shape", [](const PyArray& a) { return shape_tuple(a.shape()); });
  cls.def_property_readonly("dtype", [](const PyArray& a) { return to_numpy_dtype(a.dtype()); });
  cls.def_property_readonly("ndim", [](const PyArray& a) { return a.shape().ndim(); });
  cls.def_property_readonly("size", [](const PyArray& a) { return a.shape().size(); });
  cls.def_property_readonly("itemsize", [](const PyArray& a) { return size_of(a.dtype()); });
  cls.def_property_readonly("nbytes", [](const PyArray& a) { return a.shape().size() * size_of(a.dtype()); });
  cls.def("__len__", [](const PyArray& a) {
    if (a.shape().ndim() == 0) throw py::type_error("len() of unsized object");
    return a.shape()[0];
  });
  cls.def("numpy", &download, "Evaluates (if needed) and downloads the values into a new ndarray.");
  cls.def("__array__", [](const PyArray& a, const py::object& dtype, const py::object& copy) {
    (void)copy;  // a download is always a new array
    py::array r = download(a);
    if (!dtype.is_none()) return py::array(r.attr("astype")(dtype));
    return r;
  }, py::arg("dtype") = py::none(), py::arg("copy") = py::none());
  cls.def("item", [](const PyArray& a) { return item(a, "item"); });
  cls.def("tolist", [](const PyArray& a) { return download(a).attr("tolist")(); });
  cls.def("__bool__", [](const PyArray& a) { return item(a, "bool").cast<bool>(); });
  cls.def("__float__", [](const PyArray& a) { return py::float_(item(a, "float")); });
  cls.def("__int__", [](const PyArray& a) { return py::int_(item(a, "int")); });
  cls.def("__index__", [](const PyArray& a) {
    if (!is_integer(a.dtype()) || a.shape().ndim() != 0)
      throw py::type_error("only integer scalar arrays can be converted to a scalar index");
    return py::int_(item(a, "int"));
  });
  cls.def_property_readonly("device", [](const PyArray& a) { return detail::node_device(a.node); });
  cls.def("to", [](const PyArray& a, const Device& dev) { return PyArray{detail::node_to_device(a.node, dev)}; },
          py::arg("device"));
}

}  // namespace fusecl::py_binding
