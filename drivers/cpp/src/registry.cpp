#include "registry.h"

namespace wb {

const std::vector<std::string>& rpcCases() {
  static const std::vector<std::string> v = {"carsales", "catrank", "eval"};
  return v;
}

const std::vector<std::string>& rpcModes() {
  static const std::vector<std::string> v = {"object", "bytes", "pipe", "pipe-async"};
  return v;
}

const std::vector<std::string>& reuseModes() {
  static const std::vector<std::string> v = {"reuse", "no-reuse"};
  return v;
}

const std::vector<RpcLib>& rpcLibs() {
  static const std::vector<RpcLib> v = {
      {"capnp", {"none", "packed"}, &makeCapnpCell, {{"capnp", capnpVersion()}}},
      {"protobuf", {"none"}, &makeProtobufCell, {{"protobuf", protobufVersion()}}},
      {"null", {"none"}, &makeNullCell, {}},
  };
  return v;
}

const RpcLib* findRpcLib(const std::string& name) {
  for (const RpcLib& lib : rpcLibs()) {
    if (lib.name == name) return &lib;
  }
  return nullptr;
}

const std::vector<std::pair<std::string, size_t>>& memcpyBlocks() {
  static const std::vector<std::pair<std::string, size_t>> v = {
      {"16KiB", size_t{16} << 10}, {"1MiB", size_t{1} << 20}, {"64MiB", size_t{64} << 20}};
  return v;
}

std::vector<std::string> listCells() {
  std::vector<std::string> lines;
  for (const std::string& kase : rpcCases()) {
    for (const RpcLib& lib : rpcLibs()) {
      for (const std::string& mode : rpcModes()) {
        for (const std::string& compression : lib.compressions) {
          if (mode == "object" && compression != "none") continue;  // nothing to compress
          for (const std::string& reuse : reuseModes()) {
            lines.push_back("{\"suite\": \"rpc\", \"case\": \"" + kase + "\", \"lib\": \"" +
                            lib.name + "\", \"params\": {\"mode\": \"" + mode +
                            "\", \"compression\": \"" + compression + "\", \"reuse\": \"" +
                            reuse + "\"}}");
          }
        }
      }
    }
  }
  for (const auto& block : memcpyBlocks()) {
    lines.push_back(
        "{\"suite\": \"limit\", \"case\": \"memcpy\", \"lib\": \"memcpy\", "
        "\"params\": {\"block\": \"" + block.first + "\"}}");
  }
  return lines;
}

}  // namespace wb
