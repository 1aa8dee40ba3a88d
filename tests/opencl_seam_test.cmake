# The graph (src/) and the code generator (codegen/) must not reach OpenCL's
# API headers, not even through another header: OpenCL calls live behind
# runtime/runtime.hpp, so a second backend (Vulkan, Metal, CUDA) is a new
# runtime and dialect, not edits across the tree. Run with -DSOURCE_DIR and
# -DCXX (the compiler, asked for each file's dependencies).
file(GLOB files ${SOURCE_DIR}/src/*.cpp ${SOURCE_DIR}/src/*.hpp ${SOURCE_DIR}/codegen/*.cpp ${SOURCE_DIR}/codegen/*.hpp)
if(NOT files)
  message(FATAL_ERROR "no sources found under ${SOURCE_DIR}")
endif()
set(failures "")
foreach(f ${files})
  execute_process(COMMAND ${CXX} -std=c++20 -MM -I${SOURCE_DIR} -I${SOURCE_DIR}/include ${f}
                  OUTPUT_VARIABLE deps ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${f}: listing its includes failed: ${err}")
  endif()
  # The headers that declare OpenCL types, ours included.
  if(deps MATCHES "CL/cl|runtime/cl\\.hpp|runtime/context\\.hpp|runtime/buffer_pool\\.hpp|runtime/device_discovery\\.hpp|runtime/kernel_cache\\.hpp")
    string(APPEND failures "\n  ${f}")
  endif()
endforeach()
if(failures)
  message(FATAL_ERROR "these files reach OpenCL's headers; use runtime/runtime.hpp instead:${failures}")
endif()
