#include "registry.h"

#include <algorithm>

#include "result.h"

namespace wb {

const std::vector<std::string>& Lib::values(const Param& p) const {
  for (const Param& s : supports) {
    if (s.name == p.name) return s.values;
  }
  return p.values;
}

bool Param::appliesTo(const std::string& kase) const {
  return cases.empty() || std::find(cases.begin(), cases.end(), kase) != cases.end();
}

const std::string& Run::param(const std::string& name) const {
  static const std::string none;
  for (const auto& kv : params) {
    if (kv.first == name) return kv.second;
  }
  return none;
}

Pairs Run::versions() const {
  Pairs v = {{"compiler", compilerVersion()}};
  v.insert(v.end(), lib->versions.begin(), lib->versions.end());
  return v;
}

const Lib* Suite::findLib(const std::string& n) const {
  for (const Lib& l : libs) {
    if (l.name == n) return &l;
  }
  return nullptr;
}

const Param* Suite::findParam(const std::string& n) const {
  for (const Param& p : params) {
    if (p.name == n) return &p;
  }
  return nullptr;
}

std::vector<std::string> Suite::libNames() const {
  std::vector<std::string> names;
  for (const Lib& l : libs) names.push_back(l.name);
  return names;
}

std::vector<std::string> Suite::paramNames() const {
  std::vector<std::string> names;
  for (const Param& p : params) names.push_back(p.name);
  return names;
}

std::vector<Cell> Suite::cells() const {
  std::vector<Cell> cells;
  for (const std::string& kase : cases) {
    for (const Lib& lib : libs) {
      Run run;
      run.suite = this;
      run.kase = kase;
      run.lib = &lib;
      std::vector<const Param*> applying;
      for (const Param& p : params) {
        if (p.appliesTo(kase)) applying.push_back(&p);
      }
      std::function<void()> product = [&] {
        if (run.params.size() == applying.size()) {
          if (refuse == nullptr || refuse(run).empty()) {
            cells.push_back({name, kase, lib.name, lib.format, run.params});
          }
          return;
        }
        const Param& p = *applying[run.params.size()];
        for (const std::string& v : lib.values(p)) {
          run.params.push_back({p.name, v});
          product();
          run.params.pop_back();
        }
      };
      product();
    }
  }
  return cells;
}

const Suite* findSuite(const std::string& name) {
  for (const Suite* s : suites()) {
    if (s->name == name) return s;
  }
  return nullptr;
}

std::vector<std::string> suiteNames() {
  std::vector<std::string> names;
  for (const Suite* s : suites()) names.push_back(s->name);
  return names;
}

const std::vector<std::string>& fixtureFlags() {
  static const std::vector<std::string> v = {"input", "work-dir", "out-dir"};
  return v;
}

std::string joined(const std::vector<std::string>& names) {
  if (names.empty()) return "none";
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

}  // namespace wb
