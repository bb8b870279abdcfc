"""A fake Kubernetes API server for `status`'s tests (tests/it/kube.rs), over TLS.

Kept only for what the real API server of the tests (tests/it/common/controlplane.rs: a real
kube-apiserver and etcd built from Go modules, with real KubeSpawner spawning into it) cannot
produce: a 200 answer that is not a `PodList` (a proxy's, dashboard's or load balancer's page)
and a `continue` token that comes back (a broken proxy or cache), and for
scripts/bench_status.py, which measures `status` at thousands of servers without building the
control plane. RBAC's 403, pagination, an expired `continue` token (etcd compacted between two
pages), and the pods KubeSpawner makes are tested on the real API server.

Serves what `status` reads and nothing else: `GET /api/v1/namespaces/{ns}/pods` with
`labelSelector` (equality terms, as the API server applies them), `limit` and `continue`,
answering a `v1` `PodList` whose `metadata.continue` pages through the pods; errors are
`Status` objects as the API server sends them (401 Unauthorized, 403 Forbidden with RBAC's
message, 410 Gone for an expired continue token). Every pod it serves validates against the
Kubernetes schemas of `kubernetes-validate` and is read back by the official `kubernetes`
client (tests/kube/check_client.py), so the fake speaks what real clients read.

    python fake_apiserver.py --dir DIR --token TOKEN

writes DIR/ca.pem (the CA of its certificate, for the kubeconfig) and then DIR/ports.json
(`{"api": PORT, "admin": PORT}`) once it listens. The admin port (plain HTTP, loopback) is
the tests' and the hub rig's: `POST /pods` with a JSON list of pod specs
(`{"name", "user", "server", "image_id", "namespace", "release", "component",
"start_time", "annotations", "phase"}`; missing keys take defaults) adds or replaces pods,
`DELETE /pods/NAME` removes one, `POST /fault` with `{"mode": "unauthorized" | "forbidden" |
"expire-continue" | "not-a-pod-list" | "endless-continue" | null}` sets a fault, `GET /requests` lists the API requests received
(`{"path", "query", "authorization"}`).
"""

import argparse
import base64
import json
import os
import ssl
import subprocess
import threading
from http.server import ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from fakehttp import FakeHandler

NAMESPACE = "jhub"
IMAGE = "ghcr.io/org/lab:latest"

LOCK = threading.Lock()
PODS = {}  # name -> pod object, insertion order
STATE = {"fault": None, "generation": 0, "requests": [], "token": None}


def make_pod(spec):
    """A v1 Pod as KubeSpawner creates it and the kubelet reports it."""
    name = spec["name"]
    namespace = spec.get("namespace", NAMESPACE)
    labels = {
        "component": spec.get("component", "singleuser-server"),
        "release": spec.get("release", "jhub"),
        "app": "jupyterhub",
        "hub.jupyter.org/network-access-hub": "true",
    }
    annotations = {
        "hub.jupyter.org/username": spec.get("user", name),
        "hub.jupyter.org/servername": spec.get("server", ""),
    }
    annotations.update(spec.get("annotations", {}))
    for key in [k for k, v in annotations.items() if v is None]:
        del annotations[key]
    started = spec.get("start_time", "2026-11-30T09:00:00Z")
    image_id = spec.get("image_id", "")
    phase = spec.get("phase", "Running" if image_id else "Pending")
    running = bool(image_id) and phase == "Running"
    if phase == "Failed":
        # As the kubelet leaves an evicted pod: its containers terminated.
        state = {"terminated": {"exitCode": 137, "reason": "Error", "startedAt": started, "finishedAt": started}}
    elif running:
        state = {"running": {"startedAt": started}}
    else:
        state = {"waiting": {"reason": "ContainerCreating"}}
    status = {
        "phase": phase,
        "startTime": started,
        "podIP": "10.0.0.1",
        "hostIP": "10.0.1.1",
        "containerStatuses": [
            {
                "name": "notebook",
                "image": spec.get("image", IMAGE),
                "imageID": image_id,
                "ready": running,
                "restartCount": 0,
                "started": running,
                "state": state,
            }
        ],
    }
    if phase == "Failed":
        status["reason"] = "Evicted"
        status["message"] = "The node was low on resource: memory."
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "uid": "00000000-0000-4000-8000-" + format(abs(hash(name)) % (1 << 48), "012x"),
            "resourceVersion": str(1000 + len(PODS)),
            "creationTimestamp": started,
            "labels": labels,
            "annotations": annotations,
        },
        "spec": {
            "containers": [
                {
                    "name": "notebook",
                    "image": spec.get("image", IMAGE),
                    "imagePullPolicy": "Always",
                }
            ],
            "restartPolicy": "OnFailure",
        },
        "status": status,
    }


def status_object(code, reason, message):
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
        "code": code,
    }


def matches(pod, selector):
    labels = pod["metadata"].get("labels", {})
    for term in filter(None, (t.strip() for t in selector.split(","))):
        key, _, value = term.partition("==" if "==" in term else "=")
        if labels.get(key.strip()) != value.strip():
            return False
    return True


