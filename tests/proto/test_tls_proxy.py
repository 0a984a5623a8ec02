"""test_tls_proxy.py - carcd behind a TLS proxy, as proto/PROTOCOL.md section 6
("Across the internet: TLS") sets it up.

The stunnel configuration of that section is read from the file itself and
run with this module's ports and a certificate made here (for the name
localhost only), in front of a carcd with tcp and ws listeners and
--ws-origin https://play.example.org.  Through it: carcd.py's tls:
addresses in both encodings, notifications, carcctl, a certificate or a
host name the client must refuse, and python3-websockets over wss, the
origin check included.

stunnel (Debian's stunnel4) and openssl are needed: a missing one fails the
module, it never skips.
"""

import asyncio
import json
import os
import pwd
import re
import shutil
import socket
import ssl
import subprocess
import tempfile
import unittest
from unittest import mock

import websockets
import websockets.exceptions

import harness
from harness import carcd
from test_contrib import CARCCTL_CMD
from test_daemon import Proc
from test_websocket import start_ws_daemon

STUNNEL = os.environ.get("STUNNEL") or shutil.which("stunnel4") or "/usr/bin/stunnel4"
OPENSSL = shutil.which("openssl") or "/usr/bin/openssl"
ORIGIN = "https://play.example.org"
T = 10.0 * harness.SLOW

M = {}


def doc_config():
    """The one ```ini block of proto/PROTOCOL.md: the stunnel configuration."""
    with open(os.path.join(harness.TOP_SRCDIR, "proto", "PROTOCOL.md"), encoding="utf-8") as f:
        blocks = re.findall(r"(?ms)^```ini\n(.*?)^```$", f.read())
    if len(blocks) != 1:
        raise AssertionError("PROTOCOL.md has %d ```ini blocks, not the one stunnel configuration" % len(blocks))
    return blocks[0]


def replaced(text, old, new, times=1):
    """text with old replaced by new; old must be there so many times (the
    configuration as this test knows it)."""
    if text.count(old) != times:
        raise AssertionError("PROTOCOL.md's stunnel configuration has %r %d times, not %d:\n%s"
                             % (old, text.count(old), times, text))
    return text.replace(old, new)


def accepts(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1.0).close()
        return True
    except OSError:
        return False


def start_stunnel(d, tmp, cert, key):
    tls_port, wss_port = harness.free_tcp_port(), harness.free_tcp_port()
    text = doc_config()
    text = replaced(text, "cert = /etc/ssl/carcd/fullchain.pem", "cert = " + cert, 2)
    text = replaced(text, "key = /etc/ssl/carcd/privkey.pem", "key = " + key, 2)
    text = replaced(text, "accept = 7443\n", "accept = 127.0.0.1:%d\n" % tls_port)
    text = replaced(text, "accept = 443\n", "accept = 127.0.0.1:%d\n" % wss_port)
    text = replaced(text, "connect = 127.0.0.1:7878\n", "connect = 127.0.0.1:%d\n" % d.port)
    text = replaced(text, "connect = 127.0.0.1:7879\n", "connect = 127.0.0.1:%d\n" % d.ws_port)
    if os.geteuid() != 0:
        # only root can take another user's identity; CI runs as root, and
        # runs the configuration whole
        text = replaced(text, "setuid = stunnel4\n", "")
        text = replaced(text, "setgid = stunnel4\n", "")
    conf = os.path.join(tmp, "carcd.conf")
    with open(conf, "w") as f:
        f.write(text)
    proxy = Proc(None, argv=[STUNNEL, conf])
    if not harness.wait_for(lambda: proxy.proc.poll() is not None or (accepts(tls_port) and accepts(wss_port)), T) \
            or proxy.proc.poll() is not None:
        log = proxy.text()
        proxy.close()
        raise RuntimeError("stunnel did not come up on %d and %d:\n%s" % (tls_port, wss_port, log))
    return proxy, tls_port, wss_port


