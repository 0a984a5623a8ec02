"""`make install`, staged with DESTDIR: every file lands where the build
says, and what is installed works from there.

README's "Running it as a service" promises the daemon, carcctl, the Python
client, the bot, the arena, the renderer with its manifests, the systemd
units and the manual pages; C and C++ programs that play games themselves get libcarc.a, carc.h and
libcarc.pc.  The staged tree is used as it lies: the installed carcd serves a
game, the arena plays it with the installed bot, the renderer draws it, and
programs built against the staged library through pkg-config (the engine
README's example, in C, and the same in C++) play the game carcd played,
move for move, to the same scores.  `make uninstall` then takes every file
away again.

The build directory is the one CARCD was built in (make check's CARCD, or
./daemon/carcd by hand); the install paths, the compiler and the sanitizer
flags are read from its Makefile."""

import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest
import xml.etree.ElementTree as ET

import harness

BUILDDIR = os.path.dirname(os.path.dirname(os.path.abspath(harness.CARCD)))
MAKE = os.environ.get("MAKE") or "make"
SEED = 42
DIRS = ("bindir", "libdir", "includedir", "pkgconfigdir", "pkgdatadir", "pkglibexecdir", "docdir", "systemdunitdir",
        "man1dir", "man8dir")
TIMEOUT = 600
SVG = "{http://www.w3.org/2000/svg}"


def make_env():
    """The environment without make check's jobserver and flags: the
    install is a make of its own."""
    return {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES")}


def make(*args, rules=""):
    """make in the build directory; `rules`: a makefile read after its own"""
    extra = ["-f", "Makefile", "-f", "-"] if rules else []
    return subprocess.run([MAKE, "-s", "-C", BUILDDIR] + extra + list(args), input=rules, capture_output=True,
                          text=True, timeout=TIMEOUT, env=make_env())


def build_vars(*names):
    """Variables of the build's Makefile, as make expands them."""
    p = make("carcd-print-vars",
             rules="carcd-print-vars:\n" + "".join("\t@echo '%s=$(%s)'\n" % (n, n) for n in names))
    if p.returncode:
        raise RuntimeError("cannot read the build's Makefile: %s" % p.stderr)
    return dict(line.split("=", 1) for line in p.stdout.splitlines() if "=" in line)


def files_under(root):
    return sorted(os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root) for f in fs)


# The engine README's "A game in ten lines", with pick() taking the first
# legal move, then the scores and the number of moves played.
C_MAIN = r"""
#include <stdio.h>
#include <stdlib.h>
#include <carc.h>

static int played;
static int pick(int n) { (void)n; played++; return 0; }

int main(void)
{
%s
	printf("over %%d moves %%d scores", carc_game_over(g), played);
	for (int s = 0; s < 2; s++) printf(" %%d", carc_game_score(g, s));
	printf("\n");
	free(g);
	return 0;
}
"""

CXX_MAIN = r"""
#include <carc.h>
#include <cstdio>
#include <memory>
#include <vector>

int main()
{
	carc_config cfg;
	carc_config_init(&cfg);
	cfg.seed = %d;
	std::unique_ptr<char[]> mem(new char[carc_game_size()]);
	carc_game *g = reinterpret_cast<carc_game *>(mem.get());
	if (carc_game_init(g, &cfg, nullptr) != CARC_OK) return 1;
	std::vector<carc_move> moves(CARC_MAX_MOVES);
	int played = 0;
	while (!carc_game_over(g)) {
		int n = carc_legal_moves(g, moves.data(), CARC_MAX_MOVES);
		if (n <= 0 || carc_apply(g, &moves[0], nullptr) != CARC_OK) return 1;
		played++;
	}
	std::printf("over %%d moves %%d scores", carc_game_over(g), played);
	for (int s = 0; s < 2; s++) std::printf(" %%d", carc_game_score(g, s));
	std::printf("\n");
	return 0;
}
""" % SEED


def readme_example():
    """The C block of engine/README.md, seeded as the test plays."""
    with open(os.path.join(harness.TOP_SRCDIR, "engine", "README.md")) as f:
        block = re.search(r"```c\n(.*?)```", f.read(), re.S).group(1)
    if "cfg.seed = 42;" not in block or "pick(n)" not in block:
        raise AssertionError("engine/README.md's example no longer seeds 42 or calls pick(n):\n" + block)
    return block


