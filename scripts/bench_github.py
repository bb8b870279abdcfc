#!/usr/bin/env python3
"""A small stateful fake of the GitHub REST routes codeq-rollout calls, for scripts/bench.py.

Not a test double (tests/it/common/github.rs is): it answers just enough, on loopback, for a
whole announce run to take its real path. Routes under /repos/OWNER/REPO:
  GET  /commits/{sha}/pulls   one merged pull request into master, labelled LABEL
  GET  /releases              releases, newest first (per_page/page honoured)
  POST /releases              creates one; 422 already_exists on a taken tag
  GET  /issues                issues carrying all ?labels=, in ?state=
  POST /issues                opens one
  POST /issues/{n}/comments   comments
  GET  /issues/{n}/comments   lists them
Control: POST /_reset?label=routine|security empties the state and sets the PR's label;
GET /_count returns {"requests": N} since the last reset.
"""
import os
import sys
import threading
from http.server import ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "kube"))
from fakehttp import FakeHandler  # noqa: E402

OWNER, REPO = "octo-org", "lab-image"
WEB = "https://github.example"


class State:
    def __init__(self):
        self.lock = threading.Lock()
        self.reset("routine")

    def reset(self, label):
        self.label = label
        self.releases, self.issues, self.comments = [], [], []
        self.next_id = 1000
        self.requests = 0

    def new_id(self):
        self.next_id += 1
        return self.next_id


STATE = State()


def page(items, query):
    per_page = int(query.get("per_page", ["30"])[0])
    number = int(query.get("page", ["1"])[0])
    return items[(number - 1) * per_page:number * per_page]


class Handler(FakeHandler):
    content_type = "application/json; charset=utf-8"

    def do_GET(self):
        self.route("GET")

    def do_POST(self):
        self.route("POST")

    def route(self, method):
        url = urlparse(self.path)
        query = parse_qs(url.query)
        body = self.json_body() if method == "POST" else None
        s = STATE
        with s.lock:
            if url.path == "/_reset":
                s.reset(query.get("label", ["routine"])[0])
                return self.send_json(200, {})
            if url.path == "/_count":
                return self.send_json(200, {"requests": s.requests})
            s.requests += 1
            prefix = f"/repos/{OWNER}/{REPO}/"
            if not url.path.startswith(prefix):
                return self.send_json(404, {"message": "Not Found"})
            parts = url.path[len(prefix):].split("/")
            if method == "GET" and len(parts) == 3 and parts[0] == "commits" and parts[2] == "pulls":
                sha = parts[1]
                return self.send_json(200, [{
                    "number": 12, "title": "Bump codeq to 1.4.2", "state": "closed",
                    "html_url": f"{WEB}/{OWNER}/{REPO}/pull/12",
                    "merged_at": "2026-11-30T11:55:00Z", "merge_commit_sha": sha,
                    "labels": [{"name": s.label}], "base": {"ref": "master"},
                }])
            if parts == ["releases"] and method == "GET":
                return self.send_json(200, page(list(reversed(s.releases)), query))
            if parts == ["releases"] and method == "POST":
                tag = body["tag_name"]
                if any(r["tag_name"] == tag for r in s.releases):
                    return self.send_json(422, {"message": "Validation Failed", "errors": [
                        {"resource": "Release", "code": "already_exists", "field": "tag_name"}]})
                release = {
                    "id": s.new_id(), "tag_name": tag, "body": body["body"], "draft": False,
                    "prerelease": False, "target_commitish": body["target_commitish"],
                    "html_url": f"{WEB}/{OWNER}/{REPO}/releases/tag/{tag}",
                    "published_at": "2026-11-30T12:00:00Z",
                }
                s.releases.append(release)
                return self.send_json(201, release)
            if parts == ["issues"] and method == "GET":
                labels = [l for l in query.get("labels", [""])[0].split(",") if l]
                state = query.get("state", ["open"])[0]
                found = [i for i in reversed(s.issues)
                         if (state == "all" or i["state"] == state)
                         and all(l in i["labels_names"] for l in labels)]
                return self.send_json(200, page(found, query))
            if parts == ["issues"] and method == "POST":
                n = s.new_id()
                issue = {
                    "id": n * 10, "number": n, "body": body["body"], "state": "open",
                    "comments": 0, "html_url": f"{WEB}/{OWNER}/{REPO}/issues/{n}",
                    "labels": [{"name": l} for l in body.get("labels", [])],
                    "labels_names": body.get("labels", []),
                }
                s.issues.append(issue)
                return self.send_json(201, issue)
            if len(parts) == 3 and parts[0] == "issues" and parts[2] == "comments":
                n = int(parts[1])
                if method == "GET":
                    return self.send_json(200, page([c for (i, c) in s.comments if i == n], query))
                comment = {"id": s.new_id(), "body": body["body"], "html_url": ""}
                s.comments.append((n, comment))
                for i in s.issues:
                    if i["number"] == n:
                        i["comments"] += 1
                return self.send_json(201, comment)
            return self.send_json(404, {"message": "Not Found"})


def serve():
    """Starts the fake on a free loopback port in a daemon thread; returns its base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}"


if __name__ == "__main__":
    print(serve(), flush=True)
    threading.Event().wait()
