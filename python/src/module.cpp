// The extension module fusecl._core: the Array type, every group of
// functions, and the mapping of C++ exceptions to Python's.
#include "binding.hpp"

namespace fusecl::py_binding {
namespace {

void register_errors(py::module_& m) {
  // fusecl::Error (device, build, memory failures) -> fusecl.Error(RuntimeError);
  // fusecl::ShapeError (broadcasting, reshape, axes) -> ValueError, whose
  // messages already use NumPy's wording; fusecl::AxisError -> NumPy's
  // AxisError (a ValueError and an IndexError).
  static py::exception<Error> error(m, "Error", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const AxisError& e) {
      const py::module_ np = py::module_::import("numpy");
      const py::object type = py::hasattr(np, "exceptions") ? np.attr("exceptions").attr("AxisError") : np.attr("AxisError");
      PyErr_SetObject(type.ptr(), py::str(e.what()).ptr());
    } catch (const ShapeError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const Error& e) {
      PyErr_SetString(error.ptr(), e.what());
    }
  });
}

}  // namespace
}  // namespace fusecl::py_binding

PYBIND11_MODULE(_core, m) {
  using namespace fusecl::py_binding;
  m.doc() = "fusecl: NumPy-style expressions fused into one generated OpenCL kernel (the C++ core).";
  register_errors(m);
  py::class_<PyArray> cls(m, "Array", "A lazy fusecl array: a node of an expression graph, evaluated on demand.");
  // NumPy defers binary operators to us (ndarray + fusecl.Array is ours).
  cls.attr("__array_priority__") = 100.0;
  register_dtypes(m);
  register_array(m, cls);
  register_ops(m, cls);
  register_reductions(m, cls);
  register_indexing(m, cls);
  register_creation(m);
  register_runtime(m);
  register_fuse(m);
}
