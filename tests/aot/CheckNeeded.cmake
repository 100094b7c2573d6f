# cmake -DBINARY=path -P CheckNeeded.cmake: fails unless every shared
# library BINARY names (ELF NEEDED) is part of the C/C++ runtime
# (glibc's libraries, libstdc++, libgcc_s).
execute_process(COMMAND readelf -d "${BINARY}" OUTPUT_VARIABLE dynamic
                RESULT_VARIABLE failed)
if(failed)
  message(FATAL_ERROR "readelf -d ${BINARY} failed")
endif()
string(REGEX MATCHALL "Shared library: \\[[^]]*\\]" needed "${dynamic}")
if(NOT needed)
  message(FATAL_ERROR "${BINARY} names no shared libraries: is it dynamic?")
endif()
foreach(entry IN LISTS needed)
  string(REGEX REPLACE "Shared library: \\[(.*)\\]" "\\1" library "${entry}")
  # glibc's parts (librt and libresolv come with a sanitizer runtime),
  # the C++ runtime, and GoogleTest for the test program.
  if(NOT library MATCHES "^(libc|libm|libdl|libpthread|librt|libresolv|libgcc_s|libstdc\\+\\+|libgtest|libgtest_main|ld-linux[-a-z0-9_]*)\\.so")
    message(FATAL_ERROR "${BINARY} needs ${library}, which is not the C/C++ runtime")
  endif()
  message(STATUS "needs ${library}")
endforeach()
