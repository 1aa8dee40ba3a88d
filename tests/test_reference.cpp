// The host reference evaluator (tests/support) against results worked out by
// hand from NumPy's documented behaviour. The op tests trust this evaluator,
// so each rule in support/reference.hpp has a case here.
#include "support/reference.hpp"
#include "support/value.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

using namespace fusecl;
using namespace fusecl::test;

namespace {

template <class T>
Value v(T x) {
  return Value(x);
}

Value bin(Op op, Value a, Value b) { return ref_binary(op, a, b, a.dtype()); }
Value bin(Op op, Value a, Value b, DType out) { return ref_binary(op, a, b, out); }
Value un(Op op, Value x) { return ref_unary(op, x, x.dtype()); }

bool is_nan(const Value& x) { return is_float(x.dtype()) && std::isnan(x.as<double>()); }

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace

TEST_CASE("Value holds each dtype and prints it", "[reference][value]") {
  CHECK(v(std::int8_t(-128)).to_string() == "int8(-128)");
  CHECK(v(std::uint64_t(18446744073709551615ull)).to_string() == "uint64(18446744073709551615)");
  CHECK(v(-0.0f).to_string() == "float32(-0)");
  CHECK(v(kNaN).to_string() == "float64(nan)");
  CHECK(v(true).to_string() == "bool(true)");
  CHECK(Value(3LL).dtype() == DType::Int64);
  CHECK(Value::of_bits(DType::Int8, 0x80) == v(std::int8_t(-128)));
  CHECK(Value::of_bits(DType::UInt16, 0x12345) == v(std::uint16_t(0x2345)));
  // Equality is exact: signed zeros differ, NaNs are equal, dtypes matter.
  CHECK(v(0.0) != v(-0.0));
  CHECK(v(kNaN) == v(-kNaN));
  CHECK(v(1.0f) != v(1.0));
}

TEST_CASE("casts follow NumPy/C conversion rules", "[reference][cast]") {
  SECTION("float to int truncates toward zero") {
    CHECK(cast(v(3.7), DType::Int32) == v(std::int32_t(3)));
    CHECK(cast(v(-3.7), DType::Int32) == v(std::int32_t(-3)));
    CHECK(cast(v(-0.5f), DType::UInt8) == v(std::uint8_t(0)));
    CHECK(cast(v(255.9), DType::UInt8) == v(std::uint8_t(255)));
  }
  SECTION("float to int of NaN, infinities and out-of-range values: NumPy 1.24 on x86-64") {
    // Every expected value below is numpy.array([x]).astype(t) on x86-64.
    using D = DType;
    auto c = [](double x, DType t) { return cast(v(x), t).int_bits(); };
    const std::uint64_t i32min = 0xffffffff80000000ull, i64min = 0x8000000000000000ull;
    for (double x : {kNaN, kInf, -kInf, 2147483648.0, -2147483649.0, 1e30, -1e30}) CHECK(c(x, D::Int32) == i32min);
    CHECK(c(2147483647.9, D::Int32) == 2147483647u);
    CHECK(c(-2147483648.9, D::Int32) == i32min);  // truncates to -2^31, which fits
    for (double x : {kNaN, kInf, -kInf, 9223372036854775808.0, -1e300}) CHECK(c(x, D::Int64) == i64min);
    CHECK(c(-9223372036854775808.0, D::Int64) == i64min);  // -2^63 fits
    CHECK(c(kNaN, D::Int8) == 0);
    CHECK(c(300.0, D::Int8) == 44);
    CHECK(c(2147483648.0, D::Int8) == 0);  // int32 minimum, wrapped
    CHECK(c(2147483647.5, D::Int8) == ~0ull);  // -1
    CHECK(c(70000.0, D::Int16) == 4464);
    CHECK(c(-1.0, D::UInt8) == 255);
    CHECK(c(65535.7, D::UInt16) == 65535);
    CHECK(c(kNaN, D::UInt32) == 0);
    CHECK(c(kInf, D::UInt32) == 0);
    CHECK(c(-1.0, D::UInt32) == 4294967295u);
    CHECK(c(4294967301.0, D::UInt32) == 5);  // 2^32 + 5
    CHECK(c(9223372036854775808.0, D::UInt32) == 0);
    CHECK(c(-2147483649.0, D::UInt32) == 2147483647u);
    CHECK(c(kNaN, D::UInt64) == i64min);
    CHECK(c(kInf, D::UInt64) == 0);
    CHECK(c(-kInf, D::UInt64) == i64min);
    CHECK(c(18446744073709551616.0, D::UInt64) == 0);  // 2^64
    CHECK(c(-1.0, D::UInt64) == ~0ull);
    CHECK(c(9223372036854775808.0, D::UInt64) == i64min);  // 2^63
    CHECK(c(18446744073709549568.0, D::UInt64) == 18446744073709549568ull);  // 2^64 - 2048
    CHECK(c(-2147483649.0, D::UInt64) == 18446744071562067967ull);
    // float32 inputs: 2^31 - 0.5 rounds to 2^31 in float32.
    CHECK(cast(v(2147483647.5f), D::Int32).int_bits() == i32min);
    CHECK(cast(v(2147483647.5f), D::Int8).int_bits() == 0);
    CHECK(cast(v(4294967301.0f), D::UInt32).int_bits() == 0);  // 2^32 in float32
    CHECK(cast(v(-kInf), D::Bool) == v(true));
    CHECK(cast(v(kNaN), D::Bool) == v(true));
  }
  SECTION("integer to integer wraps") {
    CHECK(cast(v(std::int32_t(300)), DType::Int8) == v(std::int8_t(44)));
    CHECK(cast(v(std::int16_t(-1)), DType::UInt16) == v(std::uint16_t(65535)));
    CHECK(cast(v(std::uint64_t(~0ull)), DType::Int64) == v(std::int64_t(-1)));
    CHECK(cast(v(std::int8_t(-1)), DType::UInt64) == v(std::uint64_t(~0ull)));
  }
  SECTION("to bool is nonzero, NaN is true") {
    CHECK(cast(v(kNaN), DType::Bool) == v(true));
    CHECK(cast(v(-0.0), DType::Bool) == v(false));
    CHECK(cast(v(0.5f), DType::Bool) == v(true));
    CHECK(cast(v(std::uint8_t(0)), DType::Bool) == v(false));
    CHECK(cast(v(true), DType::Float32) == v(1.0f));
  }
  SECTION("to float rounds once, to nearest even") {
    CHECK(cast(v(std::int64_t(16777217)), DType::Float32) == v(16777216.0f));
    // 2^60 + 2^36 + 1 lies just above the midpoint of two floats. Through
    // double it would first become the midpoint and then round to even (down).
    const std::int64_t x = (std::int64_t{1} << 60) + (std::int64_t{1} << 36) + 1;
    CHECK(cast(v(x), DType::Float32) == v(std::ldexp(1.0f, 60) + std::ldexp(1.0f, 37)));
    CHECK(cast(v(1e300), DType::Float32) == v(std::numeric_limits<float>::infinity()));
    CHECK(cast(v(std::uint64_t(~0ull)), DType::Float64) == v(18446744073709551616.0));
  }
  SECTION("as<T> converts with the same rules") {
    CHECK(v(-3.9).as<std::int16_t>() == -3);
    CHECK(v(std::int32_t(-1)).as<std::uint8_t>() == 255);
    CHECK(v(kNaN).as<bool>());
    CHECK(ref_unary(Op::Cast, v(2.5), DType::Int8) == v(std::int8_t(2)));
  }
}

TEST_CASE("integer division floors, and division by zero gives 0", "[reference][int]") {
  const auto i64 = [](std::int64_t x) { return v(x); };
  CHECK(bin(Op::FloorDiv, i64(-7), i64(2)) == i64(-4));
  CHECK(bin(Op::FloorDiv, i64(7), i64(-2)) == i64(-4));
  CHECK(bin(Op::FloorDiv, i64(-7), i64(-2)) == i64(3));
  CHECK(bin(Op::Div, i64(-7), i64(2)) == i64(-4));  // Div with an integer out is //
  CHECK(bin(Op::Mod, i64(-7), i64(2)) == i64(1));
  CHECK(bin(Op::Mod, i64(7), i64(-2)) == i64(-1));
  CHECK(bin(Op::Mod, i64(-7), i64(-2)) == i64(-1));
  CHECK(bin(Op::Mod, i64(6), i64(-3)) == i64(0));
  CHECK(bin(Op::FloorDiv, i64(5), i64(0)) == i64(0));
  CHECK(bin(Op::Mod, i64(5), i64(0)) == i64(0));
  CHECK(bin(Op::FloorDiv, v(std::uint8_t(5)), v(std::uint8_t(0))) == v(std::uint8_t(0)));
  CHECK(bin(Op::FloorDiv, v(std::uint8_t(250)), v(std::uint8_t(7))) == v(std::uint8_t(35)));
  // INT_MIN // -1 overflows; it wraps to INT_MIN, and INT_MIN % -1 is 0.
  CHECK(bin(Op::FloorDiv, v(std::int8_t(-128)), v(std::int8_t(-1))) == v(std::int8_t(-128)));
  CHECK(bin(Op::Mod, v(std::int8_t(-128)), v(std::int8_t(-1))) == v(std::int8_t(0)));
  const std::int64_t min64 = std::numeric_limits<std::int64_t>::min();
  CHECK(bin(Op::FloorDiv, i64(min64), i64(-1)) == i64(min64));
  CHECK(bin(Op::Mod, i64(min64), i64(-1)) == i64(0));
}

TEST_CASE("integer arithmetic wraps", "[reference][int]") {
  CHECK(bin(Op::Add, v(std::int8_t(127)), v(std::int8_t(1))) == v(std::int8_t(-128)));
  CHECK(bin(Op::Add, v(std::uint8_t(255)), v(std::uint8_t(1))) == v(std::uint8_t(0)));
  CHECK(bin(Op::Sub, v(std::uint8_t(0)), v(std::uint8_t(1))) == v(std::uint8_t(255)));
  CHECK(bin(Op::Mul, v(std::uint16_t(0xFFFF)), v(std::uint16_t(0xFFFF))) == v(std::uint16_t(1)));
  CHECK(bin(Op::Mul, v(std::int32_t(65536)), v(std::int32_t(65536))) == v(std::int32_t(0)));
  CHECK(bin(Op::Add, v(std::numeric_limits<std::int64_t>::max()), v(std::int64_t(1))) ==
        v(std::numeric_limits<std::int64_t>::min()));
  CHECK(un(Op::Neg, v(std::int8_t(-128))) == v(std::int8_t(-128)));
  CHECK(un(Op::Neg, v(std::uint8_t(1))) == v(std::uint8_t(255)));
  CHECK(un(Op::Abs, v(std::int8_t(-128))) == v(std::int8_t(-128)));
  CHECK(un(Op::Abs, v(std::int32_t(-5))) == v(std::int32_t(5)));
  CHECK(un(Op::BitNot, v(std::int8_t(0))) == v(std::int8_t(-1)));
  CHECK(un(Op::BitNot, v(std::uint8_t(0x0F))) == v(std::uint8_t(0xF0)));
  CHECK(bin(Op::BitAnd, v(std::int8_t(-1)), v(std::int8_t(0x0F))) == v(std::int8_t(15)));
  CHECK(bin(Op::Minimum, v(std::int32_t(-1)), v(std::int32_t(1))) == v(std::int32_t(-1)));
  CHECK(bin(Op::Fmax, v(std::uint32_t(7)), v(std::uint32_t(9))) == v(std::uint32_t(9)));
  CHECK(ref_ternary(Op::Fma, v(std::int8_t(16)), v(std::int8_t(16)), v(std::int8_t(1)), DType::Int8) ==
        v(std::int8_t(1)));
}

TEST_CASE("integer sign, rounding and predicates", "[reference][int]") {
  CHECK(un(Op::Sign, v(std::int16_t(-9))) == v(std::int16_t(-1)));
  CHECK(un(Op::Sign, v(std::int16_t(0))) == v(std::int16_t(0)));
  CHECK(un(Op::Sign, v(std::uint8_t(200))) == v(std::uint8_t(1)));
  for (Op op : {Op::Floor, Op::Ceil, Op::Round, Op::Trunc}) {
    CHECK(un(op, v(std::int64_t(9007199254740993))) == v(std::int64_t(9007199254740993)));  // 2^53 + 1 survives
  }
  CHECK(ref_unary(Op::IsNan, v(std::int32_t(3)), DType::Bool) == v(false));
  CHECK(ref_unary(Op::IsFinite, v(std::int32_t(3)), DType::Bool) == v(true));
  CHECK_THROWS_AS(un(Op::Sin, v(std::int32_t(1))), std::invalid_argument);
  CHECK_THROWS_AS(un(Op::Neg, v(true)), std::invalid_argument);
}

TEST_CASE("shifts by out-of-range counts are defined", "[reference][int]") {
  CHECK(bin(Op::Shl, v(std::int8_t(1)), v(std::int8_t(7))) == v(std::int8_t(-128)));
  CHECK(bin(Op::Shl, v(std::int8_t(1)), v(std::int8_t(8))) == v(std::int8_t(0)));
  CHECK(bin(Op::Shl, v(std::int8_t(1)), v(std::int8_t(-1))) == v(std::int8_t(0)));
  CHECK(bin(Op::Shl, v(std::int8_t(-1)), v(std::int8_t(1))) == v(std::int8_t(-2)));
  CHECK(bin(Op::Shl, v(std::uint64_t(1)), v(std::uint64_t(63))) == v(std::uint64_t(1) << 63));
  CHECK(bin(Op::Shl, v(std::uint64_t(1)), v(std::uint64_t(64))) == v(std::uint64_t(0)));
  CHECK(bin(Op::Shr, v(std::int32_t(-8)), v(std::int32_t(1))) == v(std::int32_t(-4)));  // arithmetic
  CHECK(bin(Op::Shr, v(std::int32_t(-8)), v(std::int32_t(40))) == v(std::int32_t(-1)));
  CHECK(bin(Op::Shr, v(std::int32_t(8)), v(std::int32_t(40))) == v(std::int32_t(0)));
  CHECK(bin(Op::Shr, v(std::int32_t(-1)), v(std::int32_t(-1))) == v(std::int32_t(-1)));
  CHECK(bin(Op::Shr, v(std::int32_t(5)), v(std::int32_t(-1))) == v(std::int32_t(0)));
  CHECK(bin(Op::Shr, v(std::uint8_t(128)), v(std::uint8_t(7))) == v(std::uint8_t(1)));
  CHECK(bin(Op::Shr, v(std::uint8_t(255)), v(std::uint8_t(8))) == v(std::uint8_t(0)));
  CHECK_THROWS_AS(bin(Op::Shl, v(1.0), v(1.0)), std::invalid_argument);
}

TEST_CASE("integer pow is exact with wrap", "[reference][int]") {
  const auto i64 = [](std::int64_t x) { return v(x); };
  CHECK(bin(Op::Pow, i64(2), i64(10)) == i64(1024));
  CHECK(bin(Op::Pow, i64(0), i64(0)) == i64(1));
  CHECK(bin(Op::Pow, i64(-3), i64(3)) == i64(-27));
  CHECK(bin(Op::Pow, i64(3), i64(40)) == i64(-6289078614652622815));  // 3^40 - 2^64
  CHECK(bin(Op::Pow, v(std::int8_t(2)), v(std::int8_t(7))) == v(std::int8_t(-128)));
  CHECK(bin(Op::Pow, v(std::int8_t(3)), v(std::int8_t(5))) == v(std::int8_t(-13)));  // 243 - 256
  CHECK(bin(Op::Pow, v(std::uint8_t(2)), v(std::uint8_t(8))) == v(std::uint8_t(0)));
  CHECK(bin(Op::Pow, v(std::uint32_t(3)), v(std::uint32_t(0xFFFFFFFF))) == v(std::uint32_t(0xAAAAAAAB)));
  // Negative exponents: 1/a^|b| truncated, except for bases 1 and -1.
  CHECK(bin(Op::Pow, i64(2), i64(-1)) == i64(0));
  CHECK(bin(Op::Pow, i64(1), i64(-5)) == i64(1));
  CHECK(bin(Op::Pow, i64(-1), i64(-3)) == i64(-1));
  CHECK(bin(Op::Pow, i64(-1), i64(-4)) == i64(1));
  CHECK(bin(Op::Pow, i64(0), i64(-1)) == i64(0));
}

TEST_CASE("bool arithmetic is logic", "[reference][bool]") {
  CHECK(bin(Op::Add, v(true), v(true)) == v(true));
  CHECK(bin(Op::Add, v(false), v(false)) == v(false));
  CHECK(bin(Op::Mul, v(true), v(false)) == v(false));
  CHECK(bin(Op::BitXor, v(true), v(true)) == v(false));
  CHECK(bin(Op::Maximum, v(false), v(true)) == v(true));
  CHECK(un(Op::BitNot, v(true)) == v(false));
  CHECK(ref_ternary(Op::Fma, v(true), v(false), v(true), DType::Bool) == v(true));
  CHECK_THROWS_AS(bin(Op::Sub, v(true), v(true)), std::invalid_argument);
  CHECK_THROWS_AS(bin(Op::Div, v(true), v(true)), std::invalid_argument);
}

TEST_CASE("comparisons and logic look at the promoted operands", "[reference][predicate]") {
  // int8 with uint8 promotes to int16: -1 < 255.
  CHECK(bin(Op::Lt, v(std::int8_t(-1)), v(std::uint8_t(255)), DType::Bool) == v(true));
  // uint64 with int64 promotes to float64.
  CHECK(bin(Op::Gt, v(std::uint64_t(~0ull)), v(std::int64_t(-1)), DType::Bool) == v(true));
  // float32(0.1) widened to float64 is not float64(0.1).
  CHECK(bin(Op::Eq, v(0.1f), v(0.1), DType::Bool) == v(false));
  CHECK(bin(Op::Eq, v(0.5f), v(0.5), DType::Bool) == v(true));
  CHECK(bin(Op::Eq, v(kNaN), v(kNaN), DType::Bool) == v(false));
  CHECK(bin(Op::Ne, v(kNaN), v(kNaN), DType::Bool) == v(true));
  CHECK(bin(Op::Lt, v(kNaN), v(1.0), DType::Bool) == v(false));
  CHECK(bin(Op::Ge, v(kNaN), v(1.0), DType::Bool) == v(false));
  CHECK(bin(Op::Eq, v(0.0), v(-0.0), DType::Bool) == v(true));
  CHECK(bin(Op::LogicalAnd, v(std::int32_t(2)), v(0.5), DType::Bool) == v(true));
  CHECK(bin(Op::LogicalOr, v(0.0), v(kNaN), DType::Bool) == v(true));
  CHECK(ref_unary(Op::LogicalNot, v(-0.0), DType::Bool) == v(true));
  CHECK(bin(Op::Lt, v(std::int32_t(1)), v(std::int32_t(2)), DType::Int32) == v(std::int32_t(1)));  // cast to out
  CHECK(ref_unary(Op::IsInf, v(-kInf), DType::Bool) == v(true));
  CHECK(ref_unary(Op::IsFinite, v(kNaN), DType::Bool) == v(false));
}

TEST_CASE("float floor_divide and remainder follow NumPy", "[reference][float]") {
  CHECK(bin(Op::Mod, v(-0.0), v(2.0)) == v(0.0));  // a zero remainder takes the divisor's sign
  CHECK(bin(Op::Mod, v(0.0), v(-2.0)) == v(-0.0));
  CHECK(is_nan(bin(Op::Mod, v(1.0), v(-0.0))));
  CHECK(is_nan(bin(Op::Mod, v(1.0), v(0.0))));
  CHECK(bin(Op::Mod, v(-1.0), v(3.0)) == v(2.0));
  CHECK(bin(Op::Mod, v(1.0), v(-3.0)) == v(-2.0));
  CHECK(bin(Op::Mod, v(3.0), v(-3.0)) == v(-0.0));
  CHECK(bin(Op::Mod, v(5.5), v(kInf)) == v(5.5));
  CHECK(bin(Op::Mod, v(-5.5), v(kInf)) == v(kInf));
  CHECK(is_nan(bin(Op::Mod, v(kInf), v(2.0))));
  CHECK(bin(Op::Mod, v(-7.5f), v(2.0f)) == v(0.5f));

  CHECK(bin(Op::FloorDiv, v(7.0), v(2.0)) == v(3.0));
  CHECK(bin(Op::FloorDiv, v(-7.0), v(2.0)) == v(-4.0));
  CHECK(bin(Op::FloorDiv, v(7.0), v(-2.0)) == v(-4.0));
  CHECK(bin(Op::FloorDiv, v(1.0), v(0.1)) == v(9.0));  // as Python: 0.1 is a bit above 1/10
  CHECK(bin(Op::FloorDiv, v(1.0), v(0.0)) == v(kInf));
  CHECK(bin(Op::FloorDiv, v(-1.0), v(0.0)) == v(-kInf));
  CHECK(is_nan(bin(Op::FloorDiv, v(0.0), v(0.0))));
  CHECK(bin(Op::FloorDiv, v(-0.0), v(5.0)) == v(-0.0));
  CHECK(bin(Op::FloorDiv, v(0.0), v(-5.0)) == v(-0.0));
  CHECK(bin(Op::FloorDiv, v(1.0), v(kInf)) == v(0.0));
  CHECK(bin(Op::FloorDiv, v(-1.0), v(kInf)) == v(-1.0));
  CHECK(is_nan(bin(Op::FloorDiv, v(kInf), v(1.0))));
  CHECK(bin(Op::FloorDiv, v(-7.0f), v(2.0f)) == v(-4.0f));

  // Div with a float out is true division, also for integer operands.
  CHECK(bin(Op::Div, v(std::int32_t(-7)), v(std::int32_t(2)), DType::Float64) == v(-3.5));
  CHECK(bin(Op::Div, v(1.0f), v(3.0f)) == v(1.0f / 3.0f));
}

TEST_CASE("float minimum/maximum propagate NaN, fmin/fmax ignore it", "[reference][float]") {
  CHECK(is_nan(bin(Op::Minimum, v(kNaN), v(1.0))));
  CHECK(is_nan(bin(Op::Minimum, v(1.0), v(kNaN))));
  CHECK(is_nan(bin(Op::Maximum, v(-kInf), v(kNaN))));
  CHECK(bin(Op::Minimum, v(-1.0), v(2.0)) == v(-1.0));
  CHECK(bin(Op::Maximum, v(-1.0f), v(2.0f)) == v(2.0f));
  CHECK(bin(Op::Minimum, v(-0.0), v(0.0)) == v(-0.0));  // a <= b ? a : b
  CHECK(bin(Op::Maximum, v(0.0), v(-0.0)) == v(0.0));   // a >= b ? a : b
  CHECK(bin(Op::Fmin, v(kNaN), v(1.0)) == v(1.0));
  CHECK(bin(Op::Fmax, v(1.0f), v(std::numeric_limits<float>::quiet_NaN())) == v(1.0f));
  CHECK(is_nan(bin(Op::Fmin, v(kNaN), v(kNaN))));
}

TEST_CASE("float rounding, sign and abs", "[reference][float]") {
  CHECK(un(Op::Round, v(2.5)) == v(2.0));  // half to even
  CHECK(un(Op::Round, v(3.5)) == v(4.0));
  CHECK(un(Op::Round, v(-2.5f)) == v(-2.0f));
  CHECK(un(Op::Round, v(-0.4)) == v(-0.0));
  CHECK(un(Op::Floor, v(-1.5)) == v(-2.0));
  CHECK(un(Op::Ceil, v(-0.5)) == v(-0.0));
  CHECK(un(Op::Trunc, v(-1.7f)) == v(-1.0f));
  CHECK(un(Op::Sign, v(-0.0)) == v(0.0));  // positive zero
  CHECK(un(Op::Sign, v(0.0f)) == v(0.0f));
  CHECK(un(Op::Sign, v(-3.0)) == v(-1.0));
  CHECK(un(Op::Sign, v(kInf)) == v(1.0));
  CHECK(is_nan(un(Op::Sign, v(kNaN))));
  CHECK(un(Op::Abs, v(-0.0)) == v(0.0));
  CHECK(un(Op::Neg, v(0.0f)) == v(-0.0f));
}

TEST_CASE("math functions are computed wide and rounded once", "[reference][float]") {
  CHECK(un(Op::Sqrt, v(2.0f)) == v(std::sqrt(2.0f)));
  CHECK(un(Op::Sqrt, v(2.0)) == v(std::sqrt(2.0)));
  CHECK(is_nan(un(Op::Sqrt, v(-1.0))));
  CHECK(un(Op::Rsqrt, v(4.0f)) == v(0.5f));
  CHECK(un(Op::Rsqrt, v(0.0)) == v(kInf));
  CHECK(un(Op::Exp, v(0.0)) == v(1.0));
  CHECK(un(Op::Exp, v(100.0f)) == v(std::numeric_limits<float>::infinity()));  // float32 overflows
  CHECK(un(Op::Exp, v(1.0f)) == v(2.71828183f));
  CHECK(un(Op::Log, v(0.0)) == v(-kInf));
  CHECK(un(Op::Log1p, v(-1.0)) == v(-kInf));
  CHECK(un(Op::Cbrt, v(-27.0)) == v(-3.0));
  CHECK(un(Op::Exp2, v(10.0f)) == v(1024.0f));
  CHECK(un(Op::Log10, v(1000.0)) == v(3.0));
  CHECK(un(Op::Sin, v(-0.0)) == v(-0.0));
  CHECK(un(Op::Atanh, v(1.0)) == v(kInf));
  CHECK(bin(Op::Atan2, v(0.0), v(-0.0)) == v(3.14159265358979312));
  CHECK(bin(Op::Hypot, v(3.0f), v(4.0f)) == v(5.0f));
  CHECK(bin(Op::Hypot, v(kInf), v(kNaN)) == v(kInf));
  // Integer inputs are cast to the float out first.
  CHECK(ref_unary(Op::Sqrt, v(std::int32_t(16)), DType::Float64) == v(4.0));
  // sin(float32(0.1)) rounded once from the wide result.
  CHECK(un(Op::Sin, v(0.1f)) == v(static_cast<float>(std::sin(static_cast<long double>(0.1f)))));
}

TEST_CASE("float pow follows C pow, including its special cases", "[reference][float]") {
  CHECK(bin(Op::Pow, v(2.0), v(0.5)) == v(std::sqrt(2.0)));
  CHECK(bin(Op::Pow, v(-8.0f), v(3.0f)) == v(-512.0f));
  CHECK(is_nan(bin(Op::Pow, v(-8.0), v(1.0 / 3.0))));
  CHECK(bin(Op::Pow, v(1.0), v(kNaN)) == v(1.0));
  CHECK(bin(Op::Pow, v(kNaN), v(0.0)) == v(1.0));
  CHECK(bin(Op::Pow, v(-1.0), v(kInf)) == v(1.0));
  CHECK(bin(Op::Pow, v(-0.0), v(-3.0)) == v(-kInf));
  // x87 powl gets this one wrong; the reference must not.
  CHECK(bin(Op::Pow, v(-kInf), v(-9223372036854775808.0)) == v(0.0));
  CHECK(bin(Op::Pow, v(-kInf), v(3.0)) == v(-kInf));
}

TEST_CASE("where and fma", "[reference][ternary]") {
  CHECK(ref_ternary(Op::Where, v(kNaN), v(1.0), v(2.0), DType::Float64) == v(1.0));
  CHECK(ref_ternary(Op::Where, v(std::int8_t(0)), v(1.0), v(std::int8_t(-3)), DType::Float32) == v(-3.0f));
  // fma rounds once: (1 + 2^-27)^2 - 1 keeps its 2^-54 term only without an
  // intermediate rounding of the product (float: (1 + 2^-12)^2 - 1 and 2^-24).
  const double a = 1.0 + std::ldexp(1.0, -27);
  CHECK(ref_ternary(Op::Fma, v(a), v(a), v(-1.0), DType::Float64) == v(std::ldexp(1.0, -26) + std::ldexp(1.0, -54)));
  const float f = 1.0f + std::ldexp(1.0f, -12);
  CHECK(ref_ternary(Op::Fma, v(f), v(f), v(-1.0f), DType::Float32) ==
        v(std::ldexp(1.0f, -11) + std::ldexp(1.0f, -24)));
  CHECK_THROWS_AS(ref_ternary(Op::Add, v(1.0), v(1.0), v(1.0), DType::Float64), std::invalid_argument);
}

TEST_CASE("reductions", "[reference][reduce]") {
  const std::vector<Value> ints = {v(std::int8_t(100)), v(std::int8_t(100)), v(std::int8_t(-3))};
  CHECK(ref_reduce(Op::Sum, ints, DType::Int8) == v(std::int8_t(-59)));  // 197 wraps
  CHECK(ref_reduce(Op::Sum, ints, DType::Int64) == v(std::int64_t(197)));
  CHECK(ref_reduce(Op::Prod, ints, DType::Int64) == v(std::int64_t(-30000)));
  CHECK(ref_reduce(Op::Min, ints, DType::Int8) == v(std::int8_t(-3)));
  CHECK(ref_reduce(Op::ArgMax, ints, DType::Int64) == v(std::int64_t(0)));  // first of the ties
  CHECK(ref_reduce(Op::ArgMin, ints, DType::Int64) == v(std::int64_t(2)));
  CHECK(ref_reduce(Op::Mean, ints, DType::Float64) == v(197.0 / 3.0));

  // Cancellation that a plain double sum loses entirely.
  const std::vector<Value> f = {v(1e20), v(1.0), v(-1e20), v(2.0)};
  CHECK(ref_reduce(Op::Sum, f, DType::Float64) == v(3.0));
  CHECK(ref_reduce(Op::Mean, f, DType::Float64) == v(0.75));
  CHECK(ref_reduce(Op::Sum, std::vector<Value>{v(-0.0), v(-0.0)}, DType::Float64) == v(-0.0));
  CHECK(ref_reduce(Op::Sum, std::vector<Value>{v(kInf), v(1.0)}, DType::Float64) == v(kInf));
  CHECK(is_nan(ref_reduce(Op::Sum, std::vector<Value>{v(kInf), v(-kInf)}, DType::Float64)));

  const std::vector<Value> with_nan = {v(3.0f), v(std::numeric_limits<float>::quiet_NaN()), v(-1.0f),
                                       v(std::numeric_limits<float>::quiet_NaN())};
  CHECK(is_nan(ref_reduce(Op::Max, with_nan, DType::Float32)));
  CHECK(is_nan(ref_reduce(Op::Min, with_nan, DType::Float32)));
  CHECK(ref_reduce(Op::ArgMin, with_nan, DType::Int64) == v(std::int64_t(1)));  // the first NaN
  CHECK(ref_reduce(Op::ArgMax, with_nan, DType::Int64) == v(std::int64_t(1)));

  const std::vector<Value> flags = {v(1.0), v(kNaN), v(0.0)};
  CHECK(ref_reduce(Op::All, flags, DType::Bool) == v(false));
  CHECK(ref_reduce(Op::Any, flags, DType::Bool) == v(true));
  CHECK(ref_reduce(Op::Sum, std::vector<Value>{v(true), v(true)}, DType::Int64) == v(std::int64_t(2)));

  const std::vector<Value> none;
  CHECK(ref_reduce(Op::Sum, none, DType::Float32) == v(0.0f));
  CHECK(ref_reduce(Op::Prod, none, DType::Int32) == v(std::int32_t(1)));
  CHECK(is_nan(ref_reduce(Op::Mean, none, DType::Float64)));
  CHECK(ref_reduce(Op::All, none, DType::Bool) == v(true));
  CHECK(ref_reduce(Op::Any, none, DType::Bool) == v(false));
  CHECK_THROWS_AS(ref_reduce(Op::Max, none, DType::Float64), std::invalid_argument);
  CHECK_THROWS_AS(ref_reduce(Op::ArgMin, none, DType::Int64), std::invalid_argument);
  CHECK_THROWS_AS(ref_reduce(Op::Sum, std::vector<Value>{v(1.0), v(1.0f)}, DType::Float64), std::invalid_argument);
}
