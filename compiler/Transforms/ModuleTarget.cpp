#include "compiler/Transforms/Passes.h"

using namespace mlir;

std::optional<tilec::TargetInfo> tilec::getModuleTarget(ModuleOp module,
                                                        StringRef pass) {
  std::string error;
  std::optional<TargetInfo> target =
      TargetInfo::parse(tilegpu::getTarget(module), error);
  if (!target)
    module.emitError() << pass << " needs the module's tilegpu.target: " << error;
  return target;
}
