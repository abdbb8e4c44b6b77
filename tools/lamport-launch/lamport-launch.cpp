//===- lamport-launch.cpp - A bundle's TP group, one process per rank -----===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// Starts tp processes, one per rank (this executable again, with --rank),
// each opening its rank through the RankRuntime and running lamport-run's
// checked steps (same seed, same inputs, the host simulation's
// expectations); joins their reports. On one GPU the processes share it and
// need the CUDA MPS daemon to run concurrently: --mps start starts and stops
// it, --mps require refuses to run without it, and without either the
// launcher says so. A rank that fails ends the group: the others fail within
// their poll timeout (or the rendezvous timeout), and whatever still runs
// after a grace period is killed. --transport nccl runs each all-reduce as
// ncclAllReduce on a communicator the ranks bootstrap through the same
// rendezvous (NCCL_NVLS_ENABLE=0: never NVLink multicast).
//
//===----------------------------------------------------------------------===//

#include "RankProcess.h"

#include "lamport/Check/Options.h"
#include "lamport/Runtime/Error.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace lamport;
using namespace lamport::launch;
using check::kMaxBatch;
using check::kMaxDevice;
using check::kMaxSteps;
using check::kMaxTp;
using check::parseIntegerOption;
using check::parseTokensOption;
using runtime::concat;
using runtime::UsageError;

namespace {

const char *kUsage =
    "usage: lamport-launch BUNDLE --tp N [--steps S] [--tokens M|all]\n"
    "         [--batch B] [--seed N] [--device D | --device-per-rank]\n"
    "         [--mps start|require|off] [--rendezvous ADDRESS]\n"
    "         [--rendezvous-timeout SECONDS] [--watchdog SECONDS]\n"
    "         [--poll-timeout SECONDS]\n"
    "         [--grace SECONDS] [--no-pdl] [--graph [--check-every R]]\n"
    "         [--transport mailbox|nccl]\n"
    "         [--json FILE]\n"
    "         [--kill-rank R --kill-after-steps K] [--absent-rank R]\n";

struct LaunchOptions {
  RankOptions rank;
  bool devicePerRank = false;
  std::string mps = "off";
  double graceSeconds = -1;
  int killRank = -1;
  int64_t killAfterSteps = -1;
  /// A rank process that exits before the rendezvous (a fault test).
  int absentRank = -1;
  std::string json;
  bool isRank = false;
  /// -h or --help: the usage on stdout, nothing run.
  bool help = false;
};

/// A time in seconds, finite and in (0, 86400]: strtod alone takes "inf",
/// "nan" and "1e400", and a wait without a bound could hang the group.
double seconds(const std::string &flag, const std::string &text) {
  errno = 0;
  char *end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end || errno == ERANGE || !std::isfinite(value))
    throw UsageError(
        concat(flag, " takes a number of seconds, got '", text, "'"));
  if (!(value > 0) || value > 86400)
    throw UsageError(
        concat(flag, " must be in (0, 86400] seconds, got ", text));
  return value;
}

