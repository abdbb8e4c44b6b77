#!/usr/bin/env python3
"""Adds up JUnit XML results of every suite and prints the closing line.

Prints "N passed, N failed, N skipped" and lists the failures and the skipped
tests with their reason, so a skip never goes unexplained. Exits non-zero when
anything failed or when no test ran at all.
"""
import sys
import xml.etree.ElementTree as ET


def main(paths):
    passed = failed = skipped = 0
    failures, skips = [], []
    for path in paths:
        for case in ET.parse(path).getroot().iter("testcase"):
            name = f"{case.get('classname', '')}::{case.get('name', '')}"
            if case.find("failure") is not None or case.find("error") is not None:
                failed += 1
                failures.append(name)
            elif case.find("skipped") is not None:
                skipped += 1
                reason = case.find("skipped").get("message", "")
                skips.append(f"{name}: {reason}")
            else:
                passed += 1
    for name in failures:
        print(f"FAILED {name}")
    for line in skips:
        print(f"SKIPPED {line}")
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed or passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
