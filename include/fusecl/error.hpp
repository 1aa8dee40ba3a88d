// The exceptions fusecl throws. Every failure is one of these, with a message
// that says what went wrong and, where it helps, what to do about it.
#pragma once

#include <stdexcept>
#include <string>

namespace fusecl {

/// Any failure: an OpenCL call (named, with the error code by name), a
/// program build (with the build log and the generated source), a missing
/// device or feature, bad arguments.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Shapes that do not fit together (broadcasting, reshape, axes); the message
/// names the shapes involved.
class ShapeError : public Error {
 public:
  using Error::Error;
};

/// An axis outside an array's dimensions (NumPy's AxisError; Python's
/// module raises that).
class AxisError : public ShapeError {
 public:
  using ShapeError::ShapeError;
};

}  // namespace fusecl
