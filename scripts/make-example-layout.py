#!/usr/bin/env python3
"""Writes a tiny multi-arch OCI image layout (index -> two platform manifests -> config and
layer blobs), byte-for-byte reproducible, for README's dry run and for the tests.

Usage: make-example-layout.py DIR [TAG] [VARIANT]
VARIANT changes the file inside the layers, so a different VARIANT gives a different digest.
"""
import gzip, hashlib, io, json, os, sys, tarfile

def blob(root, data):
    digest = hashlib.sha256(data).hexdigest()
    path = os.path.join(root, "blobs", "sha256", digest)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    return {"digest": "sha256:" + digest, "size": len(data)}

def layer(text):
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        data = text.encode()
        info = tarfile.TarInfo("opt/codeq/VERSION")
        info.size, info.mtime, info.mode = len(data), 0, 0o644
        tar.addfile(info, io.BytesIO(data))
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", mtime=0) as gz:
        gz.write(raw.getvalue())
    return raw.getvalue(), out.getvalue()

def dumps(obj):
    return json.dumps(obj, separators=(",", ":"), sort_keys=True).encode()

def main():
    root = sys.argv[1]
    tag = sys.argv[2] if len(sys.argv) > 2 else "latest"
    variant = sys.argv[3] if len(sys.argv) > 3 else "1"
    os.makedirs(root, exist_ok=True)
    manifests = []
    for arch in ("amd64", "arm64"):
        tar_bytes, gz_bytes = layer(f"codeq {variant} {arch}\n")
        layer_desc = blob(root, gz_bytes)
        layer_desc["mediaType"] = "application/vnd.oci.image.layer.v1.tar+gzip"
        config = {
            "architecture": arch, "os": "linux",
            "config": {"Env": ["PATH=/usr/local/bin:/usr/bin:/bin"]},
            "rootfs": {"type": "layers", "diff_ids": ["sha256:" + hashlib.sha256(tar_bytes).hexdigest()]},
        }
        config_desc = blob(root, dumps(config))
        config_desc["mediaType"] = "application/vnd.oci.image.config.v1+json"
        manifest = {"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
                    "config": config_desc, "layers": [layer_desc]}
        desc = blob(root, dumps(manifest))
        desc["mediaType"] = "application/vnd.oci.image.manifest.v1+json"
        desc["platform"] = {"architecture": arch, "os": "linux"}
        manifests.append(desc)
    index = {"schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json", "manifests": manifests}
    index_desc = blob(root, dumps(index))
    index_desc["mediaType"] = "application/vnd.oci.image.index.v1+json"
    index_desc["annotations"] = {"org.opencontainers.image.ref.name": tag}
    with open(os.path.join(root, "oci-layout"), "w") as f:
        f.write('{"imageLayoutVersion":"1.0.0"}')
    with open(os.path.join(root, "index.json"), "w") as f:
        f.write(dumps({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json",
                       "manifests": [index_desc]}).decode())
    print(index_desc["digest"])

if __name__ == "__main__":
    main()
