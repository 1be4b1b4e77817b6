"""Headless Chromium (Debian's chromium, no network) for the report tests: a page served
as Jenkins serves an archived report, under its default Content-Security-Policy."""
import functools
import http.server
import subprocess
import tempfile
import threading

CHROMIUM = ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run", "--window-size=1200,1600"]

# Jenkins' default Content-Security-Policy for archived files (hudson.model.DirectoryBrowserSupport.CSP).
JENKINS_CSP = "sandbox; default-src 'none'; img-src 'self'; style-src 'self';"


def serve(folder):
    """An HTTP server on a free loopback port serving folder with Jenkins' CSP header."""
    class Handler(http.server.SimpleHTTPRequestHandler):
        def end_headers(self):
            self.send_header("Content-Security-Policy", JENKINS_CSP)
            super().end_headers()

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=folder))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def chromium(work, *args):
    profile = tempfile.mkdtemp(dir=work)
    return subprocess.run(CHROMIUM + [f"--user-data-dir={profile}", *args], capture_output=True, text=True, timeout=120)
