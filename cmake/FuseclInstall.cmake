# Installs headers, the library, the tools and a CMake package so that another
# project can find_package(fusecl) and link fusecl::fusecl. The install is
# checked by the ctest install_and_build_examples (tests/CMakeTests.cmake).
include(CMakePackageConfigHelpers)

# A library built with FUSECL_SANITIZE calls into the sanitizer runtimes
# (ASan/UBSan or TSan), which only a -fsanitize link brings in (and a shared
# one must be loaded after the runtime), so every program linking it needs the
# flags too.
if(FUSECL_SANITIZER_FLAGS)
  target_link_options(fusecl INTERFACE ${FUSECL_SANITIZER_FLAGS})
endif()

# With a shared libfusecl, an installed tool (fusecl-info) must find it in
# any prefix, not only in the loader's default folders: look next door, in
# ../lib relative to the program.
if(BUILD_SHARED_LIBS)
  file(RELATIVE_PATH bin_to_lib ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_FULL_LIBDIR})
  get_property(tool_targets DIRECTORY ${PROJECT_SOURCE_DIR}/tools PROPERTY BUILDSYSTEM_TARGETS)
  foreach(tool IN LISTS tool_targets)
    get_target_property(type ${tool} TYPE)
    if(type STREQUAL "EXECUTABLE")
      set_property(TARGET ${tool} APPEND PROPERTY INSTALL_RPATH "$ORIGIN/${bin_to_lib}")
    endif()
  endforeach()
endif()

install(TARGETS fusecl EXPORT fuseclTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY include/fusecl DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT fuseclTargets NAMESPACE fusecl:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/fusecl)

# fuseclConfig.cmake looks up only what the installed target refers to:
# OpenCL::OpenCL appears there (as $<LINK_ONLY:...>) only when the library is
# static, because then the consumer's link resolves fusecl's OpenCL calls.
get_target_property(FUSECL_LIBRARY_TYPE fusecl TYPE)
configure_package_config_file(cmake/fuseclConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/fuseclConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/fusecl)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/fuseclConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/fuseclConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/fuseclConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/fusecl)
