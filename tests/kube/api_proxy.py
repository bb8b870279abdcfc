"""A TLS proxy in front of the tests' real kube-apiserver (tests/it/kube.rs), for the one thing
a test cannot otherwise time: something happening between two pages of one listing.

It serves HTTPS with the API server's own certificate (so a kubeconfig with the API server's
CA trusts it), forwards every request as it came (method, path, query, headers, body) to the
API server and relays the answer unchanged, except in one mode:

- `compact-before-continue`: before forwarding the first request that carries a `continue`
  token, it makes one write through the API server (a ConfigMap, with the admin token) and
  compacts etcd past it exactly as the API server's own compactor does every
  `--etcd-compaction-interval` (k8s.io/apiserver `storage/etcd3/compact.go`, through etcd's v3
  HTTP gateway): `compact_rev_key` set to the revision, then `POST /v3/kv/compaction`. The API
  server's watch cache, which serves `continue` pages from its snapshots (ListFromCacheSnapshot,
  on by default since 1.34), drops the older snapshots when its compactor next reads that
  revision (every 15 s, `storage/cacher/compactor.go`); the proxy waits for it (bounded, 40 s:
  it asks the same page with the admin token until it answers 410), then forwards the client's
  request, which the API server answers with its real `410 Gone`. Then the mode clears itself.

    python api_proxy.py --upstream URL --ca FILE --cert FILE --key FILE --etcd URL
                        --admin-token-file FILE --namespace NS --dir DIR

Writes DIR/port once it listens. `DIR/mode` (a file, read at each request) holds the mode;
absent or empty means plain forwarding. Each compaction is appended to DIR/events.jsonl.
"""

import argparse
import base64
import http.client
import json
import os
import ssl
import threading
import time
import urllib.request
from http.server import ThreadingHTTPServer
from urllib.parse import urlsplit

from fakehttp import FakeHandler

ARGS = None
LOCK = threading.Lock()


def mode():
    try:
        with open(os.path.join(ARGS.dir, "mode")) as f:
            return f.read().strip()
    except FileNotFoundError:
        return ""


def clear_mode():
    os.remove(os.path.join(ARGS.dir, "mode"))


def record(event, **fields):
    fields.update(event=event, t=time.time())
    with open(os.path.join(ARGS.dir, "events.jsonl"), "a") as f:
        f.write(json.dumps(fields) + "\n")


def etcd(path, body):
    req = urllib.request.Request(ARGS.etcd + path, data=json.dumps(body).encode(), method="POST")
    return json.loads(urllib.request.urlopen(req, timeout=30).read())


def compact():
    """One write through the API server, then etcd compacted to the revision after it."""
    with open(ARGS.admin_token_file) as f:
        token = f.read().strip()
    upstream = urlsplit(ARGS.upstream)
    conn = http.client.HTTPSConnection(upstream.hostname, upstream.port, context=upstream_tls(), timeout=30)
    name = f"compaction-{time.time_ns()}"
    body = json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {}})
    conn.request("POST", f"/api/v1/namespaces/{ARGS.namespace}/configmaps", body,
                 {"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    answer = conn.getresponse()
    answer.read()
    assert answer.status == 201, answer.status
    revision = int(etcd("/v3/kv/range", {"key": "AA==", "limit": 1})["header"]["revision"])
    key = base64.b64encode(b"compact_rev_key").decode()
    value = base64.b64encode(str(revision).encode()).decode()
    etcd("/v3/kv/txn", {"success": [{"requestPut": {"key": key, "value": value}}]})
    etcd("/v3/kv/compaction", {"revision": str(revision), "physical": True})
    return token


def until_expired(path, token):
    """Asks `path` (a continue page) with the admin token until the API server answers 410."""
    upstream = urlsplit(ARGS.upstream)
    deadline = time.time() + 40
    while time.time() < deadline:
        conn = http.client.HTTPSConnection(upstream.hostname, upstream.port, context=upstream_tls(), timeout=30)
        conn.request("GET", path, headers={"Authorization": f"Bearer {token}"})
        answer = conn.getresponse()
        answer.read()
        if answer.status == 410:
            return True
        time.sleep(0.2)
    return False


def upstream_tls():
    return ssl.create_default_context(cafile=ARGS.ca)


class Proxy(FakeHandler):
    def forward(self):
        body = self.request_body()
        if "continue=" in urlsplit(self.path).query:
            with LOCK:
                if mode() == "compact-before-continue":
                    started = time.time()
                    token = compact()
                    expired = until_expired(self.path, token)
                    record("compacted", expired=expired, seconds=round(time.time() - started, 1))
                    clear_mode()
        upstream = urlsplit(ARGS.upstream)
        conn = http.client.HTTPSConnection(upstream.hostname, upstream.port, context=upstream_tls(), timeout=60)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection")}
        conn.request(self.command, self.path, body, headers)
        answer = conn.getresponse()
        data = answer.read()
        self.send_response(answer.status)
        for k, v in answer.getheaders():
            if k.lower() not in ("transfer-encoding", "connection", "content-length"):
                self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = forward


def main():
    global ARGS
    parser = argparse.ArgumentParser()
    for name in ("--upstream", "--ca", "--cert", "--key", "--etcd", "--admin-token-file", "--namespace", "--dir"):
        parser.add_argument(name, required=True)
    ARGS = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(ARGS.cert, ARGS.key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    tmp = os.path.join(ARGS.dir, "port.tmp")
    with open(tmp, "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(tmp, os.path.join(ARGS.dir, "port"))
    server.serve_forever()


if __name__ == "__main__":
    main()
