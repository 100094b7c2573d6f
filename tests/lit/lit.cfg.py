# lit configuration for tilec.
import os

import lit.formats
from lit.llvm import llvm_config

config.name = "tilec"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
# .mlir: pass tests; .py: kernels run through the tilec CLI (the error
# corpus and the PTX checks).
config.suffixes = [".mlir", ".py", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tilec_obj_root, "tests", "lit")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py",
                   "Inputs"]

config.substitutions.append(("%kernels", os.path.join(config.tilec_src_root,
                                                      "kernels")))
llvm_config.use_default_substitutions()
config.substitutions.append(("%python", config.python_executable))
llvm_config.with_environment("PATH", config.tilec_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.add_tool_substitutions(["tilec-opt", "tilec", "tilec-interpret"],
                                   [config.tilec_tools_dir])

# Tests that run lowered MLIR on the CPU (mlir-runner with MLIR's C
# runner utilities, from mlir-22-tools and libmlir-22-dev).
_runner_utils = os.path.join(config.llvm_tools_dir, "..", "lib", "libmlir_c_runner_utils.so")
if os.path.exists(os.path.join(config.llvm_tools_dir, "mlir-runner")) and \
        os.path.exists(_runner_utils):
    config.available_features.add("mlir-runner")
    config.substitutions.append(("%mlir_c_runner_utils", os.path.normpath(_runner_utils)))

# PTX tests assemble what tilec emits; without ptxas they are unsupported.
if config.ptxas and os.path.exists(config.ptxas):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", config.ptxas))

# Every RUN line compiles for real: no disk cache (a hit would skip the
# front end, and with it tl.static_print output some tests check).
config.environment["TILEC_CACHE"] = "0"
