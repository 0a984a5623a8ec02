"""The manual pages, carcd(8) and carcctl(1), against the programs.

Every option `carcd --help` prints is in carcd.8, and every command and
option `carcctl --help` and `carcctl COMMAND --help` print is in carcctl.1;
the options the pages describe are ones the programs know; the pages name
the version the build gives; and groff reads them without a warning.  The
pages are the ones `make` wrote from daemon/carcd.8.in and
contrib/carcctl.1.in in the build directory CARCD was built in.

groff is needed (Debian's groff-base, which man-db brings): without it the
test fails, naming the package, rather than pass unchecked."""

import os
import re
import shutil
import subprocess
import unittest

import harness

BUILDDIR = os.path.dirname(os.path.dirname(os.path.abspath(harness.CARCD)))
CARCD_PAGE = os.path.join(BUILDDIR, "daemon", "carcd.8")
CARCCTL_PAGE = os.path.join(BUILDDIR, "contrib", "carcctl.1")
CARCCTL = os.environ.get("CARCCTL") or os.path.join(BUILDDIR, "contrib", "carcctl")
TIMEOUT = 60

LONG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
SHORT = re.compile(r"(?<![\w-])-[A-Za-z](?![\w-])")


def run(args):
    p = subprocess.run(args, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=TIMEOUT,
                       env=dict(os.environ, COLUMNS="200"))
    if p.returncode:
        raise AssertionError("%s exited %d:\n%s%s" % (" ".join(args), p.returncode, p.stdout, p.stderr))
    return p.stdout


def plain(line):
    """A line of man(7) source as text: font escapes out, \\- as -, macro
    arguments unquoted."""
    line = re.sub(r"\\f[BIRP]", "", line)
    line = line.replace("\\-", "-").replace("\\(lq", '"').replace("\\(rq", '"').replace("\\&", "")
    if line.startswith("."):
        line = re.sub(r"^\.[A-Z]+\s*", "", line).replace('"', "")
    return line


class Page:
    def __init__(self, path):
        with open(path, encoding="utf-8") as f:
            self.source = f.read()
        self.lines = self.source.splitlines()
        self.text = "\n".join(plain(line) for line in self.lines if not line.startswith('.\\"'))

    def section(self, name):
        """The source lines of one .SH section"""
        out, inside = [], False
        for line in self.lines:
            if line.startswith(".SH"):
                inside = line[3:].strip().strip('"') == name
            elif inside:
                out.append(line)
        return out

    def heads(self, name):
        """The tags of the .TP paragraphs of a section, as text"""
        lines = self.section(name)
        return [plain(lines[i + 1]) for i, line in enumerate(lines[:-1]) if line.startswith(".TP")]

    def paragraphs(self, name):
        """The .TP paragraphs of a section: tag -> its body as one line of text"""
        lines, out = self.section(name), {}
        for i, line in enumerate(lines[:-1]):
            if line.startswith(".TP"):
                body = []
                for more in lines[i + 2:]:
                    if more.startswith((".TP", ".PP", ".SH")):
                        break
                    body.append(plain(more))
                out[plain(lines[i + 1])] = " ".join(" ".join(body).split())
        return out

    def mentions(self, word):
        return re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(word), self.text) is not None


def options(help_text):
    """The options a --help text names, long and short"""
    return set(LONG.findall(help_text)) | set(SHORT.findall(help_text))


def carcctl_commands(help_text):
    """The commands `carcctl --help` lists under its positional arguments"""
    block = help_text.split("positional arguments:", 1)[1].split("options:", 1)[0]
    return re.findall(r"^    ([a-z]+)\b", block, re.M)


