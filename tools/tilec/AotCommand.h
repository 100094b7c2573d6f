// `tilec aot` (AotCommand.cpp): kernels compiled ahead of time into a C++
// header and source that need no tilec at run time. Throws
// std::runtime_error for bad usage and tilec::Error for failures; returns
// the exit code otherwise.
#pragma once

int aotCommand(int argc, char **argv);
