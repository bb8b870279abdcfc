"""Scale benchmark of `codeq-rollout status` against a real JupyterHub (scripts/bench-status.sh).

Starts JupyterHub 6.1.1 with configurable-http-proxy (the test rig's, from .venv and
tests/hub/node_modules) on free loopback ports, every server backed by one shared stand-in
endpoint (tests/hub/standin.py `SharedStandinSpawner`), creates USERS users and starts
RUNNING servers, then runs the binary under `/usr/bin/time -v` with a token of exactly
status's scopes. Prints the hub requests status sent (counted in the hub's log), the bound
ceil(running / 200) + 1, the peak RSS and the wall time. Stops the hub's process group at the
end, also on failure.

Usage: python scripts/bench_status.py BINARY[,BINARY...] USERS RUNNING (each binary is run
twice against the same hub: with --json, and for the table).

With BENCH_KUBE=1, `status` also judges by digest: the fake Kubernetes API server
(tests/kube/fake_apiserver.py, over TLS) serves one single-user pod per running server on the
image's digest (an OCI layout from scripts/make-example-layout.py), and its requests are
checked against ceil(pods / 500) + 1.
"""

import json
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

from benchlib import free_port

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DRIVER = "bench-driver-token-0123456789abcdef"
READER = "bench-reader-token-0123456789abcdef"


def call(api, method, path, body=None, token=DRIVER):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(api + path, data=data, method=method)
    req.add_header("Authorization", f"token {token}")
    if data is not None:
        req.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(req, timeout=120) as resp:
        return resp.status, json.loads(resp.read() or b"null")


