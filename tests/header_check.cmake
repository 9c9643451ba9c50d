# Every public header must compile on its own (it includes what it uses), without warnings
# under -Wall -Wextra -Wpedantic, in C++17 and C++20. One generated source per header.
file(GLOB TESSERA_PUBLIC_HEADERS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/lib/include/tessera/*.hpp)
if(NOT TESSERA_HAS_DLPACK)  # tessera/dlpack.hpp needs dlpack/dlpack.h
  list(FILTER TESSERA_PUBLIC_HEADERS EXCLUDE REGEX "/dlpack\\.hpp$")
endif()
foreach(std 17 20)
  set(sources "")
  foreach(header ${TESSERA_PUBLIC_HEADERS})
    get_filename_component(name ${header} NAME_WE)
    set(src ${CMAKE_CURRENT_BINARY_DIR}/header_check/${std}/${name}.cpp)
    file(CONFIGURE OUTPUT ${src} CONTENT "#include \"tessera/${name}.hpp\"\n")
    list(APPEND sources ${src})
  endforeach()
  add_library(tessera_header_check_cxx${std} OBJECT ${sources})
  target_include_directories(tessera_header_check_cxx${std} PRIVATE ${PROJECT_SOURCE_DIR}/lib/include)
  set_target_properties(tessera_header_check_cxx${std} PROPERTIES CXX_STANDARD ${std} CXX_EXTENSIONS OFF)
  target_compile_options(tessera_header_check_cxx${std} PRIVATE -Wall -Wextra -Wpedantic -Werror)
endforeach()
