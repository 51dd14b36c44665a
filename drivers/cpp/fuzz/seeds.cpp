// Writes the fuzz targets' seed inputs (drivers/cpp/fuzz/README.md), each a selector byte
// then an encoding, into DIR/<target>/:
//  - rpc_<lib>: per case and compression, the first request of a fresh generator, the
//    first message of testdata/golden/cpp/<case>.<lib>.<compression>.requests;
//  - codec_<lib>: testdata/golden/cpp/log.<format> (written by the format's first library,
//    as golden write does) and a `logs` message of the case's first 3 records (the golden
//    logs files, 300-600 KB, are too large to mutate quickly).
// Usage: wirebench-fuzz-seeds DIR

#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "codec/codec.h"
#include "rng.h"
#include "rpc/rpc.h"

namespace fs = std::filesystem;

namespace {

void put(const fs::path& dir, const std::string& name, uint8_t select, const std::string& bytes) {
  fs::create_directories(dir);
  std::ofstream out(dir / name, std::ios::binary | std::ios::trunc);
  out.put(static_cast<char>(select));
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + (dir / name).string());
}

std::string firstRequest(wb::rpc::RpcCell& cell) {
  int fd = memfd_create("wirebench-seed", 0);
  if (fd < 0) throw std::runtime_error("memfd_create failed");
  wb::resetRng();
  cell.writeRequests(fd, 1);
  off_t size = lseek(fd, 0, SEEK_END);
  std::string bytes(static_cast<size_t>(size), '\0');
  if (pread(fd, bytes.data(), bytes.size(), 0) != size) throw std::runtime_error("pread");
  close(fd);
  return bytes;
}

std::string encoding(const wb::codec::CodecLib& writer, const wb::codec::Case& c) {
  auto cell = writer.make(c, wb::codec::variantOf(writer.buffers.front(),
                                                  writer.strings.front(),
                                                  writer.validations.front()));
  wb::codec::Bytes b = cell->encoding();
  return std::string(reinterpret_cast<const char*>(b.data), b.size);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: wirebench-fuzz-seeds DIR\n");
    return 2;
  }
  const fs::path root = argv[1];
  const std::string kases[] = {"carsales", "catrank", "eval"};
  for (const wb::rpc::RpcLib& lib : wb::rpc::libs()) {
    for (size_t k = 0; k < 3; ++k) {
      for (const std::string& compression : lib.compressions) {
        auto cell = lib.make(kases[k], compression, /*reuse=*/true);
        uint8_t select = static_cast<uint8_t>(k + 6 * (compression == "packed" ? 1 : 0));
        put(root / ("rpc_" + lib.name), kases[k] + "." + compression, select,
            firstRequest(*cell));
      }
    }
  }
  using namespace wb::codec;
  const Case& log = findCase("log");
  const Case& logs = findCase("logs");
  Case few{"logs", Records(logs.records.begin(), logs.records.begin() + 3), true, 0};
  few.fold = fold(few.records);
  for (const CodecLib& lib : libs()) {
    if (!lib.has(Op::deserialize)) continue;
    const CodecLib* writer = nullptr;
    for (const CodecLib& w : libs()) {
      if (w.format == lib.format && w.serializes()) {
        writer = &w;
        break;
      }
    }
    if (writer == nullptr) continue;
    std::string name = lib.name == "msgpack-cxx" ? "msgpack" : lib.name;
    for (char& ch : name) ch = ch == '-' ? '_' : ch;
    put(root / ("codec_" + name), "log." + lib.format, 0, encoding(*writer, log));
    put(root / ("codec_" + name), "logs3." + lib.format, 1, encoding(*writer, few));
  }
  return 0;
}
