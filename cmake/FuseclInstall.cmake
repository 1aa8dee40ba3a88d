# Installs headers, the library and a CMake package so that another project can
# find_package(fusecl) and link fusecl::fusecl.
include(CMakePackageConfigHelpers)
install(TARGETS fusecl EXPORT fuseclTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY include/fusecl DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT fuseclTargets NAMESPACE fusecl:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/fusecl)
configure_package_config_file(cmake/fuseclConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/fuseclConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/fusecl)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/fuseclConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/fuseclConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/fuseclConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/fusecl)