def main():
    binaries, users, running = sys.argv[1].split(","), int(sys.argv[2]), int(sys.argv[3])
    # The hub's database on tmpfs: an earlier run on disk failed its server starts with HTTP
    # 500 when the shared disk filled up under parallel builds (the hub's log:
    # "sqlite3.OperationalError: database or disk is full"), and sqlite's fsync per spawn
    # on a busy disk is most of a start's time.
    shm = "/dev/shm" if os.path.isdir("/dev/shm") else None
    d = tempfile.mkdtemp(prefix="bench-status-", dir=shm)
    public, hub, proxy_api = free_port(), free_port(), free_port()
    chp = os.path.join(ROOT, "tests/hub/node_modules/.bin/configurable-http-proxy")
    config = f"""import sys
sys.path.insert(0, {os.path.join(ROOT, "tests/hub")!r})
import rig
rig.loopback(c, workdir={d!r}, public={public}, hub={hub}, proxy_api={proxy_api}, chp={chp!r})
c.JupyterHub.spawner_class = "standin.SharedStandinSpawner"
c.JupyterHub.concurrent_spawn_limit = 0
c.JupyterHub.services = [
    {{"name": "driver", "api_token": {DRIVER!r}}},
    {{"name": "status-reader", "api_token": {READER!r}}},
]
c.JupyterHub.load_roles = [
    {{"name": "driver", "services": ["driver"], "scopes": ["admin:users", "admin:servers", "list:users"]}},
    {{"name": "codeq-rollout-status", "services": ["status-reader"], "scopes": ["list:users", "read:servers"]}},
]
"""
    with open(os.path.join(d, "jupyterhub_config.py"), "w") as f:
        f.write(config)
    log = open(os.path.join(d, "hub.log"), "w")
    python = os.path.join(ROOT, ".venv/bin/python")
    api = f"http://127.0.0.1:{public}/hub/api"
    names = [f"user{i:05d}" for i in range(users)]

    marks = iter(range(1, 1_000_000))

    def settled_log():
        """The hub's log once every request before this call is in it: the hub logs a
        request when it finishes it (tornado `log_request`), possibly after the client has
        its answer, so a marker request is sent and waited for (bounded); the hub handles
        requests one at a time, in order."""
        tag = f"bench-mark-{next(marks)}"
        call(api, "GET", f"/?{tag}")
        deadline = time.time() + 60
        while True:
            lines = list(open(os.path.join(d, "hub.log")))
            if any(tag in l for l in lines):
                return lines
            if time.time() > deadline:
                raise SystemExit(f"the hub's log never showed {tag}; see {d}/hub.log")
            time.sleep(0.1)

    kube = None
    if os.environ.get("BENCH_KUBE"):
        kd = tempfile.mkdtemp(prefix="bench-kube-", dir=shm)
        kube_proc = subprocess.Popen(
            [python, os.path.join(ROOT, "tests/kube/fake_apiserver.py"), "--dir", kd, "--token", "bench-kube-token"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=open(os.path.join(kd, "log"), "w"),
        )
        deadline = time.time() + 60
        while not os.path.exists(os.path.join(kd, "ports.json")):
            if time.time() > deadline or kube_proc.poll() is not None:
                kube_proc.kill()
                raise SystemExit(f"the fake API server did not start; see {kd}/log")
            time.sleep(0.1)
        ports = json.load(open(os.path.join(kd, "ports.json")))
        layout = os.path.join(kd, "layout")
        digest = subprocess.run(
            [sys.executable, os.path.join(ROOT, "scripts/make-example-layout.py"), layout, "latest", "bench"],
            capture_output=True, text=True, check=True,
        ).stdout.strip()
        import base64
        ca = base64.b64encode(open(os.path.join(kd, "ca.pem"), "rb").read()).decode()
        kubeconfig = f"""apiVersion: v1
kind: Config
clusters: [{{name: hub, cluster: {{server: "https://127.0.0.1:{ports['api']}", certificate-authority-data: {ca}}}}}]
users: [{{name: bench, user: {{token: bench-kube-token}}}}]
contexts: [{{name: hub, context: {{cluster: hub, user: bench}}}}]
current-context: hub
"""
        specs = [{"name": f"jupyter-{n}", "user": n, "image_id": f"ghcr.io/org/lab@{digest}",
                  "start_time": "2026-01-01T00:00:00Z"} for n in names[:running]]
        req = urllib.request.Request(f"http://127.0.0.1:{ports['admin']}/pods", data=json.dumps(specs).encode(), method="POST")
        urllib.request.urlopen(req, timeout=120).read()
        kube = {"proc": kube_proc, "admin": ports["admin"], "args": ["--image", f"oci:{layout}:latest", "--kubeconfig", kubeconfig]}

    def kube_requests():
        with urllib.request.urlopen(f"http://127.0.0.1:{kube['admin']}/requests", timeout=60) as r:
            return len(json.loads(r.read()))

    def measure(binary, mode, released_at):
        """One run of `binary status` (`mode`: ["--json"] or [] for the table): prints its
        hub requests, peak RSS and wall time; whether they keep the bounds."""
        mark = len(settled_log())
        kube_mark = kube_requests() if kube else 0
        began = time.time()
        out = subprocess.run(
            ["/usr/bin/time", "-v", binary, "status", "--hub-url", f"http://127.0.0.1:{public}",
             "--hub-token", READER, "--released-at", released_at, *(kube["args"] if kube else []), *mode],
            capture_output=True, text=True, env={"PATH": os.environ.get("PATH", "")},
        )
        wall = time.time() - began
        if out.returncode != 0:
            raise SystemExit(f"status failed:\n{out.stderr}")
        if mode:
            n = json.loads(out.stdout)["totals"]["running"]
        else:
            # The table's totals line: "N running: ...".
            n = int(next(l for l in out.stdout.splitlines() if " running: " in l).split()[0])
        rss_kib = next(
            int(l.split(":")[1]) for l in out.stderr.splitlines()
            if "Maximum resident set size" in l
        )
        lines = settled_log()[mark:]
        sent = [l for l in lines if "(status-reader@" in l]
        gets = [l for l in sent if " GET " in l]
        bound = math.ceil(n / 200) + 1
        ok = n == running and len(gets) == len(sent) and len(sent) <= bound and rss_kib < 20 * 1024
        if kube:
            k = kube_requests() - kube_mark
            k_bound = math.ceil(running / 500) + 1
            ok &= k <= k_bound
            if mode:
                ok &= json.loads(out.stdout)["totals"]["evidence"] == "digest"
            print(f"  Kubernetes requests {k}, bound ceil({running}/500)+1 = {k_bound}", flush=True)
        print(
            f"{binary} {' '.join(mode) or '(table)'}: users {users}, running servers {n}; "
            f"hub requests {len(sent)} (GET {len(gets)}), bound ceil({n}/200)+1 = {bound}; "
            f"peak RSS {rss_kib / 1024:.1f} MiB; wall {wall:.2f} s; {'ok' if ok else 'OVER'}",
            flush=True,
        )
        return ok

    def start_hub():
        proc = subprocess.Popen(
            [python, os.path.join(ROOT, "tests/hub/launch.py"), "-f", "jupyterhub_config.py"],
            cwd=d, stdout=log, stderr=log, stdin=subprocess.DEVNULL, start_new_session=True,
            # Unbuffered, so the request lines counted below are in the log when read.
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        deadline = time.time() + 300
        while True:
            try:
                call(api, "GET", "/")
                return proc
            except Exception:
                if time.time() > deadline or proc.poll() is not None:
                    stop_hub(proc)
                    raise SystemExit(f"the hub did not come up; log in {d}/hub.log")
                time.sleep(0.5)

    def stop_hub(proc):
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=60)
        except ProcessLookupError:
            pass
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
        proxy_pid = os.path.join(d, "proxy.pid")
        if os.path.exists(proxy_pid):
            try:
                os.kill(int(open(proxy_pid).read().strip()), signal.SIGTERM)
            except (ProcessLookupError, ValueError):
                pass

    # The users straight into the hub's database (the REST API takes ~0.1 s a user): a first
    # start creates the schema, the users are added while the hub is down, a second start
    # gives them their default role.
    began = time.time()
    stop_hub(start_hub())
    from jupyterhub import orm

    db = orm.new_session_factory(f"sqlite:///{d}/hub.sqlite")()
    db.add_all([orm.User(name=n) for n in names])
    db.commit()
    db.close()
    hub_proc = start_hub()
    print(f"created {users} users in {time.time() - began:.1f} s", flush=True)
    try:
        began = time.time()
        def start(name):
            try:
                return call(api, "POST", f"/users/{name}/server")
            except urllib.error.HTTPError as e:
                raise SystemExit(
                    f"starting {name}'s server: HTTP {e.code} {e.read()[:300]!r}; "
                    f"the hub's log is {d}/hub.log"
                )

        with ThreadPoolExecutor(8) as pool:
            list(pool.map(start, names[:running]))
        print(f"started {running} servers in {time.time() - began:.1f} s", flush=True)
        released_at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 3600))
        ok = True
        for binary in binaries:
            for mode in (["--json"], []):
                ok &= measure(binary, mode, released_at)
        if ok:
            print("PASS")
        else:
            print(f"FAIL; the hub's directory is {d}")
            sys.exit(1)
    finally:
        stop_hub(hub_proc)
        if kube:
            kube["proc"].kill()
            kube["proc"].wait()
    shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
