// The fuzz targets (README.md), taken from the registries: the server side of every rpc
// library and the decoder of every codec library that deserializes, each named
// <suite>_<lib> (the library's '-' as '_': codec_nlohmann_json). A library registered in
// its suite is fuzzed with no edit here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace wb::fuzz {

struct Target {
  std::string name;   // rpc_capnp, codec_nlohmann_json
  std::string suite;  // rpc or codec
  std::string lib;    // the library's registry name
};

// In the registries' order: rpc's libraries, then codec's.
const std::vector<Target>& targets();
const Target* findTarget(const std::string& name);

// One input as libFuzzer gives it: a first byte choosing the cell, then the bytes its
// decoder reads. A corrupt input is refused cleanly (the exception is caught here, and the
// result is true); a crash, a sanitizer report or a hang is a bug.
bool fuzzOne(const Target& target, const uint8_t* data, size_t size);

// Each suite's code path (codec_decode.cpp, rpc_server.cpp).
bool decodeCodec(const std::string& lib, const uint8_t* data, size_t size);
bool serveRpc(const std::string& lib, const uint8_t* data, size_t size);

}  // namespace wb::fuzz
