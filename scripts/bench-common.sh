# Shared by the bench scripts (sourced). Builds test classpaths and keeps results out of the repo.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RESULTS="${SPOOL_BENCH_RESULTS:-/tmp/spool-bench}"
mkdir -p "$RESULTS"

# The Kafka peer harness (scripts/bench.sh runs Apache Kafka beside Spool with it) is not part of
# this repository. find_kafka_harness prints its directory: $KAFKA_HARNESS if set, else the
# default below; when it is missing it says on stderr where it looked and how to get one, and fails.
KAFKA_HARNESS_DEFAULT="$(dirname "$ROOT")/shared/peers/kafka"
find_kafka_harness() {
  local dir="${KAFKA_HARNESS:-$KAFKA_HARNESS_DEFAULT}"
  if [ -x "$dir/start-single.sh" ] && [ -x "$dir/start-cluster.sh" ] && [ -x "$dir/bench.sh" ]; then
    (cd "$dir" && pwd)
    return 0
  fi
  cat >&2 <<EOF
bench: no Kafka peer harness in $dir
  The harness runs Apache Kafka (KRaft) and its own perf tools on this machine, so Spool is measured
  beside Kafka on the same hardware: start-single.sh, start-cluster.sh, bench.sh, stop.sh (they fetch
  Kafka's jars from Maven Central into /tmp/kafka-anchor on first use). It is not in this repository.
  Point KAFKA_HARNESS at a copy:   KAFKA_HARNESS=/path/to/peers/kafka scripts/bench.sh single
  or measure Spool alone:          SKIP_KAFKA=1 scripts/bench.sh single
EOF
  return 1
}

# test_classpath MODULE: compiles MODULE's tests (and what it needs) and prints its test classpath.
test_classpath() {
  local module="$1" cpfile="$RESULTS/cp-$1.txt"
  # One reactor run: sibling modules resolve to their target/classes (nothing is installed to
  # ~/.m2); each module writes the file in turn and $module, built last, writes it last.
  (cd "$ROOT" && ./mvnw -B -q -pl "$module" -am -DskipTests test-compile dependency:build-classpath \
     -Dmdep.outputFile="$cpfile" -Dmdep.includeScope=test) >&2 \
    || { echo "build of $module failed" >&2; exit 3; }
  echo "$ROOT/$module/target/test-classes:$ROOT/$module/target/classes:$(cat "$cpfile")"
}

ensure_package() {
  if ! ls "$ROOT"/data-plane/target/spool-data-plane-*.jar >/dev/null 2>&1 || [ ! -d "$ROOT/data-plane/target/lib" ]; then
    (cd "$ROOT" && ./mvnw -B -q -DskipTests package) >&2 || { echo "build failed" >&2; exit 3; }
  fi
}

# command_line VAR... -- ARGV...: the command as it was typed, with those of the VARs that were set
# in the environment in front of it, quoted so it can be pasted into a shell. Call it before the
# script gives the VARs their defaults.
command_line() {
  local v out=""
  while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do
    if [ -n "${!1+x}" ]; then out+="$(printf '%s=%q ' "$1" "${!1}")"; fi
    shift
  done
  shift
  out+="$(printf '%q' "$1")"; shift
  for v in "$@"; do out+=" $(printf '%q' "$v")"; done
  echo "$out"
}

# $RESULTS is scratch space (class path files, cluster data: large, not kept). What a run keeps goes
# to its run directory, bench-results/<kind>-<timestamp>/ (git-ignored).

# new_run_dir KIND COMMAND: creates bench-results/KIND-<timestamp>/ and writes into it what a reader
# needs to trust or repeat the run: the command (command.txt), the commit (git.txt) and the machine
# (machine.txt). Prints the directory.
new_run_dir() {
  local dir
  dir="$ROOT/bench-results/$1-$(date +%Y%m%d-%H%M%S)"
  mkdir -p "$dir"
  echo "cd $(printf '%q' "$ROOT") && $2" > "$dir/command.txt"
  { echo "commit $(git -C "$ROOT" rev-parse HEAD 2>/dev/null || echo unknown)"
    echo "branch $(git -C "$ROOT" rev-parse --abbrev-ref HEAD 2>/dev/null || echo unknown)"
    local dirty; dirty="$(git -C "$ROOT" status --porcelain --untracked-files=no 2>/dev/null)"
    if [ -n "$dirty" ]; then echo "uncommitted changes:"; echo "$dirty"; else echo "no uncommitted changes"; fi
  } > "$dir/git.txt"
  { echo "date: $(date -Is)"
    echo "cores (nproc): $(nproc)"
    echo "cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
    echo "memory: $(free -m | awk '/^Mem:/ {print $2 " MiB total, " $7 " MiB available"}')"
    echo "kernel: $(uname -srm)"
    echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "java -version:"; java -version 2>&1 | sed 's/^/  /'
  } > "$dir/machine.txt"
  echo "$dir"
}

# quiet_logback FILE: a logback config logging WARN and above to stderr, for the JVMs a benchmark
# starts (a DEBUG line per partition would drown the output and cost time). Prints FILE.
quiet_logback() {
  cat > "$1" <<'XML'
<configuration>
  <appender name="ERR" class="ch.qos.logback.core.ConsoleAppender">
    <target>System.err</target>
    <encoder><pattern>%d{HH:mm:ss.SSS} %-5level %logger{0} - %msg%n</pattern></encoder>
  </appender>
  <root level="WARN"><appender-ref ref="ERR"/></root>
</configuration>
XML
  echo "$1"
}

# run_facts DIR: the command, commit and machine of a run as a few lines, for a summary's head.
run_facts() {
  echo "command: $(cat "$1/command.txt")"
  echo "commit:  $(head -1 "$1/git.txt" | cut -d' ' -f2)$(grep -q '^uncommitted' "$1/git.txt" && echo ' (with uncommitted changes, see git.txt)')"
  echo "machine: $(sed -n 's/^cores (nproc): //p' "$1/machine.txt") cores, $(sed -n 's/^memory: \([0-9]*\) MiB total.*/\1 MiB/p' "$1/machine.txt"), $(sed -n '/^java -version:/{n;s/^ *//;p}' "$1/machine.txt"), load at start $(sed -n 's/^load average at start: //p' "$1/machine.txt")"
  echo "raw results: $1"
}

# step_failed STEP WHY: a tool failed or gave no result; the figures of this run cannot be trusted,
# so the run stops (exit 4) and says which step. Also noted in the run directory, if there is one.
step_failed() {
  echo "bench: step '$1' failed: $2" >&2
  if [ -n "${OUT:-}" ] && [ -d "$OUT" ]; then echo "step '$1' failed: $2" >> "$OUT/FAILED"; fi
  exit 4
}

# percentiles: reads one number per line on stdin, or "failed" for a trial that produced no figure
# (counted as slower than any figure). Prints "n failed p50 p99 max"; a percentile that lands on a
# failed trial prints as "failed". Nearest rank: p99 of 20 trials is the slowest of them.
percentiles() {
  awk '$1 == "failed" {f++; next} NF {a[++n] = $1 + 0}
    END {
      if (n + f == 0) { print "0 0 - - -"; exit }
      # sort the figures (few trials: insertion sort)
      for (i = 2; i <= n; i++) { v = a[i]; for (j = i - 1; j >= 1 && a[j] > v; j--) a[j + 1] = a[j]; a[j + 1] = v }
      total = n + f
      r50 = int(total * 0.50); if (r50 < total * 0.50) r50++; if (r50 < 1) r50 = 1
      r99 = int(total * 0.99); if (r99 < total * 0.99) r99++; if (r99 < 1) r99 = 1
      printf "%d %d %s %s %s\n", total, f, (r50 <= n ? a[r50] : "failed"), (r99 <= n ? a[r99] : "failed"), (f ? "failed" : a[n])
    }'
}

# make_tls_keys DIR PASS: a throwaway CA and one node key (EC P-256, keytool) for TLS benchmarks, in
# DIR (scratch space, never kept): DIR/node.p12 (the key, its certificate for 127.0.0.1 and localhost
# signed by the CA, server and client use) and DIR/truststore.p12 (the CA), PKCS12, password PASS.
make_tls_keys() {
  local dir="$1" pass="$2"
  mkdir -p "$dir"
  kt() { keytool -storetype PKCS12 -storepass "$pass" "$@" >/dev/null 2>&1; }
  (
    cd "$dir"
    kt -genkeypair -alias ca -keyalg EC -groupname secp256r1 -dname CN=bench-ca -ext BC:c=ca:true -validity 2 -keystore ca.p12
    kt -exportcert -alias ca -rfc -file ca.pem -keystore ca.p12
    kt -importcert -noprompt -alias ca -file ca.pem -keystore truststore.p12
    kt -genkeypair -alias node -keyalg EC -groupname secp256r1 -dname CN=localhost -validity 2 -keystore node.p12
    kt -certreq -alias node -keystore node.p12 -file node.csr
    kt -gencert -alias ca -keystore ca.p12 -infile node.csr -outfile node.pem -rfc -validity 2 \
       -ext SAN=IP:127.0.0.1,DNS:localhost -ext EKU=serverAuth,clientAuth
    kt -importcert -noprompt -alias ca -file ca.pem -keystore node.p12
    kt -importcert -alias node -file node.pem -keystore node.p12
  ) || { echo "bench: keytool could not make the TLS keys in $dir" >&2; return 1; }
}

# tls_key_props DIR PASS: the ssl.keystore.* and ssl.truststore.* lines (key=value, one a line) for
# the keys make_tls_keys made in DIR.
tls_key_props() {
  printf 'ssl.keystore.location=%s/node.p12\nssl.keystore.password=%s\nssl.keystore.type=PKCS12\n' "$1" "$2"
  printf 'ssl.truststore.location=%s/truststore.p12\nssl.truststore.password=%s\nssl.truststore.type=PKCS12\n' "$1" "$2"
}
