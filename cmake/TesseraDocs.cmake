# The API reference: Doxygen over the public headers (lib/include/tessera/*.hpp) and the pages
# in docs/*.md (README.md is the main page), HTML into <build>/docs/api/html. `cmake --build build --target tessera-docs`
# builds it; it is not part of the default build. Every Doxygen warning fails (an undocumented
# public declaration, a \param naming no parameter, a broken \ref), and so does the ctest
# docs.doxygen, so CI keeps the public headers documented.
set(TESSERA_BUILD_DOCS AUTO CACHE STRING "Add the tessera-docs target and the docs.doxygen test (ON, OFF, AUTO: when doxygen is found)")
set_property(CACHE TESSERA_BUILD_DOCS PROPERTY STRINGS ON OFF AUTO)

if(NOT TESSERA_BUILD_DOCS STREQUAL "OFF")
  find_package(Doxygen QUIET)
endif()
tessera_resolve_option(TESSERA_BUILD_DOCS DOXYGEN_FOUND TESSERA_DOCS)
message(STATUS "Tessera: API reference (tessera-docs) ${TESSERA_DOCS}")

if(TESSERA_DOCS)
  set(TESSERA_DOXYFILE ${PROJECT_BINARY_DIR}/docs/Doxyfile)
  configure_file(${PROJECT_SOURCE_DIR}/docs/Doxyfile.in ${TESSERA_DOXYFILE} @ONLY)
  file(GLOB TESSERA_DOCS_INPUTS CONFIGURE_DEPENDS
       ${PROJECT_SOURCE_DIR}/lib/include/tessera/*.hpp ${PROJECT_SOURCE_DIR}/mpi/include/tessera/*.hpp
       ${PROJECT_SOURCE_DIR}/mpi/include/tessera/mpi/*.hpp ${PROJECT_SOURCE_DIR}/docs/*.md
       ${PROJECT_SOURCE_DIR}/README.md)
  add_custom_target(tessera-docs
    COMMAND Doxygen::doxygen ${TESSERA_DOXYFILE}
    WORKING_DIRECTORY ${PROJECT_BINARY_DIR}/docs
    DEPENDS ${TESSERA_DOXYFILE} ${TESSERA_DOCS_INPUTS}
    COMMENT "Doxygen: API reference in ${PROJECT_BINARY_DIR}/docs/api/html"
    VERBATIM)
  # Not in a cross build: doxygen is a build-machine program, and ctest would start it through
  # the target's emulator (qemu-aarch64), which cannot run it; the native builds check the docs.
  if(TESSERA_BUILD_TESTS AND NOT CMAKE_CROSSCOMPILING)
    # The target's command; FAIL_ON_WARNINGS in the Doxyfile makes any warning a failure.
    add_test(NAME docs.doxygen COMMAND Doxygen::doxygen ${TESSERA_DOXYFILE}
             WORKING_DIRECTORY ${PROJECT_BINARY_DIR}/docs)
    set_tests_properties(docs.doxygen PROPERTIES LABELS docs TIMEOUT 120)
  endif()
endif()
