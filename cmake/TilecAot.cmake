# tilec_add_aot_kernels(<target> <name>
#   [TARGETS <chip>...]          # default: tilec aot's (sm_80 sm_86 sm_89 sm_90a)
#   [NAMESPACE <ns>]             # default: <name>
#   [NO_PTX]                     # no PTX for GPUs newer than every target
#   KERNELS <file.py> -k <kernel> -s <signature> [-D NAME=VALUE]...
#           [--num-warps N] [--num-stages S] [--maxnreg R] [--name FUNCTION]
#           [<file.py>] -k ...)
#
# Compiles kernels ahead of time with `tilec aot` (docs/aot.md) into
# <name>.h and <name>.cpp in the current binary directory, adds the source
# to <target>, puts the header on its include path and links what the
# generated code needs (libdl). The program then carries the kernels' machine
# code and needs only the CUDA driver at run time. The files are made again
# when a kernel file or the tilec CLI changes. Relative kernel files are
# taken from the current source directory.
#
# The CLI run is the target named by TILEC_AOT_CLI: tilec::cli once
# find_package(tilec) has run, `tilec` inside tilec's own build.
# TILEC_AOT_PTXAS, when set, is the ptxas it uses (else it looks for one,
# docs/aot.md). TILEC_AOT_ENV (NAME=VALUE...) is its environment: tilec's sanitizer
# build runs its instrumented CLI with the options its tests have.
function(tilec_add_aot_kernels target name)
  cmake_parse_arguments(PARSE_ARGV 2 AOT "NO_PTX" "NAMESPACE" "TARGETS;KERNELS")
  if(AOT_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "tilec_add_aot_kernels: unexpected arguments ${AOT_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT AOT_KERNELS)
    message(FATAL_ERROR "tilec_add_aot_kernels(${target} ${name}) needs KERNELS <file.py> -k ...")
  endif()
  if(NOT TILEC_AOT_CLI OR NOT TARGET ${TILEC_AOT_CLI})
    message(FATAL_ERROR "tilec_add_aot_kernels: TILEC_AOT_CLI ('${TILEC_AOT_CLI}') is not the "
                        "target of the tilec CLI (find_package(tilec) sets it)")
  endif()

  set(args)
  set(depends)
  set(after_option FALSE)
  set(after_signature FALSE)
  foreach(arg IN LISTS AOT_KERNELS)
    if(after_signature)
      # One word, so that an empty signature (constexprs only) survives
      # the command line, where an empty word would vanish.
      list(POP_BACK args)
      list(APPEND args "--signature=${arg}")
      set(after_signature FALSE)
      set(after_option FALSE)
      continue()
    endif()
    # A kernel file: any word that is not an option or an option's value.
    if(NOT after_option AND NOT arg MATCHES "^-")
      get_filename_component(arg "${arg}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
      list(APPEND depends "${arg}")
    endif()
    if(arg MATCHES "^-(s|-signature)$")
      set(after_signature TRUE)
    elseif(arg MATCHES "^-(k|D|o|-kernel|-name|-num-warps|-num-stages|-maxnreg|-targets|-namespace|-ptxas)$")
      set(after_option TRUE)
    else()
      set(after_option FALSE)
    endif()
    list(APPEND args "${arg}")
  endforeach()
  if(AOT_TARGETS)
    string(REPLACE ";" "," targets "${AOT_TARGETS}")
    list(APPEND args --targets "${targets}")
  endif()
  if(AOT_NAMESPACE)
    list(APPEND args --namespace "${AOT_NAMESPACE}")
  endif()
  if(AOT_NO_PTX)
    list(APPEND args --no-ptx)
  endif()
  if(TILEC_AOT_PTXAS)
    list(APPEND args --ptxas "${TILEC_AOT_PTXAS}")
  endif()

  set(prefix "${CMAKE_CURRENT_BINARY_DIR}/${name}")
  set(env)
  if(TILEC_AOT_ENV)
    set(env ${CMAKE_COMMAND} -E env ${TILEC_AOT_ENV})
  endif()
  add_custom_command(OUTPUT "${prefix}.h" "${prefix}.cpp"
    COMMAND ${env} $<TARGET_FILE:${TILEC_AOT_CLI}> aot ${args} -o "${prefix}"
    DEPENDS ${depends} ${TILEC_AOT_CLI}
    COMMENT "tilec aot: ${name}.h, ${name}.cpp"
    VERBATIM)
  target_sources(${target} PRIVATE "${prefix}.cpp" "${prefix}.h")
  target_include_directories(${target} PRIVATE "${CMAKE_CURRENT_BINARY_DIR}")
  target_link_libraries(${target} PRIVATE ${CMAKE_DL_LIBS})
endfunction()
