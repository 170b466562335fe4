#!/usr/bin/env bash
# Builds the AppCDS archive for the pgrepl launcher at package time: the classes two training runs
# load (decoding a pgoutput capture to JSON; a stream whose connection is refused, which loads the
# transport, pipeline and client), dumped into one static archive for exactly this jar path.
# Usage: build-archive.sh JAR ARCHIVE TRAINING_TSV. Never fails the build: start-up is only slower
# without the archive, and the launcher uses it only if it exists.
set -uo pipefail
jar="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
archive="$2"
training="$3"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
rm -f "$archive"
java -XX:DumpLoadedClassList="$work/decode.lst" -jar "$jar" decode "$training" >/dev/null 2>"$work/decode.err" \
  || { echo "build-archive: decode training run failed; no archive" >&2; cat "$work/decode.err" >&2; exit 0; }
# Port 1 on loopback refuses at once: the run exits 1 after loading the connect path.
java -XX:DumpLoadedClassList="$work/stream.lst" -jar "$jar" stream postgresql://nobody@127.0.0.1:1/postgres \
  --slot training --publication training >/dev/null 2>&1
cat "$work/stream.lst" "$work/decode.lst" >"$work/classes.lst"
# Silent on success: the README's quiet build-and-demo command prints only the demo.
if ! java -Xshare:dump -XX:SharedClassListFile="$work/classes.lst" -XX:SharedArchiveFile="$archive" \
     -XX:+UseSerialGC -cp "$jar" >"$work/dump.log" 2>&1; then
  echo "build-archive: dump failed; no archive" >&2
  tail -5 "$work/dump.log" >&2
  rm -f "$archive"
fi
exit 0
