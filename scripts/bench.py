#!/usr/bin/env python3
"""Issue 9's benchmark: what one announce run costs, on loopback, next to `skopeo inspect`.

Starts a real registry (Debian's docker-registry) holding a pushed multi-arch image and the
fake GitHub of bench_github.py, then runs, interleaved so that machine noise hits all alike:
  announce-routine   a first routine announce of a push (digest, PR look-up, release)
  announce-security  a first security announce (also the tracking issue)
  skopeo-inspect     `skopeo inspect --raw` of the same image (the digest alone)
and `codeq-rollout --version` (start-up). Each run is timed from spawn to exit (wall), with
the child's peak RSS from wait4's rusage. Reports median, min, max and interquartile range,
the ratio of medians announce / skopeo, the binary's size, and the machine.

Usage: bench.py BINARY [--runs N] [--callgrind]  (scripts/bench.sh builds and calls it)
"""
import argparse
import hashlib
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_github  # noqa: E402
from benchlib import free_port  # noqa: E402

SHA = "c4295bd74fb0f4fda03689c3df3f2803b658fd85"
TOKEN = "ghs_BenchmarkTokenNeverPrinted0123456789"


def start_registry(workdir):
    port = free_port()
    addr = f"127.0.0.1:{port}"
    config = os.path.join(workdir, "registry.yml")
    with open(config, "w") as f:
        f.write(
            "version: 0.1\nlog:\n  level: error\n  accesslog:\n    disabled: true\n"
            f"storage:\n  filesystem:\n    rootdirectory: {workdir}/data\n"
            f"http:\n  addr: {addr}\n"
        )
    proc = subprocess.Popen(["docker-registry", "serve", config],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 20
    while True:
        try:
            urllib.request.urlopen(f"http://{addr}/v2/", timeout=1)
            return proc, addr
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                proc.kill()
                sys.exit("docker-registry did not start")


def push_image(workdir, addr):
    layout = os.path.join(workdir, "lab")
    digest = subprocess.run(
        [sys.executable, os.path.join(HERE, "make-example-layout.py"), layout, "latest", "bench"],
        check=True, capture_output=True, text=True).stdout.strip()
    subprocess.run(["skopeo", "copy", "--quiet", "--all", "--preserve-digests",
                    "--dest-tls-verify=false", f"oci:{layout}:latest",
                    f"docker://{addr}/org/lab:latest"], check=True)
    return digest


def run(argv, env):
    """Runs argv to completion; returns (wall seconds, exit status)."""
    start = time.perf_counter()
    pid = os.posix_spawnp(argv[0], argv, env, file_actions=[
        (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
        (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
    ])
    _, status = os.waitpid(pid, 0)
    return time.perf_counter() - start, os.waitstatus_to_exitcode(status)


def peak_rss(argv, env, scratch):
    """argv's peak resident memory in KiB, as GNU time reports it. (Not from this process's
    wait4: a child spawned from Python starts as a copy of the interpreter, whose resident
    size then counts in the child's high-water mark.)"""
    out = os.path.join(scratch, "rss")
    subprocess.run(["/usr/bin/time", "-f", "%M", "-o", out, *argv], env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(out) as f:
        return int(f.read().split()[-1])


def hyphenated_inputs_as_options(env):
    """valgrind drops environment variables whose names have a hyphen (INPUT_GITHUB-TOKEN):
    the same inputs as command-line options."""
    options = []
    for name, value in env.items():
        if name.startswith("INPUT_") and "-" in name:
            options += ["--" + name[len("INPUT_"):].lower(), value]
    return options


def summary(values):
    q = statistics.quantiles(values, n=4) if len(values) > 1 else [values[0]] * 3
    return {"median": statistics.median(values), "min": min(values), "max": max(values),
            "iqr": q[2] - q[0]}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--callgrind", action="store_true",
                        help="also count the instructions of one routine run (valgrind)")
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)

    work = tempfile.mkdtemp(prefix="codeq-bench-")
    registry, addr = start_registry(work)
    try:
        digest = push_image(work, addr)
        api = bench_github.serve()
        event = os.path.join(work, "push.json")
        with open(event, "w") as f:
            json.dump({"ref": "refs/heads/master", "after": SHA, "deleted": False,
                       "head_commit": {"id": SHA, "message": "Bump codeq to 1.4.2 (#12)"},
                       "commits": [{"id": SHA, "message": "Bump codeq to 1.4.2 (#12)"}]}, f)
        # As the Actions runner starts a Docker action: no inherited environment.
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "GITHUB_ACTIONS": "true", "GITHUB_REPOSITORY": "octo-org/lab-image",
            "GITHUB_SHA": SHA, "GITHUB_EVENT_NAME": "push", "GITHUB_EVENT_PATH": event,
            "GITHUB_API_URL": api, "GITHUB_SERVER_URL": "https://github.example",
            "GITHUB_RUN_ID": "4242", "GITHUB_RUN_ATTEMPT": "1",
            "GITHUB_OUTPUT": os.path.join(work, "output"),
            "GITHUB_STEP_SUMMARY": os.path.join(work, "summary"),
            "INPUT_IMAGE": f"{addr}/org/lab:latest", "INPUT_INSECURE-REGISTRY": addr,
            "INPUT_GITHUB-TOKEN": TOKEN,
            # The security release's runbook stops servers through the hub's address.
            "INPUT_HUB-URL": "https://hub.example.org",
        }
        commands = {
            "announce-routine": ([binary, "announce"], "routine"),
            "announce-security": ([binary, "announce"], "security"),
            "skopeo-inspect": (["skopeo", "inspect", "--raw", "--tls-verify=false",
                                f"docker://{addr}/org/lab:latest"], None),
            "version": ([binary, "--version"], None),
        }

        def reset(label):
            urllib.request.urlopen(urllib.request.Request(
                f"{api}/_reset?label={label}", method="POST")).read()

        def github_requests():
            return json.load(urllib.request.urlopen(f"{api}/_count"))["requests"]

        def each_fresh():
            """Each command with its name and label, the fake GitHub reset to the label's
            first-run state just before the command's turn (labelled commands only)."""
            for name, (argv, label) in commands.items():
                if label:
                    reset(label)
                yield name, argv, label

        # A check run of each, then the measured rounds, interleaved.
        requests = {}
        for name, argv, label in each_fresh():
            _, code = run(argv, env)
            if code != 0:
                sys.exit(f"{name} failed (exit {code}): run it by hand to see why")
            if label:
                requests[name] = github_requests()
                with open(env["GITHUB_OUTPUT"]) as f:
                    if digest not in f.read():
                        sys.exit(f"{name} did not report {digest}")
        results = {name: {"wall": [], "rss": []} for name in commands}
        for _ in range(args.runs):
            for name, argv, _ in each_fresh():
                wall, code = run(argv, env)
                if code != 0:
                    sys.exit(f"{name} failed (exit {code})")
                results[name]["wall"].append(wall * 1000)
        for _ in range(5):
            for name, argv, _ in each_fresh():
                results[name]["rss"].append(peak_rss(argv, env, work) / 1024)

        instructions = None
        if args.callgrind and shutil.which("valgrind"):
            reset("routine")
            out = os.path.join(work, "callgrind.out")
            counted = subprocess.run(["valgrind", "--tool=callgrind",
                                      f"--callgrind-out-file={out}", binary, "announce",
                                      *hyphenated_inputs_as_options(env)],
                                     env=env, capture_output=True, text=True)
            if counted.returncode != 0:
                sys.exit(f"the callgrind run failed:\n{counted.stdout}\n{counted.stderr}")
            with open(out) as f:
                for line in f:
                    if line.startswith("summary:") or line.startswith("totals:"):
                        instructions = int(line.split()[1])
    finally:
        registry.kill()
        registry.wait()
        shutil.rmtree(work, ignore_errors=True)

    size = os.path.getsize(binary)
    stripped = os.path.join(tempfile.gettempdir(), "codeq-rollout.stripped")
    shutil.copy(binary, stripped)
    subprocess.run(["strip", stripped], check=False)
    stripped_size = os.path.getsize(stripped)
    os.remove(stripped)

    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
                if l.startswith("model name")), platform.processor())
    print(f"machine: {cpu}, {os.cpu_count()} CPUs, Linux {platform.release()}, "
          f"load average {os.getloadavg()[0]:.2f} at the end")
    print(f"binary: {binary} ({size / 2**20:.2f} MiB; stripped {stripped_size / 2**20:.2f} MiB), "
          f"sha256 {hashlib.sha256(open(binary, 'rb').read()).hexdigest()[:12]}")
    print(f"runs: {args.runs} of each, interleaved; times are spawn to exit\n")
    print(f"{'command':<18} {'median ms':>10} {'min':>8} {'max':>8} {'IQR':>7} "
          f"{'peak RSS MiB':>13} {'GitHub req':>10}")
    for name, r in results.items():
        w, m = summary(r["wall"]), summary(r["rss"])
        print(f"{name:<18} {w['median']:>10.2f} {w['min']:>8.2f} {w['max']:>8.2f} "
              f"{w['iqr']:>7.2f} {m['max']:>13.1f} {requests.get(name, ''):>10}")
    skopeo = statistics.median(results["skopeo-inspect"]["wall"])
    print()
    for name in ("announce-routine", "announce-security"):
        ratio = statistics.median(results[name]["wall"]) / skopeo
        print(f"ratio {name} / skopeo-inspect (medians): {ratio:.2f}")
    if instructions:
        print(f"instructions of one routine announce (callgrind): {instructions / 1e6:.1f} million")
    targets = [
        ("whole job faster than skopeo inspect (ratio < 1.0)",
         max(statistics.median(results[n]["wall"]) for n in
             ("announce-routine", "announce-security")) < skopeo),
        ("--version start-up < 5 ms", statistics.median(results["version"]["wall"]) < 5),
        ("peak RSS < 20 MiB", max(max(results[n]["rss"]) for n in
                                  ("announce-routine", "announce-security")) < 20),
        ("stripped binary < 8 MiB", stripped_size < 8 * 2**20),
    ]
    print()
    for text, met in targets:
        print(f"{'met' if met else 'NOT MET'}: {text}")


if __name__ == "__main__":
    main()
