#include "targets.h"

#include "codec/codec.h"
#include "common.h"
#include "rpc/rpc.h"

namespace wb::fuzz {

namespace {

Target target(const std::string& suite, const std::string& lib) {
  std::string name = suite + "_" + lib;
  for (char& c : name) c = c == '-' ? '_' : c;
  return {name, suite, lib};
}

}  // namespace

const std::vector<Target>& targets() {
  static const std::vector<Target> all = [] {
    std::vector<Target> v;
    for (const rpc::RpcLib& lib : rpc::libs()) v.push_back(target("rpc", lib.name));
    for (const codec::CodecLib& lib : codec::libs()) {
      if (lib.has(codec::Op::deserialize)) v.push_back(target("codec", lib.name));
    }
    return v;
  }();
  return all;
}

const Target* findTarget(const std::string& name) {
  for (const Target& t : targets()) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

bool fuzzOne(const Target& target, const uint8_t* data, size_t size) {
  if (target.suite == "rpc") return serveRpc(target.lib, data, size);
  if (target.suite == "codec") return decodeCodec(target.lib, data, size);
  fail("no fuzz code path for suite " + target.suite);
}

}  // namespace wb::fuzz
