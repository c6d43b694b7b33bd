# Sourced by bin/spool and bin/spool-node: finds a Java 17+ runtime and refuses anything older
# with a message that says what to install.
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"
if ! command -v "$JAVA" > /dev/null 2>&1; then
  echo "spool: no Java runtime found; install Java 17 or later, or set JAVA_HOME" >&2
  exit 2
fi
java_major="$("$JAVA" -XshowSettings:properties -version 2>&1 \
  | sed -n 's/^ *java\.specification\.version = \([0-9.]*\).*/\1/p' | head -n 1)"
java_major="${java_major#1.}"
java_major="${java_major%%.*}"
if [ -z "$java_major" ] || [ "$java_major" -lt 17 ]; then
  echo "spool: $JAVA is Java ${java_major:-of an unknown version}; Spool needs Java 17 or later" >&2
  exit 2
fi
