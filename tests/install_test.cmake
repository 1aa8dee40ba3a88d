# Checks that fusecl installs as a usable CMake package, the way a user's
# project consumes it: install the build tree into a fresh prefix, build
# examples/standalone (find_package(fusecl) + fusecl::fusecl) against that
# prefix, and run one of the programs it built. Any failing step fails the test.
#
#   cmake -DBUILD_DIR=<fusecl build tree> -DSOURCE_DIR=<fusecl source tree>
#         -DWORK_DIR=<scratch folder, emptied first> -DRUN_EXAMPLE=<program>
#         [-DCONFIG=<build type>] [-DGENERATOR=<cmake generator>]
#         [-DCXX_COMPILER=<compiler>] -P install_test.cmake
#
# ctest runs it as install_and_build_examples (tests/CMakeTests.cmake).
cmake_minimum_required(VERSION 3.25)

foreach(var BUILD_DIR SOURCE_DIR WORK_DIR RUN_EXAMPLE)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "install_test.cmake: -D${var}=... is required")
  endif()
endforeach()

set(prefix ${WORK_DIR}/prefix)
set(consumer_build ${WORK_DIR}/build)

function(step what)
  message(STATUS "install test: ${what}")
  execute_process(COMMAND ${ARGN} COMMAND_ECHO STDOUT COMMAND_ERROR_IS_FATAL ANY)
endfunction()

# Start from nothing, so files left by an earlier run cannot stand in for
# files the install no longer provides.
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

set(config_args)
if(CONFIG)
  set(config_args --config ${CONFIG})
endif()
step("install ${BUILD_DIR} into ${prefix}"
     ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} ${config_args})

# Same generator and compiler as the fusecl build: the static library has to
# link with the compiler (and C++ runtime) that built it.
set(configure_args -S ${SOURCE_DIR}/examples/standalone -B ${consumer_build}
    -DCMAKE_PREFIX_PATH=${prefix})
if(GENERATOR)
  list(APPEND configure_args -G ${GENERATOR})
endif()
if(CXX_COMPILER)
  list(APPEND configure_args -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
endif()
if(CONFIG)
  list(APPEND configure_args -DCMAKE_BUILD_TYPE=${CONFIG})
endif()
step("configure examples/standalone against ${prefix}" ${CMAKE_COMMAND} ${configure_args})

# CMAKE_PREFIX_PATH is searched first, but a fusecl installed elsewhere on the
# machine could still be picked up if ours were incomplete; make sure it was ours.
file(STRINGS ${consumer_build}/CMakeCache.txt found_dir REGEX "^fusecl_DIR:")
string(REGEX REPLACE "^fusecl_DIR:[A-Z]+=" "" found_dir "${found_dir}")
cmake_path(IS_PREFIX prefix "${found_dir}" NORMALIZE found_in_prefix)
if(NOT found_in_prefix)
  message(FATAL_ERROR "install test: find_package(fusecl) used '${found_dir}', not the package installed in ${prefix}")
endif()

step("build examples/standalone" ${CMAKE_COMMAND} --build ${consumer_build} ${config_args})

# Multi-config generators put programs in a folder per configuration.
set(program ${consumer_build}/${RUN_EXAMPLE})
if(CONFIG AND NOT EXISTS ${program} AND EXISTS ${consumer_build}/${CONFIG}/${RUN_EXAMPLE})
  set(program ${consumer_build}/${CONFIG}/${RUN_EXAMPLE})
endif()
step("run ${RUN_EXAMPLE} built against the installed package" ${program})
message(STATUS "install test: passed")
