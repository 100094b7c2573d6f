# Sanitizers and fuzzing (docs/reliability.md).
#
# TILEC_SANITIZE=address,undefined instruments tilec's own code (the LLVM
# and MLIR libraries stay Debian's uninstrumented shared ones). On Linux
# AddressSanitizer includes LeakSanitizer. Every report is fatal
# (-fno-sanitize-recover=all), so a test that triggers one fails.
#
# TILEC_FUZZ=ON (clang only) also adds libFuzzer's coverage instrumentation
# to everything and builds the fuzz targets of tests/fuzz. `make test-asan`
# configures both in one build directory, so that CI builds tilec once with
# sanitizers for the tests and the fuzzers.
set(TILEC_SANITIZE "" CACHE STRING
  "Sanitizers to build with, as for -fsanitize= (e.g. address,undefined)")
option(TILEC_FUZZ "Build the libFuzzer targets of tests/fuzz (clang)" OFF)

if(TILEC_SANITIZE)
  add_compile_options(-fsanitize=${TILEC_SANITIZE} -fno-sanitize-recover=all
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${TILEC_SANITIZE})
  # The runtime a Python process must preload to load the instrumented
  # extension (executables link it themselves).
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    set(asan_runtime_name libclang_rt.asan-x86_64.so)
  else()
    set(asan_runtime_name libasan.so)
  endif()
  execute_process(
    COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=${asan_runtime_name}
    OUTPUT_VARIABLE TILEC_ASAN_RUNTIME OUTPUT_STRIP_TRAILING_WHITESPACE)
  message(STATUS "Sanitizers: ${TILEC_SANITIZE} (runtime ${TILEC_ASAN_RUNTIME})")
  # The options the tests run with (tests/sanitizers/env.cmake.in says why).
  set(TILEC_ASAN_OPTIONS "abort_on_error=1:allow_user_poisoning=0:detect_leaks=1:strict_string_checks=1:check_initialization_order=1:detect_stack_use_after_return=1")
  set(TILEC_UBSAN_OPTIONS "abort_on_error=1:print_stacktrace=1")
endif()

if(TILEC_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "TILEC_FUZZ needs clang (libFuzzer): configure with "
                        "-DCMAKE_CXX_COMPILER=clang++-22 -DCMAKE_C_COMPILER=clang-22")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link)
  add_link_options(-fsanitize=fuzzer-no-link)
endif()
