#!/usr/bin/env bash
# Builds the container image base that "mvn -Pimage" puts Parley on, without a registry or a
# Docker daemon: a Java runtime cut from this machine's JDK with jlink, the shared libraries it
# loads (from this machine's Debian), a non-root user, in the "docker save" tar format that
# Jib reads as tar://. Output: kubernetes/target/base-image/jre-base.tar (OUT= to change it).
# With a registry at hand, skip this and use -Djib.from.image=eclipse-temurin:17-jre instead.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-kubernetes/target/base-image/jre-base.tar}
JDK=${JDK:-$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root="$work/rootfs"
mkdir -p "$root/opt" "$root/etc" "$root/tmp" "$root/data"
chmod 1777 "$root/tmp"

"$JDK/bin/jlink" --output "$root/opt/java" --strip-debug --no-man-pages --no-header-files --compress=2 \
  --add-modules java.se,jdk.crypto.ec,jdk.jfr,jdk.management,jdk.management.jfr,jdk.net,jdk.unsupported,jdk.zipfs,jdk.charsets,jdk.localedata

# Every shared library the runtime links to, at the same path, and the dynamic loader.
{ ldd "$root/opt/java/bin/java"; find "$root/opt/java/lib" -name '*.so' -exec ldd {} \; ; } 2>/dev/null \
  | grep -o '/[^ ]*' | grep -v "^$root" | sort -u | while read -r lib; do
    [ -e "$lib" ] || continue
    mkdir -p "$root$(dirname "$lib")"
    cp -L "$lib" "$root$lib"
  done
# Merged /usr (Debian 12): /lib, /lib64 are links into /usr.
for link in lib lib64; do
  if [ -L "/$link" ] && [ -d "$root/$link" ]; then
    mkdir -p "$root/usr/$link"; cp -a "$root/$link/." "$root/usr/$link/"; rm -rf "${root:?}/$link"; ln -s "usr/$link" "$root/$link"
  fi
done
printf 'root:x:0:0:root:/root:/sbin/nologin\nparley:x:65532:65532:parley:/data:/sbin/nologin\n' > "$root/etc/passwd"
printf 'root:x:0:\nparley:x:65532:\n' > "$root/etc/group"
printf 'passwd: files\ngroup: files\nhosts: files dns\n' > "$root/etc/nsswitch.conf"
chown 65532:65532 "$root/data"

tar --numeric-owner --sort=name --mtime=@0 -C "$root" -cf "$work/layer.tar" .
mkdir -p "$(dirname "$OUT")"
python3 - "$work" "$OUT" <<'PY'
import hashlib, json, os, sys, tarfile
work, out = sys.argv[1], sys.argv[2]
layer = os.path.join(work, "layer.tar")
digest = hashlib.sha256(open(layer, "rb").read()).hexdigest()
config = {
    "architecture": "amd64", "os": "linux",
    "config": {"Env": ["PATH=/opt/java/bin:/usr/bin:/bin", "JAVA_HOME=/opt/java"], "User": "65532", "WorkingDir": "/data"},
    "rootfs": {"type": "layers", "diff_ids": ["sha256:" + digest]},
}
config_bytes = json.dumps(config).encode()
config_name = hashlib.sha256(config_bytes).hexdigest() + ".json"
manifest = [{"Config": config_name, "RepoTags": ["parley-jre-base:17"], "Layers": [digest + "/layer.tar"]}]
with open(os.path.join(work, config_name), "wb") as f:
    f.write(config_bytes)
with open(os.path.join(work, "manifest.json"), "w") as f:
    json.dump(manifest, f)
with tarfile.open(out, "w") as t:
    t.add(os.path.join(work, "manifest.json"), "manifest.json")
    t.add(os.path.join(work, config_name), config_name)
    t.add(layer, digest + "/layer.tar")
PY
echo "base image: $OUT ($(du -h "$OUT" | cut -f1))"