LaunchOptions parse(int argc, char **argv) {
  LaunchOptions o;
  auto next = [&](int &i) -> std::string {
    if (i + 1 >= argc)
      throw UsageError(concat(argv[i], " needs a value"));
    return argv[++i];
  };
  // An integer option within [lo, hi], or a usage error naming the range.
  auto integer = [&](int &i, int64_t lo, int64_t hi) {
    std::string flag = argv[i];
    return parseIntegerOption(flag, next(i), lo, hi);
  };
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-h" || a == "--help")
      o.help = true;
    else if (a == "--tp")
      o.rank.tp = int(integer(i, 1, kMaxTp));
    else if (a == "--steps")
      o.rank.steps = uint64_t(integer(i, 1, kMaxSteps));
    else if (a == "--tokens")
      o.rank.tokens = parseTokensOption(a, next(i));
    else if (a == "--batch")
      o.rank.batch = int(integer(i, 1, kMaxBatch));
    else if (a == "--seed")
      o.rank.seed = uint64_t(integer(i, 0, INT64_MAX));
    else if (a == "--device")
      o.rank.device = int(integer(i, 0, kMaxDevice));
    else if (a == "--device-per-rank")
      o.devicePerRank = true;
    else if (a == "--mps") {
      o.mps = next(i);
      if (o.mps != "start" && o.mps != "require" && o.mps != "off")
        throw UsageError("--mps takes start, require or off");
    } else if (a == "--rendezvous")
      o.rank.rendezvous = next(i);
    else if (a == "--rendezvous-timeout")
      o.rank.rendezvousSeconds = seconds(a, next(i));
    else if (a == "--watchdog")
      o.rank.watchdogSeconds = seconds(a, next(i));
    else if (a == "--poll-timeout")
      o.rank.pollTimeoutSeconds = seconds(a, next(i));
    else if (a == "--grace")
      o.graceSeconds = seconds(a, next(i));
    else if (a == "--graph")
      o.rank.graph = true;
    else if (a == "--check-every")
      o.rank.checkEvery = uint64_t(integer(i, 1, kMaxSteps));
    else if (a == "--transport") {
      std::string name = next(i);
      try {
        o.rank.transport = runtime::parseRankTransport(name);
      } catch (const runtime::Error &error) {
        throw UsageError(error.what());
      }
    } else if (a == "--no-pdl")
      o.rank.pdl = false;
    else if (a == "--json")
      o.json = next(i);
    else if (a == "--kill-rank")
      o.killRank = int(integer(i, 0, kMaxTp - 1));
    else if (a == "--kill-after-steps")
      o.killAfterSteps = integer(i, 0, kMaxSteps);
    else if (a == "--absent-rank")
      o.absentRank = int(integer(i, 0, kMaxTp - 1));
    else if (a == "--rank") { // A rank process (what the launcher starts).
      o.isRank = true;
      o.rank.rank = int(integer(i, 0, kMaxTp - 1));
    } else if (a == "--report")
      o.rank.report = next(i);
    else if (a == "--absent")
      o.rank.absent = true;
    else if (a == "--die-after-steps")
      o.rank.dieAfterSteps = integer(i, 0, kMaxSteps);
    else if (!a.empty() && a[0] == '-')
      throw UsageError(concat("unknown option '", a, "'"));
    else if (o.rank.bundle.empty())
      o.rank.bundle = a;
    else
      throw UsageError(concat("a second bundle '", a, "'"));
  }
  if (o.help)
    return o;
  if (o.rank.bundle.empty())
    throw UsageError("no bundle given");
  if (o.rank.tp < 1)
    throw UsageError("missing --tp N (the ranks of the TP group)");
  if ((o.killRank >= 0) != (o.killAfterSteps >= 0) || o.killRank >= o.rank.tp)
    throw UsageError("--kill-rank R (a rank of the group) goes with "
                     "--kill-after-steps K");
  if (o.absentRank >= o.rank.tp)
    throw UsageError(concat("--absent-rank ", o.absentRank,
                            " is not a rank of the group of ", o.rank.tp));
  if (o.isRank && o.rank.rank >= o.rank.tp)
    throw UsageError(concat("--rank ", o.rank.rank,
                            " is not a rank of the group of ", o.rank.tp));
  return o;
}

/// Whether an MPS control daemon answers (its pipe directory has a control
/// socket).
bool mpsRunning() {
  const char *dir = std::getenv("CUDA_MPS_PIPE_DIRECTORY");
  std::string control =
      concat(dir && *dir ? dir : "/tmp/nvidia-mps", "/control");
  struct stat info;
  return ::stat(control.c_str(), &info) == 0;
}

/// Starts the tp rank processes; returns their pids.
std::vector<pid_t> startRanks(const LaunchOptions &o, char **argv,
                              const std::string &directory) {
  std::vector<pid_t> pids;
  for (int r = 0; r < o.rank.tp; ++r) {
    std::vector<std::string> args;
    for (int i = 0; argv[i]; ++i)
      args.push_back(argv[i]);
    int device = o.rank.device + (o.devicePerRank ? r : 0);
    for (std::string extra :
         {std::string("--rank"), std::to_string(r), std::string("--device"),
          std::to_string(device), std::string("--rendezvous"),
          o.rank.rendezvous, std::string("--report"),
          concat(directory, "/rank-", r, ".json")})
      args.push_back(extra);
    if (r == o.absentRank)
      args.push_back("--absent");
    if (r == o.killRank)
      for (std::string extra :
           {std::string("--die-after-steps"), std::to_string(o.killAfterSteps)})
        args.push_back(extra);
    pid_t pid = ::fork();
    if (pid == 0) {
      std::vector<char *> list;
      for (std::string &arg : args)
        list.push_back(arg.data());
      list.push_back(nullptr);
      ::execv("/proc/self/exe", list.data());
      std::perror("lamport-launch: exec");
      ::_exit(127);
    }
    pids.push_back(pid);
  }
  return pids;
}

/// Waits for every rank; once one has failed, the rest get \p grace seconds
/// and are then killed. Returns each rank's exit status (-SIGNAL if killed).
std::vector<int> joinRanks(std::vector<pid_t> pids, double grace,
                           std::vector<bool> &killed,
                           std::vector<double> &exitSeconds) {
  using Clock = std::chrono::steady_clock;
  Clock::time_point started = Clock::now();
  exitSeconds.assign(pids.size(), 0);
  std::vector<int> status(pids.size(), 0);
  killed.assign(pids.size(), false);
  std::size_t left = pids.size();
  bool failing = false;
  Clock::time_point deadline;
  while (left) {
    for (std::size_t r = 0; r < pids.size(); ++r) {
      if (!pids[r])
        continue;
      int raw = 0;
      if (::waitpid(pids[r], &raw, WNOHANG) != pids[r])
        continue;
      status[r] = WIFEXITED(raw) ? WEXITSTATUS(raw) : -WTERMSIG(raw);
      pids[r] = 0;
      --left;
      exitSeconds[r] =
          std::chrono::duration<double>(Clock::now() - started).count();
      if (status[r] && !failing) {
        failing = true;
        deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                      std::chrono::duration<double>(grace));
      }
    }
    if (failing && left && Clock::now() > deadline)
      for (std::size_t r = 0; r < pids.size(); ++r)
        if (pids[r]) {
          ::kill(pids[r], SIGKILL);
          killed[r] = true;
        }
    ::usleep(2000);
  }
  return status;
}

