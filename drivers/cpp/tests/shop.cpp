// wirebench-shop FILE: writes the readbytes data (tests/shop.h) to FILE, making its directory;
// the ctest fixture readbytes/data.

#include <cstdio>
#include <filesystem>
#include <string>

#include "shop.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: wirebench-shop FILE\n");
    return 2;
  }
  std::filesystem::path path(argv[1]);
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  std::string bytes = wbtest::shopBytes();
  if (bytes.size() != 12'886'336 || !wbtest::writeAtomically(path.string(), bytes)) {
    std::fprintf(stderr, "wirebench-shop: cannot write %s\n", argv[1]);
    return 1;
  }
  std::printf("%s: %zu bytes\n", argv[1], bytes.size());
  return 0;
}
