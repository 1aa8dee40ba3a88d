// Numbers passed to a fused function (fusecl.fuse): Python numbers and NumPy
// scalars. While the function is traced, each arrives as a stand-in
// (fusecl.fused.ScalarArg) that records the arithmetic done on it. Each use
// of a stand-in in an operation becomes a scalar slot of the dtype NumPy
// gives the number there (NEP 50: a Python float is float32 beside float32
// arrays, float64 alone; a NumPy scalar has its own dtype), and a replay
// fills each slot by redoing the recorded arithmetic on its call's numbers.
// Where a number is used as a Python value (a comparison, int(), an index,
// an axis), the stand-in gives its value and says so to its trace; the
// function is then planned per value of that argument (fused.py).
#include "binding.hpp"

#include <memory>

namespace fusecl::py_binding {

namespace {

py::object& stand_in_type() {
  static py::object* t = new py::object();  // never destroyed: outlives the interpreter's teardown order
  return *t;
}

using Slots = std::vector<Slot>;

// The trace running on this thread (its identity: the set of pinned
// arguments the stand-ins hold) and where its slots go.
thread_local PyObject* live_trace = nullptr;
thread_local Slots* live_slots = nullptr;

}  // namespace

void register_scalar_arg_type(const py::object& type) { stand_in_type() = type; }

bool is_stand_in(const py::handle& x) {
  return stand_in_type() && PyObject_TypeCheck(x.ptr(), reinterpret_cast<PyTypeObject*>(stand_in_type().ptr()));
}

py::object stand_in_value(const py::handle& x, bool pin) {
  if (pin) return x.attr("_pin")();
  return x.attr("_value");
}

bool stand_in_live(const py::handle& x) {
  return live_trace && live_slots && x.attr("_trace").ptr() == live_trace;
}

NodePtr stand_in_node(const py::handle& x, DType d, SlotCheck check) {
  const py::object v = x.attr("_value");
  const std::uint64_t bits = scalar_bits(v, d);
  NodePtr n = live_slots ? detail::trace_scalar(d, bits) : nullptr;
  if (!n) return detail::make_scalar(d, bits);  // no plan is being made: the number as it is
  live_slots->push_back({x.attr("_f"), d, py::type::of(v), check});
  return n;
}

PyArray weak_alone(const Operand& x) {
  // A float alone is a float64 0-d array in NumPy, whatever its value; an
  // int is int64 while it fits (then uint64, or an error): an int64 slot
  // whose replay with an int past int64 runs the function. An
  // int past int64 now is pinned and uploaded; a bool is a bool slot.
  if (x.stand_in && x.weak == WeakKind::Float) return PyArray{stand_in_node(x.stand_in, DType::Float64)};
  if (x.stand_in && x.weak == WeakKind::Bool) return PyArray{stand_in_node(x.stand_in, DType::Bool)};
  if (x.stand_in && x.weak == WeakKind::Int && int_fits(x.value, DType::Int64))
    return PyArray{stand_in_node(x.stand_in, DType::Int64, SlotCheck::InRange)};
  if (x.stand_in) (void)stand_in_value(x.stand_in, true);
  return upload(x.value, default_device());
}

LiveTrace::LiveTrace(PyObject* trace, std::vector<Slot>* slots) : trace_(live_trace), slots_(live_slots) {
  live_trace = trace;
  live_slots = trace ? slots : nullptr;
}
LiveTrace::~LiveTrace() {
  live_trace = trace_;
  live_slots = slots_;
}

std::shared_ptr<const void> slots_payload(std::vector<Slot>&& slots) {
  // Freed with the plan, which may be dropped where the GIL is not held.
  return std::shared_ptr<const void>(new Slots(std::move(slots)), [](const void* p) {
    const py::gil_scoped_acquire gil;
    delete static_cast<const Slots*>(p);
  });
}

std::string fill_slots(const void* payload, const py::tuple& args, std::vector<std::uint64_t>& bits) {
  for (const Slot& s : *static_cast<const Slots*>(payload)) {
    const py::object v = s.f(args);  // raises what the function's own arithmetic would (ZeroDivisionError...)
    if (!v.get_type().is(s.type))    // 2 ** -1 is a float: another dtype than traced
      return "a number argument now has another type than when it was traced (" +
             std::string(py::str(v.get_type().attr("__name__"))) + ", was " +
             std::string(py::str(s.type.attr("__name__"))) + ")";
    if (s.check == SlotCheck::InRange && !int_fits(v, s.dtype))
      return "a Python int is now outside the range of " + std::string(dtype_name(s.dtype)) +
             ", the dtype it had when traced (compared with an array of it, a clip bound of one, or alone as NumPy's "
             "default int)";
    bits.push_back(scalar_bits(v, s.dtype));  // OverflowError where NumPy raises it
    if (s.check == SlotCheck::NonNegative) check_exponent(v);  // after: NumPy converts first
  }
  return "";
}

}  // namespace fusecl::py_binding
