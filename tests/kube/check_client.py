"""The fake Kubernetes API server (fake_apiserver.py) against the real parts: every pod it
serves validates against the Kubernetes schemas of kubernetes-validate (strict), and the
official `kubernetes` Python client lists the same pods through it over TLS, page by page
with `limit` and `continue`, and reads its errors (401, 403, 410) as `ApiException`s with
the API server's `Status`. Run by tests/it/kube.rs with the fake it started:

    python check_client.py API_PORT ADMIN_PORT CA_FILE TOKEN

Prints `ok PODS PAGES` and exits 0, or raises.
"""

import json
import sys
import urllib.request

import kubernetes
import kubernetes_validate
from kubernetes.client.rest import ApiException

api_port, admin_port, ca, token = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
admin = f"http://127.0.0.1:{admin_port}"


def post(path, body):
    req = urllib.request.Request(admin + path, data=json.dumps(body).encode(), method="POST")
    urllib.request.urlopen(req).read()


config = kubernetes.client.Configuration()
config.host = f"https://127.0.0.1:{api_port}"
config.ssl_ca_cert = ca
config.api_key = {"authorization": token}
config.api_key_prefix = {"authorization": "Bearer"}
v1 = kubernetes.client.CoreV1Api(kubernetes.client.ApiClient(config))
selector = "component=singleuser-server,release=jhub"

# The pods the tests serve: with and without imageID, a named server, hostile annotations,
# and unrelated pods the selector leaves out.
specs = [{"name": f"jupyter-u{i}", "user": f"u{i}", "image_id": f"ghcr.io/org/lab@sha256:{i % 10:064x}"} for i in range(1200)]
specs.append({"name": "jupyter-creating", "user": "creating", "image_id": ""})
specs.append({"name": "jupyter-named--gpu", "user": "named", "server": "gpu", "image_id": "sha256:" + "c" * 64})
specs.append({"name": "jupyter-hostile", "user": "::error::pwned\u202e\x1b[31m", "server": "##[group]x"})
specs += [{"name": f"other-{i}", "component": "other", "image_id": ""} for i in range(50)]
post("/pods", specs)

# Raw pages, validated against the schema.
version = kubernetes_validate.latest_version()
seen, pages, token_ = [], 0, None
while True:
    raw = v1.list_namespaced_pod("jhub", label_selector=selector, limit=500, _continue=token_, _preload_content=False)
    page = json.loads(raw.data)
    pages += 1
    for pod in page["items"]:
        kubernetes_validate.validate(pod, version, strict=True)
        seen.append(pod["metadata"]["name"])
    token_ = page["metadata"].get("continue")
    if not token_:
        break
assert len(seen) == 1203 and pages == 3, (len(seen), pages)
assert len(set(seen)) == len(seen)

# The typed client reads the same pods and the fields status keeps.
typed, token_ = [], None
while True:
    page = v1.list_namespaced_pod("jhub", label_selector=selector, limit=500, _continue=token_)
    typed += page.items
    token_ = page.metadata._continue
    if not token_:
        break
assert [p.metadata.name for p in typed] == seen
u3 = next(p for p in typed if p.metadata.name == "jupyter-u3")
assert u3.metadata.annotations["hub.jupyter.org/username"] == "u3"
notebook = next(c for c in u3.status.container_statuses if c.name == "notebook")
assert notebook.image_id == "ghcr.io/org/lab@sha256:" + "3".rjust(64, "0")

# Errors as the API server answers them.
def status_of(call):
    try:
        call()
    except ApiException as e:
        return e.status, json.loads(e.body)
    raise AssertionError("no error")

post("/fault", {"mode": "forbidden"})
code, body = status_of(lambda: v1.list_namespaced_pod("jhub", label_selector=selector))
assert code == 403 and body["kind"] == "Status" and body["reason"] == "Forbidden", body
assert 'cannot list resource "pods" in API group "" in the namespace "jhub"' in body["message"]
post("/fault", {"mode": "unauthorized"})
code, body = status_of(lambda: v1.list_namespaced_pod("jhub", label_selector=selector))
assert code == 401 and body["reason"] == "Unauthorized", body
post("/fault", {"mode": "expire-continue"})
first = v1.list_namespaced_pod("jhub", label_selector=selector, limit=500)
code, body = status_of(lambda: v1.list_namespaced_pod("jhub", label_selector=selector, limit=500, _continue=first.metadata._continue))
assert code == 410 and body["reason"] == "Expired", body
post("/fault", {"mode": None})
print("ok", len(seen), pages)
