// tile-inline: splice every @jit helper into its callers.
#include "compiler/Transforms/Passes.h"

#include "compiler/StackSpace.h"

#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/InliningUtils.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <functional>

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

/// The most operations a kernel may have with its helpers inlined: far
/// above any kernel written by hand (the shipped ones have a few thousand),
/// far below what takes the compiler minutes.
constexpr uint64_t kMaxInlinedOps = 200000;

struct TileInlinePass : tilec::impl::TileInlineBase<TileInlinePass> {
  /// Helpers whose ops already carry their name.
  llvm::DenseSet<Operation *> named;

  /// Wraps the location of every op of `helper` in a NameLoc of the
  /// helper's name, once. Inlining then puts them in call sites
  /// (CallSiteLoc(NameLoc(helper, line in helper), line of the call)), from
  /// which tilec-attach-line-info makes inlined debug locations.
  void nameHelperLocations(func::FuncOp helper) {
    if (!named.insert(helper).second)
      return;
    StringAttr name = helper.getSymNameAttr();
    helper.getBody().walk(
        [&](Operation *op) { op->setLoc(NameLoc::get(name, op->getLoc())); });
  }

  void runOnOperation() override {
    named.clear();
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    InlinerInterface interface(&getContext());

    // Recursion first, on the call graph: a call to a function whose calls
    // are still being followed closes a cycle, which inlining cannot end.
    llvm::DenseMap<Operation *, bool> finished; // absent: not visited yet
    std::function<LogicalResult(func::FuncOp)> visit =
        [&](func::FuncOp fn) -> LogicalResult {
      finished[fn] = false;
      if (tilec::stackNearlyExhausted())
        return fn.emitError("calls nest too deeply to inline");
      WalkResult result = fn.walk([&](func::CallOp call) {
        auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
        if (!callee || callee.isExternal()) {
          call.emitError("call to unknown function '") << call.getCallee() << "'";
          return WalkResult::interrupt();
        }
        auto state = finished.find(callee);
        if (state != finished.end() && !state->second) {
          call.emitError("recursive call to '")
              << call.getCallee() << "' cannot be inlined";
          return WalkResult::interrupt();
        }
        if (state == finished.end() && failed(visit(callee)))
          return WalkResult::interrupt();
        return WalkResult::advance();
      });
      finished[fn] = true;
      return failure(result.wasInterrupted());
    };
    for (auto fn : module.getOps<func::FuncOp>())
      if (!finished.count(fn) && failed(visit(fn)))
        return signalPassFailure();

    // Then what inlining would make: a helper calling itself twice per
    // level of a compile-time recursion doubles the kernel at every level
    // (2^30 copies at depth 30), which no time limit of a user's would
    // see the end of. Each function's inlined size, from its callees'.
    llvm::DenseMap<Operation *, uint64_t> inlinedSize;
    std::function<uint64_t(func::FuncOp)> sizeOf = [&](func::FuncOp fn) -> uint64_t {
      auto known = inlinedSize.find(fn);
      if (known != inlinedSize.end())
        return known->second;
      uint64_t size = 0;
      fn.walk([&](Operation *op) {
        auto call = dyn_cast<func::CallOp>(op);
        uint64_t add = call ? sizeOf(symbols.lookup<func::FuncOp>(call.getCallee())) : 1;
        size = std::min(size + add, kMaxInlinedOps + 1);
      });
      inlinedSize[fn] = size;
      return size;
    };
    for (auto fn : module.getOps<func::FuncOp>()) {
      if (fn.isPrivate() || sizeOf(fn) <= kMaxInlinedOps)
        continue;
      // Named at the call that brings in the most.
      func::CallOp biggest;
      uint64_t most = 0;
      fn.walk([&](func::CallOp call) {
        uint64_t size = sizeOf(symbols.lookup<func::FuncOp>(call.getCallee()));
        if (!biggest || size > most) {
          biggest = call;
          most = size;
        }
      });
      InFlightDiagnostic diag = (biggest ? biggest.getOperation() : fn.getOperation())
                                    ->emitError("inlining the calls of kernel '")
                                << fn.getSymName() << "' would make more than "
                                << kMaxInlinedOps
                                << " operations; is a compile-time recursion calling "
                                   "itself more than once per level?";
      return signalPassFailure();
    }

    // Then each kernel's calls, outermost first: a helper's body is cloned
    // where it is called, with the calls it makes, which the next round
    // inlines. (Inlining leaf helpers into their callers first expanded
    // every helper in full, and took time cubic in the depth of the call
    // chain: seconds for 200 nested helpers.)
    for (auto fn : module.getOps<func::FuncOp>()) {
      if (fn.isPrivate())
        continue;
      while (true) {
        SmallVector<func::CallOp> calls;
        fn.walk([&](func::CallOp call) { calls.push_back(call); });
        if (calls.empty())
          break;
        for (func::CallOp call : calls) {
          auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
          nameHelperLocations(callee);
          if (failed(inlineCall(interface, cloneCalleeBody, call, callee,
                                &callee.getBody()))) {
            call.emitError("cannot inline call to '") << call.getCallee() << "'";
            return signalPassFailure();
          }
          call.erase();
        }
      }
    }
    // Helpers are private; kernels are public and stay.
    for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
      if (func.isPrivate())
        func.erase();
  }
};
} // namespace
