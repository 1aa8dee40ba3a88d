#include "codegen/spelling.hpp"

#include "fusecl/error.hpp"

#include <array>
#include <iterator>

namespace fusecl::codegen {

namespace {

// What a row's speller writes from: the rendered operands x, y, z of dtype
// `in` (for where, of the two choices; x is the bool condition) and the
// result's dtype `out`.
struct Operands {
  DType out, in;
  const std::string &x, &y, &z;
  int width;
  HelperSet& h;

  bool flt() const { return is_float(in); }
  std::string T() const { return cl_type(out, width); }
  std::string zero_in() const { return "(" + scalar_name(in) + ")(0)"; }
};

struct Spelling;
using Speller = std::string (*)(const Spelling& row, const Operands& o);

enum class Vector : std::uint8_t {
  Always,
  FloatOnly,  // no vector form on integers (integer power, gcd and lcm loop per element)
};

// One op's OpenCL C: `speller` writes it, from `text` (a built-in's name, a
// C operator, a helper's base name, or rad2deg's float64 constant) and
// `helper`: the template that floats need (extrema, spacing, nextafter, heaviside),
// or rad2deg's float32 constant.
struct Spelling {
  Op op;
  Speller speller;
  const char* text = nullptr;
  const char* helper = nullptr;
  Vector vector = Vector::Always;
};

std::string call(const std::string& f, const std::string& x) { return f + "(" + x + ")"; }
std::string call(const std::string& f, const std::string& x, const std::string& y) { return f + "(" + x + ", " + y + ")"; }

// Turns a comparison result (1/0 for scalars, -1/0 for vectors) into a bool (uchar 0/1).
std::string to_bool(const std::string& mask, int width) {
  if (width == 1) return "(uchar)(" + mask + ")";
  return "convert_" + cl_type(DType::Bool, width) + "(-(" + mask + "))";
}

// ---- spellers -------------------------------------------------------------------------

// The math functions only ever see floats (their rule computes in float);
// floor/ceil/trunc/round of integers and bool are the identity (NumPy >= 2.3).
std::string builtin(const Spelling& r, const Operands& o) {
  if (!o.flt()) return o.x;
  return op_class(r.op) == OpClass::Binary ? call(r.text, o.x, o.y) : call(r.text, o.x);
}

// sin, cos, tan: float32 vectors through the lane-wise fallback for huge
// arguments (helpers.hpp, lanewise_large_trig), everything else the built-in.
std::string trig(const Spelling& r, const Operands& o) {
  if (o.in == DType::Float32 && o.width > 1) return call(lanewise_large_trig(o.h, r.text, o.width), o.x);
  return builtin(r, o);
}

std::string power(const Spelling& r, const Operands& o) {
  if (o.in == DType::Float64 && o.width > 4) return call(split_pow(o.h, o.width), o.x, o.y);
  if (o.flt()) return call(r.text, o.x, o.y);
  return call(helper(o.h, "ipow", k_ipow, o.in, o.width), o.x, o.y);
}

// A zero the compiler cannot see through: n, the kernel's element count, is
// never negative. Compilers take the negation and the abs of a signed integer
// to be free of overflow, and then drop the sign extension of a later
// widening: NVIDIA's 580 driver widened -(-32768) of a short to 32768, and
// PoCL 3.1 abs(INT_MIN) of an int to 2^31. Subtracting from this zero keeps
// NumPy's wrap-around (tests/python/test_elementwise.py pins both).
std::string opaque_zero(const Operands& o) { return "(" + cl_type(o.in, o.width) + ")(n < 0)"; }

std::string int_negate(const Operands& o) { return int_arith("-", o.in, opaque_zero(o), o.x, o.width); }

std::string negate(const Spelling&, const Operands& o) {
  if (o.flt()) return "(-(" + o.x + "))";
  return int_negate(o);
}

std::string logical_not(const Spelling&, const Operands& o) { return to_bool("(" + o.x + ") == " + o.zero_in(), o.width); }

std::string bit_not(const Spelling&, const Operands& o) {
  if (o.in == DType::Bool) return "(" + o.T() + ")((" + o.x + ") ^ (" + o.T() + ")(1))";
  return "(" + o.T() + ")(~(" + o.x + "))";
}

std::string absolute(const Spelling&, const Operands& o) {
  if (o.flt()) return call("fabs", o.x);
  if (kind_of(o.in) == Kind::Signed)  // not abs(): see opaque_zero
    return "((" + o.x + ") < " + o.zero_in() + " ? " + int_negate(o) + " : (" + o.x + "))";
  return o.x;
}

std::string sign(const Spelling&, const Operands& o) {
  return call(helper(o.h, "sign", o.flt() ? k_sign_float : k_sign_int, o.in, o.width), o.x);
}

// isnan, isinf: integers and bool never are.
std::string float_class(const Spelling& r, const Operands& o) {
  if (o.flt()) return to_bool(call(r.text, o.x), o.width);
  return "(" + o.T() + ")(0)";
}

// isfinite: integers and bool always are.
std::string finite(const Spelling& r, const Operands& o) {
  if (o.flt()) return to_bool(call(r.text, o.x), o.width);
  return "(" + o.T() + ")(1)";
}

std::string cast(const Spelling&, const Operands& o) {
  if (o.out == DType::Bool) return to_bool("(" + o.x + ") != " + o.zero_in(), o.width);
  if (o.flt() && is_integer(o.out)) return call(float_to_int(o.h, o.out, o.in, o.width), o.x);
  return "convert_" + o.T() + "(" + o.x + ")";
}

std::string bit_op(const char* op, const Operands& o) {
  return "(" + o.T() + ")((" + o.x + ") " + op + " (" + o.y + "))";
}

std::string bitwise(const Spelling& r, const Operands& o) { return bit_op(r.text, o); }

std::string arithmetic(const Spelling& r, const Operands& o) {
  if (o.flt()) return "((" + o.x + ") " + r.text + " (" + o.y + "))";
  return int_arith(r.text, o.in, o.x, o.y, o.width);
}

// On bool, add is or and multiply is and, as in NumPy.
std::string add(const Spelling& r, const Operands& o) { return o.in == DType::Bool ? bit_op("|", o) : arithmetic(r, o); }
std::string multiply(const Spelling& r, const Operands& o) { return o.in == DType::Bool ? bit_op("&", o) : arithmetic(r, o); }

std::string floor_divide(const Spelling&, const Operands& o) {
  if (o.flt())
    return call(helper(o.h, "floordiv", k_floordiv_float, o.in, o.width, helper(o.h, "fmod", k_fmod_float, o.in, o.width)), o.x, o.y);
  return call(helper(o.h, "floordiv", kind_of(o.in) == Kind::Signed ? k_floordiv_signed : k_floordiv_unsigned, o.in, o.width), o.x,
              o.y);
}

// Integer division floors, as NumPy's // (and C++'s / on fusecl arrays).
std::string divide(const Spelling& r, const Operands& o) {
  if (o.flt()) return "((" + o.x + ") " + r.text + " (" + o.y + "))";
  return floor_divide(r, o);
}

std::string remainder(const Spelling&, const Operands& o) {
  if (o.flt()) return call(helper(o.h, "mod", k_mod_float, o.in, o.width, helper(o.h, "fmod", k_fmod_float, o.in, o.width)), o.x, o.y);
  return call(helper(o.h, "mod", kind_of(o.in) == Kind::Signed ? k_mod_signed : k_mod_unsigned, o.in, o.width), o.x, o.y);
}

std::string compare(const Spelling& r, const Operands& o) {
  return to_bool("(" + o.x + ") " + r.text + " (" + o.y + ")", o.width);
}

std::string logical(const Spelling& r, const Operands& o) {
  return to_bool("((" + o.x + ") != " + o.zero_in() + ") " + r.text + " ((" + o.y + ") != " + o.zero_in() + ")", o.width);
}

std::string shift_left(const Spelling&, const Operands& o) { return call(helper(o.h, "shl", k_shl, o.in, o.width), o.x, o.y); }

std::string shift_right(const Spelling&, const Operands& o) {
  return call(helper(o.h, "shr", kind_of(o.in) == Kind::Signed ? k_shr_signed : k_shr_unsigned, o.in, o.width), o.x, o.y);
}

// Floats go through the row's helper, which decides about NaN.
std::string extremum(const char* keep_x_if, const Spelling& r, const Operands& o) {
  if (o.flt()) return call(helper(o.h, r.text, r.helper, o.in, o.width), o.x, o.y);
  return "(((" + o.x + ") " + keep_x_if + " (" + o.y + ")) ? (" + o.x + ") : (" + o.y + "))";
}

std::string smaller(const Spelling& r, const Operands& o) { return extremum("<=", r, o); }
std::string larger(const Spelling& r, const Operands& o) { return extremum(">=", r, o); }

std::string select(const Spelling&, const Operands& o) {
  if (o.width == 1) return "((" + o.x + ") ? (" + o.y + ") : (" + o.z + "))";
  const DType mask = detail::signed_of_size(size_of(o.out));
  return "select(" + o.z + ", " + o.y + ", convert_" + cl_type(mask, o.width) + "(" + o.x + ") != (" + scalar_name(mask) + ")(0))";
}

// signbit: the float's sign bit (NaN's too); a signed integer's sign;
// never for unsigned and bool.
std::string sign_bit(const Spelling&, const Operands& o) {
  if (o.flt()) return to_bool(call("signbit", o.x), o.width);
  if (kind_of(o.in) == Kind::Signed) return to_bool("(" + o.x + ") < " + o.zero_in(), o.width);
  return "(" + o.T() + ")(0)";
}

// rad2deg, deg2rad: one product with NumPy's constant: 180/pi or pi/180
// rounded to the dtype, except float32 rad2deg, where NumPy (1.24 and 2.5
// alike) divides 180.0f by pi_f in float, one ulp below 180/pi rounded. Hex
// literals: no decimal conversion in the device compiler.
std::string scale(const Spelling& r, const Operands& o) {
  return "((" + o.x + ") * " + (o.in == DType::Float64 ? r.text : r.helper) + ")";
}

// The row's helper template on floats (spacing, nextafter, heaviside, logaddexp).
std::string float_helper(const Spelling& r, const Operands& o) {
  const std::string f = helper(o.h, r.text, r.helper, o.in, o.width);
  return op_class(r.op) == OpClass::Binary ? call(f, o.x, o.y) : call(f, o.x);
}

std::string fmod_op(const Spelling&, const Operands& o) {
  if (o.flt()) return call(helper(o.h, "fmod", k_fmod_float, o.in, o.width), o.x, o.y);
  if (kind_of(o.in) == Kind::Signed) return call(helper(o.h, "fmod", k_fmod_signed, o.in, o.width), o.x, o.y);
  return call(helper(o.h, "mod", k_mod_unsigned, o.in, o.width), o.x, o.y);  // the same for unsigned
}

// gcd, lcm: the row's template on the unsigned dtype of the operands' width
// (lcm calling gcd), wrapped for signed operands in a call on magnitudes.
std::string gcd_lcm(const Spelling& r, const Operands& o) {
  const DType u = detail::unsigned_of_size(size_of(o.in));
  std::string f = helper(o.h, "gcd", k_gcd_unsigned, u, o.width);
  if (r.op == Op::Lcm) f = helper(o.h, "lcm", k_lcm_unsigned, u, o.width, f);
  if (kind_of(o.in) == Kind::Signed) f = helper(o.h, r.text, k_magnitude_call, o.in, o.width, f);
  return call(f, o.x, o.y);
}

std::string fused_multiply_add(const Spelling&, const Operands& o) { return "fma(" + o.x + ", " + o.y + ", " + o.z + ")"; }

// ---- the table ------------------------------------------------------------------------

// {op, speller, text, helper, vector}: one row per elementwise op (op.hpp), in any order.
constexpr Spelling k_rows[] = {
    {Op::Neg, negate},
    {Op::LogicalNot, logical_not},
    {Op::BitNot, bit_not},
    {Op::Abs, absolute},
    {Op::Sqrt, builtin, "sqrt"},
    {Op::Rsqrt, builtin, "rsqrt"},
    {Op::Cbrt, builtin, "cbrt"},
    {Op::Exp, builtin, "exp"},
    {Op::Exp2, builtin, "exp2"},
    {Op::Expm1, builtin, "expm1"},
    {Op::Log, builtin, "log"},
    {Op::Log2, builtin, "log2"},
    {Op::Log10, builtin, "log10"},
    {Op::Log1p, builtin, "log1p"},
    {Op::Sin, trig, "sin"},
    {Op::Cos, trig, "cos"},
    {Op::Tan, trig, "tan"},
    {Op::Asin, builtin, "asin"},
    {Op::Acos, builtin, "acos"},
    {Op::Atan, builtin, "atan"},
    {Op::Sinh, builtin, "sinh"},
    {Op::Cosh, builtin, "cosh"},
    {Op::Tanh, builtin, "tanh"},
    {Op::Asinh, builtin, "asinh"},
    {Op::Acosh, builtin, "acosh"},
    {Op::Atanh, builtin, "atanh"},
    {Op::Floor, builtin, "floor"},
    {Op::Ceil, builtin, "ceil"},
    {Op::Round, builtin, "rint"},  // half to even, like numpy.round
    {Op::Trunc, builtin, "trunc"},
    {Op::Sign, sign},
    {Op::IsNan, float_class, "isnan"},
    {Op::IsInf, float_class, "isinf"},
    {Op::IsFinite, finite, "isfinite"},
    {Op::Fabs, builtin, "fabs"},
    {Op::Rint, builtin, "rint"},
    {Op::Signbit, sign_bit},
    {Op::Rad2Deg, scale, "0x1.ca5dc1a63c1f8p+5", "0x1.ca5dcp+5f"},  // 180/pi: double; float as NumPy
    {Op::Deg2Rad, scale, "0x1.1df46a2529d39p-6", "0x1.1df46ap-6f"},  // pi/180
    {Op::Spacing, float_helper, "spacing", k_spacing},
    {Op::Cast, cast},
    {Op::Add, add, "+"},
    {Op::Sub, arithmetic, "-"},
    {Op::Mul, multiply, "*"},
    {Op::Div, divide, "/"},
    {Op::FloorDiv, floor_divide},
    {Op::Mod, remainder},
    {Op::Eq, compare, "=="},
    {Op::Ne, compare, "!="},
    {Op::Lt, compare, "<"},
    {Op::Le, compare, "<="},
    {Op::Gt, compare, ">"},
    {Op::Ge, compare, ">="},
    {Op::LogicalAnd, logical, "&&"},
    {Op::LogicalOr, logical, "||"},
    {Op::BitAnd, bitwise, "&"},
    {Op::BitOr, bitwise, "|"},
    {Op::BitXor, bitwise, "^"},
    {Op::Shl, shift_left},
    {Op::Shr, shift_right},
    {Op::Atan2, builtin, "atan2"},
    {Op::Pow, power, "pow", nullptr, Vector::FloatOnly},
    {Op::Hypot, builtin, "hypot"},
    {Op::Fmin, smaller, "fmin", k_fmin},
    {Op::Fmax, larger, "fmax", k_fmax},
    {Op::Minimum, smaller, "minimum", k_minimum},
    {Op::Maximum, larger, "maximum", k_maximum},
    {Op::Copysign, builtin, "copysign"},
    {Op::Fmod, fmod_op},
    {Op::Nextafter, float_helper, "nextafter", k_nextafter},
    {Op::Heaviside, float_helper, "heaviside", k_heaviside},
    {Op::LogicalXor, logical, "!="},
    {Op::LogAddExp, float_helper, "logaddexp", k_logaddexp},
    {Op::LogAddExp2, float_helper, "logaddexp2", k_logaddexp2},
    {Op::Gcd, gcd_lcm, "gcd", nullptr, Vector::FloatOnly},
    {Op::Lcm, gcd_lcm, "lcm", nullptr, Vector::FloatOnly},
    {Op::Where, select},
    {Op::Fma, fused_multiply_add},
};

constexpr bool one_row_per_elementwise_op() {
  for (int i = 0; i < op_count; ++i) {
    int rows = 0;
    for (const Spelling& r : k_rows) rows += r.op == Op(i);
    if (rows != (is_elementwise(Op(i)) ? 1 : 0)) return false;
  }
  return true;
}
static_assert(one_row_per_elementwise_op(),
              "codegen/spelling.cpp: every elementwise op of op.hpp needs exactly one row in k_rows, other ops none");

// k_rows' index of each op's row, -1 for ops without one.
constexpr std::array<int, op_count> k_row_of = [] {
  std::array<int, op_count> at{};
  for (int& a : at) a = -1;
  for (int i = 0; i < int(std::size(k_rows)); ++i) at[std::size_t(k_rows[i].op)] = i;
  return at;
}();

const Spelling* row_of(Op op) {
  const int i = k_row_of[std::size_t(op)];
  return i < 0 ? nullptr : &k_rows[i];
}

}  // namespace

// Ops without a row (leaves) have nothing to vectorize.
bool vectorizable(Op op, DType in) {
  const Spelling* r = row_of(op);
  return !r || r->vector == Vector::Always || is_float(in);
}

std::string spell(Op op, DType out, DType in, const std::string& x, const std::string& y, const std::string& z,
                  int width, HelperSet& h) {
  const Spelling* r = row_of(op);
  if (!r) throw Error("internal: no OpenCL spelling for " + std::string(op_name(op)) + " on " + std::string(dtype_name(in)));
  return r->speller(*r, Operands{out, in, x, y, z, width, h});
}

}  // namespace fusecl::codegen
