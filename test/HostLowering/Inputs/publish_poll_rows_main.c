//===- publish_poll_rows_main.c - Runs a host-lowered program's steps -----===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// The C side of test/HostLowering: a TP group of 2 ranks over the runtime's
// C API, and docs/examples/publish_poll_rows_tp2.mlir lowered to an object
// file (lamport-lower-program, then upstream passes only), called once per
// rank in every step. Every rank publishes its rows and reads back both
// ranks' rows, so after a step each rank's `out` must hold rank s's rows in
// slot s. A mode names one run:
//   steps          steps of 1, 5, 16 and 3 tokens, every out checked (four
//                  steps rotate through all three generations and wrap);
//   outside-step   the program called with no step begun;
//   wrong-mailbox  a mailbox of another capacity than the program's;
//   missing-rank   rank 1 never calls the program, so rank 0's poll traps;
//   timeout-before-load  the same after the polls' timeout is set to 250 ms
//                  before any image has loaded (each image takes it as it
//                  loads);
//   timeout-after-load   the same after a full step loaded the images and
//                  the timeout was set then;
//   timeout-restored  set to 250 ms before a full step, then back to the
//                  compiled timeout (0) before the missing rank's step;
//   timeout-then-steps  the steps of `steps` after the timeout is set to 5 s
//                  before any image has loaded (each image takes it as it
//                  loads);
//   api-errors     the C API's refusals, each printed.
//
//===----------------------------------------------------------------------===//

#include "lamport-c/HostRuntime.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kTp = 2, kCapacity = 16, kWidth = 8192 };

/// The memref descriptors of upstream's C interface (_mlir_ciface_*).
typedef struct {
  uint16_t *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
} Rows;
typedef struct {
  uint16_t *allocated, *aligned;
  int64_t offset, sizes[3], strides[3];
} Out;

/// The lowered program: its mailbox argument is a LamportMailbox handle.
void _mlir_ciface_publish_poll_rows(Rows *rows, LamportMailbox mailbox,
                                    Out *out);

static void printError(const char *message, size_t length, void *userData) {
  (void)userData;
  printf("error: %.*s\n", (int)length, message);
}

