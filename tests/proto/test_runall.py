"""runall.py, which runs these modules side by side, must not lose a
failure: every kind of bad result in a module reaches its totals, its
exit status and the lines tests/summarize counts."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))

MODULES = {
    "test_a": """
import unittest
class A(unittest.TestCase):
    def test_ok(self): pass
    def test_fail(self): self.assertEqual(1, 2)
    def test_err(self): raise RuntimeError("boom")
    def test_skip(self): self.skipTest("not here")
    def test_sub(self):
        for i in range(3):
            with self.subTest(i=i): self.assertLess(i, 1)
    @unittest.expectedFailure
    def test_unexpected(self): pass
""",
    "test_b": "import os\nos._exit(3)\n",   # a module whose process dies
    "test_c": """
import unittest
class C(unittest.TestCase):
    @classmethod
    def setUpClass(cls): raise RuntimeError("no set-up")
    def test_x(self): pass
""",
    # a module whose process reports and then dies
    "test_e": "import atexit, os, unittest\natexit.register(os._exit, 5)\n"
              "class E(unittest.TestCase):\n    def test_fine(self): pass\n",
    "test_d": """
import unittest
class D(unittest.TestCase):
    def test_one(self): pass
    def test_two(self): pass
""",
}


class RunAll(unittest.TestCase):
    def run_in(self, modules, *args, jobs="2"):
        d = tempfile.mkdtemp(prefix="carcd-runall-")
        self.addCleanup(shutil.rmtree, d, True)
        shutil.copy(os.path.join(HERE, "runall.py"), d)
        for name, text in modules.items():
            with open(os.path.join(d, name + ".py"), "w") as f:
                f.write(text)
        env = dict(os.environ, CARC_TEST_JOBS=jobs, PYTHONDONTWRITEBYTECODE="1")
        p = subprocess.run([sys.executable, os.path.join(d, "runall.py")] + list(args), env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
        return p.returncode, p.stdout.decode()

    def test_every_bad_result_is_counted_and_fails_the_run(self):
        status, out = self.run_in({k: v for k, v in MODULES.items() if k != "test_e"})
        self.assertEqual(status, 1, out)
        lines = out.splitlines()
        # one "Ran" line for tests/summarize, over every module: 6 + 1 + 0 + 2
        self.assertRegex(lines[-3], r"^Ran 9 tests in [0-9.]+s$")
        self.assertEqual(lines[-1], "FAILED (failures=3, errors=3, skipped=1, unexpected successes=1)")
        self.assertEqual(sum(ln.startswith("Ran ") for ln in lines), 1)
        for bad in ("FAIL: test_fail (test_a.A.test_fail)", "ERROR: test_err (test_a.A.test_err)",
                    "ERROR: setUpClass (test_c.C)", "ERROR: test_b (its process ended with status 3 and no result)"):
            self.assertIn(bad, lines)
        for name, n in (("test_a", 6), ("test_b", 1), ("test_c", 0), ("test_d", 2)):
            self.assertTrue(any(ln.startswith("-- %s: %d tests in " % (name, n)) for ln in lines), name)

    def test_errors_alone_fail_the_run(self):
        for name, why in (("test_b", "status 3 and no result"), ("test_e", "status 5")):
            status, out = self.run_in({name: MODULES[name], "test_d": MODULES["test_d"]})
            self.assertEqual(status, 1, out)
            self.assertEqual(out.splitlines()[-1], "FAILED (errors=1)")
            self.assertIn("ERROR: %s (its process ended with %s)" % (name, why), out.splitlines())

    def test_all_good_is_ok(self):
        status, out = self.run_in({"test_d": MODULES["test_d"]}, jobs="1")
        self.assertEqual(status, 0, out)
        self.assertEqual(out.splitlines()[-1], "OK")
        self.assertRegex(out, r"\nRan 2 tests in ")

    def test_skip_leaves_tests_out(self):
        status, out = self.run_in({"test_a": MODULES["test_a"]}, "--skip", "test_a.A.test_f=why",
                                  "--skip", "test_a.A.test_err=why", "--skip", "test_a.A.test_sub=why",
                                  "--skip", "test_a.A.test_unexpected=why")
        self.assertEqual(status, 0, out)
        self.assertEqual(out.splitlines()[-1], "OK (skipped=1)")
        self.assertRegex(out, r"\nRan 2 tests in ")

    def test_bad_jobs_is_refused(self):
        for jobs in ("0", "x", "-1"):
            status, out = self.run_in({"test_d": MODULES["test_d"]}, jobs=jobs)
            self.assertNotEqual(status, 0)
            self.assertIn("CARC_TEST_JOBS", out)


if __name__ == "__main__":
    unittest.main()