class Pages(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        for page in (CARCD_PAGE, CARCCTL_PAGE):
            if not os.path.isfile(page):
                raise AssertionError("%s is missing: `make` writes it" % page)
        cls.carcd = Page(CARCD_PAGE)
        cls.carcctl = Page(CARCCTL_PAGE)
        cls.carcd_help = run([harness.CARCD, "--help"])
        cls.carcctl_help = run([CARCCTL, "--help"])
        cls.commands = carcctl_commands(cls.carcctl_help)
        cls.command_help = {c: run([CARCCTL, c, "--help"]) for c in cls.commands}

    def test_carcd_options_are_in_its_page(self):
        opts = options(self.carcd_help)
        self.assertGreaterEqual(len(opts), 15, sorted(opts))
        missing = sorted(o for o in opts if not self.carcd.mentions(o))
        self.assertEqual(missing, [], "carcd --help names options carcd.8 does not")
        # each long option has a paragraph of its own under OPTIONS
        heads = " ".join(self.carcd.heads("OPTIONS"))
        self.assertEqual(sorted(o for o in LONG.findall(self.carcd_help) if o not in heads), [])

    def test_carcd_page_describes_no_other_options(self):
        known = options(self.carcd_help)
        for head in self.carcd.heads("OPTIONS"):
            for o in options(head):
                self.assertIn(o, known, "carcd.8 describes %s, which carcd --help does not name" % o)

    def test_carcctl_commands_and_options_are_in_its_page(self):
        self.assertGreaterEqual(len(self.commands), 13, self.commands)
        heads = self.carcctl.heads("COMMANDS")
        words = {w for h in heads for w in re.findall(r"(?<![\w-])[a-z]+", h)}
        self.assertEqual([c for c in self.commands if c not in words], [],
                         "carcctl --help lists commands carcctl.1 has no paragraph for")
        wanted = {o: "carcctl --help" for o in options(self.carcctl_help)}
        for c, text in self.command_help.items():
            wanted.update((o, "carcctl %s --help" % c) for o in options(text) if o not in wanted)
        missing = sorted("%s (%s)" % (o, where) for o, where in wanted.items() if not self.carcctl.mentions(o))
        self.assertEqual(missing, [], "options carcctl prints that carcctl.1 does not name")

    def test_carcctl_page_describes_no_other_options(self):
        known_global = options(self.carcctl_help.split("options:", 1)[1])
        for head in self.carcctl.heads("OPTIONS"):
            for o in options(head):
                self.assertIn(o, known_global, "carcctl.1 describes %s, which carcctl --help does not name" % o)
        known = set().union(*(options(t) for t in self.command_help.values()))
        for line in self.carcctl.section("COMMANDS"):
            for o in options(plain(line)):
                self.assertIn(o, known, "carcctl.1 gives a command %s, which no command's --help names" % o)

    def test_pages_name_this_version(self):
        version = run([harness.CARCD, "--version"]).split()[1]
        for page in (self.carcd, self.carcctl):
            self.assertEqual(re.findall(r"@[A-Za-z_]+@", page.source), [])
            th = next(line for line in page.lines if line.startswith(".TH "))
            self.assertIn('"carcd %s"' % version, th)
        self.assertEqual(run([CARCCTL, "--version"]).split(), ["carcctl", version])

    def test_logging_levels_say_what_protocol_md_says(self):
        """What each log level holds, in carcd.8's LOGGING and in
        PROTOCOL.md's list: an operator reading either finds the same
        lines (the page once left out five that PROTOCOL.md named)."""
        page = self.carcd.paragraphs("LOGGING")
        with open(os.path.join(harness.TOP_SRCDIR, "proto", "PROTOCOL.md"), encoding="utf-8") as f:
            doc = f.read()
        listed = {m.group(1): " ".join(m.group(2).replace("`", "").split())
                  for m in re.finditer(r"^- `(error|warn|info|debug)`: (.*?)(?=^- `|^\n)", doc, re.M | re.S)}
        said = {"error": ("cannot start", "internal errors", "restored, written or removed", "next-id"),
                "warn": ("accept", "zero bytes", "--max-connections", "slow reader", "second stop signal",
                         "descriptor limit", "could not raise", "libevent's own warnings"),
                "info": ("listener", "ready", "stale socket file", "evicted", "start and end of a shutdown",
                         "journal restored"),
                "debug": ("opened and closed", "created, over and closed", "torn move")}
        self.assertEqual(sorted(page), sorted(said))
        self.assertEqual(sorted(listed), sorted(said))
        for level, phrases in said.items():
            for phrase in phrases:
                with self.subTest(level=level, phrase=phrase):
                    self.assertIn(phrase, page[level])
                    self.assertIn(phrase, listed[level])

    def assertGroffQuiet(self, source, what):
        """groff -man -ww reads the page source, 80 columns wide, with
        every warning on: it must succeed and warn of nothing."""
        groff = shutil.which("groff")
        self.assertIsNotNone(groff, "groff is missing (apt-get install groff-base): the pages cannot be checked")
        p = subprocess.run([groff, "-man", "-ww", "-z", "-Tutf8", "-rLL=80n"], input=source, capture_output=True,
                           text=True, timeout=TIMEOUT, env=dict(os.environ, LC_ALL="C"))
        self.assertEqual((p.returncode, p.stderr), (0, ""), "groff -man -ww on " + what)

    def test_groff_reads_the_pages_without_a_warning(self):
        for path in (CARCD_PAGE, CARCCTL_PAGE):
            with open(path, "rb") as f:
                source = f.read()
            self.assertTrue(source.isascii(), "%s is not plain ASCII" % path)
            self.assertGroffQuiet(source.decode(), path)

    def test_install_paths_of_any_length_read_without_a_warning(self):
        """The pages name the install paths (--prefix, --bindir, ...),
        which may be longer than a line: make writes each with a break
        point, `\\:`, after every slash, and the pages are left-adjusted,
        so that groff breaks a long path instead of warning that it cannot
        adjust or break the line.  The same pages with a directory of 30
        characters after each directory of those paths read without a
        warning too."""
        for path in (CARCD_PAGE, CARCCTL_PAGE):
            with open(path, encoding="utf-8") as f:
                source = f.read()
            files = [line for line in source.splitlines() if re.match(r"\.IR? /", line)]
            self.assertTrue(files, "%s names no install path" % path)
            for line in files:   # all but the fixed /run and /var paths are where make installed
                if not re.match(r"\.IR? /(run|var)/", line):
                    self.assertTrue(line.split()[1].startswith("/\\:"), "an install path without break points: " + line)
            longer = source.replace("/\\:", "/\\:" + "d" * 30 + "/\\:")
            self.assertGreater(len(longer), len(source) + 30 * 6)
            self.assertGroffQuiet(longer, path + " with longer paths")


if __name__ == "__main__":
    unittest.main()