class Installed(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.vars = build_vars(*DIRS + ("CC", "SANITIZE_CFLAGS", "TILE_MANIFESTS", "PACKAGE_VERSION"))
        cls.tmp = tempfile.mkdtemp(prefix="carcd-install-")
        cls.dest = os.path.join(cls.tmp, "root")
        p = make("install", "DESTDIR=" + cls.dest)
        if p.returncode:
            raise AssertionError("make install failed (%d):\n%s%s" % (p.returncode, p.stdout, p.stderr))
        # the installed carcd, for every test that talks to one
        cls.daemon = harness.Daemon(binary=cls.dest + cls.vars["bindir"] + "/carcd", tcp=False).start()

    @classmethod
    def tearDownClass(cls):
        status = cls.daemon.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)
        if status != 0:
            raise AssertionError("the installed carcd exited %s on SIGTERM, not 0" % status)

    def staged(self, var, *rest):
        return os.path.join(self.dest + self.vars[var], *rest)

    def run_ok(self, args, **kw):
        p = subprocess.run(args, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=TIMEOUT, **kw)
        self.assertEqual(p.returncode, 0, "%s\n%s%s" % (" ".join(args), p.stdout, p.stderr))
        return p.stdout

    def test_files_installed(self):
        v = self.vars
        want = ["%s/carcd" % v["bindir"], "%s/carcctl" % v["bindir"], "%s/libcarc.a" % v["libdir"],
                "%s/carc.h" % v["includedir"], "%s/libcarc.pc" % v["pkgconfigdir"],
                "%s/python/carcd.py" % v["pkgdatadir"], "%s/bots/random_bot.py" % v["pkgdatadir"],
                "%s/arena.py" % v["pkgdatadir"], "%s/render.py" % v["pkgdatadir"], "%s/mc_bot" % v["pkglibexecdir"],
                "%s/README.md" % v["docdir"], "%s/PROTOCOL.md" % v["docdir"],
                "%s/engine/README.md" % v["docdir"], "%s/contrib/README.md" % v["docdir"],
                "%s/carcd.service" % v["systemdunitdir"], "%s/carcd.socket" % v["systemdunitdir"],
                "%s/carcctl.1" % v["man1dir"], "%s/carcd.8" % v["man8dir"]]
        manifests = v["TILE_MANIFESTS"].split()
        self.assertGreaterEqual(len(manifests), 15)
        want += ["%s/tiles/%s" % (v["pkgdatadir"], os.path.basename(m)) for m in manifests]
        want += ["%s/web/%s" % (v["pkgdatadir"], f)
                 for f in ("carcd.js", "index.html", "play.js", "board.js", "play.css")]
        self.assertEqual(files_under(self.dest), sorted(w.lstrip("/") for w in want))
        for prog in ("carcd", "carcctl"):
            self.assertTrue(os.access(self.staged("bindir", prog), os.X_OK), prog)
        self.assertTrue(os.access(self.staged("pkglibexecdir", "mc_bot"), os.X_OK))

    def test_units_and_carcctl_name_the_install_paths(self):
        with open(self.staged("systemdunitdir", "carcd.service")) as f:
            unit = f.read()
        start = re.search(r"^ExecStart=(\S+)", unit, re.M).group(1)
        self.assertEqual(start, os.path.join(self.vars["bindir"], "carcd"))
        doc = re.search(r"^Documentation=file:(\S+)", unit, re.M).group(1)
        self.assertTrue(os.path.isfile(self.dest + doc), doc)
        # carcctl looks for the Python client where it was installed, and
        # not in the sources it was built from (the build tree's copy does)
        with open(self.staged("bindir", "carcctl")) as f:
            installed = f.read()
        at = os.path.join(self.vars["pkgdatadir"], "python")
        self.assertIn('"%s"' % at, installed)
        # (the install path itself may lie in the sources, as make distcheck's does)
        self.assertNotIn(harness.TOP_SRCDIR, installed.replace(at, ""))
        built = os.environ.get("CARCCTL") or os.path.join(os.environ.get("top_builddir", harness.TOP_SRCDIR), "contrib",
                                                          "carcctl")
        # (the sources as configure names them: ../../contrib/python from a
        # build directory configured as ../../configure)
        with open(built) as f:
            line = next((l for l in f if l.rstrip().endswith("# build tree only: make install drops this line")), "")
        where = re.search(r'"([^"]+)"', line)
        self.assertIsNotNone(where, "the built carcctl has no build-tree line")
        self.assertEqual(os.path.realpath(where.group(1)), os.path.realpath(os.path.join(harness.TOP_SRCDIR, "contrib",
                                                                                          "python")))

    def pkg_config(self, *args):
        """pkg-config reading the staged libcarc.pc, its paths under the stage"""
        env = dict(os.environ, PKG_CONFIG_PATH=self.staged("pkgconfigdir"), PKG_CONFIG_SYSROOT_DIR=self.dest)
        env.pop("PKG_CONFIG_LIBDIR", None)
        return self.run_ok(["pkg-config"] + list(args) + ["libcarc"], env=env).split()

    def test_pkg_config_file(self):
        self.assertEqual(self.pkg_config("--modversion"), [self.vars["PACKAGE_VERSION"]])
        flags = self.pkg_config("--cflags", "--libs")
        self.assertIn("-I" + self.staged("includedir"), flags)
        self.assertIn("-L" + self.staged("libdir"), flags)
        self.assertIn("-lcarc", flags)

    def compile_against_install(self, compiler, std, source, suffix):
        flags = self.pkg_config("--cflags", "--libs")
        src = os.path.join(self.tmp, "prog" + suffix)
        exe = os.path.join(self.tmp, "prog" + suffix.replace(".", "_"))
        with open(src, "w") as f:
            f.write(source)
        # the library's own sanitizer flags when the build has them (an
        # ASan libcarc.a needs the ASan runtime)
        args = compiler + ["-std=" + std, "-Wall", "-Wextra", "-pedantic", "-Werror"] + \
            self.vars["SANITIZE_CFLAGS"].split() + ["-o", exe, src] + flags
        self.run_ok(args)
        return self.run_ok([exe]).strip()

    def daemon_game(self):
        """The game the programs play, on the installed carcd: seed 42,
        two seats, the first legal move each time."""
        with self.daemon.client() as c:
            g = c.new_game(seed=SEED)
            game, tokens = g["game"], [s["token"] for s in g["seats"]]
            played = 0
            while True:
                lm = c.legal_moves(game)
                if lm["phase"] == "over":
                    break
                c.apply_move(game, lm["moves"][0], token=tokens[lm["seat"]], seq=lm["seq"])
                played += 1
            return "over 1 moves %d scores %s" % (played, " ".join(str(s) for s in c.score(game)["scores"]))

    def test_c_and_cxx_programs_play_what_carcd_plays(self):
        c_out = self.compile_against_install(self.vars["CC"].split(), "c99", C_MAIN % readme_example(), ".c")
        cxx = shutil.which("c++") or shutil.which("g++")
        self.assertIsNotNone(cxx, "no C++ compiler (build-essential brings g++)")
        cxx_out = self.compile_against_install([cxx], "c++11", CXX_MAIN, ".cc")
        want = self.daemon_game()
        self.assertRegex(want, r"^over 1 moves [1-9][0-9]+ scores [0-9]+ [0-9]+$")
        self.assertEqual(c_out, want)
        self.assertEqual(cxx_out, want)

    def test_arena_bot_and_renderer_run_from_the_install(self):
        bot = "%s %s" % (harness.PYTHON, self.staged("pkgdatadir", "bots", "random_bot.py"))
        mc = "%s --playouts 20" % self.staged("pkglibexecdir", "mc_bot")
        out = self.run_ok([harness.PYTHON, self.staged("pkgdatadir", "arena.py"), "--carcd",
                           self.staged("bindir", "carcd"), "--json", "--bot", "ann=" + bot, "--bot",
                           "bob=" + mc, "--deals", "1", "--seed", "5", "--expansions", "base,river"])
        report = json.loads(out)
        self.assertEqual(len(report["games"]), 2)
        self.assertEqual([r["forfeits"] for r in report["standings"]], [0, 0])
        # the renderer draws a game of the installed daemon (the river's
        # tiles included) with the tiles the daemon describes, and the same
        # game's state from a file with the manifests installed beside it
        with self.daemon.client() as c:
            game = c.new_game(seed=5, expansions=["base", "river"])["game"]
            state = c.state(game)
        env = {k: v for k, v in os.environ.items() if k != "CARCD_TILES"}
        svg = self.run_ok([harness.PYTHON, self.staged("pkgdatadir", "render.py"), "--game", str(game),
                           "--address", self.daemon.unix_address], env=env)
        root = ET.fromstring(svg)
        self.assertEqual(root.tag, SVG + "svg")
        self.assertIn("carcd board: game %d" % game, root.findtext(SVG + "title"))
        self.assertIn(state["board"][0]["tile"], svg)
        state_file = os.path.join(self.tmp, "state.json")
        with open(state_file, "w") as f:
            json.dump(state, f)
        self.assertEqual(self.run_ok([harness.PYTHON, self.staged("pkgdatadir", "render.py"), state_file], env=env),
                         svg)
        # carcctl with the installed client: the game it made is on this
        # carcd, dealt as seed 3 deals (the same as the client's seed-3 game)
        env = dict(os.environ, CARCD_PYTHONPATH=self.staged("pkgdatadir", "python"))
        out = self.run_ok([self.staged("bindir", "carcctl"), "--address", self.daemon.unix_address, "--compact",
                           "new", "--seed", "3"], env=env)
        with self.daemon.client() as c:
            made, same = c.state(json.loads(out)["game"]), c.state(c.new_game(seed=3)["game"])
        self.assertEqual(made["seq"], 0)
        self.assertEqual((made["board"], made["tile"], made["tiles_left"]),
                         (same["board"], same["tile"], same["tiles_left"]))

    def test_uninstall_takes_every_file(self):
        dest = os.path.join(self.tmp, "again")
        for target in ("install", "uninstall"):
            p = make(target, "DESTDIR=" + dest)
            self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(files_under(dest), [])


