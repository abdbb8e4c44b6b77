//===- HostMemory.cpp - How much host memory a run may use ----------------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//

#include "lamport/Check/HostMemory.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <unistd.h>

namespace lamport {
namespace check {

namespace {

/// The whole file at \p path, or nullopt.
std::optional<std::string> readText(const std::string &path) {
  std::ifstream in(path);
  if (!in)
    return std::nullopt;
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

/// The leading decimal integer of \p text (after blanks), or nullopt.
std::optional<uint64_t> leadingInteger(const std::string &text) {
  std::size_t start = text.find_first_not_of(" \t");
  if (start == std::string::npos || text[start] < '0' || text[start] > '9')
    return std::nullopt;
  return uint64_t(std::strtoull(text.c_str() + start, nullptr, 10));
}

/// The directory of this process's cgroup v2 ("0::/path" in
/// /proc/self/cgroup), under /sys/fs/cgroup.
std::string cgroupDirectory() {
  std::string directory = "/sys/fs/cgroup";
  if (std::optional<std::string> text = readText("/proc/self/cgroup")) {
    std::istringstream lines(*text);
    std::string line;
    while (std::getline(lines, line))
      if (line.rfind("0::", 0) == 0) {
        std::string path = line.substr(3);
        if (!path.empty() && path != "/")
          directory += path;
      }
  }
  return directory;
}

} // namespace

std::optional<uint64_t> parseMemAvailable(const std::string &meminfo) {
  std::istringstream lines(meminfo);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("MemAvailable:", 0) != 0)
      continue;
    std::optional<uint64_t> kib = leadingInteger(line.substr(13));
    if (!kib || *kib > UINT64_MAX / 1024)
      return std::nullopt;
    return *kib * 1024;
  }
  return std::nullopt;
}

std::optional<uint64_t> cgroupHeadroom(const std::string &max,
                                       const std::string &current) {
  std::optional<uint64_t> limit = leadingInteger(max);
  std::optional<uint64_t> used = leadingInteger(current);
  if (!limit || !used)
    return std::nullopt;
  return *used >= *limit ? 0 : *limit - *used;
}

std::optional<HostMemory> availableHostMemory() {
  std::optional<HostMemory> best;
  auto consider = [&](std::optional<uint64_t> bytes, const char *source) {
    if (bytes && (!best || *bytes < best->bytes))
      best = HostMemory{*bytes, source};
  };
  if (std::optional<std::string> meminfo = readText("/proc/meminfo"))
    consider(parseMemAvailable(*meminfo), "MemAvailable in /proc/meminfo");
  if (!best) {
    long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    if (pages > 0 && size > 0)
      consider(uint64_t(pages) * uint64_t(size), "the free pages (sysconf)");
  }
  std::string cgroup = cgroupDirectory();
  std::optional<std::string> max = readText(cgroup + "/memory.max");
  std::optional<std::string> current = readText(cgroup + "/memory.current");
  if (max && current)
    consider(cgroupHeadroom(*max, *current),
             "the cgroup's memory.max less memory.current");
  return best;
}

} // namespace check
} // namespace lamport
