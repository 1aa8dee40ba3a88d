// NumPy dtypes <-> fusecl's DType, and the TypeErrors for what fusecl lacks.
#include "binding.hpp"

namespace fusecl::py_binding {

py::dtype to_numpy_dtype(DType d) {
  // np.dtype("float32") is a lookup in NumPy's table; cached, it is a refcount.
  static py::object* cache[dtype_count] = {};
  auto& slot = cache[int(d)];
  if (!slot) slot = new py::object(py::dtype(std::string(dtype_name(d))));  // lives as long as the module
  return py::reinterpret_borrow<py::dtype>(*slot);
}

DType from_numpy_dtype(const py::handle& dtype_like) {
  py::dtype dt;
  try {
    dt = py::dtype::from_args(py::reinterpret_borrow<py::object>(dtype_like));
  } catch (py::error_already_set& e) {
    throw py::type_error("fusecl: " + std::string(py::str(dtype_like)) + " is not a dtype");
  }
  const char kind = dt.kind();
  const auto size = dt.itemsize();
  const std::string name = py::str(dt);
  switch (kind) {
    case 'b': return DType::Bool;
    case 'i': return detail::signed_of_size(int(size));
    case 'u': return detail::unsigned_of_size(int(size));
    case 'f':
      if (size == 4) return DType::Float32;
      if (size == 8) return DType::Float64;
      throw py::type_error("fusecl does not support " + name +
                           " (OpenCL 1.2 devices have no portable " + name +
                           " arithmetic); convert first, e.g. x.astype(np.float32)");
    case 'c':
      throw py::type_error("fusecl does not support complex dtypes (" + name +
                           "); keep the real and imaginary parts as two float arrays (x.real, x.imag)");
    default:
      throw py::type_error("fusecl does not support dtype " + name +
                           ": only bool, int8..int64, uint8..uint64, float32 and float64");
  }
}

void register_dtypes(py::module_& m) {
  py::list names;
  for (int i = 0; i < dtype_count; ++i) names.append(py::str(std::string(dtype_name(DType(i)))));
  m.attr("supported_dtypes") = py::tuple(names);
}

}  // namespace fusecl::py_binding