def setUpModule():
    missing = [p for p in (STUNNEL, OPENSSL) if not os.path.exists(p)]
    if missing:
        raise RuntimeError("test_tls_proxy needs %s (apt-get install stunnel4 openssl)" % ", ".join(missing))
    tmp = tempfile.mkdtemp(prefix="carcd-tls-")
    M["tmp"] = tmp
    cert, key = os.path.join(tmp, "cert.pem"), os.path.join(tmp, "key.pem")
    subprocess.run([OPENSSL, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                    "-nodes", "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost"],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    M["cert"] = cert
    M["d"] = start_ws_daemon("--ws-origin", ORIGIN)
    try:
        M["proxy"], M["tls"], M["wss"] = start_stunnel(M["d"], tmp, cert, key)
    except BaseException:
        harness.stop_checked(M.pop("d"))
        raise


def tearDownModule():
    proxy = M.pop("proxy", None)
    if proxy:
        proxy.stop()
        proxy.close()
    if "d" in M:
        harness.stop_checked(M.pop("d"))
    shutil.rmtree(M.pop("tmp"), ignore_errors=True)


def context():
    return ssl.create_default_context(cafile=M["cert"])


class TLSCase(unittest.TestCase):
    def tearDown(self):
        self.assertTrue(M["d"].alive(), "carcd died:\n" + M["d"].log_tail())
        self.assertIsNone(M["proxy"].proc.poll(), "stunnel stopped:\n" + M["proxy"].text())

    def client(self, encoding="msgpack", host="localhost", **kw):
        return carcd.Client("tls:%s:%d" % (host, M["tls"]), encoding=encoding, timeout=T, **kw)


class StreamTest(TLSCase):
    """MessagePack-RPC and JSON lines through the [carcd] service."""

    def test_a_game_is_played_over_tls_in_both_encodings(self):
        for encoding in ("msgpack", "json"):
            with self.client(encoding, ssl_context=context()) as c:
                self.assertEqual(c.hello()["server"], "carcd")
                g = c.new_game(players=["ann", "bob"], seed=5)
                tokens = {s["seat"]: s["token"] for s in g["seats"]}
                record = harness.play_with_client(c, g["game"], tokens, harness.new_rng(self.id() + encoding))
                state = c.state(g["game"])
                self.assertTrue(state["over"], encoding)
                self.assertEqual(state["seq"], len(record), encoding)

    def test_a_response_of_many_records_arrives_whole(self):
        # every tile of every set: several TLS records (16 KiB each)
        with self.client(ssl_context=context()) as c:
            tiles = c.tiles(expansions=harness.EVERY_SET)
            with carcd.Client(M["d"].tcp_address, timeout=T) as plain:
                self.assertEqual(tiles, plain.tiles(expansions=harness.EVERY_SET))
            self.assertGreater(len(json.dumps(tiles)), 2 << 14)

    def test_notifications_cross_the_proxy(self):
        with self.client(ssl_context=context()) as watcher, self.client(ssl_context=context()) as player:
            g = player.new_game(players=["ann", "bob"], seed=9)
            watcher.subscribe(g["game"])
            due = player.legal_moves(g["game"])
            player.apply_move(g["game"], due["moves"][0], token=g["seats"][due["seat"]]["token"])
            n = watcher.next_event(timeout=T)
            self.assertIsNotNone(n, "no notification through the proxy")
            self.assertEqual(n["game"], g["game"])
            self.assertTrue(n["events"])
            # nothing more has come: a poll of the TLS socket finds nothing
            self.assertIsNone(watcher.next_event(timeout=0))
            # a ping after it: what was decrypted with the notification is not lost
            self.assertEqual(watcher.ping(), player.ping())

    def test_bad_input_gets_carcd_answer_through_the_proxy(self):
        raw = context().wrap_socket(socket.create_connection(("127.0.0.1", M["tls"]), timeout=T),
                                    server_hostname="localhost")
        try:
            raw.sendall(b"no_such_method {}\n")
            data = b""
            while not data.endswith(b"\n"):
                chunk = raw.recv(4096)
                self.assertTrue(chunk, "the proxy closed the connection")
                data += chunk
        finally:
            raw.close()
        reply = json.loads(data)
        self.assertEqual(reply[0:2], [1, None])
        self.assertEqual(reply[2]["code"], "unknown_method")

    def test_cafile_from_the_environment_and_carcctl(self):
        env = dict(os.environ, CARCD_CAFILE=M["cert"])
        env.pop("CARCD_ADDRESS", None)
        p = subprocess.run(CARCCTL_CMD + ["--address", "tls:localhost:%d" % M["tls"], "--compact", "hello"],
                           env=env, capture_output=True, text=True, timeout=T)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stdout)["server"], "carcd")

    def test_a_certificate_not_trusted_is_refused(self):
        env = {k: v for k, v in os.environ.items() if k != "CARCD_CAFILE"}
        p = subprocess.run(CARCCTL_CMD + ["--address", "tls:localhost:%d" % M["tls"], "hello"],
                           env=env, capture_output=True, text=True, timeout=T)
        self.assertEqual(p.returncode, 3, p.stdout + p.stderr)
        self.assertRegex(p.stderr, r"^carcctl: cannot connect to tls:localhost:\d+: .*CERTIFICATE_VERIFY_FAILED")
        with mock.patch.dict(os.environ):
            os.environ.pop("CARCD_CAFILE", None)
            with self.assertRaises(carcd.ConnectionClosed) as cm:
                self.client()
        self.assertIn("certificate verify failed", str(cm.exception))

    def test_a_host_name_the_certificate_does_not_name_is_refused(self):
        # the certificate names localhost, not 127.0.0.1
        with self.assertRaises(carcd.ConnectionClosed) as cm:
            self.client(host="127.0.0.1", ssl_context=context())
        self.assertRegex(str(cm.exception), r"^cannot connect to tls:127\.0\.0\.1:\d+: .*(IP address mismatch|hostname)")

    def test_plain_bytes_to_the_tls_port_reach_no_carcd(self):
        with carcd.Client("tcp:127.0.0.1:%d" % M["tls"], encoding="json", timeout=T) as c:
            with self.assertRaises((carcd.ConnectionClosed, TimeoutError)):
                c.hello()

    def test_stunnel_gives_up_root(self):
        # as root, the configuration's setuid/setgid hold; as anyone else
        # the test took them out, and stunnel keeps the user it was given
        want = pwd.getpwnam("stunnel4").pw_uid if os.geteuid() == 0 else os.geteuid()
        with open("/proc/%d/status" % M["proxy"].proc.pid) as f:
            uids = next(line for line in f if line.startswith("Uid:")).split()[1:]
        self.assertEqual(set(map(int, uids)), {want})

    def test_parse_address_takes_tls_as_tcp(self):
        self.assertEqual(carcd.parse_address("tls:play.example.org:7443"),
                         (socket.AF_INET, ("play.example.org", 7443)))
        self.assertTrue(carcd.is_tls("tls:play.example.org:7443"))
        self.assertFalse(carcd.is_tls("tcp:play.example.org:7443"))
        with self.assertRaises(ValueError):
            carcd.parse_address("tls:play.example.org")
        with self.assertRaisesRegex(ValueError, "ssl_context goes with a tls: address"):
            carcd.Client(M["d"].tcp_address, ssl_context=context())


