#include "codegen/spelling.hpp"

#include "fusecl/error.hpp"

namespace fusecl::codegen {

namespace {

// Turns a comparison result (1/0 for scalars, -1/0 for vectors) into a bool (uchar 0/1).
std::string to_bool(const std::string& mask, int width) {
  if (width == 1) return "(uchar)(" + mask + ")";
  return "convert_" + cl_type(DType::Bool, width) + "(-(" + mask + "))";
}

std::string call(const std::string& f, const std::string& x) { return f + "(" + x + ")"; }
std::string call(const std::string& f, const std::string& x, const std::string& y) { return f + "(" + x + ", " + y + ")"; }

const char* builtin_name(Op op) {
  switch (op) {
    case Op::Sqrt: return "sqrt";
    case Op::Rsqrt: return "rsqrt";
    case Op::Cbrt: return "cbrt";
    case Op::Exp: return "exp";
    case Op::Exp2: return "exp2";
    case Op::Expm1: return "expm1";
    case Op::Log: return "log";
    case Op::Log2: return "log2";
    case Op::Log10: return "log10";
    case Op::Log1p: return "log1p";
    case Op::Sin: return "sin";
    case Op::Cos: return "cos";
    case Op::Tan: return "tan";
    case Op::Asin: return "asin";
    case Op::Acos: return "acos";
    case Op::Atan: return "atan";
    case Op::Sinh: return "sinh";
    case Op::Cosh: return "cosh";
    case Op::Tanh: return "tanh";
    case Op::Asinh: return "asinh";
    case Op::Acosh: return "acosh";
    case Op::Atanh: return "atanh";
    case Op::Floor: return "floor";
    case Op::Ceil: return "ceil";
    case Op::Trunc: return "trunc";
    case Op::Round: return "rint";  // half to even, like numpy.round
    case Op::Atan2: return "atan2";
    case Op::Pow: return "pow";
    case Op::Hypot: return "hypot";
    default: return nullptr;
  }
}

const char* comparison(Op op) {
  switch (op) {
    case Op::Eq: return "==";
    case Op::Ne: return "!=";
    case Op::Lt: return "<";
    case Op::Le: return "<=";
    case Op::Gt: return ">";
    case Op::Ge: return ">=";
    default: return nullptr;
  }
}

}  // namespace

bool vectorizable(Op op, DType in) { return !(op == Op::Pow && !is_float(in)); }

std::string spell(Op op, DType out, DType in, const std::string& x, const std::string& y, const std::string& z,
                  int width, HelperSet& h) {
  const std::string T = cl_type(out, width);
  const std::string S = cl_type(in, width);
  const Kind k = kind_of(in);
  const bool flt = k == Kind::Float;
  const std::string zero_in = "(" + scalar_name(in) + ")(0)";

  if (const char* cmp = comparison(op)) return to_bool("(" + x + ") " + cmp + " (" + y + ")", width);
  if (const char* b = builtin_name(op)) {
    if (op == Op::Pow && in == DType::Float64 && width > 4) return call(split_pow(h, width), x, y);
    if (flt) return op_class(op) == OpClass::Binary ? call(b, x, y) : call(b, x);
    if (op == Op::Pow) return call(helper(h, "ipow", k_ipow, in, width), x, y);
    return x;  // floor/ceil/trunc/round of integers: the identity (NumPy >= 2.3)
  }
  switch (op) {
    case Op::Neg:
      if (flt) return "(-(" + x + "))";
      return int_arith("-", in, "(" + cl_type(in, width) + ")(0)", x, width);
    case Op::LogicalNot: return to_bool("(" + x + ") == " + zero_in, width);
    case Op::BitNot:
      if (k == Kind::Bool) return "(" + T + ")((" + x + ") ^ (" + T + ")(1))";
      return "(" + T + ")(~(" + x + "))";
    case Op::Abs:
      if (flt) return call("fabs", x);
      if (k == Kind::Signed) return "as_" + T + "(abs(" + x + "))";
      return x;
    case Op::Sign:
      return call(helper(h, "sign", flt ? k_sign_float : k_sign_int, in, width), x);
    case Op::IsNan: case Op::IsInf: case Op::IsFinite:
      if (flt) return to_bool(call(op == Op::IsNan ? "isnan" : op == Op::IsInf ? "isinf" : "isfinite", x), width);
      return "(" + T + ")(" + (op == Op::IsFinite ? "1" : "0") + ")";
    case Op::Cast:
      if (out == DType::Bool) return to_bool("(" + x + ") != " + zero_in, width);
      if (flt && is_integer(out)) return call(float_to_int(h, out, in, width), x);
      return "convert_" + T + "(" + x + ")";
    case Op::Add: case Op::Sub: case Op::Mul: {
      const char* o = op == Op::Add ? "+" : op == Op::Sub ? "-" : "*";
      if (flt) return "((" + x + ") " + o + " (" + y + "))";
      if (k == Kind::Bool) return "(" + T + ")((" + x + ") " + (op == Op::Add ? "|" : "&") + " (" + y + "))";
      return int_arith(o, in, x, y, width);
    }
    case Op::Div:
      if (flt) return "((" + x + ") / (" + y + "))";
      [[fallthrough]];
    case Op::FloorDiv:
      if (flt) return call(helper(h, "floordiv", k_floordiv_float, in, width, helper(h, "fmod", k_fmod_float, in, width)), x, y);
      return call(helper(h, "floordiv", k == Kind::Signed ? k_floordiv_signed : k_floordiv_unsigned, in, width), x, y);
    case Op::Mod:
      if (flt) return call(helper(h, "mod", k_mod_float, in, width, helper(h, "fmod", k_fmod_float, in, width)), x, y);
      return call(helper(h, "mod", k == Kind::Signed ? k_mod_signed : k_mod_unsigned, in, width), x, y);
    case Op::LogicalAnd: case Op::LogicalOr:
      return to_bool("((" + x + ") != " + zero_in + ") " + (op == Op::LogicalAnd ? "&&" : "||") + " ((" + y + ") != " +
                         zero_in + ")", width);
    case Op::BitAnd: return "(" + T + ")((" + x + ") & (" + y + "))";
    case Op::BitOr: return "(" + T + ")((" + x + ") | (" + y + "))";
    case Op::BitXor: return "(" + T + ")((" + x + ") ^ (" + y + "))";
    case Op::Shl: return call(helper(h, "shl", k_shl, in, width), x, y);
    case Op::Shr:
      return call(helper(h, "shr", k == Kind::Signed ? k_shr_signed : k_shr_unsigned, in, width), x, y);
    case Op::Minimum: case Op::Maximum: case Op::Fmin: case Op::Fmax: {
      if (!flt) {
        const bool lo = op == Op::Minimum || op == Op::Fmin;
        return "(((" + x + ") " + (lo ? "<=" : ">=") + " (" + y + ")) ? (" + x + ") : (" + y + "))";
      }
      const char* tmpl = op == Op::Minimum ? k_minimum : op == Op::Maximum ? k_maximum : op == Op::Fmin ? k_fmin : k_fmax;
      const char* base = op == Op::Minimum ? "minimum" : op == Op::Maximum ? "maximum" : op == Op::Fmin ? "fmin" : "fmax";
      return call(helper(h, base, tmpl, in, width), x, y);
    }
    case Op::Where: {
      // x is the bool condition; y and z have the result type.
      if (width == 1) return "((" + x + ") ? (" + y + ") : (" + z + "))";
      const DType mask = size_of(out) == 1 ? DType::Int8 : size_of(out) == 2 ? DType::Int16 : size_of(out) == 4 ? DType::Int32 : DType::Int64;
      return "select(" + z + ", " + y + ", convert_" + cl_type(mask, width) + "(" + x + ") != (" + scalar_name(mask) + ")(0))";
    }
    case Op::Fma: return "fma(" + x + ", " + y + ", " + z + ")";
    default: break;
  }
  throw Error("internal: no OpenCL spelling for " + std::string(op_name(op)) + " on " + std::string(dtype_name(in)));
}

}  // namespace fusecl::codegen
