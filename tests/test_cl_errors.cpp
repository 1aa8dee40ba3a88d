#include "fusecl/error.hpp"
#include "runtime/cl.hpp"

#include <catch2/catch.hpp>

using fusecl::rt::check;
using fusecl::rt::cl_error_name;

TEST_CASE("cl_error_name names OpenCL 1.2 codes", "[cl]") {
  CHECK(cl_error_name(CL_SUCCESS) == "CL_SUCCESS");
  CHECK(cl_error_name(CL_OUT_OF_RESOURCES) == "CL_OUT_OF_RESOURCES");
  CHECK(cl_error_name(-5) == "CL_OUT_OF_RESOURCES");
  CHECK(cl_error_name(CL_BUILD_PROGRAM_FAILURE) == "CL_BUILD_PROGRAM_FAILURE");
  CHECK(cl_error_name(CL_INVALID_KERNEL_ARGS) == "CL_INVALID_KERNEL_ARGS");
  CHECK(cl_error_name(CL_MEM_OBJECT_ALLOCATION_FAILURE) == "CL_MEM_OBJECT_ALLOCATION_FAILURE");
  CHECK(cl_error_name(CL_INVALID_DEVICE_PARTITION_COUNT) == "CL_INVALID_DEVICE_PARTITION_COUNT");
}

TEST_CASE("cl_error_name names codes newer than the 1.2 headers, and extension codes", "[cl]") {
  CHECK(cl_error_name(-69) == "CL_INVALID_PIPE_SIZE");
  CHECK(cl_error_name(-72) == "CL_MAX_SIZE_RESTRICTION_EXCEEDED");
  CHECK(cl_error_name(-1001) == "CL_PLATFORM_NOT_FOUND_KHR");
}

TEST_CASE("cl_error_name gives unknown codes by number", "[cl]") {
  CHECK(cl_error_name(-1234) == "CL error -1234");
  CHECK(cl_error_name(-20) == "CL error -20");  // a gap in the numbering
  CHECK(cl_error_name(7) == "CL error 7");
}

TEST_CASE("check throws fusecl::Error naming the call and the code", "[cl]") {
  CHECK_NOTHROW(check(CL_SUCCESS, "clFinish"));
  CHECK_THROWS_MATCHES(check(CL_OUT_OF_RESOURCES, "clEnqueueNDRangeKernel"), fusecl::Error,
                       Catch::Matchers::Message("clEnqueueNDRangeKernel failed: CL_OUT_OF_RESOURCES (-5)"));
  CHECK_THROWS_MATCHES(check(-4321, "clFoo"), fusecl::Error,
                       Catch::Matchers::Message("clFoo failed: CL error -4321 (-4321)"));
}
