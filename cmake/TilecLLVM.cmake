# tilec_link_mlir(<target> <PUBLIC|PRIVATE> MLIR_LIBS... )
#
# Development builds link the shared libMLIR.so and libLLVM.so that Debian
# ships, whatever MLIR libraries are named: the names only matter for the
# static bundle, which links exactly those component libraries (and the
# LLVM components they need) with --gc-sections.
set(TILEC_LLVM_COMPONENTS
  Core Support IRReader BitReader BitWriter Linker Passes Analysis
  TransformUtils ipo ScalarOpts InstCombine Target MC
  NVPTXCodeGen NVPTXDesc NVPTXInfo)

function(tilec_link_mlir target scope)
  if(NOT TILEC_STATIC_LLVM)
    target_link_libraries(${target} ${scope} MLIR LLVM)
    return()
  endif()
  llvm_map_components_to_libnames(llvm_static_libs ${TILEC_LLVM_COMPONENTS})
  foreach(lib ${ARGN})
    # Debian's imported static MLIR targets name the LLVM dylib (and
    # sometimes libMLIR.so) as an interface dependency: swap those for the
    # static components so nothing shared leaks into the bundle.
    get_target_property(deps ${lib} INTERFACE_LINK_LIBRARIES)
    if(deps)
      list(REMOVE_ITEM deps LLVM MLIR)
      set_target_properties(${lib} PROPERTIES INTERFACE_LINK_LIBRARIES "${deps}")
    endif()
  endforeach()
  target_link_libraries(${target} ${scope} ${ARGN} ${llvm_static_libs})
endfunction()
