# `make install` / `cmake --install build --prefix DIR` (docs/install.md):
#
#   bin/tilec                          the CLI
#   LIBDIR/libtilec.so                 the C++ API (LLVM/MLIR found through
#                                      its RUNPATH, or linked in by the bundle)
#   include/tilec/tilec.h              its header
#   LIBDIR/cmake/tilec/                find_package(tilec): tilec::tilec,
#                                      tilec::cli, tilec_add_aot_kernels
#   share/tilec/kernels/               the shipped kernels
#   TILEC_INSTALL_PYTHONDIR/tilec/     the Python package, when built
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(TILEC_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/tilec" CACHE STRING
  "Where find_package(tilec) finds tilecConfig.cmake, relative to the prefix")
set(TILEC_INSTALL_PYTHONDIR "lib/python3/dist-packages" CACHE STRING
  "Where the Python package tilec goes, relative to the prefix")
set(TILEC_INSTALL_KERNELSDIR "${CMAKE_INSTALL_DATADIR}/tilec/kernels")

# Installed programs find libtilec.so relative to themselves, wherever the
# prefix is moved.
function(tilec_rpath_to_libdir target from)
  file(RELATIVE_PATH rel "${CMAKE_INSTALL_PREFIX}/${from}"
       "${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}")
  set_target_properties(${target} PROPERTIES INSTALL_RPATH "$ORIGIN/${rel}")
endfunction()

tilec_rpath_to_libdir(tilec "${CMAKE_INSTALL_BINDIR}")
set_target_properties(tilec PROPERTIES EXPORT_NAME cli)
set_target_properties(libtilec PROPERTIES EXPORT_NAME tilec
  # A development build's libtilec.so links Debian's libLLVM/libMLIR: keep
  # their directory in its RUNPATH once installed.
  INSTALL_RPATH_USE_LINK_PATH ON)
target_include_directories(libtilec INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)

install(TARGETS tilec libtilec EXPORT tilecTargets
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES ${PROJECT_SOURCE_DIR}/include/tilec/tilec.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tilec)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/kernels/ DESTINATION ${TILEC_INSTALL_KERNELSDIR}
  FILES_MATCHING PATTERN "*.py" PATTERN "*.json" PATTERN "__pycache__" EXCLUDE)

if(TARGET tilec-python-ext)
  # One RUNPATH for the install tree (first) and for the build tree and
  # the bundle (python/tilec next to lib/): nothing is rewritten at install
  # time.
  file(RELATIVE_PATH rel "${CMAKE_INSTALL_PREFIX}/${TILEC_INSTALL_PYTHONDIR}/tilec"
       "${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}")
  set_target_properties(tilec-python-ext PROPERTIES BUILD_WITH_INSTALL_RPATH ON
    INSTALL_RPATH "$ORIGIN/${rel};$ORIGIN/../../lib")
  install(TARGETS tilec-python-ext LIBRARY DESTINATION ${TILEC_INSTALL_PYTHONDIR}/tilec)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/tilec/ DESTINATION ${TILEC_INSTALL_PYTHONDIR}/tilec
    FILES_MATCHING PATTERN "*.py" PATTERN "*.json" PATTERN "__pycache__" EXCLUDE)
endif()

install(EXPORT tilecTargets NAMESPACE tilec:: DESTINATION ${TILEC_INSTALL_CMAKEDIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/tilecConfig.cmake.in
  ${PROJECT_BINARY_DIR}/tilecConfig.cmake
  INSTALL_DESTINATION ${TILEC_INSTALL_CMAKEDIR}
  PATH_VARS TILEC_INSTALL_KERNELSDIR CMAKE_INSTALL_INCLUDEDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/tilecConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/tilecConfig.cmake
  ${PROJECT_BINARY_DIR}/tilecConfigVersion.cmake
  ${PROJECT_SOURCE_DIR}/cmake/TilecAot.cmake
  DESTINATION ${TILEC_INSTALL_CMAKEDIR})
