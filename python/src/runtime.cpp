// Evaluation, introspection, statistics and devices, including the
// `with fusecl.device(dev):` scope.
#include "binding.hpp"

namespace fusecl::detail {
std::size_t set_stream_chunk_bytes(std::size_t bytes);  // src/stream.hpp (the module sees public headers only)
}

#include <memory>
#include <thread>

namespace fusecl::py_binding {

namespace {

py::dict info_dict(const DeviceInfo& i) {
  py::dict d;
  d["id"] = i.id();
  d["platform_name"] = i.platform_name;
  d["platform_vendor"] = i.platform_vendor;
  d["platform_version"] = i.platform_version;
  d["name"] = i.name;
  d["vendor"] = i.vendor;
  d["version"] = i.version;
  d["driver_version"] = i.driver_version;
  d["opencl_c_version"] = i.opencl_c_version;
  d["type"] = i.type;
  d["compute_units"] = i.compute_units;
  d["global_mem_bytes"] = i.global_mem_bytes;
  d["max_alloc_bytes"] = i.max_alloc_bytes;
  d["fp64"] = i.fp64;
  return d;
}

// DeviceScope is per thread and strictly nested: `with` must enter and exit
// on one thread, innermost first. A scope object checks both, because a
// DeviceScope destroyed out of order would leave the thread's default wrong.
class Scope {
 public:
  explicit Scope(Device dev) : dev_(std::move(dev)) {}
  Device enter() {
    if (scope_) throw py::value_error("fusecl.device(...) scope is already entered; make a new one per `with`");
    scope_ = std::make_unique<DeviceScope>(dev_);
    thread_ = std::this_thread::get_id();
    depth_ = ++depth();
    return dev_;
  }
  void exit(const py::args&) {
    if (!scope_) throw py::value_error("fusecl.device(...) scope was not entered");
    if (thread_ != std::this_thread::get_id())
      throw py::value_error("fusecl.device(...) scope entered on one thread and left on another");
    if (depth_ != depth()) throw py::value_error("fusecl.device(...) scopes must be left innermost first");
    scope_.reset();
    --depth();
  }

 private:
  static int& depth() {
    thread_local int d = 0;
    return d;
  }
  Device dev_;
  std::unique_ptr<DeviceScope> scope_;
  std::thread::id thread_;
  int depth_ = 0;
};

}  // namespace

void register_runtime(py::module_& m) {
  py::class_<Device>(m, "Device", "An opened OpenCL device (its own context, queue, buffers and kernels).")
      .def_property_readonly("info", [](const Device& d) { return info_dict(d.info()); })
      .def_property_readonly("choice_reason", &Device::choice_reason)
      .def("finish", [](const Device& d) {
        py::gil_scoped_release release;
        d.finish();
      })
      .def("__eq__", [](const Device& a, const py::object& b) { return py::isinstance<Device>(b) && a == b.cast<Device>(); })
      .def("__hash__", [](const Device& d) { return std::hash<const void*>()(d.state().get()); })
      .def("__str__", &Device::str)
      .def("__repr__", [](const Device& d) { return "fusecl.Device(" + d.str() + ")"; });

  m.def("devices", [] {
    py::list l;
    for (const DeviceInfo& i : fusecl::devices()) l.append(info_dict(i));
    return l;
  }, "Every OpenCL device the ICD loader knows, as dicts (open one with open_device(info['id'])).");
  m.def("open_device", [](const std::string& spec) {
    py::gil_scoped_release release;
    return open_device(spec);
  }, py::arg("spec"));
  m.def("default_device", [] {
    py::gil_scoped_release release;  // the first call opens the device
    return default_device();
  });
  py::class_<Scope>(m, "_DeviceScope")
      .def(py::init<Device>())
      .def("__enter__", &Scope::enter)
      .def("__exit__", &Scope::exit);

  m.def("eval", [](const py::args& arrays) {
    std::vector<NodePtr> nodes;
    for (auto a : arrays) {
      if (!py::isinstance<PyArray>(a))
        throw py::type_error("fusecl.eval takes fusecl arrays, not " +
                             std::string(py::str(py::type::handle_of(a).attr("__name__"))));
      nodes.push_back(a.cast<const PyArray&>().node);
    }
    py::gil_scoped_release release;
    detail::evaluate_nodes(nodes);
  }, "Evaluates the arrays (elementwise ones of one shape in one kernel); each then holds its device buffer.");
  m.def("finish", [] {
    py::gil_scoped_release release;
    finish();
  });
  m.def("kernel_source", [](const PyArray& a) { return kernel_source_of_node(a.node); });
  m.def("to_dot", [](const PyArray& a) { return to_dot_of_node(a.node); });
  m.def("set_fusion", &set_fusion);
  m.def("fusion", &fusion);
  m.def("stats", [] {
    const Stats s = stats();
    py::dict d;
    d["uploads"] = s.uploads;
    d["downloads"] = s.downloads;
    d["bytes_uploaded"] = s.bytes_uploaded;
    d["bytes_downloaded"] = s.bytes_downloaded;
    d["kernels_launched"] = s.kernels_launched;
    d["programs_built"] = s.programs_built;
    d["programs_loaded"] = s.programs_loaded;
    d["memory_cache_hits"] = s.memory_cache_hits;
    d["disk_cache_hits"] = s.disk_cache_hits;
    d["disk_cache_misses"] = s.disk_cache_misses;
    d["auto_evaluations"] = s.auto_evaluations;
    d["peak_device_bytes"] = s.peak_device_bytes;
    d["streamed_chunks"] = s.streamed_chunks;
    d["plans_reused"] = s.plans_reused;
    return d;
  });
  m.def("reset_stats", &reset_stats);
  // Tests: small chunks, so that small host views cross many chunk boundaries.
  m.def("_set_stream_chunk_bytes", [](std::size_t bytes) { return detail::set_stream_chunk_bytes(bytes); });
}

}  // namespace fusecl::py_binding
