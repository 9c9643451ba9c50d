# Install rules: headers, libtessera (versioned SONAME), plugins in <libdir>/tessera (found by
# libtessera relative to its own location, so the prefix can be moved), the tools, an exported
# CMake package (tessera::tessera) and tessera.pc for pkg-config.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(TESSERA_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/tessera)
set(TESSERA_INSTALL_PLUGINDIR ${CMAKE_INSTALL_LIBDIR}/tessera)

target_include_directories(tessera PUBLIC $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
install(TARGETS tessera EXPORT tesseraTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/lib/include/tessera DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# Tools find libtessera next door, wherever the prefix is moved.
set(tool_rpath "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}")
foreach(tool tessera-info tessera-solve tessera-bench)
  if(TARGET ${tool})
    set_target_properties(${tool} PROPERTIES INSTALL_RPATH "${tool_rpath}")
    install(TARGETS ${tool} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  endif()
endforeach()
set(TESSERA_INSTALLED_COMPONENTS "")
foreach(plugin opencl cuda)
  if(TARGET tessera-${plugin})
    install(TARGETS tessera-${plugin} LIBRARY DESTINATION ${TESSERA_INSTALL_PLUGINDIR})
    list(APPEND TESSERA_INSTALLED_COMPONENTS ${plugin})
  endif()
endforeach()

# The distributed component: its own export set, loaded by the package only when asked for
# (find_package(tessera COMPONENTS mpi)), after MPI is found, so consumers without MPI never
# need it.
if(TARGET tessera-mpi)
  set_target_properties(tessera-mpi PROPERTIES INSTALL_RPATH "$ORIGIN")
  target_include_directories(tessera-mpi PUBLIC $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  install(TARGETS tessera-mpi EXPORT tesseraMpiTargets
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/mpi/include/tessera DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(EXPORT tesseraMpiTargets NAMESPACE tessera:: DESTINATION ${TESSERA_INSTALL_CMAKEDIR})
  if(TARGET tessera-bench-mpi)
    set_target_properties(tessera-bench-mpi PROPERTIES INSTALL_RPATH "${tool_rpath}")
    install(TARGETS tessera-bench-mpi RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  endif()
  list(APPEND TESSERA_INSTALLED_COMPONENTS mpi)
endif()

install(EXPORT tesseraTargets NAMESPACE tessera:: DESTINATION ${TESSERA_INSTALL_CMAKEDIR})
get_target_property(tessera_type tessera TYPE)
if(tessera_type STREQUAL "STATIC_LIBRARY")
  set(TESSERA_STATIC ON)
else()
  set(TESSERA_STATIC OFF)
endif()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/tesseraConfig.cmake.in
  ${PROJECT_BINARY_DIR}/tesseraConfig.cmake INSTALL_DESTINATION ${TESSERA_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/tesseraConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/tesseraConfig.cmake ${PROJECT_BINARY_DIR}/tesseraConfigVersion.cmake
  DESTINATION ${TESSERA_INSTALL_CMAKEDIR})

if(TESSERA_STATIC)
  set(TESSERA_PC_PRIVATE_LIBS "-lhwy -lz -lgomp -lpthread -ldl")
endif()
# pkg-config's ${pcfiledir} keeps the .pc relocatable: the prefix is found from the file's place.
file(RELATIVE_PATH TESSERA_PC_TO_PREFIX "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
configure_file(${PROJECT_SOURCE_DIR}/cmake/tessera.pc.in ${PROJECT_BINARY_DIR}/tessera.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/tessera.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
