// tilec-attach-line-info: debug scopes for the kernel's own source lines, so
// that the PTX carries `.file`/`.loc` (LLVM's NVPTX back end writes them for
// a compile unit of kind DebugDirectivesOnly) and the machine code maps to
// the user's lines, inlined helpers included.
#include "compiler/Transforms/Passes.h"

#include "compiler/RenderLocation.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/BinaryFormat/Dwarf.h"
#include "llvm/Support/Path.h"

#define DEBUG_TYPE "tilec-attach-line-info"

namespace tilec {
#define GEN_PASS_DEF_TILECATTACHLINEINFO
#include "compiler/Transforms/Passes.h.inc"
} // namespace tilec

using namespace mlir;

namespace {

struct Scopes {
  explicit Scopes(MLIRContext *ctx) : ctx(ctx) {}

  MLIRContext *ctx;
  LLVM::DICompileUnitAttr unit;
  /// One subprogram per inlined helper, by name and file.
  llvm::DenseMap<std::pair<StringAttr, StringAttr>, LLVM::DISubprogramAttr> helpers;

  LLVM::DIFileAttr file(FileLineColLoc loc) {
    StringRef path = loc ? loc.getFilename().getValue() : StringRef("<unknown>");
    return LLVM::DIFileAttr::get(ctx, llvm::sys::path::filename(path),
                                 llvm::sys::path::parent_path(path));
  }

  LLVM::DISubprogramAttr subprogram(StringAttr name, FileLineColLoc at, bool distinct) {
    auto type = LLVM::DISubroutineTypeAttr::get(ctx, llvm::dwarf::DW_CC_normal, {});
    unsigned line = at ? at.getLine() : 1;
    DistinctAttr id = distinct ? DistinctAttr::create(UnitAttr::get(ctx)) : DistinctAttr();
    return LLVM::DISubprogramAttr::get(
        ctx, id, unit, file(at), name, name, file(at), line, line,
        LLVM::DISubprogramFlags::Definition | LLVM::DISubprogramFlags::Optimized, type,
        /*retainedNodes=*/{}, /*annotations=*/{});
  }

  /// `loc` in the form LLVM IR translation turns into inlined debug
  /// locations: each callee of a call site (tile-inline names it after its
  /// helper with a NameLoc) gets that helper's subprogram as its scope.
  Location scoped(Location loc) {
    if (auto callSite = dyn_cast<CallSiteLoc>(loc)) {
      Location callee = callSite.getCallee();
      if (auto named = dyn_cast<NameLoc>(callee)) {
        FileLineColLoc at = tilec::fileLocation(named.getChildLoc());
        StringAttr fileName = at ? at.getFilename() : StringAttr::get(ctx, "<unknown>");
        LLVM::DISubprogramAttr &helper = helpers[{named.getName(), fileName}];
        if (!helper)
          helper = subprogram(named.getName(), at, /*distinct=*/true);
        callee = FusedLoc::get(ctx, {scoped(named.getChildLoc())}, helper);
      } else {
        callee = scoped(callee);
      }
      return CallSiteLoc::get(callee, scoped(callSite.getCaller()));
    }
    if (auto fused = dyn_cast<FusedLoc>(loc)) {
      SmallVector<Location> inner;
      for (Location l : fused.getLocations())
        inner.push_back(scoped(l));
      return FusedLoc::get(ctx, inner, fused.getMetadata());
    }
    if (auto named = dyn_cast<NameLoc>(loc))
      return NameLoc::get(named.getName(), scoped(named.getChildLoc()));
    return loc;
  }
};

struct AttachLineInfoPass : tilec::impl::TilecAttachLineInfoBase<AttachLineInfoPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    Scopes scopes(ctx);
    FileLineColLoc first;
    module.walk([&](LLVM::LLVMFuncOp fn) {
      if (!first && !fn.isExternal())
        first = tilec::fileLocation(fn.getLoc());
    });
    // DebugDirectivesOnly: `.file` and `.loc` in the PTX, and no DWARF
    // sections, which the line table does not need.
    scopes.unit = LLVM::DICompileUnitAttr::get(
        ctx, DistinctAttr::create(UnitAttr::get(ctx)), llvm::dwarf::DW_LANG_Python,
        scopes.file(first), StringAttr::get(ctx, "tilec"), /*isOptimized=*/true,
        LLVM::DIEmissionKind::DebugDirectivesOnly, LLVM::DINameTableKind::Default,
        /*splitDebugFilename=*/StringAttr());

    for (auto fn : module.getOps<LLVM::LLVMFuncOp>()) {
      if (fn.isExternal() || fn->getLoc()->findInstanceOf<FusedLocWith<LLVM::DISubprogramAttr>>())
        continue;
      FileLineColLoc at = tilec::fileLocation(fn.getLoc());
      LLVM::DISubprogramAttr sp = scopes.subprogram(fn.getNameAttr(), at, /*distinct=*/true);
      fn->setLoc(FusedLoc::get(ctx, {fn.getLoc()}, sp));
      fn.walk([&](Operation *op) {
        if (op != fn.getOperation())
          op->setLoc(scopes.scoped(op->getLoc()));
      });
    }
  }
};

} // namespace
