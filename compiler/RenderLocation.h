// One rendering of an MLIR location for messages, `file:line:col`, shared by
// everything that reports an error at an op (the interpreter; the same rule
// as compileToPTX's diagnostics in compiler/Pipeline.cpp).
#pragma once

#include "mlir/IR/Location.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace tilec {

/// The file location an op is reported at, looking through names, fusions
/// (the first file location inside) and call sites (the callee: where the
/// op is written, in an inlined helper); null when there is none.
inline mlir::FileLineColLoc fileLocation(mlir::Location loc) {
  if (auto file = mlir::dyn_cast<mlir::FileLineColLoc>(loc))
    return file;
  if (auto named = mlir::dyn_cast<mlir::NameLoc>(loc))
    return fileLocation(named.getChildLoc());
  if (auto fused = mlir::dyn_cast<mlir::FusedLoc>(loc))
    for (mlir::Location inner : fused.getLocations())
      if (mlir::isa<mlir::FileLineColLoc>(inner))
        return mlir::cast<mlir::FileLineColLoc>(inner);
  if (auto callSite = mlir::dyn_cast<mlir::CallSiteLoc>(loc))
    return fileLocation(callSite.getCallee());
  return {};
}

/// `file:line:col` of fileLocation; anything else is printed as MLIR
/// prints it (`loc(unknown)`).
inline std::string renderLocation(mlir::Location loc) {
  if (mlir::FileLineColLoc file = fileLocation(loc))
    return file.getFilename().str() + ":" + std::to_string(file.getLine()) +
           ":" + std::to_string(file.getColumn());
  std::string text;
  llvm::raw_string_ostream os(text);
  loc.print(os);
  return text;
}

} // namespace tilec
