#!/usr/bin/env python3
"""Loads a page in headless Chromium and says, as JSON on stdout, what a person's browser did.

    page.py FILE [--selector CSS ...] [--text CSS ...] [--screenshot PNG] [--dark]

Chromium is driven over the DevTools protocol on a pipe (--remote-debugging-pipe: commands
on fd 3, events and replies on fd 4, each a JSON object ended by a NUL byte), so no port is
opened and no library is needed. It starts with a new empty profile and every background
service off (the machine's closed network refuses their connections otherwise).

The JSON holds:
  console      console messages of level error or warning, log entries of level error
               (a Content-Security-Policy refusal is one), and uncaught exceptions
  dialogs      every alert/confirm/prompt the page opened (each answered at once)
  first_paint  ms from navigation to the first paint (performance's paint entries)
  first_contentful_paint, load_ms
  scripts      <script> elements in the DOM after load
  handlers     elements with an on* attribute
  js_links     a/area/form/iframe elements whose URL uses the javascript: scheme
  pwned        what a planted payload could set: document.title, <html>'s data-pwned
  count        for each --selector: how many elements match
  texts        for each --text: the text of each matching element
  dark         with --dark: the page's background colour with prefers-color-scheme: dark,
               and `light` the same without

CHROMIUM names the browser (default: chromium, then chromium-headless-shell, on PATH).
Exit 0 when the page loaded, 2 when Chromium could not be started or did not answer.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--disable-breakpad",
    "--disable-domain-reliability",
    "--metrics-recording-only",
    "--remote-debugging-pipe",
]

TIMEOUT = 60.0


def browser():
    named = os.environ.get("CHROMIUM")
    if named:
        return named
    for name in ("chromium", "chromium-headless-shell", "/usr/lib/chromium/chromium"):
        found = shutil.which(name)
        if found:
            return found
    return None


class Cdp:
    """One Chromium and its DevTools pipe."""

    def __init__(self, program, profile):
        to_child_r, self.to_child = os.pipe()
        self.from_child, from_child_w = os.pipe()

        def fds():
            # Through fresh numbers first, so neither end is overwritten by the other.
            r, w = os.dup(to_child_r), os.dup(from_child_w)
            os.dup2(r, 3)
            os.dup2(w, 4)
            os.set_inheritable(3, True)
            os.set_inheritable(4, True)

        self.proc = subprocess.Popen(
            [program, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=fds,
            pass_fds=(to_child_r, from_child_w, 3, 4),
        )
        os.close(to_child_r)
        os.close(from_child_w)
        self.buffer = b""
        self.next_id = 0
        self.events = []
        self.session = None

    def send(self, method, params=None, session=True):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self.to_child, json.dumps(msg).encode() + b"\0")
        want = self.next_id
        while True:
            reply = self.read()
            if reply.get("id") == want:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)
            self.on_event(reply)

    def read(self):
        deadline = time.monotonic() + TIMEOUT
        while b"\0" not in self.buffer:
            if time.monotonic() > deadline:
                raise TimeoutError("Chromium did not answer")
            chunk = os.read(self.from_child, 1 << 16)
            if not chunk:
                raise EOFError("Chromium closed its DevTools pipe")
            self.buffer += chunk
        msg, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(msg)

    def wait_for(self, method):
        for e in self.events:
            if e.get("method") == method:
                return e
        while True:
            e = self.read()
            self.events.append(e)
            self.on_event(e)
            if e.get("method") == method:
                return e

    def on_event(self, e):
        # An open dialog blocks the page: answer it at once (it is recorded in events).
        if e.get("method") == "Page.javascriptDialogOpening":
            self.next_id += 1
            msg = {"id": self.next_id, "method": "Page.handleJavaScriptDialog",
                   "params": {"accept": True}, "sessionId": self.session}
            os.write(self.to_child, json.dumps(msg).encode() + b"\0")

    def evaluate(self, expression):
        r = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        return r.get("result", {}).get("value")

    def close(self):
        try:
            self.send("Browser.close", session=False)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


FACTS = """JSON.stringify({
  scripts: document.scripts.length,
  handlers: [...document.querySelectorAll('*')].filter(e => [...e.attributes].some(a => /^on/i.test(a.name))).length,
  js_links: [...document.querySelectorAll('a[href], area[href], form[action], iframe[src]')]
     .filter(e => /^\\s*javascript:/i.test(e.getAttribute('href') || e.getAttribute('action') || e.getAttribute('src') || '')).length,
  pwned: {title: document.title, attr: document.documentElement.getAttribute('data-pwned')},
  paint: Object.fromEntries(performance.getEntriesByType('paint').map(e => [e.name, e.startTime])),
  load_ms: (performance.getEntriesByType('navigation')[0] || {}).loadEventEnd || null,
})"""


def main(argv):
    args = {"selector": [], "text": []}
    path, shot, dark = None, None, False
    it = iter(argv)
    for a in it:
        if a in ("--selector", "--text"):
            args[a[2:]].append(next(it))
        elif a == "--screenshot":
            shot = next(it)
        elif a == "--dark":
            dark = True
        else:
            path = a
    program = browser()
    if not path or not program:
        print("usage: page.py FILE [...]; and Chromium must be installed", file=sys.stderr)
        return 2
    url = "file://" + os.path.abspath(path)
    profile = tempfile.mkdtemp(prefix="vermas-chromium-")
    cdp = Cdp(program, profile)
    try:
        targets = cdp.send("Target.getTargets", session=False)["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        cdp.session = cdp.send("Target.attachToTarget",
                               {"targetId": page["targetId"], "flatten": True},
                               session=False)["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            cdp.send(f"{domain}.enable")
        cdp.send("Emulation.setDeviceMetricsOverride",
                 {"width": 1200, "height": 900, "deviceScaleFactor": 1, "mobile": False})
        cdp.send("Page.navigate", {"url": url})
        cdp.wait_for("Page.loadEventFired")
        # The first paint may come after the load event: wait for it (5 s at most).
        deadline = time.monotonic() + 5
        while True:
            facts = json.loads(cdp.evaluate(FACTS))
            if facts["paint"].get("first-paint") is not None or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        out = {
            "console": problems(cdp.events),
            "dialogs": [e["params"].get("message") for e in cdp.events
                        if e.get("method") == "Page.javascriptDialogOpening"],
            "first_paint": facts["paint"].get("first-paint"),
            "first_contentful_paint": facts["paint"].get("first-contentful-paint"),
            "load_ms": facts["load_ms"],
            "scripts": facts["scripts"],
            "handlers": facts["handlers"],
            "js_links": facts["js_links"],
            "pwned": facts["pwned"],
            "count": {s: cdp.evaluate(f"document.querySelectorAll({json.dumps(s)}).length")
                      for s in args["selector"]},
            "texts": {s: cdp.evaluate(
                f"[...document.querySelectorAll({json.dumps(s)})].map(e => e.textContent.trim())")
                for s in args["text"]},
        }
        if dark:
            bg = "getComputedStyle(document.body).backgroundColor"
            out["light"] = cdp.evaluate(bg)
            cdp.send("Emulation.setEmulatedMedia",
                     {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
            out["dark"] = cdp.evaluate(bg)
            cdp.send("Emulation.setEmulatedMedia",
                     {"features": [{"name": "prefers-color-scheme", "value": "light"}]})
        if shot:
            height = min(cdp.evaluate("document.documentElement.scrollHeight"), 2600)
            png = cdp.send("Page.captureScreenshot", {
                "format": "png", "captureBeyondViewport": True,
                "clip": {"x": 0, "y": 0, "width": 1200, "height": height, "scale": 1}})
            import base64
            with open(shot, "wb") as f:
                f.write(base64.b64decode(png["data"]))
        # Anything logged while the facts were read counts too.
        out["console"] = problems(cdp.events)
        print(json.dumps(out, indent=1))
        return 0
    except (EOFError, TimeoutError, StopIteration, RuntimeError) as e:
        print(f"page.py: {e}", file=sys.stderr)
        return 2
    finally:
        cdp.close()
        shutil.rmtree(profile, ignore_errors=True)


def problems(events):
    out = []
    for e in events:
        m, p = e.get("method"), e.get("params", {})
        if m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "warning", "assert"):
            out.append("console." + p["type"] + ": " + " ".join(
                str(a.get("value", a.get("description", ""))) for a in p.get("args", [])))
        elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            out.append("log: " + p["entry"].get("text", ""))
        elif m == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            out.append("exception: " + d.get("text", "") + " " +
                       str(d.get("exception", {}).get("description", "")))
    return out


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