int launchGroup(const LaunchOptions &o, char **argv) {
  // NCCL must never use NVLink SHARP (multicast objects) on shared hosts.
  ::setenv("NCCL_NVLS_ENABLE", "0", 1);
  bool shareGpu = !o.devicePerRank && o.rank.tp > 1;
  bool startedMps = false;
  if (o.mps == "start" && !mpsRunning()) {
    if (std::system("nvidia-cuda-mps-control -d") != 0)
      throw runtime::Error("could not start the MPS daemon "
                           "(nvidia-cuda-mps-control -d)");
    startedMps = true;
  } else if (o.mps == "require" && !mpsRunning()) {
    throw runtime::Error("--mps require: no MPS daemon is running "
                         "(start one with nvidia-cuda-mps-control -d, or "
                         "pass --mps start)");
  }
  if (shareGpu && !mpsRunning())
    std::cout << "note: the " << o.rank.tp << " ranks share GPU "
              << o.rank.device
              << " without the MPS daemon: their kernels cannot run at once, "
                 "so a poll waiting for another rank may time out (use --mps "
                 "start)\n";
  char pattern[] = "/tmp/lamport-launch-XXXXXX";
  std::string directory = ::mkdtemp(pattern) ? pattern : "";
  if (directory.empty())
    throw runtime::Error("could not create a directory for the reports");
  LaunchOptions run = o;
  if (run.rank.rendezvous.empty()) {
    ::mkdir((directory + "/store").c_str(), 0700);
    run.rank.rendezvous = "file://" + directory + "/store";
  }
  double grace =
      o.graceSeconds >= 0
          ? o.graceSeconds
          : std::max(o.rank.rendezvousSeconds, o.rank.watchdogSeconds) + 2;
  std::vector<bool> killed;
  std::vector<double> exitSeconds;
  std::vector<int> status =
      joinRanks(startRanks(run, argv, directory), grace, killed, exitSeconds);
  if (startedMps)
    std::system("echo quit | nvidia-cuda-mps-control");
  nlohmann::json joined = {{"tp", o.rank.tp},
                           {"ranks", nlohmann::json::array()}};
  bool pass = true;
  for (int r = 0; r < o.rank.tp; ++r) {
    nlohmann::json report = {{"rank", r}};
    std::ifstream in(concat(directory, "/rank-", r, ".json"));
    if (in)
      report = nlohmann::json::parse(in, nullptr, false);
    if (killed[r])
      report["status"] = "killed";
    else if (!report.contains("status"))
      report["status"] = concat("died (exit status ", status[r], ")");
    report["exit_status"] = status[r];
    // Seconds from the launch to this process's exit (fault timings).
    report["exit_seconds"] = exitSeconds[r];
    pass &= status[r] == 0 && report["status"] == "pass";
    std::cout << "rank " << r << ": " << report["status"].get<std::string>();
    if (report.contains("steps_run"))
      std::cout << ", " << report["steps_run"] << " step(s)";
    if (report.contains("step_us_median"))
      std::cout << ", median " << report["step_us_median"] << " us";
    if (report.value("graph_step_us_median", 0.0) > 0)
      std::cout << ", graph replay " << report["graph_step_us_median"]
                << " us/step";
    if (report.contains("error"))
      std::cout << ": " << report["error"].get<std::string>();
    std::cout << "\n";
    joined["ranks"].push_back(report);
  }
  // Every rank's dual norms must equal rank 0's, bit for bit.
  for (int r = 1; pass && r < o.rank.tp; ++r)
    if (joined["ranks"][r].value("norm_output_hashes", nlohmann::json()) !=
        joined["ranks"][0].value("norm_output_hashes", nlohmann::json())) {
      std::cout << "rank " << r
                << ": its dual norm outputs differ from rank 0's\n";
      pass = false;
    }
  joined["status"] = pass ? "pass" : "fail";
  if (!o.json.empty())
    std::ofstream(o.json) << joined.dump(2) << "\n";
  std::cout << (pass ? "PASS" : "FAIL") << " (" << o.rank.tp
            << " rank processes)\n";
  std::system(concat("rm -rf '", directory, "'").c_str());
  return pass ? 0 : 1;
}

} // namespace

int main(int argc, char **argv) {
  try {
    LaunchOptions options = parse(argc, argv);
    if (options.help) {
      std::cout << kUsage;
      return 0;
    }
    if (options.isRank)
      return runRank(options.rank);
    return launchGroup(options, argv);
  } catch (const UsageError &error) {
    std::cerr << "lamport-launch: error: " << error.what() << "\n" << kUsage;
    return 2;
  } catch (const std::exception &error) {
    std::cerr << "lamport-launch: error: " << error.what() << "\n";
    return 2;
  }
}
