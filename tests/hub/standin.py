"""A stand-in single-user server for the JupyterHub test rig (tests/it/common/hub.rs).

`StandinSpawner` serves each user's server as a real HTTP endpoint inside the hub's own
process (a tornado server on a free loopback port: the hub's readiness check and the proxy
reach it), and fakes the time a server takes to stop: `stop()` sleeps for the seconds
`stop_delays.json` (in the hub's working directory) gives for the user, then closes the
endpoint. Every start and stop is appended to `events.jsonl` as one JSON line
`{"event": "started"|"stop_begin"|"stopped", "user": NAME, "t": UNIX_SECONDS}` that the
harness reads.

With `kube.json` in the hub's working directory (`{"admin": URL, "images": {USER: IMAGE_ID},
"default": IMAGE_ID}`), the spawner also plays KubeSpawner's part for the fake Kubernetes API
server (tests/kube/fake_apiserver.py): it registers the server's pod, annotated with the user
and server name and carrying the `imageID` the scenario chose, when it starts the server, and
removes it when the server stops.
"""

import asyncio
import datetime
import json
import os
import time
import urllib.request

from jupyterhub.spawner import Spawner
from tornado import web
from tornado.httpserver import HTTPServer
from tornado.netutil import bind_sockets


class _Ok(web.RequestHandler):
    def get(self, *args):
        self.write({"standin": True})


def _record(event, user):
    line = json.dumps({"event": event, "user": user, "t": time.time()})
    with open("events.jsonl", "a") as f:
        f.write(line + "\n")


def _stop_delay(user):
    try:
        with open("stop_delays.json") as f:
            return float(json.load(f).get(user, 0.0))
    except FileNotFoundError:
        return 0.0


def _kube():
    try:
        with open("kube.json") as f:
            return json.load(f)
    except FileNotFoundError:
        return None


def _pod_name(user, server):
    return f"jupyter-{user}" + (f"--{server}" if server else "")


def _kube_send(kube, method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(kube["admin"] + path, data=data, method=method)
    urllib.request.urlopen(req, timeout=30).read()


class StandinSpawner(Spawner):
    """Starts at once; stops after the user's configured delay."""

    _http = None

    def _register_pod(self):
        kube = _kube()
        if kube is None:
            return
        user, server = self.user.name, self.name or ""
        image_id = kube.get("images", {}).get(user, kube.get("default", ""))
        started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        spec = {"name": _pod_name(user, server), "user": user, "server": server,
                "image_id": image_id, "start_time": started}
        _kube_send(kube, "POST", "/pods", [spec])

    def _remove_pod(self):
        kube = _kube()
        if kube is not None:
            _kube_send(kube, "DELETE", "/pods/" + _pod_name(self.user.name, self.name or ""))

    async def start(self):
        sockets = bind_sockets(0, "127.0.0.1")
        port = sockets[0].getsockname()[1]
        app = web.Application([(r"/.*", _Ok)])
        self._http = HTTPServer(app)
        self._http.add_sockets(sockets)
        self._register_pod()
        _record("started", self.user.name)
        return ("127.0.0.1", port)

    async def poll(self):
        return None if self._http is not None else 0

    async def stop(self, now=False):
        _record("stop_begin", self.user.name)
        delay = _stop_delay(self.user.name)
        if delay > 0:
            await asyncio.sleep(delay)
        if self._http is not None:
            self._http.stop()
            self._http = None
        self._remove_pod()
        _record("stopped", self.user.name)

    def get_state(self):
        return super().get_state()


class _Shared:
    """One HTTP endpoint in the hub's process that answers for every user's server."""

    port = None

    @classmethod
    def ensure(cls):
        if cls.port is None:
            sockets = bind_sockets(0, "127.0.0.1")
            cls.port = sockets[0].getsockname()[1]
            http = HTTPServer(web.Application([(r"/.*", _Ok)]))
            http.add_sockets(sockets)
            cls._http = http
        return cls.port


class SharedStandinSpawner(Spawner):
    """For scale benchmarks (scripts/bench-status.sh): every server is the one shared
    endpoint, so thousands of running servers cost one socket; starts and stops at once and
    records nothing."""

    _running = False

    async def start(self):
        self._running = True
        return ("127.0.0.1", _Shared.ensure())

    async def poll(self):
        return None if self._running else 0

    async def stop(self, now=False):
        self._running = False
