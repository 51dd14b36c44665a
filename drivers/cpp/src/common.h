// Errors shared by the core (CLI, registry, timing, results) and every suite.
#pragma once

#include <stdexcept>
#include <string>

namespace wb {

// A failed run (wrong answer, corrupt message, I/O error): exit status 1.
struct Failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A bad command line: exit status 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] void fail(const std::string& message);

}  // namespace wb
