// Host <-> device: one upload per asarray, one download per numpy(). The GIL
// is released while data moves (and while the download's evaluation runs),
// so other Python threads keep running.
#include "binding.hpp"

namespace fusecl::py_binding {

PyArray upload(const py::handle& x, const Device& dev) {
  py::module_ np = py::module_::import("numpy");
  py::object arr = np.attr("asarray")(x);
  py::dtype dt = arr.attr("dtype").cast<py::dtype>();
  // Python lists of ints become int64 and of floats float64 (NumPy's defaults
  // on Linux); objects, strings, float16 and complex raise TypeError here.
  const DType d = from_numpy_dtype(dt);
  if (dt.attr("byteorder").cast<std::string>() == ">")  // big-endian data: native order first
    arr = arr.attr("astype")(dt.attr("newbyteorder")("="));
  // One C-contiguous copy on the host if the input is strided (a view, a
  // transposed or sliced ndarray), then one upload.
  py::array c = np.attr("ascontiguousarray")(arr);
  const Shape shape(std::vector<std::int64_t>(c.shape(), c.shape() + c.ndim()));
  const void* data = c.data();
  NodePtr node;
  {
    py::gil_scoped_release release;
    node = detail::node_from_host(data, d, shape, dev);
  }
  return PyArray{std::move(node)};
}

py::array download(const PyArray& a) {
  const Shape& s = a.shape();
  const DType d = a.dtype();
  py::array out(to_numpy_dtype(d), std::vector<py::ssize_t>(s.begin(), s.end()));
  void* dst = out.mutable_data();
  const std::size_t bytes = std::size_t(s.size()) * std::size_t(size_of(d));
  {
    py::gil_scoped_release release;
    detail::node_to_host(a.node, dst, bytes);
  }
  return out;
}

}  // namespace fusecl::py_binding
