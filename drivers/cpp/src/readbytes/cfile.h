// The stdio file of the stdio strategies (fread, fgetc, fgetc_unlocked, getc_unlocked,
// dlsym_fread): fopen per pass, and at close a read error (which stdio reports as an end of
// file) turned into a failure naming the file.
#pragma once

#include <cstdio>
#include <string>

#include "readbytes.h"

namespace wb::readbytes {

class CFile {
 public:
  explicit CFile(const std::string& path) : path_(path), f_(std::fopen(path.c_str(), "rb")) {
    if (f_ == nullptr) cannotOpen(path);
  }
  ~CFile() {
    if (f_ != nullptr) std::fclose(f_);
  }
  CFile(const CFile&) = delete;
  CFile& operator=(const CFile&) = delete;

  FILE* get() const { return f_; }
  void close() {
    bool bad = std::ferror(f_) != 0;
    int rc = std::fclose(f_);
    f_ = nullptr;
    if (bad) readError(path_, "read");
    if (rc != 0) readError(path_, "fclose");
  }

 private:
  const std::string& path_;
  FILE* f_;
};

}  // namespace wb::readbytes
