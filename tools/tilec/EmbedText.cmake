# cmake -DINPUT=file -DOUTPUT=header -DNAME=symbol -P EmbedText.cmake
# Writes a header defining `static const char NAME[]` with INPUT's text, so
# that a file kept as readable C++ in the tree can be written out by the
# CLI (AotSupport.inc, which `tilec aot` copies into what it generates).
file(READ "${INPUT}" text)
set(delimiter "tilec_embed")
string(FIND "${text}" ")${delimiter}\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains the raw-string delimiter ${delimiter}")
endif()
file(WRITE "${OUTPUT}.tmp"
  "// Generated from ${INPUT} by EmbedText.cmake: do not edit.\n"
  "#pragma once\n"
  "static const char ${NAME}[] = R\"${delimiter}(${text})${delimiter}\";\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
