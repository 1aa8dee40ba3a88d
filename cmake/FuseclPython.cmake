# FUSECL_BUILD_PYTHON: AUTO finds the system Python 3 with its development
# files and NumPy, and pybind11; builds the module when all are there and says
# what is missing when not. ON requires them; OFF skips the module.
#
# The interpreter is /usr/bin/python3 unless Python_EXECUTABLE says otherwise:
# the module is for the system Python, whose NumPy comes from Debian's
# python3-numpy, not for whatever `python3` a pyenv puts first on PATH.
set(FUSECL_PYTHON_ENABLED OFF)
string(TOUPPER "${FUSECL_BUILD_PYTHON}" _fusecl_py_mode)
if(_fusecl_py_mode STREQUAL "OFF" OR _fusecl_py_mode STREQUAL "FALSE" OR _fusecl_py_mode STREQUAL "0")
  message(STATUS "fusecl: Python module off (FUSECL_BUILD_PYTHON=${FUSECL_BUILD_PYTHON})")
  return()
endif()
# A sanitizer build's module would need the sanitizer's runtime loaded before
# the interpreter (LD_PRELOAD) and would report CPython's own allocations as
# leaks: the library is checked by the C++ suite there, the module in the
# plain build, and its tests say they are skipped.
if(DEFINED FUSECL_SANITIZER AND NOT FUSECL_SANITIZER STREQUAL "none")
  message(STATUS "fusecl: Python module off in this ${FUSECL_SANITIZER}-sanitizer build "
                 "(an instrumented extension cannot load into the system interpreter)")
  return()
endif()
if(NOT DEFINED Python_EXECUTABLE AND EXISTS /usr/bin/python3)
  set(Python_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "The Python the fusecl module is built for")
endif()
set(_fusecl_py_required)
if(_fusecl_py_mode STREQUAL "ON" OR _fusecl_py_mode STREQUAL "TRUE" OR _fusecl_py_mode STREQUAL "1")
  set(_fusecl_py_required REQUIRED)
endif()
find_package(Python 3.8 COMPONENTS Interpreter Development.Module NumPy ${_fusecl_py_required})
set(PYBIND11_FINDPYTHON ON)  # pybind11 uses the Python found above
find_package(pybind11 2.6 CONFIG QUIET ${_fusecl_py_required})
set(_fusecl_py_missing)
if(NOT Python_Interpreter_FOUND)
  list(APPEND _fusecl_py_missing "python3")
endif()
if(NOT Python_Development.Module_FOUND)
  list(APPEND _fusecl_py_missing "python3-dev")
endif()
if(NOT Python_NumPy_FOUND)
  list(APPEND _fusecl_py_missing "python3-numpy")
endif()
if(NOT pybind11_FOUND)
  list(APPEND _fusecl_py_missing "pybind11-dev")
endif()
if(_fusecl_py_missing)
  list(JOIN _fusecl_py_missing ", " _fusecl_py_missing)
  message(STATUS "fusecl: Python module off: missing ${_fusecl_py_missing} "
                 "(scripts/setup.sh --python installs them; FUSECL_BUILD_PYTHON=OFF silences this)")
  return()
endif()
set(FUSECL_PYTHON_ENABLED ON)
message(STATUS "fusecl: Python module for ${Python_EXECUTABLE} (${Python_VERSION}, NumPy ${Python_NumPy_VERSION}, "
               "pybind11 ${pybind11_VERSION}) in ${CMAKE_BINARY_DIR}/python")
