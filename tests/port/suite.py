#!/usr/bin/python3
"""tests/port/suite.py MACHINE - the protocol tests against a carcd built
for another machine (tests/port/daemon runs it, with CARCD set to that
carcd under qemu-user).

Every test of tests/proto runs but those listed below, which test this
machine's build or reach into the daemon's process in a way an emulated
one cannot take; each is run against this machine's carcd by `make
check`.  Prints unittest's report, then "N passed, N failed"."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PROTO = os.path.join(os.path.dirname(HERE), "proto")

# test id (or the start of one) -> why it cannot run against an emulated carcd
NOT_HERE = {
    "test_install.": "installs this machine's build, not the carcd under test",
    "test_journal.Journal.test_a_directory_that_cannot_be_read_to_its_end":
        "preloads a library built for this machine into carcd",
    "test_audit16_contrib.Stops.test_sigkill_does_not_orphan_the_private_daemon":
        "finds carcd by its process name, which under qemu-user is qemu's",
    "test_audit14_ops.Signals.test_signals_while_the_journal_is_restored":
        "waits for carcd to block signals by reading its mask in /proc, which under qemu-user is qemu's",
}
# the same, on one machine only
NOT_ON = {
    "i386": {
        "test_audit_daemon2.Options.test_range_edges_are_accepted_and_one_past_refused":
            "--max-output's top is 2^40 where a size_t holds it, 2^32 - 1 on a 32-bit machine",
    },
}


def main():
    machine = sys.argv[1] if len(sys.argv) > 1 else ""
    skip = dict(NOT_HERE, **NOT_ON.get(machine, {}))
    sys.path.insert(0, PROTO)
    import runall
    for k, why in sorted(skip.items()):
        print("not run on %s: %s (%s)" % (machine or "this machine", k, why))
    sys.stdout.flush()
    total, results = runall.run_all(skip)
    # a test fails once however many of its subtests do; a class whose set-up
    # failed, or a module that cannot be imported, is one failure; a skip
    # is a failure here, as in tests/summarize
    failed = len({t for r in results for k in ("failures", "errors", "skipped", "unexpected") for t in r[k]})
    print("%d left out" % total["left_out"])
    print("%d passed, %d failed" % (max(total["run"] - failed, 0), failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
