# tilec_link_mlir(<target> <PUBLIC|PRIVATE> MLIR_LIBS... )
#
# Development builds link the shared libMLIR.so and libLLVM.so that Debian
# ships, whatever MLIR libraries are named: the names only matter for the
# static bundle, which links exactly those component libraries (and the
# LLVM components they need) with --gc-sections.
set(TILEC_LLVM_COMPONENTS
  Core Support IRReader BitReader BitWriter Linker Passes Analysis
  TransformUtils ipo ScalarOpts InstCombine Target MC AsmParser
  FrontendOpenMP NVPTXCodeGen NVPTXDesc NVPTXInfo)

if(TILEC_STATIC_LLVM)
  # Debian's imported static MLIR targets name the LLVM dylib (and
  # sometimes libMLIR.so) among their interface dependencies: put the
  # static LLVM components in the dylib's place, so that nothing shared
  # leaks into the bundle and each MLIR library brings the LLVM it needs
  # after itself on the link line.
  llvm_map_components_to_libnames(TILEC_LLVM_STATIC_LIBS ${TILEC_LLVM_COMPONENTS})
  foreach(lib ${MLIR_EXPORTED_TARGETS})
    if(TARGET ${lib})
      get_target_property(type ${lib} TYPE)
      if(type STREQUAL "STATIC_LIBRARY")
        get_target_property(deps ${lib} INTERFACE_LINK_LIBRARIES)
        if(deps)
          list(FIND deps LLVM uses_llvm)
          list(REMOVE_ITEM deps LLVM MLIR)
          if(NOT uses_llvm EQUAL -1)
            list(APPEND deps ${TILEC_LLVM_STATIC_LIBS})
          endif()
          set_target_properties(${lib} PROPERTIES INTERFACE_LINK_LIBRARIES "${deps}")
        endif()
      endif()
    endif()
  endforeach()
endif()

function(tilec_link_mlir target scope)
  if(NOT TILEC_STATIC_LLVM)
    target_link_libraries(${target} ${scope} MLIR LLVM)
    return()
  endif()
  target_link_libraries(${target} ${scope} ${ARGN} ${TILEC_LLVM_STATIC_LIBS})
endfunction()
