# cmake -DBINARY=path -P CheckNeeded.cmake: fails unless every shared
# library BINARY names (ELF NEEDED) is part of the C/C++ runtime.
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
  if(NOT library MATCHES "^(libc|libm|libdl|libpthread|libgcc_s|libstdc\\+\\+|libgtest|libgtest_main|ld-linux[-a-z0-9_]*)\\.so")
    message(FATAL_ERROR "${BINARY} needs ${library}, which is not the C/C++ runtime")
  endif()
  message(STATUS "needs ${library}")
endforeach()
