// Shared pieces of the Python binding: the type-erased array, dtype and
// operand conversion. Each .cpp file here registers one group of functions.
//
// fusecl::Array<T> fixes its dtype at compile time; a Python array's dtype is
// known only at run time. PyArray therefore holds the graph node that every
// Array<T> wraps (detail::NodePtr) and calls the same non-template graph
// builders the templates forward to (array.hpp, reduce.hpp, views.hpp,
// generate.hpp), with the dtype rules evaluated at run time by the very
// constexpr functions the templates use (dtype.hpp, result_type.hpp). So a
// Python expression and the same C++ expression build the same graph.
#pragma once

#include <fusecl/fusecl.hpp>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <vector>

namespace fusecl::py_binding {

namespace py = pybind11;
using detail::NodePtr;

/// fusecl.Array: one node of the lazy graph, of any dtype.
struct PyArray {
  NodePtr node;
  DType dtype() const { return detail::node_dtype(node); }
  const Shape& shape() const { return detail::node_shape(node); }
};

// ---- dtypes (dtypes.cpp) ----
/// NumPy's dtype for d.
py::dtype to_numpy_dtype(DType d);
/// fusecl's dtype for anything np.dtype() accepts; TypeError (saying what to
/// do instead) for float16, complex, strings, objects, datetimes.
DType from_numpy_dtype(const py::handle& dtype_like);

// ---- operands (operand.cpp) ----
/// What a replay checks of a stand-in's number before it fills the slot.
enum class SlotCheck : std::uint8_t {
  None,
  InRange,      // an int compared with an integer array, clipping one, or alone (int64): out of the slot's range, the function runs instead
  NonNegative,  // an integer power's exponent: a negative one raises ValueError, as NumPy
};

/// A Python operand of an operation: an array (strong), a NumPy scalar
/// (strong, NEP 50) or a Python bool/int/float (weak).
struct Operand {
  NodePtr node;              // arrays and NumPy scalars
  DType dtype = DType::Bool; // its dtype; for a weak scalar the dtype it would have alone
  bool strong = true;
  WeakKind weak = WeakKind::Int;
  py::object value;          // a weak scalar's Python value
  py::object stand_in;       // the stand-in it came from, if of the trace running now (scalar_args.cpp)
  SlotCheck check = SlotCheck::None;  // a live stand-in's, for its slot
};
/// Interprets x; nullopt when x is of no type an operation accepts (the
/// operator then returns NotImplemented). ndarrays and lists are uploaded.
std::optional<Operand> to_operand(const py::handle& x);
/// The operand as a node of dtype d: a weak scalar becomes a kernel argument
/// of dtype d (OverflowError when a Python int does not fit, as NumPy 2).
NodePtr operand_node(const Operand& x, DType d);
/// NumPy 2's result dtype of operands (arrays first, weak scalars against them).
DType common_dtype(const std::vector<const Operand*>& xs);
/// The bits of a Python scalar converted to dtype d (make_scalar's argument).
std::uint64_t scalar_bits(const py::handle& value, DType d);
/// Whether x is a NumPy scalar (np.generic).
bool is_numpy_scalar(const py::handle& x);
/// Whether the Python int `value` is within the integer dtype d's range.
bool int_fits(const py::handle& value, DType d);
/// Whether the Python number `value` is below 0.
bool is_negative(const py::handle& value);
/// ValueError where `value`, an integer power's exponent, is negative (NumPy's).
void check_exponent(const py::handle& value);
/// x as an array (asarray for anything else).
PyArray as_array(const py::handle& x);

// ---- Python numbers passed to fused functions (scalar_args.cpp) ----
/// Whether x is a stand-in for a fused function's Python number (fusecl.fused.ScalarArg).
bool is_stand_in(const py::handle& x);
/// A stand-in's number now; `pin` first tells its trace that the number is
/// used as a Python value, so the function is planned per value of it.
py::object stand_in_value(const py::handle& x, bool pin);
/// Whether x is a stand-in of the trace running now on this thread.
bool stand_in_live(const py::handle& x);
/// A scalar slot of dtype d holding the live stand-in x's number, which each
/// replay computes again from its call's numbers, after `check`.
NodePtr stand_in_node(const py::handle& x, DType d, SlotCheck check = SlotCheck::None);
/// A weak scalar where no array gives it a dtype (NumPy makes it a 0-d
/// array of its default dtype): a float64 slot for a live float stand-in,
/// else uploaded.
PyArray weak_alone(const Operand& x);
/// A slot a trace made: the recorded arithmetic from the call's arguments to
/// the number (a function of the argument tuple), the slot's dtype, and the
/// Python type the number had when traced (the dtype depended on it).
struct Slot {
  py::object f;
  DType dtype;
  py::object type;
  SlotCheck check = SlotCheck::None;
};
/// While it lives, the trace `trace` (null: none) runs on this thread and its slots go to `slots`.
class LiveTrace {
 public:
  LiveTrace(PyObject* trace, std::vector<Slot>* slots);
  ~LiveTrace();
  LiveTrace(const LiveTrace&) = delete;
  LiveTrace& operator=(const LiveTrace&) = delete;

 private:
  PyObject* trace_;
  std::vector<Slot>* slots_;
};
/// The slots a trace made, as the payload its plan keeps (TraceHooks::payload).
std::shared_ptr<const void> slots_payload(std::vector<Slot>&& slots);
/// A replay's slot values from its call's arguments `args`; why the call
/// cannot replay ("" where it can): a number has another Python type than
/// when traced, or a compared int is out of its slot's range (SlotCheck).
std::string fill_slots(const void* payload, const py::tuple& args, std::vector<std::uint64_t>& bits);
void register_scalar_arg_type(const py::object& type);

// ---- shapes (operand.cpp) ----
Shape to_shape(const py::handle& shape);
py::tuple shape_tuple(const Shape& s);
/// The device argument of a creation function (None: this thread's default).
Device device_arg(const py::object& device);

// ---- host transfers (transfer.cpp) ----
PyArray upload(const py::handle& ndarray_like, const Device& dev);
/// A host view of a C-contiguous ndarray (kept alive by the view): TypeError
/// or ValueError, saying what to do, for anything it cannot view in place.
PyArray host_view(const py::handle& ndarray, const Device& dev);
py::array download(const PyArray& a);

// ---- registration ----
void register_dtypes(py::module_& m);
void register_array(py::module_& m, py::class_<PyArray>& cls);
void register_ops(py::module_& m, py::class_<PyArray>& cls);
void register_reductions(py::module_& m, py::class_<PyArray>& cls);
void register_indexing(py::module_& m, py::class_<PyArray>& cls);
void register_creation(py::module_& m);
void register_runtime(py::module_& m);
void register_fuse(py::module_& m);

}  // namespace fusecl::py_binding
