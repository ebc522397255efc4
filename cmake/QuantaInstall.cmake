# cmake --install: headers (with the TableGen sources and generated .inc
# files), the libraries, the tools, the Python package and the CMake package
# (QuantaConfig.cmake, QuantaTargets.cmake) that find_package(Quanta)
# reads. examples/embedding is built against this tree by make check.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# Library target -> exported name (Quanta::<name>).
set(QUANTA_EXPORTED_LIBRARIES
  QuantaNumerics:Numerics
  QuantaRuntime:Runtime
  QuantaSupport:Support
  QuantaDialect:Dialect
  QuantaTransforms:Transforms
  QuantaOnnxImport:OnnxImport
  QuantaCodegenCommon:CodegenCommon
  QuantaCodegenCPU:CodegenCPU
  QuantaTarget:Target
  QuantaCalibration:Calibration
  QuantaPipelines:Pipelines
  QuantaAPI:API
  QuantaCAPI:CAPI)

# The umbrella target.
add_library(Quanta INTERFACE)
target_link_libraries(Quanta INTERFACE QuantaAPI)
set(QUANTA_EXPORTED_TARGETS Quanta)
set(QUANTA_EXPORTED_NAMES Quanta)
foreach(entry IN LISTS QUANTA_EXPORTED_LIBRARIES)
  string(REPLACE ":" ";" pair "${entry}")
  list(GET pair 0 target)
  list(GET pair 1 name)
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${name})
  target_include_directories(${target} INTERFACE
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  # A sanitizer build's libraries need the sanitizer runtime in every link.
  if(QUANTA_SANITIZE)
    target_link_options(${target} INTERFACE ${QUANTA_SANITIZE_LINK_OPTIONS})
  endif()
  list(APPEND QUANTA_EXPORTED_TARGETS ${target})
  list(APPEND QUANTA_EXPORTED_NAMES ${name})
endforeach()
list(JOIN QUANTA_EXPORTED_NAMES " " QUANTA_EXPORTED_NAMES)

install(TARGETS ${QUANTA_EXPORTED_TARGETS} EXPORT QuantaTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS quant-opt quant-run quant-compile quant-translate quanta
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/quanta
  ${PROJECT_SOURCE_DIR}/include/quanta-c
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h" PATTERN "*.td")
install(DIRECTORY ${PROJECT_BINARY_DIR}/include/quanta
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.inc" PATTERN "CMakeFiles" EXCLUDE)
install(DIRECTORY ${PROJECT_BINARY_DIR}/python_packages/quanta
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/python3/dist-packages)

set(QUANTA_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/quanta)
install(EXPORT QuantaTargets NAMESPACE Quanta::
  DESTINATION ${QUANTA_CMAKE_DIR})
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/QuantaConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/QuantaConfig.cmake
  INSTALL_DESTINATION ${QUANTA_CMAKE_DIR}
  PATH_VARS CMAKE_INSTALL_BINDIR CMAKE_INSTALL_INCLUDEDIR)
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/cmake/QuantaConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/QuantaConfig.cmake
  ${PROJECT_BINARY_DIR}/cmake/QuantaConfigVersion.cmake
  DESTINATION ${QUANTA_CMAKE_DIR})
