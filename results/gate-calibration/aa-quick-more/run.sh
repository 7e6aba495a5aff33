#!/bin/bash
# Five more A/A runs of the quick throughput gate, as the shipped CI
# example runs it (default 5% floors, 8 rounds, drain + explain at their
# quick sizes), base and candidate the same binary (a build of main at
# d03dc44: go build -o /tmp/pgseq-aa ./cmd/pgseq). Some ran while the
# machine was also busy (a .ci/run of another clone, or go test): the load
# is recorded per run in summary.txt. usage: run.sh OUT FROM TO
out=$1; from=$2; to=$3
mkdir -p "$out"
for i in $(seq "$from" "$to"); do
  start=$(date +%s)
  load0=$(cut -d' ' -f1 /proc/loadavg)
  (cd /tmp && /tmp/pgseq-aa --local-dir /tmp/pgseq-benchdb bench ab --base /tmp/pgseq-aa --quick \
      --out "$out/aa-$i" /work/main/scenarios/drain.hcl /work/main/scenarios/explain.hcl > "$out/aa-$i.log" 2>&1)
  code=$?
  rm -rf "$out/aa-$i/rounds"
  echo "aa run $i: exit $code, $(( $(date +%s) - start )) s, load $load0-$(cut -d' ' -f1 /proc/loadavg)" >> "$out/summary.txt"
done
