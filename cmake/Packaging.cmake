# `cmake --install` and the Debian package (`cpack -G DEB` in the build directory):
#   bin/rooflinectl
#   lib/rooflinectl/librooflinectl_inject.so  the injection library of `rooflinectl profile`
#   share/rooflinectl/report-schema.json      the JSON schema of sweep reports
#   share/rooflinectl/profile-report-schema.json  the JSON schema of `profile` reports
#   share/rooflinectl/layer-report-schema.json    the JSON schema of `layer` reports (analytic and measured)
#   share/rooflinectl/model-report-schema.json    the JSON schema of `model` reports (datasheet predictions)
#   share/rooflinectl/compare-report-schema.json  the JSON schema of `compare --format json` (three layouts)
#   share/rooflinectl/configs/                sweep configs, the GPU datasheet table, model presets
#   share/doc/rooflinectl/                    README, LICENSE, THIRD-PARTY-NOTICES, docs/
# The binary keeps the CUDA toolkit's library directory in its RUNPATH, so the installed tool
# finds libcudart, libcupti and libcublas where the build found them (/usr/local/cuda-13.0/... for
# NVIDIA's packages) without an ld.so.conf entry. The build tree's binaries get the same RUNPATH
# (BUILD_WITH_INSTALL_RPATH): the build RUNPATH CMake computes for a target that links the CUDA
# driver stub ends in an empty entry ("/usr/local/cuda/lib:"), which makes the dynamic loader
# search the current directory.
include(GNUInstallDirs)

set_target_properties(rooflinectl PROPERTIES INSTALL_RPATH_USE_LINK_PATH TRUE
                                             BUILD_WITH_INSTALL_RPATH TRUE)
install(TARGETS rooflinectl RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# `profile` looks for its injection library in ../lib/rooflinectl next to bin/ (app/cmd_profile.cpp).
set_target_properties(rooflinectl_inject PROPERTIES INSTALL_RPATH_USE_LINK_PATH TRUE
                                                    BUILD_WITH_INSTALL_RPATH TRUE)
install(TARGETS rooflinectl_inject LIBRARY DESTINATION lib/rooflinectl)
install(FILES docs/report-schema.json docs/profile-report-schema.json docs/layer-report-schema.json
              docs/model-report-schema.json docs/compare-report-schema.json
        DESTINATION ${CMAKE_INSTALL_DATADIR}/rooflinectl)
install(DIRECTORY configs/ DESTINATION ${CMAKE_INSTALL_DATADIR}/rooflinectl/configs)
# docs/ keeps its place beside README.md, so that README's docs/... links resolve in the copy.
install(FILES README.md LICENSE THIRD-PARTY-NOTICES DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)

# rfl_debian_package_of(<out> <file>): the Debian package that installed `file` (dpkg-query -S),
# empty when dpkg-query is missing or no package owns it.
function(rfl_debian_package_of out file)
  set(package "")
  find_program(dpkg_query dpkg-query NO_CACHE)
  if(dpkg_query AND file)
    file(REAL_PATH "${file}" real)
    execute_process(COMMAND ${dpkg_query} -S "${real}" OUTPUT_VARIABLE owner
                    RESULT_VARIABLE result ERROR_QUIET)
    if(result EQUAL 0 AND owner MATCHES "^([^:, ]+)")
      set(package "${CMAKE_MATCH_1}")
    endif()
  endif()
  set(${out} "${package}" PARENT_SCOPE)
endfunction()

# Depends: the C/C++ runtime and the distribution's fmt library when the binary links it (its
# package name carries the soname: libfmt9 on Debian 12, libfmt8 on Ubuntu 22.04).
set(rfl_depends "libc6, libstdc++6, libgcc-s1")
get_target_property(rfl_fmt_type fmt::fmt TYPE)
if(NOT rfl_fmt_type STREQUAL "INTERFACE_LIBRARY")
  foreach(property IMPORTED_LOCATION_RELEASE IMPORTED_LOCATION_NONE IMPORTED_LOCATION_NOCONFIG
                   IMPORTED_LOCATION)
    get_target_property(rfl_fmt_file fmt::fmt ${property})
    if(rfl_fmt_file)
      break()
    endif()
  endforeach()
  rfl_debian_package_of(rfl_fmt_package "${rfl_fmt_file}")
  if(rfl_fmt_package)
    string(APPEND rfl_depends ", ${rfl_fmt_package}")
  else()
    message(STATUS "Packaging: no Debian package owns ${rfl_fmt_file}: fmt left out of Depends")
  endif()
endif()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME rooflinectl)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Roofline profiler for transformer-inference operators on NVIDIA GPUs (CUPTI counters)")
set(CPACK_PACKAGE_CONTACT "rooflinectl maintainers")
set(CPACK_RESOURCE_FILE_LICENSE ${CMAKE_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "${rfl_depends}")
# The CUDA libraries come from NVIDIA's CUDA packages, or from a toolkit installed by NVIDIA's
# runfile that no package owns (as on CI), so they are recommended by their NVIDIA package names
# rather than required: dpkg -i then installs on either (without them the loader names the
# missing library when rooflinectl starts).
string(REGEX MATCH "^[0-9]+\\.[0-9]+" rfl_cuda_major_minor "${CUDAToolkit_VERSION}")
string(REPLACE "." "-" rfl_cuda_suffix "${rfl_cuda_major_minor}")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS
    "cuda-cudart-${rfl_cuda_suffix}, cuda-cupti-${rfl_cuda_suffix}, libcublas-${rfl_cuda_suffix}")
include(CPack)
