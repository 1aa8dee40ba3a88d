# FUSECL_SANITIZE: which sanitizers the library and everything built with it
# use. It began as a boolean meaning AddressSanitizer + UBSan, and CI and
# existing build trees still pass ON, so every CMake true value keeps that
# meaning; `thread` selects ThreadSanitizer, which cannot be combined with
# AddressSanitizer in one build.
#
# Sets FUSECL_SANITIZER to none, address or thread (what the rest of the build
# tests, instead of re-parsing the option) and FUSECL_SANITIZER_FLAGS to the
# flags a program linking fusecl needs as well (cmake/FuseclInstall.cmake).
set(FUSECL_SANITIZE OFF CACHE STRING
    "Sanitizers: OFF; ON or address (AddressSanitizer + UndefinedBehaviorSanitizer); thread (ThreadSanitizer)")
set_property(CACHE FUSECL_SANITIZE PROPERTY STRINGS OFF ON address thread)

string(TOUPPER "${FUSECL_SANITIZE}" fusecl_sanitize_upper)
if(fusecl_sanitize_upper STREQUAL "THREAD")
  set(FUSECL_SANITIZER thread)
elseif(fusecl_sanitize_upper STREQUAL "ADDRESS" OR fusecl_sanitize_upper MATCHES "^(ON|1|YES|TRUE|Y)$")
  set(FUSECL_SANITIZER address)
elseif(NOT FUSECL_SANITIZE)
  set(FUSECL_SANITIZER none)
else()
  # A typo such as "adress" is a true value to if(), so it would silently mean
  # ASan; refuse it instead.
  message(FATAL_ERROR "FUSECL_SANITIZE='${FUSECL_SANITIZE}': expected OFF, ON, address or thread")
endif()

if(FUSECL_SANITIZER STREQUAL "address")
  set(FUSECL_SANITIZER_FLAGS -fsanitize=address,undefined)
  add_compile_options(${FUSECL_SANITIZER_FLAGS} -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(${FUSECL_SANITIZER_FLAGS})
elseif(FUSECL_SANITIZER STREQUAL "thread")
  set(FUSECL_SANITIZER_FLAGS -fsanitize=thread)
  # No -fno-omit-frame-pointer here: TSan's reports come from the stack the
  # instrumentation itself keeps at function entry and exit, not from unwinding.
  add_compile_options(${FUSECL_SANITIZER_FLAGS})
  add_link_options(${FUSECL_SANITIZER_FLAGS})
else()
  set(FUSECL_SANITIZER_FLAGS)
endif()
