// The queue suite's entry points for the registry (src/suites.cpp) and its own commands.
#pragma once

#include <string>
#include <vector>

#include "../registry.h"

namespace wb::queue {

const Suite& suite();  // suite.cpp

// `DRIVER queue append DIR ...` and `DRIVER queue tail DIR ...` (command.cpp): ARGS after
// "queue"; returns the exit status.
int command(const std::vector<std::string>& args);
std::string commandUsage();

}  // namespace wb::queue
