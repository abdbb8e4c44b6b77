#!/usr/bin/env python3
# ===- exit_status.py - How a command ended, for lit ------------------------===#
#
# Part of the Lamport project.
#
#   exit_status.py COMMAND [ARGS...]
# runs COMMAND with this process's stdin, stdout and stderr, then prints
# "exit N" (its exit code) or "signal NAME" (the signal that ended it) on a
# line of its own, and exits 0, so a test can FileCheck both the message and
# the way a tool ended: a bad input must give a clear error and a non-zero
# exit, never a signal.
#
# ===----------------------------------------------------------------------===#
import signal
import subprocess
import sys

status = subprocess.run(sys.argv[1:]).returncode
sys.stderr.flush()
if status < 0:
    print(f"signal {signal.Signals(-status).name}", flush=True)
else:
    print(f"exit {status}", flush=True)