class Distributed(unittest.TestCase):
    def test_every_test_file_goes_into_the_tarball(self):
        """make dist takes what EXTRA_DIST names: a test module, port
        script, scenario or tile manifest left out of it would be missing
        from a release, and make distcheck would not notice (its suite
        would only be smaller; the scenario runner reads whatever .scn
        files the directory holds)."""
        dist = set(build_vars("EXTRA_DIST")["EXTRA_DIST"].split())
        # the modules and scripts, not what an in-tree `make check` leaves there (run.sh.log)
        script = lambda name: name.endswith((".py", ".sh")) or "." not in name
        kinds = (("tests/proto", script), ("tests/port", script),
                 ("tests/scenarios", lambda name: name.endswith(".scn")),
                 ("tests/scenarios/must-fail", lambda name: name.endswith(".scn")),
                 ("engine/tiles", lambda name: name.endswith(".tiles")))
        missing = []
        for sub, kept in kinds:
            here = os.path.join(harness.TOP_SRCDIR, sub)
            for name in sorted(os.listdir(here)):
                path = "%s/%s" % (sub, name)
                if kept(name) and os.path.isfile(os.path.join(here, name)) and path not in dist:
                    missing.append(path)
        self.assertEqual(missing, [], "Makefile.am's EXTRA_DIST leaves them out")

    def test_the_tarball_holds_every_file_make_dist_gathers(self):
        """make dist gathers the files (make distdir), then packs them with
        tar in the format AM_INIT_AUTOMAKE names; a path the format cannot
        hold (automake's old default, v7, takes 99 bytes at most, the
        package's directory included) is left out of the tarball with no
        more than a warning, and the release lacks it.  Both steps as make
        dist takes them, into a directory of the test's own."""
        tmp = tempfile.mkdtemp(prefix="carcd-dist-")
        self.addCleanup(shutil.rmtree, tmp, True)
        v = build_vars("PACKAGE_TARNAME", "PACKAGE_VERSION", "am__tar")
        tardir = "%s-%s" % (v["PACKAGE_TARNAME"], v["PACKAGE_VERSION"])
        p = make("distdir", "distdir=" + os.path.join(tmp, tardir))
        self.assertEqual(p.returncode, 0, p.stderr)
        gathered = files_under(tmp)
        self.assertIn(os.path.join(tardir, "tests/scenarios/README.md"), gathered)
        tar = subprocess.run(v["am__tar"], shell=True, cwd=tmp, env=dict(make_env(), tardir=tardir),
                             capture_output=True, timeout=TIMEOUT)
        self.assertEqual(tar.returncode, 0, tar.stderr)
        listed = subprocess.run(["tar", "tf", "-"], input=tar.stdout, capture_output=True, timeout=TIMEOUT)
        self.assertEqual(listed.returncode, 0, listed.stderr)
        packed = {n for n in listed.stdout.decode().splitlines() if not n.endswith("/")}
        self.assertEqual([f for f in gathered if f not in packed], [], tar.stderr.decode())


if __name__ == "__main__":
    unittest.main()
