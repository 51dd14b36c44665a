// Tests of any build, whichever suites it has (CMake's WB_SUITES) and whichever compiler
// made it: the identity `info` prints, and that `info`, `list` and the registry have exactly
// the built suites.

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "registry.h"
#include "result.h"
#include "support.h"

namespace {

using namespace wbtest;

// WB_SUITES as configured, in src/suites.cpp's order.
std::vector<std::string> builtSuites() {
  std::set<std::string> built;
  std::stringstream ss(WB_SUITES_BUILT);
  for (std::string name; std::getline(ss, name, ',');) built.insert(name);
  std::vector<std::string> v;
  for (const char* name : {"rpc", "limit", "codec", "queue", "readbytes"}) {
    if (built.count(name) != 0) v.push_back(name);
  }
  return v;
}

TEST(Build, RegistryHasExactlyTheBuiltSuites) {
  EXPECT_EQ(wb::suiteNames(), builtSuites());
}

TEST(Build, InfoNamesTheCompilerAndTheSuites) {
#if defined(__clang__)
  const std::string toolchain = "clang++";
  const std::string compiler = "clang++ " + std::to_string(__clang_major__) + "." +
                               std::to_string(__clang_minor__) + "." +
                               std::to_string(__clang_patchlevel__);
#else
  const std::string toolchain = "g++";
  const std::string compiler = std::string("g++ ") + __VERSION__;
#endif
  EXPECT_EQ(wb::toolchain(), toolchain);
  EXPECT_EQ(wb::compilerVersion(), compiler);
  EXPECT_EQ(compiler.find_first_of(" ", toolchain.size() + 1), std::string::npos) << compiler;
  Outcome r = driver({"info"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::string suites;
  for (const std::string& name : builtSuites()) {
    suites += (suites.empty() ? "" : ", ") + wb::quote(name);
  }
  EXPECT_EQ(r.out.rfind("{\"protocol\": 2, \"lang\": \"cpp\", \"toolchain\": \"" + toolchain +
                            "\", \"driver\": \"wirebench-cpp\", \"suites\": [" + suites +
                            "], \"versions\": {\"compiler\": \"" + compiler + "\"",
                        0),
            0u)
      << r.out;
}

TEST(Build, ListHasOnlyTheBuiltSuites) {
  Outcome r = driver({"list"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::set<std::string> seen;
  std::stringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    ASSERT_EQ(line.rfind("{\"suite\": \"", 0), 0u) << line;
    seen.insert(line.substr(11, line.find('"', 11) - 11));
  }
  std::vector<std::string> built = builtSuites();
  EXPECT_EQ(seen, std::set<std::string>(built.begin(), built.end()));
}

TEST(Build, AnUnbuiltSuiteIsUnknown) {
  for (const char* name : {"rpc", "limit", "codec", "queue", "readbytes"}) {
    std::vector<std::string> built = builtSuites();
    if (std::find(built.begin(), built.end(), name) != built.end()) continue;
    Outcome r = driver({"run", "--suite", name, "--case", "x", "--lib", "y", "--iters", "1"});
    EXPECT_EQ(r.status, 2) << name;
    EXPECT_NE(firstLine(r.err).find(std::string("unknown suite '") + name + "'"),
              std::string::npos)
        << r.err;
  }
}

}  // namespace
