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
  // (asarray with order="C": ascontiguousarray would make a 0-d array 1-d.)
  py::array c = np.attr("asarray")(arr, py::arg("order") = "C");
  const Shape shape(std::vector<std::int64_t>(c.shape(), c.shape() + c.ndim()));
  const void* data = c.data();
  NodePtr node;
  {
    py::gil_scoped_release release;
    node = detail::node_from_host(data, d, shape, dev);
  }
  return PyArray{std::move(node)};
}

PyArray host_view(const py::handle& x, const Device& dev) {
  if (!py::isinstance<py::array>(x))
    throw py::type_error("host_view: expected a numpy.ndarray (it stays in its memory; use asarray to copy other data)");
  py::array arr = py::reinterpret_borrow<py::array>(x);
  py::dtype dt = arr.dtype();
  const DType d = from_numpy_dtype(dt);
  if (dt.attr("byteorder").cast<std::string>() == ">")
    throw py::value_error("host_view: the array is big-endian; convert it with astype(dtype.newbyteorder('=')) first");
  if (!(arr.flags() & py::array::c_style))
    throw py::value_error("host_view: the array is not C-contiguous (a transposed or sliced view); use "
                          "numpy.ascontiguousarray(a) first, or asarray to copy it to the device");
  const Shape shape(std::vector<std::int64_t>(arr.shape(), arr.shape() + arr.ndim()));
  // The node keeps the ndarray alive; its last reference may go on a thread
  // without the GIL (an evaluation releases graphs), so the release takes it.
  auto* held = new py::object(arr);
  std::shared_ptr<const void> owner(held, [](const void* p) {
    if (!Py_IsInitialized()) return;  // at exit: the interpreter is gone, and the memory with it
    py::gil_scoped_acquire gil;
    delete static_cast<const py::object*>(p);
  });
  return PyArray{detail::node_host_view(arr.data(), d, shape, dev, std::move(owner))};
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
