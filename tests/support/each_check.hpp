// Checks inside loops over many rows or elements.
#pragma once

#include <catch2/catch.hpp>

/// REQUIRE(cond) for a loop's body, with msg (an INFO message) said only where
/// cond fails. Catch2 formats an INFO's message where it is declared and
/// records every passing REQUIRE: loops over rows and elements spent more in
/// them than in the kernels they checked (minutes of CI under the
/// sanitizers). This evaluates cond alone, and where it fails gives Catch2 the
/// message and the assertion, so a failure reads as before. cond is evaluated
/// again on failure: it must have no side effects.
#define REQUIRE_EACH(cond, msg) FUSECL_EACH_(REQUIRE, cond, msg)

/// CHECK(cond) for a loop's body, as REQUIRE_EACH is REQUIRE's.
#define CHECK_EACH(cond, msg) FUSECL_EACH_(CHECK, cond, msg)

#define FUSECL_EACH_(assertion, cond, msg) \
  do {                                     \
    if (!(cond)) {                         \
      INFO(msg);                           \
      assertion(cond);                     \
    }                                      \
  } while (false)
