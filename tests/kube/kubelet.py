"""A kubelet stand-in for the tests' real control plane (tests/it/common/z2jh.rs): the one
simulated part of the z2jh stack, with the scheduler's one act (binding) beside it.

What it does, through the real kube-apiserver only (its REST API over TLS, the rig's admin
token; a real kubelet authenticates as `system:node:NAME` under the Node authorizer):
- Watches the namespace's pods (one list, then `watch=1` from its resourceVersion; a `410
  Gone` or a dropped stream lists again). No polling.
- Scheduler: binds each pod without `spec.nodeName` to a node (`POST pods/NAME/binding`), the
  node the control names for its user (annotation `hub.jupyter.org/username`), else `node-1`.
  Nodes are names only: no Node objects exist (the API server accepts a binding without one).
- Image pull, per node, honouring the container's `imagePullPolicy` as the API server
  defaulted it: `Always` resolves the tag's current digest from the real registry with one
  `HEAD /v2/<repo>/manifests/<tag>` listing the four manifest types (OCI index, Docker
  manifest list, OCI manifest, Docker manifest v2), as containerd's resolver does, and
  remembers it in the node's image cache; `IfNotPresent` keeps the digest the node's cache
  already holds for that reference (a warm node) and pulls only when it holds none; `Never`
  without a cached image leaves the pod waiting (`ErrImageNeverPull`). A pull moves the
  node's tag to the new digest for later pods, as a real pull does. The test can pre-seed a
  node's cache (`cache` in the control).
- Starts a stand-in single-user server per running pod: an HTTP endpoint answering every
  path with 200 (what the hub's readiness check and the proxy need), on a loopback address of
  its own (127.x.y.z, all loopback on Linux) at the container's declared port (KubeSpawner's
  `notebook-port`), and reports that address as the pod IP, where KubeSpawner connects.
- Patches `pods/NAME/status` as the kubelet does once the container runs: phase `Running`,
  `podIP`/`podIPs`, `hostIP`, `startTime`, the conditions, and `containerStatuses` with the
  container's `name`, `ready: true`, `started`, `state.running`, `image` (the reference as
  pulled) and `imageID` as containerd reports it: `<registry>/<repo>@sha256:<index digest>`.
  A pod whose user the control holds stays `Pending` with its container waiting
  (`ContainerCreating`, empty `imageID`), as during a long pull, until released.
- On deletion (`deletionTimestamp` set) stops the pod's server and removes the pod with grace
  period 0, as the kubelet does once the containers stopped; a pod whose user the control
  marks `stuck` is never removed (a lost node: the pod stays Terminating).

What it does not simulate: containers, images' content (nothing is unpacked or run: the
"server" is the endpoint above, not JupyterLab; it posts no activity to the hub), Node
objects, node status and leases, probes, restarts, resource limits, volumes, ServiceAccount
token mounts, events, the platform-manifest choice of a multi-arch index (the index digest
is reported, as containerd does, unless the control names one; or the bare image ID a runtime
reports for an image without a repository digest, for the users the control names), graceful termination (deletion is immediate), pod IPs from
a CNI.

    python kubelet.py --api URL --ca FILE --token-file FILE --namespace NS --dir DIR
                      [--plain-http-registry HOST:PORT ...]

Writes DIR/port (its control port, plain HTTP on 127.0.0.1) once its first listing is done
and the watch runs. Control: `POST /control` with any of `{"nodes": {USER: NODE}, "hold":
[USER], "stuck": [USER], "platform": {USER: "sha256:..."}, "bare": [USER], "mirror": {USER:
"HOST/REPOSITORY"}, "cache": {NODE:
{IMAGE: "sha256:..."}}}` (`platform`: the digest a user's pods report in their imageID, as a
runtime reporting the platform manifest it chose, CRI-O, does; `bare`: users whose pods report
that digest alone, `sha256:...`, naming no repository; `mirror`: the repository a user's
pods name in their imageID instead of the image's, as a node pulling through a mirror under
another name reports; each key given replaces
that setting; `cache` entries are merged into the nodes' caches; releasing a hold starts the
held pods); `GET /state` answers `{"cache": ..., "pods": {NAME: {"node", "ip", "image_id"}},
"pulls": [{"node", "image", "policy", "digest", "pulled"}]}`. Every act is also appended to
DIR/events.jsonl.
"""

