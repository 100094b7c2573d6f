// tile-inline: splice every @jit helper into its callers.
#include "compiler/Transforms/Passes.h"

#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/InliningUtils.h"

#define DEBUG_TYPE "tile-inline"

namespace tilec {
#define GEN_PASS_DEF_TILEINLINE
#include "compiler/Transforms/Passes.h.inc"
} // namespace tilec

using namespace mlir;

namespace {
void cloneCalleeBody(OpBuilder &, Region *src, Block *inlineBlock,
                     Block *postInsertBlock, IRMapping &mapper,
                     bool shouldClone) {
  Region *into = inlineBlock->getParent();
  if (shouldClone)
    src->cloneInto(into, postInsertBlock->getIterator(), mapper);
  else
    into->getBlocks().splice(postInsertBlock->getIterator(), src->getBlocks(),
                             src->begin(), src->end());
}

struct TileInlinePass : tilec::impl::TileInlineBase<TileInlinePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    InlinerInterface interface(&getContext());

    // Inline calls to leaf functions first, so that each callee spliced in
    // is already free of calls; what cannot make progress is recursion.
    while (true) {
      SmallVector<func::CallOp> calls;
      module.walk([&](func::CallOp call) { calls.push_back(call); });
      if (calls.empty())
        break;
      bool progress = false;
      for (func::CallOp call : calls) {
        auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
        if (!callee || callee.isExternal()) {
          call.emitError("call to unknown function '")
              << call.getCallee() << "'";
          return signalPassFailure();
        }
        bool calleeIsLeaf = true;
        callee.walk([&](func::CallOp) { calleeIsLeaf = false; });
        if (!calleeIsLeaf)
          continue;
        if (failed(inlineCall(interface, cloneCalleeBody, call, callee,
                              &callee.getBody()))) {
          call.emitError("cannot inline call to '") << call.getCallee() << "'";
          return signalPassFailure();
        }
        call.erase();
        progress = true;
      }
      if (!progress) {
        calls.front().emitError("recursive call to '")
            << calls.front().getCallee() << "' cannot be inlined";
        return signalPassFailure();
      }
    }
    // Helpers are private; kernels are public and stay.
    for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
      if (func.isPrivate())
        func.erase();
  }
};
} // namespace
