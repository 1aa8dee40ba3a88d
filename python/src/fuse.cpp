// fusecl.fuse's native half (python/fusecl/__init__.py wraps it): a plan
// cache per fused function (include/fusecl/fuse.hpp). The Python function
// runs only when a call cannot replay; a replay builds no Python objects but
// the results, and redoes the Python arithmetic on number arguments that the
// plan's scalar slots hold (scalar_args.cpp).
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

  // The results of a call, as a list of arrays. `arrays`: the call's arrays
  // (fusecl arrays), in order; `key`: signature words for its Python numbers
  // (fused.py); `args`: all its arguments, from which a replay's slots are
  // computed. body(arrays, trace) runs the function: `trace` is None, or the
  // set of the trace's pinned arguments, whose identity tells its stand-ins
  // apart; it returns (results, why no plan may be kept or "").
  py::list call(const py::function& body, const py::list& arrays, std::vector<std::uint64_t> key, const py::tuple& args) {
    std::vector<NodePtr> in;
    for (auto a : arrays) {
      if (!py::isinstance<PyArray>(a)) throw py::type_error("internal: fuse passes arrays only");
      in.push_back(a.cast<const PyArray&>().node);
    }
    detail::TraceHooks hooks;
    hooks.key = std::move(key);
    hooks.fill = [&](const void* payload, std::vector<std::uint64_t>& bits) { return fill_slots(payload, args, bits); };
    // The GIL is held throughout: the function runs (when it must) on this thread.
    const std::vector<NodePtr> out = detail::call_traced(*cache, in, [&](const std::vector<NodePtr>& nodes) {
      py::tuple given(nodes.size());
      for (std::size_t i = 0; i < nodes.size(); ++i) given[i] = py::cast(PyArray{nodes[i]});
      const bool tracing = hooks.tracing;
      const py::object trace = tracing ? py::object(py::set()) : py::object(py::none());
      std::vector<Slot> slots;
      py::tuple r;
      {
        const LiveTrace live(tracing ? trace.ptr() : nullptr, &slots);
        r = body(given, trace).cast<py::tuple>();
      }
      std::vector<NodePtr> results = result_nodes(r[0]);
      if (tracing) {
        hooks.refuse = r[1].cast<std::string>();
        hooks.payload = slots.empty() ? nullptr : slots_payload(std::move(slots));
      }
      return results;
    }, &hooks);
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
  m.def("_register_scalar_arg", &register_scalar_arg_type);
}

}  // namespace fusecl::py_binding