import argparse
import asyncio
import datetime
import json
import os
import random
import socket
import ssl
import sys
import time

import aiohttp
from aiohttp import web

MANIFEST_TYPES = ", ".join(
    [
        "application/vnd.oci.image.index.v1+json",
        "application/vnd.docker.distribution.manifest.list.v2+json",
        "application/vnd.oci.image.manifest.v1+json",
        "application/vnd.docker.distribution.manifest.v2+json",
    ]
)
DEFAULT_NODE = "node-1"


def now_iso():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def split_reference(image):
    """`host[:port]/repo[:tag]` into (host, repo, tag); a reference without a registry host
    is Docker Hub's, as containerd normalises it."""
    name, tag = image, "latest"
    last = image.rsplit("/", 1)[-1]
    if ":" in last:
        name, tag = image.rsplit(":", 1)
    first, _, rest = name.partition("/")
    if rest and ("." in first or ":" in first or first == "localhost"):
        return first, rest, tag
    host = "docker.io"
    return host, name if "/" in name else f"library/{name}", tag


class Kubelet:
    def __init__(self, args):
        self.api = args.api.rstrip("/")
        self.ns = args.namespace
        self.dir = args.dir
        self.plain = set(args.plain_http_registry or [])
        with open(args.token_file) as f:
            token = f.read().strip()
        self.headers = {"Authorization": f"Bearer {token}"}
        self.tls = ssl.create_default_context(cafile=args.ca)
        self.control = {"nodes": {}, "hold": [], "stuck": [], "platform": {}, "bare": [], "mirror": {}}
        self.cache = {}  # node -> {image reference -> digest}
        self.pulls = []
        self.pods = {}  # uid -> {"name", "node", "ip", "image_id", "runner"}
        self.locks = {}  # uid -> asyncio.Lock
        self.held = {}  # uid -> pod (waiting for a hold to be released)
        self.next_ip = 0
        self.base = 20 + os.getpid() % 200
        self.session = None

    def record(self, event, **fields):
        fields.update(event=event, t=time.time())
        with open(os.path.join(self.dir, "events.jsonl"), "a") as f:
            f.write(json.dumps(fields) + "\n")

    async def request(self, method, path, body=None, content_type="application/json", ok=(200, 201)):
        headers = dict(self.headers)
        data = None
        if body is not None:
            headers["Content-Type"] = content_type
            data = json.dumps(body)
        async with self.session.request(method, self.api + path, data=data, headers=headers, ssl=self.tls) as r:
            text = await r.text()
            if r.status not in ok:
                self.record("api-error", method=method, path=path, code=r.status, body=text[:500])
                return r.status, None
            return r.status, json.loads(text) if text else None

    # The registry.
    async def resolve(self, image):
        host, repo, tag = split_reference(image)
        scheme = "http" if host in self.plain else "https"
        url = f"{scheme}://{host}/v2/{repo}/manifests/{tag}"
        async with self.session.head(url, headers={"Accept": MANIFEST_TYPES}) as r:
            digest = r.headers.get("Docker-Content-Digest")
            if r.status != 200 or not digest:
                raise RuntimeError(f"HEAD {url}: {r.status}")
            return digest

    async def pull(self, node, image, policy):
        """The digest the node runs `image` with under `policy`, or None (never pulled)."""
        cache = self.cache.setdefault(node, {})
        cached = cache.get(image)
        if policy == "Always" or (policy == "IfNotPresent" and cached is None):
            digest = await self.resolve(image)
            cache[image] = digest
            pulled = True
        else:
            digest, pulled = cached, False
        entry = {"node": node, "image": image, "policy": policy, "digest": digest, "pulled": pulled}
        self.pulls.append(entry)
        self.record("pull", **entry)
        return digest

    # Loopback addresses and the stand-in servers.
    async def serve(self, ports):
        """Starts one endpoint per port on a fresh loopback address; (address, runner)."""
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", lambda request: web.json_response({"standin": True}))
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        while True:
            self.next_ip += 1
            n = self.next_ip
            ip = f"127.{self.base}.{(n >> 8) & 255}.{n & 255}"
            if n & 255 == 0:
                continue
            try:
                for port in ports:
                    await web.TCPSite(runner, ip, port, reuse_address=False).start()
                return ip, runner
            except OSError:
                await runner.cleanup()
                runner = web.AppRunner(app, access_log=None)
                await runner.setup()

    # Pods.
    def user(self, pod):
        return (pod["metadata"].get("annotations") or {}).get("hub.jupyter.org/username", "")

    async def handle(self, kind, pod):
        uid = pod["metadata"]["uid"]
        lock = self.locks.setdefault(uid, asyncio.Lock())
        async with lock:
            try:
                await self.handle_locked(kind, pod)
            except Exception as e:  # noqa: BLE001 - the stand-in keeps running; the test sees the event
                self.record("error", pod=pod["metadata"]["name"], error=repr(e))

    async def handle_locked(self, kind, pod):
        meta, spec = pod["metadata"], pod["spec"]
        uid, name = meta["uid"], meta["name"]
        if kind == "DELETED":
            await self.stop(uid)
            self.held.pop(uid, None)
            return
        if meta.get("deletionTimestamp"):
            if self.user(pod) in self.control["stuck"]:
                if uid not in self.pods or not self.pods[uid].get("stuck"):
                    self.record("stuck", pod=name)
                    self.pods.setdefault(uid, {"name": name})["stuck"] = True
                return
            await self.stop(uid)
            self.held.pop(uid, None)
            code, _ = await self.request(
                "DELETE",
                f"/api/v1/namespaces/{self.ns}/pods/{name}",
                {"apiVersion": "v1", "kind": "DeleteOptions", "gracePeriodSeconds": 0, "preconditions": {"uid": uid}},
                ok=(200, 202, 404, 409),
            )
            self.record("removed", pod=name, code=code)
            return
        if not spec.get("nodeName"):
            node = self.control["nodes"].get(self.user(pod), DEFAULT_NODE)
            await self.request(
                "POST",
                f"/api/v1/namespaces/{self.ns}/pods/{name}/binding",
                {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": name, "uid": uid},
                 "target": {"apiVersion": "v1", "kind": "Node", "name": node}},
                ok=(201, 409),
            )
            self.record("bound", pod=name, node=node)
            return
        if uid in self.pods or pod.get("status", {}).get("phase") not in (None, "Pending"):
            return
        if self.user(pod) in self.control["hold"]:
            if uid not in self.held:
                self.held[uid] = pod
                await self.patch_waiting(pod)
                self.record("held", pod=name)
            return
        self.held.pop(uid, None)
        await self.run(pod)

    async def patch_waiting(self, pod):
        c = pod["spec"]["containers"][0]
        status = {
            "phase": "Pending",
            "hostIP": "127.0.0.1",
            "startTime": now_iso(),
            "conditions": [{"type": "PodScheduled", "status": "True", "lastTransitionTime": now_iso()}],
            "containerStatuses": [
                {"name": c["name"], "image": c["image"], "imageID": "", "ready": False, "started": False,
                 "restartCount": 0, "state": {"waiting": {"reason": "ContainerCreating"}}}
            ],
        }
        await self.request("PATCH", f"/api/v1/namespaces/{self.ns}/pods/{pod['metadata']['name']}/status",
                           {"status": status}, "application/merge-patch+json")

    async def run(self, pod):
        meta, spec = pod["metadata"], pod["spec"]
        uid, name, node = meta["uid"], meta["name"], spec["nodeName"]
        digests = []
        for c in spec["containers"]:
            digest = await self.pull(node, c["image"], c.get("imagePullPolicy", "IfNotPresent"))
            if digest is None:
                return self.record("never-pulled", pod=name, image=c["image"])
            digests.append(digest)
        ports = [p["containerPort"] for c in spec["containers"] for p in c.get("ports") or []]
        ip, runner = await self.serve(ports)
        started = (pod.get("status") or {}).get("startTime") or now_iso()
        statuses = []
        # A runtime reporting the platform manifest it chose (CRI-O has), for this user.
        platform = self.control["platform"].get(self.user(pod))
        digests = [platform or d for d in digests]
        for c, digest in zip(spec["containers"], digests):
            host, repo, _ = split_reference(c["image"])
            bare = self.user(pod) in self.control["bare"]
            named = self.control["mirror"].get(self.user(pod), f"{host}/{repo}")
            statuses.append({
                "name": c["name"], "image": c["image"], "imageID": digest if bare else f"{named}@{digest}",
                "containerID": "containerd://" + "%064x" % random.getrandbits(256),
                "ready": True, "started": True, "restartCount": 0,
                "state": {"running": {"startedAt": now_iso()}},
            })
        t = now_iso()
        status = {
            "phase": "Running", "hostIP": "127.0.0.1", "hostIPs": [{"ip": "127.0.0.1"}],
            "podIP": ip, "podIPs": [{"ip": ip}], "startTime": started,
            "conditions": [{"type": kind, "status": "True", "lastTransitionTime": t}
                           for kind in ("PodScheduled", "Initialized", "ContainersReady", "Ready")],
            "containerStatuses": statuses,
        }
        self.pods[uid] = {"name": name, "node": node, "ip": ip, "image_id": statuses[0]["imageID"], "runner": runner}
        code, _ = await self.request("PATCH", f"/api/v1/namespaces/{self.ns}/pods/{name}/status",
                                     {"status": status}, "application/merge-patch+json")
        self.record("running", pod=name, node=node, ip=ip, image_id=statuses[0]["imageID"], code=code)

    async def stop(self, uid):
        entry = self.pods.pop(uid, None)
        if entry and entry.get("runner"):
            await entry["runner"].cleanup()
            self.record("stopped", pod=entry["name"])

    # The watch.
    async def watch(self, ready):
        path = f"/api/v1/namespaces/{self.ns}/pods"
        while True:
            code, listing = await self.request("GET", path)
            if listing is None:
                await asyncio.sleep(0.5)
                continue
            for pod in listing["items"]:
                asyncio.ensure_future(self.handle("ADDED", pod))
            rv = listing["metadata"]["resourceVersion"]
            url = f"{self.api}{path}?watch=1&allowWatchBookmarks=true&resourceVersion={rv}&timeoutSeconds=3600"
            try:
                async with self.session.get(url, headers=self.headers, ssl=self.tls, timeout=aiohttp.ClientTimeout(total=None, sock_read=None)) as r:
                    if r.status != 200:
                        continue
                    if not ready.done():
                        ready.set_result(True)
                    async for line in r.content:
                        if not line.strip():
                            continue
                        event = json.loads(line)
                        if event["type"] == "ERROR":
                            break
                        if event["type"] == "BOOKMARK":
                            continue
                        asyncio.ensure_future(self.handle(event["type"], event["object"]))
            except (aiohttp.ClientError, asyncio.TimeoutError) as e:
                self.record("watch-restart", error=repr(e))

    # Control.
    async def control_post(self, request):
        body = await request.json()
        for key in ("nodes", "hold", "stuck", "platform", "bare", "mirror"):
            if key in body:
                self.control[key] = body[key]
        for node, images in (body.get("cache") or {}).items():
            self.cache.setdefault(node, {}).update(images)
        released = [pod for uid, pod in self.held.items() if self.user(pod) not in self.control["hold"]]
        for pod in released:
            self.held.pop(pod["metadata"]["uid"], None)
            asyncio.ensure_future(self.handle("RELEASED", pod))
        return web.json_response({"released": len(released)})

    async def control_get(self, request):
        pods = {e["name"]: {k: e.get(k) for k in ("node", "ip", "image_id")} for e in self.pods.values() if "ip" in e}
        return web.json_response({"cache": self.cache, "pods": pods, "pulls": self.pulls})

    async def main(self):
        connector = aiohttp.TCPConnector(limit=32)
        self.session = aiohttp.ClientSession(connector=connector)
        ready = asyncio.get_running_loop().create_future()
        watcher = asyncio.ensure_future(self.watch(ready))
        await asyncio.wait([ready, watcher], return_when=asyncio.FIRST_COMPLETED)
        if watcher.done():
            watcher.result()
        app = web.Application()
        app.router.add_post("/control", self.control_post)
        app.router.add_get("/state", self.control_get)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        await web.SockSite(runner, sock).start()
        tmp = os.path.join(self.dir, "port.tmp")
        with open(tmp, "w") as f:
            f.write(str(sock.getsockname()[1]))
        os.rename(tmp, os.path.join(self.dir, "port"))
        await watcher


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--api", required=True)
    parser.add_argument("--ca", required=True)
    parser.add_argument("--token-file", required=True)
    parser.add_argument("--namespace", required=True)
    parser.add_argument("--dir", required=True)
    parser.add_argument("--plain-http-registry", action="append")
    args = parser.parse_args()
    asyncio.run(Kubelet(args).main())


if __name__ == "__main__":
    sys.exit(main())
