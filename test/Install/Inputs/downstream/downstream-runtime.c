/*===- downstream-runtime.c - Use the installed runtime C API -------------===*\
|*                                                                            *|
|* Part of the Lamport project.                                               *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/*
 * Links Lamport::LamportRuntimeC and calls it: a runtime asked for an
 * unknown transport fails with a message before any GPU is looked for, so
 * this runs on a machine without one.
 */

#include "lamport-c/Runtime.h"

#include <stdio.h>

static void printError(const char *message, size_t length, void *userData) {
  (void)userData;
  printf("error: %.*s\n", (int)length, message);
}

int main(void) {
  LamportRuntime runtime = NULL;
  LamportStatus status = lamportRuntimeCreate("bundle", 2, "nvls", 0, 0,
                                              &runtime, printError, NULL);
  printf("status: %d\n", (int)status);
  return status == LAMPORT_STATUS_ERROR && runtime == NULL ? 0 : 1;
}
