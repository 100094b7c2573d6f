// `tilec tune` (TuneCommand.cpp). Throws std::runtime_error for bad usage
// and tilec::Error for failures; returns the exit code otherwise.
#pragma once

int tuneCommand(int argc, char **argv);
