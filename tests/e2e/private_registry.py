"""A real private registry on the test cluster's head (10.211.0.1): Debian's
docker-registry (distribution v2) over TLS with a self-signed certificate and
htpasswd (bcrypt) users, serving one tiny image (a static `sleep` made here, put in
with `podman import` and pushed with podman). The nodes trust the certificate the
way a user would: ca.crt in the engine user's certs.d for that host:port
($HOME/.config/containers/certs.d, read by each node's podman service).
Everything lives in one private folder; stop() ends the registry and removes it."""
import base64
import json
import os
import shutil
import signal
import socket
import ssl
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

HEAD = "10.211.0.1"
SLEEPER_C = "#include <unistd.h>\nint main(void) { for (;;) pause(); }\n"


def free_port():
    with socket.socket() as s:
        s.bind((HEAD, 0))
        return s.getsockname()[1]


class PrivateRegistry:
    def __init__(self, username, password):
        self.username, self.password = username, password
        self.dir = tempfile.mkdtemp(prefix="aorta-registry-")
        os.chmod(self.dir, 0o700)
        self.port = free_port()
        self.server = f"{HEAD}:{self.port}"
        self.proc = None

    def path(self, name):
        return os.path.join(self.dir, name)

    def start(self):
        subprocess.run(["htpasswd", "-B", "-i", "-c", self.path("htpasswd"), self.username],
                       input=self.password, text=True, check=True, capture_output=True)
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                        "-nodes", "-days", "1", "-subj", f"/CN={HEAD}", "-addext", f"subjectAltName=IP:{HEAD}",
                        "-keyout", self.path("key.pem"), "-out", self.path("ca.crt")], check=True, capture_output=True)
        with open(self.path("config.yml"), "w") as f:
            f.write(f"version: 0.1\nlog:\n  level: warn\nstorage:\n  filesystem:\n    rootdirectory: {self.path('data')}\n"
                    f"http:\n  addr: {self.server}\n  tls:\n    certificate: {self.path('ca.crt')}\n"
                    f"    key: {self.path('key.pem')}\n"
                    f"auth:\n  htpasswd:\n    realm: aorta-e2e\n    path: {self.path('htpasswd')}\n")
        log = open(self.path("registry.log"), "w")
        self.proc = subprocess.Popen(["docker-registry", "serve", self.path("config.yml")], stdout=log,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        context = ssl.create_default_context(cafile=self.path("ca.crt"))
        deadline = time.monotonic() + 30
        while True:  # up when /v2/ asks for credentials
            try:
                urllib.request.urlopen(f"https://{self.server}/v2/", context=context, timeout=2)
            except urllib.error.HTTPError as e:
                if e.code == 401:
                    return
            except (urllib.error.URLError, OSError):
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("FAIL: the registry did not start: " + open(self.path("registry.log")).read()[-2000:])
            time.sleep(0.1)

    def podman(self, *args, **kw):
        """Podman with a store of its own: the machine's store is every node's
        additional image store, so an image put there would need no pull."""
        return subprocess.run(["podman", "--root", self.path("store"), "--runroot", self.path("run"),
                               "--storage-driver", "vfs", *args], check=True, capture_output=True, text=True, **kw)

    def push_tiny_image(self, name):
        """An image of one program, a `sleep` that waits forever; returns its reference."""
        rootfs = self.path("rootfs")
        os.makedirs(os.path.join(rootfs, "bin"))
        with open(self.path("sleep.c"), "w") as f:
            f.write(SLEEPER_C)
        subprocess.run(["gcc", "-static", "-Os", "-s", "-o", os.path.join(rootfs, "bin", "sleep"), self.path("sleep.c")],
                       check=True, capture_output=True)
        os.makedirs(os.path.join(rootfs, "etc"))  # the test config runs it as user root
        with open(os.path.join(rootfs, "etc", "passwd"), "w") as f:
            f.write("root:x:0:0:root:/:/bin/sleep\n")
        with open(os.path.join(rootfs, "etc", "group"), "w") as f:
            f.write("root:x:0:\nvideo:x:44:\n")  # the suite adds the video group
        subprocess.run(["tar", "-C", rootfs, "-cf", self.path("tiny.tar"), "."], check=True)
        image = f"{self.server}/{name}"
        self.podman("import", "--change", "ENV PATH=/bin", self.path("tiny.tar"), image)
        certs = self.path("certs")
        os.makedirs(certs)
        shutil.copy(self.path("ca.crt"), certs)
        auth = base64.b64encode(f"{self.username}:{self.password}".encode()).decode()
        with open(self.path("auth.json"), "w") as f:
            json.dump({"auths": {self.server: {"auth": auth}}}, f)
        self.podman("push", "--cert-dir", certs, "--authfile", self.path("auth.json"), image)
        return image

    def certs_dir(self):
        """Where a node's engine looks for this registry's CA, under its user's HOME."""
        return f"$HOME/.config/containers/certs.d/{self.server}"

    def stop(self):
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)

    def left_running(self):
        """Processes still naming this registry's config (none once stopped)."""
        r = subprocess.run(["pgrep", "-f", self.path("config.yml")], capture_output=True, text=True)
        return r.stdout.strip()