#define CHECK(call)                                                            \
  do {                                                                         \
    if ((call) != LAMPORT_STATUS_OK) {                                         \
      printf("failed: %s\n", #call);                                           \
      return 1;                                                                \
    }                                                                          \
  } while (0)

static LamportRuntime runtime;
static LamportMailbox mailboxes[kTp];
static uint64_t rowsOnDevice[kTp], outOnDevice[kTp];

/// Rank r's row m, column c: positive BF16 bit patterns, never the sentinel.
static uint16_t rowValue(int rank, int m, int c) {
  return (uint16_t)(0x3C00 + rank * 0x0800 + m * 0x40 + c % 0x40);
}

static void callProgram(int rank, int tokens) {
  Rows rows = {(uint16_t *)(uintptr_t)rowsOnDevice[rank],
               (uint16_t *)(uintptr_t)rowsOnDevice[rank],
               0,
               {tokens, kWidth},
               {kWidth, 1}};
  Out out = {(uint16_t *)(uintptr_t)outOnDevice[rank],
             (uint16_t *)(uintptr_t)outOnDevice[rank],
             0,
             {kTp, tokens, kWidth},
             {(int64_t)tokens * kWidth, kWidth, 1}};
  _mlir_ciface_publish_poll_rows(&rows, mailboxes[rank], &out);
}

/// Uploads every rank's rows for `tokens` tokens and poisons its out.
static int prepare(int tokens) {
  size_t rowElements = (size_t)tokens * kWidth;
  uint16_t *host = malloc(kTp * rowElements * 2);
  for (int r = 0; r < kTp; ++r) {
    for (int m = 0; m < tokens; ++m)
      for (int c = 0; c < kWidth; ++c)
        host[m * kWidth + c] = rowValue(r, m, c);
    CHECK(lamportRuntimeUpload(runtime, r, rowsOnDevice[r], host,
                               rowElements * 2, printError, NULL));
    memset(host, 0xFF, kTp * rowElements * 2);
    CHECK(lamportRuntimeUpload(runtime, r, outOnDevice[r], host,
                               kTp * rowElements * 2, printError, NULL));
  }
  free(host);
  return 0;
}

/// Every rank's out holds rank s's rows in slot s.
static int checkOut(int tokens) {
  size_t elements = (size_t)kTp * tokens * kWidth;
  uint16_t *host = malloc(elements * 2);
  for (int r = 0; r < kTp; ++r) {
    CHECK(lamportRuntimeDownload(runtime, r, host, outOnDevice[r], elements * 2,
                                 printError, NULL));
    for (int s = 0; s < kTp; ++s)
      for (int m = 0; m < tokens; ++m)
        for (int c = 0; c < kWidth; ++c) {
          uint16_t got = host[((size_t)s * tokens + m) * kWidth + c];
          if (got != rowValue(s, m, c)) {
            printf("rank %d: out[%d][%d][%d] = 0x%04x, expected 0x%04x\n", r, s,
                   m, c, got, rowValue(s, m, c));
            free(host);
            return 1;
          }
        }
  }
  free(host);
  return 0;
}

static int runSteps(void) {
  const int tokens[] = {1, 5, 16, 3};
  for (int step = 0; step < 4; ++step) {
    if (prepare(tokens[step]))
      return 1;
    CHECK(lamportRuntimeBeginStep(runtime, printError, NULL));
    for (int r = 0; r < kTp; ++r)
      callProgram(r, tokens[step]);
    CHECK(lamportRuntimeEndStep(runtime, 10.0, printError, NULL));
    if (checkOut(tokens[step]))
      return 1;
    printf("step %d: %d token(s): every rank's out holds every rank's rows\n",
           step, tokens[step]);
  }
  return 0;
}

/// Runs one step in which the program is called as `mode` says; prints the
/// status of its end.
/// A full step of 2 tokens: it loads the program's images.
static int runFullStep(void) {
  if (prepare(2))
    return 1;
  CHECK(lamportRuntimeBeginStep(runtime, printError, NULL));
  for (int r = 0; r < kTp; ++r)
    callProgram(r, 2);
  CHECK(lamportRuntimeEndStep(runtime, 10.0, printError, NULL));
  return 0;
}

static int runFaultyStep(const char *mode) {
  const uint64_t quarterSecondNs = 250000000;
  if (strcmp(mode, "timeout-before-load") == 0 ||
      strcmp(mode, "timeout-restored") == 0)
    CHECK(lamportRuntimeSetPollTimeout(runtime, quarterSecondNs, printError,
                                       NULL));
  if (strcmp(mode, "timeout-after-load") == 0 ||
      strcmp(mode, "timeout-restored") == 0)
    if (runFullStep())
      return 1;
  if (strcmp(mode, "timeout-after-load") == 0)
    CHECK(lamportRuntimeSetPollTimeout(runtime, quarterSecondNs, printError,
                                       NULL));
  if (strcmp(mode, "timeout-restored") == 0)
    CHECK(lamportRuntimeSetPollTimeout(runtime, 0, printError, NULL));
  if (prepare(2))
    return 1;
  int missingRank =
      strcmp(mode, "missing-rank") == 0 || strncmp(mode, "timeout-", 8) == 0;
  if (strcmp(mode, "outside-step") == 0) {
    callProgram(0, 2);
    CHECK(lamportRuntimeBeginStep(runtime, printError, NULL));
  } else {
    CHECK(lamportRuntimeBeginStep(runtime, printError, NULL));
    for (int r = 0; r < kTp; ++r)
      if (r == 0 || !missingRank)
        callProgram(r, 2);
  }
  LamportStatus status = lamportRuntimeEndStep(runtime, 10.0, printError, NULL);
  printf("end of step: status %d\n", (int)status);
  return 0;
}

/// Every call here is refused; each refusal prints its message.
static int apiErrors(void) {
  LamportRuntime other = NULL;
  LamportMailboxShape bad = {NULL, 16, 12};
  lamportRuntimeCreateWithMailboxes(kTp, "loopback", 0, &bad, 1, &other,
                                    printError, NULL);
  LamportMailboxShape good = {NULL, 16, 256};
  lamportRuntimeCreateWithMailboxes(kTp, "multicast", 0, &good, 1, &other,
                                    printError, NULL);
  lamportRuntimeCreateWithMailboxes(kTp, "loopback", 0, NULL, 0, &other,
                                    printError, NULL);
  LamportMailbox handle = NULL;
  lamportRuntimeGetMailbox(runtime, kTp, 0, &handle, printError, NULL);
  lamportRuntimeGetMailbox(runtime, 0, 1, &handle, printError, NULL);
  lamportRuntimeEndStep(runtime, 10.0, printError, NULL);
  lamportRuntimeBeginStep(runtime, printError, NULL);
  lamportRuntimeBeginStep(runtime, printError, NULL);
  lamportRuntimeEndStep(runtime, 0.0, printError, NULL);
  lamportRuntimeBind(runtime, 0, 0, rowsOnDevice[0], 16, printError, NULL);
  lamportRuntimeStep(runtime, 1, 10.0, printError, NULL);
  unsigned one[3] = {1, 1, 1};
  lamportLaunchKernel(NULL, (LamportStream)&handle, one, one, NULL, 0, NULL, 0,
                      printError, NULL);
  lamportRuntimeSetPollTimeout(runtime, UINT64_MAX, printError, NULL);
  lamportRuntimeSetPollTimeout(NULL, 1, printError, NULL);
  return 0;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "steps";
  LamportMailboxShape shape = {"boundary", kCapacity, kWidth};
  if (strcmp(mode, "wrong-mailbox") == 0)
    shape.capacity = 8;
  CHECK(lamportRuntimeCreateWithMailboxes(kTp, "loopback", 0, &shape, 1,
                                          &runtime, printError, NULL));
  for (int r = 0; r < kTp; ++r) {
    CHECK(lamportRuntimeGetMailbox(runtime, r, 0, &mailboxes[r], printError,
                                   NULL));
    CHECK(lamportRuntimeAllocate(runtime, r, (uint64_t)kCapacity * kWidth * 2,
                                 &rowsOnDevice[r], printError, NULL));
    CHECK(lamportRuntimeAllocate(runtime, r,
                                 (uint64_t)kTp * kCapacity * kWidth * 2,
                                 &outOnDevice[r], printError, NULL));
  }
  if (strcmp(mode, "timeout-then-steps") == 0) {
    CHECK(
        lamportRuntimeSetPollTimeout(runtime, 5000000000ull, printError, NULL));
    mode = "steps";
  }
  int failed = strcmp(mode, "steps") == 0        ? runSteps()
               : strcmp(mode, "api-errors") == 0 ? apiErrors()
                                                 : runFaultyStep(mode);
  lamportRuntimeDestroy(runtime);
  return failed;
}
