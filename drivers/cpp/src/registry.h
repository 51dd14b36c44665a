// The one place that lists what this driver can run: suites, cases, libraries, parameters.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common.h"

namespace wb {

using RpcFactory = std::unique_ptr<RpcCell> (*)(const std::string& kase,
                                                const std::string& compression, bool reuse);

struct RpcLib {
  std::string name;
  std::vector<std::string> compressions;
  RpcFactory make;
  // Extra provenance for results of this library: (key, version).
  std::vector<std::pair<std::string, std::string>> versions;
};

const std::vector<std::string>& rpcCases();
const std::vector<std::string>& rpcModes();
const std::vector<std::string>& reuseModes();
const std::vector<RpcLib>& rpcLibs();
const RpcLib* findRpcLib(const std::string& name);

// Suite limit: case memcpy, lib memcpy, --block.
const std::vector<std::pair<std::string, size_t>>& memcpyBlocks();

// One line of `list` per cell, in a stable order.
std::vector<std::string> listCells();

}  // namespace wb
