// Elementwise operations: Python operators (with reflected forms), every
// elementwise function of the C++ API under NumPy's name (the C++ name as an
// alias where it differs), true division, where, fma, clip and astype.
#include "binding.hpp"

#include <optional>
#include <string_view>

namespace fusecl::py_binding {

namespace {

std::string types_str(const std::vector<const Operand*>& xs) {
  std::string s = "(";
  for (std::size_t i = 0; i < xs.size(); ++i) {
    if (i) s += ", ";
    s += xs[i]->strong ? std::string(dtype_name(xs[i]->dtype))
                       : std::string(py::str(py::type::handle_of(xs[i]->value).attr("__name__")));
  }
  return s + ")";
}

[[noreturn]] void unsupported(std::string_view name, const std::vector<const Operand*>& xs) {
  throw py::type_error("ufunc '" + std::string(name) + "' not supported for the input types " + types_str(xs) +
                       " (NumPy raises TypeError here too)");
}

// NumPy needs an array among the operands to know a dtype; with only Python
// scalars, the first becomes a 0-d array of NumPy's default dtype.
void ensure_strong(Operand& x, const Operand& y) {
  if (x.strong || y.strong) return;
  PyArray a = weak_alone(x);
  x.node = a.node, x.dtype = a.dtype(), x.strong = true;
}

Operand need_operand(const py::handle& x, std::string_view name) {
  auto o = to_operand(x);
  if (!o)
    throw py::type_error("fusecl." + std::string(name) + ": unsupported operand type " +
                         std::string(py::str(py::type::handle_of(x).attr("__name__"))));
  return *o;
}

// All `value`, in the shape of the array `a`, on its device.
PyArray bools_like(const NodePtr& a, bool value) {
  return PyArray{detail::make_full(DType::Bool, std::uint64_t(value), detail::node_shape(a), detail::node_device(a))};
}

// NumPy 2 compares an integer array with a Python int outside the array's
// dtype without converting the int (its special integer comparisons): every
// element is then below it (or above it), so the result is all True or all
// False. Arithmetic with such an int raises OverflowError (operand_node).
// Null where the comparison is an ordinary one; then a traced int's slot is
// marked, so that a replay with an int out of range runs the function.
std::optional<PyArray> comparison_out_of_range(Op op, Operand& x, Operand& y) {
  Operand* w = !x.strong ? &x : !y.strong ? &y : nullptr;
  if (!w || w->weak != WeakKind::Int) return std::nullopt;
  const Operand& a = w == &x ? y : x;
  if (!is_integer(a.dtype)) return std::nullopt;  // bool arrays promote to int64 and raise, as NumPy's
  const py::object& v = w->value;  // a stand-in's number now
  if (int_fits(v, a.dtype)) {
    w->check = SlotCheck::InRange;
    return std::nullopt;
  }
  if (w->stand_in) (void)stand_in_value(w->stand_in, true);  // the graph depends on the value: planned per value
  // Any element compares with v as 0 does: 0 is within every integer dtype.
  const py::int_ zero(0);
  const py::object lhs = w == &x ? v : py::object(zero), rhs = w == &x ? py::object(zero) : v;
  static constexpr struct { Op op; int py; } ops[] = {{Op::Eq, Py_EQ}, {Op::Ne, Py_NE}, {Op::Lt, Py_LT},
                                                      {Op::Le, Py_LE}, {Op::Gt, Py_GT}, {Op::Ge, Py_GE}};
  int cmp = Py_EQ;
  for (const auto& o : ops)
    if (o.op == op) cmp = o.py;
  const int truth = PyObject_RichCompareBool(lhs.ptr(), rhs.ptr(), cmp);
  if (truth < 0) throw py::error_already_set();
  return bools_like(a.node, truth);
}

// NumPy raises ValueError for an integer power whose exponent is a negative
// scalar, unless the base is empty (an array's negative exponents give 0 in
// fusecl's kernels: README). A traced Python int is checked again on each
// replay.
void check_integer_power(const Operand& x, const py::handle& yh, Operand& y, DType p) {
  if (!is_integer(p) || (x.node && detail::node_shape(x.node).size() == 0)) return;
  if (!y.strong && y.weak == WeakKind::Int) {
    if (!int_fits(y.value, p)) return;  // OverflowError first, as NumPy converts before it computes
    if (y.stand_in) y.check = SlotCheck::NonNegative;
    check_exponent(y.value);
  } else if (is_stand_in(yh) || is_numpy_scalar(yh)) {
    // A NumPy integer scalar; traced, its value decides: planned per value.
    check_exponent(is_stand_in(yh) ? stand_in_value(yh, true) : py::object(yh.attr("item")()));
  }
}

PyArray binary_operands(Op op, Operand& x, Operand& y);

}  // namespace

py::object binary_op(Op op, const py::handle& xh, const py::handle& yh, bool operator_form) {
  auto x = to_operand(xh), y = to_operand(yh);
  if (!x || !y) {
    if (operator_form && (op == Op::Eq || op == Op::Ne) && (x || y) && (xh.is_none() || yh.is_none())) {
      // a == None is elementwise in NumPy: all False (a != None: all True).
      return py::cast(bools_like(x ? x->node : y->node, op == Op::Ne));
    }
    if (operator_form) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
    (void)need_operand(xh, op_name(op)), (void)need_operand(yh, op_name(op));
  }
  if (op == Op::Pow) {
    ensure_strong(*x, *y);
    check_integer_power(*x, yh, *y, common_dtype({&*x, &*y}));
  }
  return py::cast(binary_operands(op, *x, *y));
}

namespace {

PyArray binary_operands(Op op, Operand& x, Operand& y) {
  ensure_strong(x, y);
  const DType p = common_dtype({&x, &y});
  if (p == DType::Bool &&
      (op == Op::FloorDiv || op == Op::Mod || op == Op::Fmod || op == Op::Pow || op == Op::Shl || op == Op::Shr)) {
    // NumPy computes these on bools in int8; fusecl's C++ API refuses them.
    auto int8 = [](const Operand& o) { return detail::make_cast(operand_node(o, DType::Int8), DType::Int8); };
    return PyArray{detail::binary(op, int8(x), int8(y))};
  }
  if (!binary_supported(op, p, p)) unsupported(op_name(op), {&x, &y});
  if (is_comparison(op))
    if (auto r = comparison_out_of_range(op, x, y)) return *r;
  return PyArray{detail::binary(op, operand_node(x, p), operand_node(y, p))};
}

// NumPy 2's clip drops a Python int bound that lies beyond an integer
// array's range on the side it clips (it clips nothing there, and would not
// convert); a None bound is no bound. Each bound is maximum or minimum.
PyArray clip_op(const py::handle& ah, const py::handle& loh, const py::handle& hih) {
  if (loh.is_none() && hih.is_none()) throw py::value_error("fusecl.clip: one of the bounds must be given (both are None)");
  Operand a = need_operand(ah, "clip");
  for (const auto& [bh, op] : {std::pair{loh, Op::Maximum}, std::pair{hih, Op::Minimum}}) {
    if (bh.is_none()) continue;
    Operand b = need_operand(bh, "clip");
    if (a.strong && is_integer(a.dtype) && !b.strong && b.weak == WeakKind::Int) {
      if (!int_fits(b.value, a.dtype)) {
        if (is_negative(b.value) == (op == Op::Maximum)) {
          if (b.stand_in) (void)stand_in_value(b.stand_in, true);  // the graph depends on the value
          continue;
        }
        // Beyond the other side: OverflowError in operand_node, as NumPy's.
      } else if (b.stand_in) {
        b.check = SlotCheck::InRange;  // a replay beyond the range runs the function, which drops it
      }
    }
    PyArray r = binary_operands(op, a, b);
    a = Operand{};
    a.node = r.node, a.dtype = r.dtype();
  }
  if (!a.strong) return weak_alone(a);  // clip(2, 0, None) alone: as NumPy, a 0-d array
  return PyArray{a.node};
}

}  // namespace

py::object true_divide(const py::handle& xh, const py::handle& yh, bool operator_form) {
  auto x = to_operand(xh), y = to_operand(yh);
  if (!x || !y) {
    if (operator_form) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
    (void)need_operand(xh, "divide"), (void)need_operand(yh, "divide");
  }
  ensure_strong(*x, *y);
  // As fusecl::true_divide: integers and bool of any width divide in float64.
  const DType c = common_dtype({&*x, &*y});
  const DType f = is_float(c) ? c : DType::Float64;
  return py::cast(PyArray{detail::binary(Op::Div, detail::make_cast(operand_node(*x, c), f),
                                         detail::make_cast(operand_node(*y, c), f))});
}

// `a ** 2` with a Python 2 or 2.0 is a * a, as NumPy's ** operator does
// (its fast_scalar_power): exact where pow() is within ulps, and much cheaper.
py::object pow_operator(const py::handle& xh, const py::handle& yh) {
  // Whether the exponent is 2 decides the operation: a fused function's
  // number is planned per value here.
  if (is_stand_in(yh)) return pow_operator(xh, stand_in_value(yh, true));
  const bool two = (PyLong_CheckExact(yh.ptr()) || PyFloat_CheckExact(yh.ptr())) &&
                   PyObject_RichCompareBool(yh.ptr(), py::int_(2).ptr(), Py_EQ) == 1;
  if (!two) return binary_op(Op::Pow, xh, yh, true);
  auto x = to_operand(xh), y = to_operand(yh);
  const DType p = common_dtype({&*x, &*y});
  if (!binary_supported(Op::Pow, p, p)) unsupported("power", {&*x, &*y});
  NodePtr n = p == x->dtype ? x->node : detail::make_cast(x->node, p);
  return py::cast(PyArray{detail::binary(Op::Mul, n, n)});
}

PyArray unary_op(Op op, const py::handle& xh) {
  PyArray a = as_array(xh);
  if (!unary_supported(op, a.dtype()))
    throw py::type_error("ufunc '" + std::string(op_name(op)) + "' not supported for the input type " +
                         std::string(dtype_name(a.dtype())) + " (NumPy raises TypeError here too)");
  return PyArray{detail::unary(op, a.node)};
}

PyArray where_op(const py::handle& ch, const py::handle& xh, const py::handle& yh) {
  Operand c = need_operand(ch, "where"), x = need_operand(xh, "where"), y = need_operand(yh, "where");
  if (!c.strong && !x.strong && !y.strong) {
    PyArray a = weak_alone(c);
    c.node = a.node, c.dtype = a.dtype(), c.strong = true;
  }
  const DType p = ternary_compute(Op::Where, common_dtype({&x, &y}));
  const DType cd = c.strong ? c.dtype : DType::Bool;
  return PyArray{detail::ternary(Op::Where, operand_node(c, cd), operand_node(x, p), operand_node(y, p))};
}

PyArray fma_op(const py::handle& ah, const py::handle& bh, const py::handle& ch) {
  Operand a = need_operand(ah, "fma"), b = need_operand(bh, "fma"), c = need_operand(ch, "fma");
  ensure_strong(a, b);
  const DType p = common_dtype({&a, &b, &c});
  return PyArray{detail::ternary(Op::Fma, operand_node(a, p), operand_node(b, p), operand_node(c, p))};
}

void register_ops(py::module_& m, py::class_<PyArray>& cls) {
  // Every `fn` row of op.hpp under its NumPy name, and its C++ name as an alias.
  struct Row { Op op; std::string_view numpy, cxx, api; OpClass cls; };
#define FUSECL_PY_ROW(e, n, cls, api, cxx, rule, acc) Row{Op::e, #n, #cxx, #api, OpClass::cls},
  static constexpr Row rows[] = {FUSECL_ELEMENTWISE_OPS(FUSECL_PY_ROW)};
#undef FUSECL_PY_ROW
  for (const Row& r : rows) {
    if (r.api != "fn") continue;
    std::vector<std::string> names{std::string(r.numpy)};
    if (r.cxx != r.numpy) names.emplace_back(r.cxx);
    const Op op = r.op;
    for (const std::string& name : names) {
      if (r.cls == OpClass::Unary)
        m.def(name.c_str(), [op](const py::object& x) { return unary_op(op, x); }, py::arg("x"));
      else
        m.def(name.c_str(), [op](const py::object& x, const py::object& y) { return binary_op(op, x, y, false); },
              py::arg("x1"), py::arg("x2"));
    }
  }
  // NumPy's other names for the same functions.
  m.attr("absolute") = m.attr("abs");
  m.attr("mod") = m.attr("remainder");
  m.attr("bitwise_not") = m.attr("invert");
  m.attr("pow") = m.attr("power");
  m.attr("degrees") = m.attr("rad2deg");
  m.attr("radians") = m.attr("deg2rad");
  m.def("true_divide", [](const py::object& x, const py::object& y) { return true_divide(x, y, false); });
  m.attr("divide") = m.attr("true_divide");
  m.def("where", [](const py::object& c, const py::object& x, const py::object& y) {
    if (x.is_none() && y.is_none())
      throw py::type_error("fusecl.where(condition) alone is NumPy's nonzero, whose shape depends on the values: fusecl "
                           "has no such lazy array; use np.nonzero(condition.numpy()), or where(condition, x, y)");
    if (x.is_none() || y.is_none()) throw py::value_error("either both or neither of x and y should be given");
    return where_op(c, x, y);
  }, py::arg("condition"), py::arg("x") = py::none(), py::arg("y") = py::none());
  // divmod(x, y) is (x // y, x % y), as NumPy's.
  auto divmod = [](const py::object& x, const py::object& y, bool operator_form) -> py::object {
    py::object q = binary_op(Op::FloorDiv, x, y, operator_form);
    if (q.is(py::reinterpret_borrow<py::object>(Py_NotImplemented))) return q;
    return py::make_tuple(q, binary_op(Op::Mod, x, y, operator_form));
  };
  m.def("divmod", [divmod](const py::object& x, const py::object& y) { return divmod(x, y, false); }, py::arg("x1"),
        py::arg("x2"));
  m.def("fma", &fma_op);
  m.def("clip", &clip_op, py::arg("a"), py::arg("a_min") = py::none(), py::arg("a_max") = py::none());

  // Operators. A binary operator with an operand of no known type returns
  // NotImplemented, so Python tries the other side's, then raises TypeError.
#define FUSECL_PY_OP(PYNAME, OP)                                                                           \
  cls.def("__" PYNAME "__", [](const py::object& s, const py::object& o) { return binary_op(Op::OP, s, o, true); }); \
  cls.def("__r" PYNAME "__", [](const py::object& s, const py::object& o) { return binary_op(Op::OP, o, s, true); });
  FUSECL_PY_OP("add", Add)
  FUSECL_PY_OP("sub", Sub)
  FUSECL_PY_OP("mul", Mul)
  FUSECL_PY_OP("floordiv", FloorDiv)
  FUSECL_PY_OP("mod", Mod)
  cls.def("__pow__", [](const py::object& s, const py::object& o) { return pow_operator(s, o); });
  cls.def("__rpow__", [](const py::object& s, const py::object& o) { return binary_op(Op::Pow, o, s, true); });
  FUSECL_PY_OP("and", BitAnd)
  FUSECL_PY_OP("or", BitOr)
  FUSECL_PY_OP("xor", BitXor)
  FUSECL_PY_OP("lshift", Shl)
  FUSECL_PY_OP("rshift", Shr)
#undef FUSECL_PY_OP
  cls.def("__divmod__", [divmod](const py::object& s, const py::object& o) { return divmod(s, o, true); });
  cls.def("__rdivmod__", [divmod](const py::object& s, const py::object& o) { return divmod(o, s, true); });
  cls.def("__truediv__", [](const py::object& s, const py::object& o) { return true_divide(s, o, true); });
  cls.def("__rtruediv__", [](const py::object& s, const py::object& o) { return true_divide(o, s, true); });
#define FUSECL_PY_CMP(PYNAME, OP) \
  cls.def("__" PYNAME "__", [](const py::object& s, const py::object& o) { return binary_op(Op::OP, s, o, true); });
  FUSECL_PY_CMP("eq", Eq)
  FUSECL_PY_CMP("ne", Ne)
  FUSECL_PY_CMP("lt", Lt)
  FUSECL_PY_CMP("le", Le)
  FUSECL_PY_CMP("gt", Gt)
  FUSECL_PY_CMP("ge", Ge)
#undef FUSECL_PY_CMP
  cls.attr("__hash__") = py::none();  // == is elementwise, as on ndarrays
  cls.def("__neg__", [](const py::object& s) { return unary_op(Op::Neg, s); });
  cls.def("__pos__", [](const PyArray& s) { return s; });
  cls.def("__invert__", [](const py::object& s) { return unary_op(Op::BitNot, s); });
  cls.def("__abs__", [](const py::object& s) { return unary_op(Op::Abs, s); });
  // In-place operators would need mutable arrays; Python falls back to
  // `a = a + b` (a new lazy array), which is what fusecl does anyway.

  cls.def("astype", [](const PyArray& a, const py::object& dtype) {
    const DType d = from_numpy_dtype(dtype);
    if (d == a.dtype()) return a;
    return PyArray{detail::make_cast(a.node, d)};
  }, py::arg("dtype"));
}

}  // namespace fusecl::py_binding