class WSSTest(TLSCase):
    """A browser's view: wss through the [carcd-ws] service, the origin checked by carcd."""

    async def exchange(self, origin, request):
        async with websockets.connect("wss://localhost:%d/" % M["wss"], ssl=context(), origin=origin,
                                      open_timeout=T, close_timeout=T) as ws:
            await ws.send(request)
            return await asyncio.wait_for(ws.recv(), T)

    def test_a_page_of_the_allowed_origin_is_served(self):
        reply = json.loads(asyncio.run(self.exchange(ORIGIN, '[0,7,"hello",{}]')))
        self.assertEqual(reply[0:3], [1, 7, None])
        self.assertEqual(reply[3]["server"], "carcd")
        big = json.loads(asyncio.run(self.exchange(ORIGIN, '[0,8,"tiles",{"expansions":%s}]'
                                                   % json.dumps(harness.EVERY_SET))))
        self.assertEqual(big[0:3], [1, 8, None])
        with carcd.Client(M["d"].tcp_address, encoding="json", timeout=T) as plain:
            self.assertEqual(big[3], plain.tiles(expansions=harness.EVERY_SET))

    def test_a_page_of_another_origin_is_refused(self):
        with self.assertRaises(websockets.exceptions.InvalidStatusCode) as cm:
            asyncio.run(self.exchange("https://elsewhere.example", '[0,1,"hello",{}]'))
        self.assertEqual(cm.exception.status_code, 403)


if __name__ == "__main__":
    unittest.main()