class Api(FakeHandler):

    def do_GET(self):
        url = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        with LOCK:
            STATE["requests"].append(
                {
                    "path": url.path,
                    "query": query,
                    "authorization": self.headers.get("Authorization", ""),
                }
            )
            fault = STATE["fault"]
        parts = url.path.strip("/").split("/")
        if len(parts) != 5 or parts[:3] != ["api", "v1", "namespaces"] or parts[4] != "pods":
            return self.send_json(404, status_object(404, "NotFound", "the server could not find the requested resource"))
        namespace = parts[3]
        auth = self.headers.get("Authorization", "")
        if fault == "unauthorized" or auth != f"Bearer {STATE['token']}":
            return self.send_json(401, status_object(401, "Unauthorized", "Unauthorized"))
        if fault == "forbidden":
            return self.send_json(
                403,
                status_object(
                    403,
                    "Forbidden",
                    f'pods is forbidden: User "system:serviceaccount:{namespace}:codeq-rollout-status" cannot list resource "pods" in API group "" in the namespace "{namespace}"',
                ),
            )
        if fault == "not-a-pod-list":
            # A 200 from something else than the API server's pod list: a proxy's Status.
            return self.send_json(200, {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success"})
        if fault == "endless-continue":
            # Every page hands back the same continue token (a broken proxy or cache).
            return self.send_json(
                200,
                {"kind": "PodList", "apiVersion": "v1", "metadata": {"resourceVersion": "1", "continue": "MA=="}, "items": []},
            )
        token = query.get("continue")
        with LOCK:
            if token and fault == "expire-continue":
                STATE["fault"] = None
                return self.send_json(
                    410,
                    status_object(
                        410,
                        "Expired",
                        "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.",
                    ),
                )
            selected = [
                p
                for p in PODS.values()
                if p["metadata"]["namespace"] == namespace and matches(p, query.get("labelSelector", ""))
            ]
            generation = STATE["generation"]
        offset = 0
        if token:
            decoded = json.loads(base64.b64decode(token))
            offset = decoded["offset"]
        limit = int(query.get("limit", "0") or 0)
        end = len(selected) if limit <= 0 else min(len(selected), offset + limit)
        metadata = {"resourceVersion": str(2000 + generation)}
        if end < len(selected):
            metadata["continue"] = base64.b64encode(
                json.dumps({"offset": end, "rv": generation}).encode()
            ).decode()
            metadata["remainingItemCount"] = len(selected) - end
        self.send_json(
            200,
            {
                "kind": "PodList",
                "apiVersion": "v1",
                "metadata": metadata,
                "items": selected[offset:end],
            },
        )


class Admin(FakeHandler):
    def reply(self, code, body=None):
        self.send_json(code, body if body is not None else {})

    def do_POST(self):
        if self.path == "/pods":
            specs = self.json_body()
            with LOCK:
                for spec in specs:
                    PODS[spec["name"]] = make_pod(spec)
                STATE["generation"] += 1
            return self.reply(200, {"pods": len(PODS)})
        if self.path == "/fault":
            with LOCK:
                STATE["fault"] = self.json_body().get("mode")
            return self.reply(200)
        self.reply(404)

    def do_DELETE(self):
        if self.path.startswith("/pods/"):
            with LOCK:
                PODS.pop(self.path[len("/pods/"):], None)
                STATE["generation"] += 1
            return self.reply(200)
        self.reply(404)

    def do_GET(self):
        if self.path == "/requests":
            with LOCK:
                return self.reply(200, STATE["requests"])
        if self.path == "/pods":
            with LOCK:
                return self.reply(200, list(PODS.values()))
        self.reply(404)


def certificates(directory):
    """A CA and a server certificate for 127.0.0.1 signed by it (openssl)."""
    def run(*args):
        subprocess.run(["openssl", *args], check=True, capture_output=True, cwd=directory)

    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=fake-kube-ca",
        "-keyout", "ca.key", "-out", "ca.pem",
        "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    run("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout", "server.key", "-out", "server.csr")
    with open(os.path.join(directory, "ext.cnf"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n")
    run("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
        "-days", "2", "-out", "server.pem", "-extfile", "ext.cnf")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--token", required=True)
    args = parser.parse_args()
    STATE["token"] = args.token
    certificates(args.dir)
    api = ThreadingHTTPServer(("127.0.0.1", 0), Api)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(os.path.join(args.dir, "server.pem"), os.path.join(args.dir, "server.key"))
    api.socket = context.wrap_socket(api.socket, server_side=True)
    admin = ThreadingHTTPServer(("127.0.0.1", 0), Admin)
    threading.Thread(target=admin.serve_forever, daemon=True).start()
    ports = {"api": api.server_address[1], "admin": admin.server_address[1]}
    tmp = os.path.join(args.dir, "ports.json.tmp")
    with open(tmp, "w") as f:
        json.dump(ports, f)
    os.rename(tmp, os.path.join(args.dir, "ports.json"))
    api.serve_forever()


if __name__ == "__main__":
    main()
