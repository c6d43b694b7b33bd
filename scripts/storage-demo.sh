#!/usr/bin/env bash
# Builds the data plane and runs the storage engine demo (dev.spool.broker.log.StorageDemo):
# append, read back, torn tail after a crash, recovery, clean restart. Pass --keep to keep the files.
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -B -q -pl data-plane -am compile dependency:build-classpath \
  -Dmdep.outputFile=target/classpath.txt -Dmdep.includeScope=runtime
LOGCFG=$(mktemp --suffix=.xml)
trap 'rm -f "$LOGCFG"' EXIT
cat > "$LOGCFG" <<'XML'
<configuration>
  <appender name="OUT" class="ch.qos.logback.core.ConsoleAppender">
    <encoder><pattern>   log: %-5level %msg%n</pattern></encoder>
  </appender>
  <root level="INFO"><appender-ref ref="OUT"/></root>
</configuration>
XML
exec java -Dlogback.configurationFile="$LOGCFG" \
  -cp "data-plane/target/classes:$(cat data-plane/target/classpath.txt)" dev.spool.broker.log.StorageDemo "$@"
