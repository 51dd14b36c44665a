// The codec suite's registry entry: its cases, parameters and libraries. Adding a library
// is its file (src/codec/<lib>.cpp, defining its factory) and one line in libs() below,
// with the factory's name on the declaration line above it.

#include <algorithm>
#include <map>

#include "../registry.h"

#include "../common.h"
#include "codec.h"

namespace wb::rpc {
std::string capnpVersion(), protobufVersion();  // src/rpc/capnp.cpp, protobuf.cpp
}

namespace wb::codec {

// The factories, each defined in its library's file, and the versions they report.
CodecFactory makeNull, makeRapidjson, makeSimdjson, makeNlohmann, makeProtobuf, makeCapnp,
    makeFlatbuffers, makeMsgpack, makeJsoncpp, makeCbor, makeBson, makeAvro, makeThrift, makeSbe;
std::string rapidjsonVersion(), simdjsonVersion(), nlohmannVersion(), flatbuffersVersion(),
    msgpackVersion(), jsoncppVersion(), cborVersion(), bsonVersion(), avroVersion(),
    thriftVersion(), sbeVersion();

namespace {
constexpr Op P = Op::populate, S = Op::serialize, D = Op::deserialize, A = Op::access;
}

const std::vector<CodecLib>& libs() {
  // name, format, operations, buffer, strings and validation variants (the default first),
  // factory, provenance versions. The first library of a format writes its golden file.
  static const std::vector<CodecLib> v = {
      {"null", "null", {P, S, D, A}, {"reused", "fresh"}, {"owned", "borrowed"}, {"lazy"},
       &makeNull, {}},
      {"rapidjson", "json", {P, S, D}, {"reused", "fresh"}, {"owned"}, {"validated"},
       &makeRapidjson, {{"rapidjson", rapidjsonVersion()}}},
      // Parse only: simdjson 3.0 has no serializer. Its buffer variant is a placeholder (it
      // has no operation that buffer governs).
      {"simdjson", "json", {D}, {"reused"}, {"owned", "borrowed"}, {"validated"},
       &makeSimdjson, {{"simdjson", simdjsonVersion()}}},
      // dump() always returns a new string: no reused buffer.
      {"nlohmann-json", "json", {P, S, D}, {"fresh"}, {"owned"}, {"validated"}, &makeNlohmann,
       {{"nlohmann-json", nlohmannVersion()}}},
      // Parse only: its objects sort their keys. Its buffer variant is a placeholder.
      {"jsoncpp", "json", {D}, {"reused"}, {"owned"}, {"validated"}, &makeJsoncpp,
       {{"jsoncpp", jsoncppVersion()}}},
      {"protobuf", "protobuf", {P, S, D}, {"reused", "fresh"}, {"owned"}, {"validated"},
       &makeProtobuf, {{"protobuf", rpc::protobufVersion()}}},
      {"capnp", "capnp", {P, S, D, A}, {"reused", "fresh"}, {"owned", "borrowed"}, {"lazy"},
       &makeCapnp, {{"capnp", rpc::capnpVersion()}}},
      {"flatbuffers", "flatbuffers", {P, S, D, A}, {"reused", "fresh"}, {"owned", "borrowed"},
       {"validated", "unchecked"}, &makeFlatbuffers, {{"flatbuffers", flatbuffersVersion()}}},
      {"msgpack-cxx", "msgpack", {P, S, D}, {"reused", "fresh"}, {"owned", "borrowed"},
       {"validated"}, &makeMsgpack, {{"msgpack-cxx", msgpackVersion()}}},
      // CBOR: written with libcbor's encoders, read with its streaming decoder.
      {"libcbor", "cbor", {P, S, D}, {"reused", "fresh"}, {"owned", "borrowed"}, {"validated"},
       &makeCbor, {{"libcbor", cborVersion()}}},
      // bson_iter checks each element as it steps to it.
      {"bson", "bson", {P, S, D}, {"reused", "fresh"}, {"owned", "borrowed"}, {"lazy"},
       &makeBson, {{"libbson", bsonVersion()}}},
      // Its generic values copy every string: owned only.
      {"avro-c", "avro", {P, S, D}, {"reused", "fresh"}, {"owned"}, {"validated"}, &makeAvro,
       {{"avro-c", avroVersion()}}},
      // Its generated structs hold std::string: owned only. packing: unpacked (the binary
      // protocol) and compact (the compact protocol), packings() below.
      {"thrift", "thrift", {P, S, D}, {"reused", "fresh"}, {"owned"}, {"validated"},
       &makeThrift, {{"thrift", thriftVersion()}}},
      {"sbe", "sbe", {P, S, D, A}, {"reused", "fresh"}, {"owned", "borrowed"}, {"lazy"},
       &makeSbe, {{"sbe", sbeVersion()}}},
  };
  return v;
}

const std::vector<std::string>& cases() {
  static const std::vector<std::string> v = {"log",  "logs1", "logs10", "logs100",
                                             "logs", "logs10000"};
  return v;
}

const std::vector<std::string>& goldenCases() {
  static const std::vector<std::string> v = {"log", "logs"};
  return v;
}

const Case& findCase(const std::string& name) {
  // Each built on first use only: logs10000's records take a moment.
  static std::map<std::string, Case> built;
  auto it = built.find(name);
  if (it == built.end()) {
    Records rs = records(name);  // fails on an unknown case
    uint64_t f = fold(rs);
    it = built.emplace(name, Case{name, std::move(rs), name != "log", f}).first;
  }
  return it->second;
}

const char* opName(Op op) {
  switch (op) {
    case Op::populate: return "populate";
    case Op::serialize: return "serialize";
    case Op::deserialize: return "deserialize";
    case Op::access: return "access";
  }
  return "?";
}

bool CodecLib::has(Op op) const {
  for (Op o : ops) {
    if (o == op) return true;
  }
  return false;
}

std::vector<std::string> CodecLib::packings() const {
  if (format == "capnp") return {"unpacked", "packed"};
  if (format == "thrift") return {"unpacked", "compact"};
  return {"unpacked"};
}

const CodecLib* findLib(const std::string& name) {
  for (const CodecLib& lib : libs()) {
    if (lib.name == name) return &lib;
  }
  return nullptr;
}

Variant variantOf(const std::string& buffer, const std::string& strings,
                  const std::string& validation, const std::string& packing) {
  return {buffer == "reused", strings == "borrowed", validation != "unchecked",
          packing == "packed", packing == "compact"};
}

int run(const Run& run);                                               // suite.cpp
void goldenWrite(const std::string& dir, const GoldenReport& report);  // golden.cpp
void goldenCheck(const std::string& dir, const GoldenReport& report);

namespace {

// A library's cells are its default (every parameter's first value) and one cell per
// further variant, differing from the default in exactly one parameter.
// The size axis's other batches have the default cell only.
std::string refuse(const Run& run) {
  std::vector<std::string> off;
  for (const auto& [name, value] : run.params) {
    const Param* p = run.suite->findParam(name);
    if (value != run.lib->values(*p).front()) off.push_back(name + " " + value);
  }
  const auto& golden = goldenCases();
  if (!off.empty() && std::find(golden.begin(), golden.end(), run.kase) == golden.end()) {
    return "case " + run.kase +
           " is on the size axis, which has each library's default cell only, not " +
           joined(off);
  }
  if (off.size() <= 1) return "";
  std::string first;
  for (const Param& p : run.suite->params) {
    first += (first.empty() ? "" : ", ") + p.name + " " + run.lib->values(p).front();
  }
  return "a codec cell differs from its library's first cell (" + first +
         ") in at most one parameter, not in " + joined(off);
}

void prepare(Run& run) {
  if (run.role.empty()) run.role = "local";
  if (run.role != "local") {
    throw UsageError("--role " + run.role +
                     " is not possible in suite codec (its cells are local)");
  }
}

Suite make() {
  Suite s;
  s.name = "codec";
  s.cases = cases();
  s.params = {{"buffer", {"reused", "fresh"}},
              {"strings", {"owned", "borrowed"}},
              {"validation", {"validated", "lazy", "unchecked"}},
              {"packing", {"unpacked", "packed", "compact"}}};
  for (const CodecLib& lib : libs()) {
    s.libs.push_back({lib.name,
                      {{"buffer", lib.buffers},
                       {"strings", lib.strings},
                       {"validation", lib.validations},
                       {"packing", lib.packings()}},
                      lib.versions,
                      lib.format});
  }
  s.fixtures = {"out-dir"};
  s.refuse = &refuse;
  s.prepare = &prepare;
  s.run = &codec::run;
  s.goldenWrite = &goldenWrite;
  s.goldenCheck = &goldenCheck;
  return s;
}

}  // namespace

const Suite& suite() {
  static const Suite s = make();
  return s;
}

}  // namespace wb::codec
