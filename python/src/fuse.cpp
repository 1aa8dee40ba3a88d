// fusecl.fuse's native half (python/fusecl/__init__.py wraps it): a plan
// cache per fused function (include/fusecl/fuse.hpp). The Python function
// runs only when a call cannot replay; a replay builds no Python objects but
// the results.
#include "binding.hpp"

namespace fusecl::py_binding {

namespace {

std::vector<NodePtr> result_nodes(const py::object& r) {
  auto bad = [&] {
    return py::type_error("a fused function must return a fusecl array or a tuple of them, not " +
                          std::string(py::str(py::type::handle_of(r).attr("__name__"))));
  };
  if (py::isinstance<PyArray>(r)) return {r.cast<const PyArray&>().node};
  if (!py::isinstance<py::tuple>(r) && !py::isinstance<py::list>(r)) throw bad();
  std::vector<NodePtr> nodes;
  for (auto x : r) {
    if (!py::isinstance<PyArray>(x)) throw bad();
    nodes.push_back(x.cast<const PyArray&>().node);
  }
  return nodes;
}

struct PyTraceCache {
  std::shared_ptr<detail::TraceCache> cache;

  // The results of fn(*args) (args: fusecl arrays), as a list of arrays.
  py::list call(const py::function& fn, const py::args& args) {
    std::vector<NodePtr> in;
    for (auto a : args) {
      if (!py::isinstance<PyArray>(a)) throw py::type_error("internal: fuse passes arrays only");
      in.push_back(a.cast<const PyArray&>().node);
    }
    // The GIL is held throughout: the function runs (when it must) on this thread.
    const std::vector<NodePtr> out = detail::call_traced(*cache, in, [&](const std::vector<NodePtr>& nodes) {
      py::tuple arrays(nodes.size());
      for (std::size_t i = 0; i < nodes.size(); ++i) arrays[i] = py::cast(PyArray{nodes[i]});
      return result_nodes(fn(*arrays));
    });
    py::list results;
    for (const auto& n : out) results.append(py::cast(PyArray{n}));
    return results;
  }

  py::dict info() const {
    const FuseInfo i = detail::trace_info(*cache);
    py::dict d;
    d["traces"] = i.traces;
    d["replays"] = i.replays;
    d["unreplayed"] = i.unreplayed;
    d["signatures"] = i.signatures;
    d["last_reason"] = i.last_reason;
    return d;
  }
};

}  // namespace

void register_fuse(py::module_& m) {
  py::class_<PyTraceCache>(m, "_TraceCache")
      .def(py::init([](std::size_t max_signatures) {
             if (max_signatures < 1) throw py::value_error("max_signatures must be at least 1");
             return PyTraceCache{detail::make_trace_cache(max_signatures)};
           }),
           py::arg("max_signatures"))
      .def("call", &PyTraceCache::call)
      .def("info", &PyTraceCache::info);
}

}  // namespace fusecl::py_binding
