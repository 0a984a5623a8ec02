#!/usr/bin/python3
"""runall.py - every protocol test module, several at a time.

run.sh runs it when it is given no test names, and tests/port/suite.py runs
it against a carcd built for another machine.  Each module runs in a
process of its own, as `run.sh MODULE` would run it: its daemon, its
fixtures and its tests in their order; only the modules run side by side.
CARC_TEST_JOBS of them run at once (default: the processors this process
may use), the biggest files first, so that a long module does not start
last.  Each module's report is printed whole when it ends, then the totals
as unittest prints them for one run ("Ran N tests in T s", then "OK" or
"FAILED (failures=F, errors=E)"), which tests/summarize counts.

    runall.py [--skip ID_PREFIX=WHY ...]    from anywhere
    runall.py --module NAME [--skip ...]    one module (what each process runs)

A module process ends its report with one line "#runall {json}": how many
tests ran, and the ids of the failed, erring, skipped and unexpectedly
passing ones.  A process that ends without it, or with a status other
than 0 (a crash), is one error.
"""

import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
MARK = "#runall "


def tests_of(suite):
    for t in suite:
        if isinstance(t, unittest.TestSuite):
            yield from tests_of(t)
        else:
            yield t


def case_id(test):
    """The id of the test a failure belongs to (a subtest's is its test's)."""
    return getattr(test, "test_case", test).id()


def run_module(name, skip):
    """In a module's own process: its tests, less those skipped here."""
    sys.path.insert(0, HERE)
    os.chdir(HERE)
    kept = unittest.TestSuite()
    left_out = 0
    for t in tests_of(unittest.defaultTestLoader.loadTestsFromName(name)):
        if any(t.id().startswith(k) for k in skip):
            left_out += 1
        else:
            kept.addTest(t)
    runner = unittest.TextTestRunner(stream=sys.stdout, verbosity=2)
    result = runner._makeResult()
    result.startTestRun()
    try:
        kept(result)
    finally:
        result.stopTestRun()
    result.printErrors()
    sys.stdout.flush()
    print("\n" + MARK + json.dumps({
        "run": result.testsRun, "left_out": left_out,
        "failures": [case_id(t) for t, _ in result.failures],
        "errors": [case_id(t) for t, _ in result.errors],
        "skipped": [case_id(t) for t, _ in result.skipped],
        "unexpected": [case_id(t) for t in result.unexpectedSuccesses],
        "expected": len(result.expectedFailures)}))
    return 0


def modules():
    """The test modules, the biggest file first."""
    names = [f[:-3] for f in os.listdir(HERE) if f.startswith("test_") and f.endswith(".py")]
    return sorted(names, key=lambda n: (-os.path.getsize(os.path.join(HERE, n + ".py")), n))


def jobs():
    want = os.environ.get("CARC_TEST_JOBS", "")
    if want:
        if not want.isdigit() or int(want) < 1:
            sys.exit("runall.py: CARC_TEST_JOBS is a number of processes, 1 or more, not %r" % want)
        return int(want)
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except AttributeError:   # not Linux
        return os.cpu_count() or 1


def one(name, skip_args):
    """Runs a module's process; returns its name, report and result."""
    started = time.monotonic()
    p = subprocess.run([sys.executable, os.path.abspath(__file__), "--module", name] + skip_args,
                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=HERE)
    text = p.stdout.decode(errors="replace")
    body, sep, tail = text.rpartition("\n" + MARK)
    result = None
    if sep and p.returncode == 0:
        try:
            result = json.loads(tail.strip())
        except ValueError:
            result = None
    if result is None:
        body = text + "\nERROR: %s (its process ended with status %d%s)\n" % (
            name, p.returncode, "" if sep else " and no result")
        result = {"run": 1, "left_out": 0, "failures": [], "errors": [name], "skipped": [], "unexpected": [],
                  "expected": 0}
    return name, body, result, time.monotonic() - started


def run_all(skip):
    """Every module, jobs() at a time; prints the reports and the totals
    and returns them: tests run, and the results of all modules."""
    skip_args = [a for k, why in sorted(skip.items()) for a in ("--skip", "%s=%s" % (k, why))]
    started = time.monotonic()
    results = []
    with concurrent.futures.ThreadPoolExecutor(jobs()) as pool:
        for f in concurrent.futures.as_completed([pool.submit(one, n, skip_args) for n in modules()]):
            name, body, result, secs = f.result()
            results.append(result)
            sys.stdout.write(body.rstrip("\n") + "\n")
            print("-- %s: %d tests in %.1f s" % (name, result["run"], secs))
            sys.stdout.flush()
    if not results:
        sys.exit("runall.py: no test module in " + HERE)
    total = {k: sum(r[k] if isinstance(r[k], int) else len(r[k]) for r in results) for k in results[0]}
    print("-" * 70)
    print("Ran %d test%s in %.3fs\n" % (total["run"], "" if total["run"] == 1 else "s", time.monotonic() - started))
    counts = [(w, total[k]) for k, w in (("failures", "failures"), ("errors", "errors"), ("skipped", "skipped"),
                                        ("expected", "expected failures"), ("unexpected", "unexpected successes"))
              if total[k]]
    print(("OK" if passed(total) else "FAILED") + (" (%s)" % ", ".join("%s=%d" % c for c in counts) if counts else ""))
    return total, results


def passed(total):
    """unittest's verdict on totals: no failure, error or unexpected success."""
    return not (total["failures"] or total["errors"] or total["unexpected"])


def skip_arg(a):
    k, eq, why = a.partition("=")
    if not eq or not k:
        raise argparse.ArgumentTypeError("ID_PREFIX=WHY, not %r" % a)
    return k, why


def main(argv):
    ap = argparse.ArgumentParser(prog="runall.py")
    ap.add_argument("--module", metavar="NAME", help="run one module, in this process")
    ap.add_argument("--skip", metavar="ID_PREFIX=WHY", type=skip_arg, action="append", default=[],
                    help="leave out the tests whose ids start so")
    args = ap.parse_args(argv)
    skip = dict(args.skip)
    if args.module:
        return run_module(args.module, skip)
    total, _ = run_all(skip)
    return 0 if passed(total) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
