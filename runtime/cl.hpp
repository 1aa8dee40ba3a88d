// The one place that includes the OpenCL headers and fixes the API version.
#pragma once

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include <string>

namespace fusecl::rt {

/// "CL_OUT_OF_RESOURCES" for -5; "CL error -1234" for codes it does not know.
std::string cl_error_name(cl_int code);

/// Throws fusecl::Error "<call> failed: <CL_NAME> (<code>)" unless code is CL_SUCCESS.
void check(cl_int code, const char* call);

}  // namespace fusecl::rt
