// Source buffers, locations and the located errors of the tilec front end.
//
// Every user error in dsl/ is a CompileError carrying one Diagnostic. It is
// thrown inside the front end only (never across MLIR or LLVM frames) and
// caught at the front end's entry points, which turn it into a value.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tilec::dsl {

/// The text of one kernel source (a file, or a string handed over by Python
/// or C++), with the offsets of its lines so a diagnostic can quote one.
class SourceBuffer {
public:
  SourceBuffer(std::string path, std::string text, unsigned firstLine = 1);

  const std::string &path() const { return path_; }
  const std::string &text() const { return text_; }
  /// The line numbered `line` in the user's file (1-based), without its end
  /// of line; empty when out of range.
  std::string_view line(unsigned line) const;
  /// Line numbers are shifted by this much: a Python function's source starts
  /// at the line where `def` stands in its file.
  unsigned firstLine() const { return firstLine_; }

private:
  std::string path_, text_;
  unsigned firstLine_;
  std::vector<size_t> lineStarts_;
};

/// A position in a SourceBuffer, 1-based line and column, as the user sees
/// them in the file (firstLine already applied).
struct SourceLoc {
  const SourceBuffer *buffer = nullptr;
  unsigned line = 0, col = 0;
};

struct Diagnostic {
  std::string path;
  unsigned line = 0, col = 0;
  std::string message;
  std::string sourceLine; ///< the line quoted under the message, may be empty

  /// `path:line:col: error: message`, the source line and a caret under col.
  std::string render() const;
};

class CompileError : public std::runtime_error {
public:
  explicit CompileError(Diagnostic d)
      : std::runtime_error(d.message), diag_(std::move(d)) {}
  const Diagnostic &diagnostic() const { return diag_; }

private:
  Diagnostic diag_;
};

/// "line 12", for messages that point at another statement.
inline std::string lineOf(SourceLoc loc) { return "line " + std::to_string(loc.line); }

/// Build the diagnostic for `loc` (quoting its source line) and throw it.
[[noreturn]] void fail(SourceLoc loc, const std::string &message);

} // namespace tilec::dsl
