# The sanitizer builds (scripts/test.sh, scripts/tsan.sh): TESSERA_SANITIZE (AddressSanitizer +
# UndefinedBehaviorSanitizer) and TESSERA_SANITIZE_THREAD (ThreadSanitizer), on every target.
if(TESSERA_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
if(TESSERA_SANITIZE_THREAD)
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
endif()

# Code that keeps ASan and UBSan but goes without UBSan's alignment and null checks, which GCC
# puts on every pointer use: the Highway kernels (compiled once per SIMD target, so each check is
# emitted several times over) and the command-line tools (CLI11, a header-only parser, is
# compiled whole into each tool). The two checks were 40 % of kernels/cpu/conv.cpp's compile
# (78 -> 49 s; ASan alone 42 s) and half of a CLI11 program's (36 -> 19 s). What they would add
# there: ASan already stops at a null dereference (a SEGV report with its stack); the kernels'
# pointers are the callers' T arrays or the library's own aligned allocations, and on x86 (where
# the sanitizer builds run) a misaligned vector load of Highway's aligned kind faults. The rest of the library (plans, solvers, readers,
# the backends' host code, where byte buffers are cast to typed ones) keeps both checks.
function(tessera_lighter_ubsan target)
  if(TESSERA_SANITIZE)
    target_compile_options(${target} PRIVATE -fno-sanitize=alignment,null)
  endif()
endfunction()
