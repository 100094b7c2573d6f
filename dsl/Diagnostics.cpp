#include "dsl/Diagnostics.h"

namespace tilec::dsl {

SourceBuffer::SourceBuffer(std::string path, std::string text,
                           unsigned firstLine)
    : path_(std::move(path)), text_(std::move(text)), firstLine_(firstLine) {
  lineStarts_.push_back(0);
  for (size_t i = 0; i < text_.size(); ++i)
    if (text_[i] == '\n')
      lineStarts_.push_back(i + 1);
}

std::string_view SourceBuffer::line(unsigned line) const {
  if (line < firstLine_)
    return {};
  size_t index = line - firstLine_;
  if (index >= lineStarts_.size())
    return {};
  size_t begin = lineStarts_[index];
  size_t end = index + 1 < lineStarts_.size() ? lineStarts_[index + 1] - 1
                                              : text_.size();
  if (end > begin && text_[end - 1] == '\r')
    --end;
  return std::string_view(text_).substr(begin, end - begin);
}

std::string Diagnostic::render() const {
  std::string out = path + ":" + std::to_string(line) + ":" +
                    std::to_string(col) + ": error: " + message + "\n";
  if (sourceLine.empty())
    return out;
  out += sourceLine + "\n";
  // Keep tabs in the caret line so the caret lines up under the source.
  for (unsigned i = 1; i < col && i - 1 < sourceLine.size(); ++i)
    out += sourceLine[i - 1] == '\t' ? '\t' : ' ';
  out += "^\n";
  return out;
}

void fail(SourceLoc loc, const std::string &message) {
  Diagnostic d;
  d.message = message;
  d.line = loc.line;
  d.col = loc.col;
  if (loc.buffer) {
    d.path = loc.buffer->path();
    d.sourceLine = std::string(loc.buffer->line(loc.line));
  }
  throw CompileError(std::move(d));
}

} // namespace tilec::dsl
