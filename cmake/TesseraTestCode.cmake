# How the test programs' own code is compiled (tessera-tests, tessera-mpi-tests,
# tessera-registry-tests). What they run and check is the library's code, which keeps the build's
# flags and sanitizers; the test code only calls it and compares.
#
# - -Og in the Release build: -O3 doubled the code generation of the doctest assertions
#   (test_bad_input.cpp 22 -> 13 s at -O1), and -Og takes a quarter off -O1's (the Release
#   build's test objects 285 -> 211 s of compile; its ctest ran 226 s at -O1 and 204 s at -Og,
#   the same within this machine's spread). -O1 in the sanitizer builds: there -Og ran the ASan
#   ctest 211 -> 339 s for 80 s less compile. Neither in cross builds: under an emulator the test
#   code's own instructions cost 10-50x, and at -O1 the QEMU stages ran 72 s longer for the 23 s
#   the compile saved.
# - Under TESSERA_SANITIZE the test code keeps AddressSanitizer (its buffers get red zones and
#   its own reads are checked) but goes without UndefinedBehaviorSanitizer and without
#   use-after-scope checks: UBSan's checks of every assertion's arithmetic and the scopes of its
#   temporaries were most of the sanitizer build's compile time (test_bad_input.cpp: 59 s with
#   both sanitizers, 34 s with ASan alone; use-after-scope was 46 -> 35 s before that). The
#   library's compiled code keeps both; what goes without UBSan is the test code and the few
#   inline functions of the public headers as the tests instantiate them (the library's own
#   calls of those keep it). -O0 would halve the compile again, but the checks then ran the
#   ASan ctest 245 -> 436 s.
function(tessera_test_code_options target)
  if(CMAKE_BUILD_TYPE MATCHES "^(Release|RelWithDebInfo)$" AND NOT CMAKE_CROSSCOMPILING)
    if(TESSERA_SANITIZE OR TESSERA_SANITIZE_THREAD)
      target_compile_options(${target} PRIVATE -O1)
    else()
      target_compile_options(${target} PRIVATE -Og)
    endif()
  endif()
  if(TESSERA_SANITIZE)
    target_compile_options(${target} PRIVATE -fno-sanitize=undefined -fno-sanitize-address-use-after-scope)
  endif()
endfunction()
