//===- Rendezvous.cpp - The store the ranks of a TP group meet in ---------===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The waits every store shares (get, gather, barrier), the file store, and
// the choice of a store by address.
//
//===----------------------------------------------------------------------===//

#include "RendezvousImpl.h"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include <sys/stat.h>
#include <unistd.h>

namespace lamport {
namespace runtime {

Backoff::Backoff(double seconds)
    : deadline(std::chrono::steady_clock::now() +
               std::chrono::microseconds(int64_t(seconds * 1e6))) {}

bool Backoff::next() {
  auto now = std::chrono::steady_clock::now();
  if (now >= deadline)
    return false;
  auto left =
      std::chrono::duration_cast<std::chrono::microseconds>(deadline - now);
  std::this_thread::sleep_for(std::min(pause, left));
  pause = std::min(pause * 2, std::chrono::microseconds(5000));
  return true;
}

Rendezvous::~Rendezvous() = default;

/// "ranks 1, 3" or "rank 2".
static std::string rankList(const std::vector<int> &ranks) {
  std::string text = ranks.size() == 1 ? "rank " : "ranks ";
  for (std::size_t i = 0; i < ranks.size(); ++i)
    text += concat(i ? ", " : "", ranks[i]);
  return text;
}

std::string Rendezvous::get(const std::string &key, int owner,
                            double timeoutSeconds) {
  Backoff backoff(timeoutSeconds);
  do {
    if (std::optional<std::string> value = tryGet(key))
      return *value;
  } while (backoff.next());
  throw RendezvousTimeout(concat("rendezvous ", address(), ": rank ", self,
                                 " waited ", timeoutSeconds, " s for '", key,
                                 "' from rank ", owner,
                                 ", which never set it (rank ", owner,
                                 " died or never reached the rendezvous)"),
                          {owner});
}

std::vector<std::string> Rendezvous::gather(const std::string &prefix,
                                            double timeoutSeconds) {
  std::vector<std::optional<std::string>> found(ranks);
  Backoff backoff(timeoutSeconds);
  for (;;) {
    std::vector<int> missing;
    for (int r = 0; r < ranks; ++r) {
      if (!found[r])
        found[r] = tryGet(concat(prefix, "/", r));
      if (!found[r])
        missing.push_back(r);
    }
    if (missing.empty())
      break;
    if (!backoff.next())
      throw RendezvousTimeout(
          concat("rendezvous ", address(), ": rank ", self, " waited ",
                 timeoutSeconds, " s for '", prefix, "' from every rank; ",
                 rankList(missing), " never set it (died or never reached ",
                 "the rendezvous)"),
          missing);
  }
  std::vector<std::string> values;
  for (auto &value : found)
    values.push_back(*value);
  return values;
}

void Rendezvous::barrier(const std::string &name, double timeoutSeconds) {
  set(concat(name, "/", self), "1");
  gather(name, timeoutSeconds);
}

namespace {

/// One file per key in a directory; a key's bytes are written to a private
/// file first and renamed into place, so a reader sees all of a value or
/// nothing.
class FileRendezvous : public Rendezvous {
public:
  FileRendezvous(const std::string &address, std::string directory, int rank,
                 int size)
      : Rendezvous(address, rank, size), directory(std::move(directory)) {
    struct stat info;
    if (::stat(this->directory.c_str(), &info) != 0 || !S_ISDIR(info.st_mode))
      throw Error(concat("rendezvous ", address, ": '", this->directory,
                         "' is not a directory (create it on a filesystem "
                         "every rank sees)"));
  }

  void set(const std::string &key, const std::string &value) override {
    std::string path = pathOf(key);
    std::string temporary = concat(path, ".", ::getpid(), ".partial");
    {
      std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
      out.write(value.data(), std::streamsize(value.size()));
      if (!out)
        throw Error(concat("rendezvous ", address(), ": rank ", rank(),
                           " could not write '", temporary, "'"));
    }
    if (std::rename(temporary.c_str(), path.c_str()) != 0)
      throw Error(concat("rendezvous ", address(), ": rank ", rank(),
                         " could not rename '", temporary, "' to '", path,
                         "': ", std::strerror(errno)));
  }

  std::optional<std::string> tryGet(const std::string &key) override {
    std::ifstream in(pathOf(key), std::ios::binary);
    if (!in)
      return std::nullopt;
    std::ostringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
  }

private:
  /// Keys become file names: anything but [A-Za-z0-9._-] is %XX.
  std::string pathOf(const std::string &key) const {
    std::string name;
    for (unsigned char c : key) {
      if (std::isalnum(c) || c == '.' || c == '_' || c == '-') {
        name += char(c);
      } else {
        char escaped[4];
        std::snprintf(escaped, sizeof(escaped), "%%%02X", c);
        name += escaped;
      }
    }
    return concat(directory, "/", name);
  }

  std::string directory;
};

} // namespace

std::unique_ptr<Rendezvous> openRendezvous(const std::string &address, int rank,
                                           int size, double timeoutSeconds) {
  if (size < 1 || rank < 0 || rank >= size)
    throw Error(concat("rendezvous ", address, ": rank ", rank,
                       " is outside a group of ", size));
  if (!(timeoutSeconds > 0))
    throw Error(concat("rendezvous ", address,
                       ": the timeout must be positive, got ", timeoutSeconds));
  std::string rest = address;
  bool tcp = false;
  if (rest.rfind("tcp://", 0) == 0) {
    rest = rest.substr(6);
    tcp = true;
  } else if (rest.rfind("file://", 0) == 0) {
    return std::make_unique<FileRendezvous>(address, rest.substr(7), rank,
                                            size);
  } else {
    // HOST:PORT without a scheme; anything with a '/' is a directory.
    std::size_t colon = rest.rfind(':');
    tcp = rest.find('/') == std::string::npos && colon != std::string::npos &&
          colon + 1 < rest.size() &&
          rest.find_first_not_of("0123456789", colon + 1) == std::string::npos;
  }
  if (!tcp)
    return std::make_unique<FileRendezvous>(address, rest, rank, size);
  std::size_t colon = rest.rfind(':');
  if (colon == std::string::npos || colon == 0 ||
      rest.find_first_not_of("0123456789", colon + 1) != std::string::npos ||
      colon + 1 == rest.size())
    throw Error(concat("rendezvous '", address,
                       "': expected tcp://HOST:PORT, file://DIR or a path"));
  int port = std::stoi(rest.substr(colon + 1));
  if (port > 65535 || (port == 0 && rank != 0))
    throw Error(concat("rendezvous '", address, "': port ", port,
                       " is not a port rank ", rank, " can connect to"));
  return openTcpRendezvous(address, rest.substr(0, colon), port, rank, size,
                           timeoutSeconds);
}

} // namespace runtime
} // namespace lamport
