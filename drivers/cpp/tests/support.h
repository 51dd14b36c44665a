// What the test files share: running the driver as a process and collecting its exit
// status and output, temporary files and directories, numbers read from a result line.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace wbtest {

inline const std::string kDriver = WB_DRIVER;

inline std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Outcome {
  int status = -1;  // exit status, or -1 if killed by a signal
  std::string out, err;
};

// A new file's path ending in `tag` (made by mkstemps, so that nothing else is left behind).
inline std::string tempPath(const std::string& tag) {
  std::string tmpl = "/tmp/wirebench-test-XXXXXX" + tag;
  int fd = mkstemps(tmpl.data(), static_cast<int>(tag.size()));
  if (fd >= 0) close(fd);
  return tmpl;
}

inline std::string tempDir() {
  char tmpl[] = "/tmp/wirebench-test-XXXXXX";
  const char* dir = mkdtemp(tmpl);
  EXPECT_NE(dir, nullptr);
  return dir != nullptr ? dir : "/nonexistent";
}

// Starts the driver with `args`; `setup` runs in the child before exec (fd plumbing).
inline pid_t spawn(const std::vector<std::string>& args, const std::string& outPath,
                   const std::string& errPath, const std::function<void()>& setup) {
  pid_t pid = fork();
  if (pid == 0) {
    if (setup) setup();
    int o = open(outPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int e = open(errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(o, 1);
    dup2(e, 2);
    close(o);
    close(e);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(kDriver.c_str()));
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(kDriver.c_str(), argv.data());
    _exit(127);
  }
  return pid;
}

inline Outcome finish(pid_t pid, const std::string& outPath, const std::string& errPath) {
  Outcome r;
  int status = 0;
  waitpid(pid, &status, 0);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = readFile(outPath);
  r.err = readFile(errPath);
  unlink(outPath.c_str());
  unlink(errPath.c_str());
  return r;
}

inline Outcome driver(const std::vector<std::string>& args,
                      const std::function<void()>& setup = {}) {
  std::string o = tempPath(".out"), e = tempPath(".err");
  return finish(spawn(args, o, e, setup), o, e);
}

// The first line of a usage error's stderr: the message itself, before the usage text.
inline std::string firstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

// The integers of a JSON array field in one line of output, e.g. "check": [1, 2].
inline std::vector<int64_t> jsonInts(const std::string& json, const std::string& key) {
  std::vector<int64_t> v;
  size_t at = json.find("\"" + key + "\": [");
  if (at == std::string::npos) return v;
  std::stringstream ss(json.substr(json.find('[', at) + 1));
  std::string item;
  while (std::getline(ss, item, ',')) {
    v.push_back(std::stoll(item));
    if (item.find(']') != std::string::npos) break;
  }
  return v;
}

// The samples of a named metric (protocol 2), e.g. "bytes": {"unit": "B", ..., "samples": [..]}.
inline std::vector<int64_t> metricSamples(const std::string& json, const std::string& name) {
  size_t at = json.find("\"" + name + "\": {");
  if (at == std::string::npos) return {};
  return jsonInts(json.substr(at), "samples");
}

inline int64_t jsonInt(const std::string& json, const std::string& key) {
  size_t at = json.find("\"" + key + "\": ");
  if (at == std::string::npos) return -1;
  return std::stoll(json.substr(at + key.size() + 4));
}

inline std::vector<std::string> plus(std::vector<std::string> a,
                                     const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace wbtest
