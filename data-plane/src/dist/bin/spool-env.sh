# Sourced by bin/spool and bin/spool-node: finds a Java 17+ runtime and refuses anything older
# with a message that says what to install.
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"
if ! command -v "$JAVA" > /dev/null 2>&1; then
  echo "spool: no Java runtime found; install Java 17 or later, or set JAVA_HOME" >&2
  exit 2
fi
# The JDK's own `release` file names its version without starting a JVM (each command would
# otherwise start two); a runtime without one is asked.
java_release="$(dirname "$(dirname "$(readlink -f "$(command -v "$JAVA")")")")/release"
java_major=""
if [ -r "$java_release" ]; then
  java_major="$(sed -n 's/^JAVA_VERSION="\([0-9.]*\).*/\1/p' "$java_release" | head -n 1)"
fi
if [ -z "$java_major" ]; then
  java_major="$("$JAVA" -XshowSettings:properties -version 2>&1 \
    | sed -n 's/^ *java\.specification\.version = \([0-9.]*\).*/\1/p' | head -n 1)"
fi
java_major="${java_major#1.}"
java_major="${java_major%%.*}"
if [ -z "$java_major" ] || [ "$java_major" -lt 17 ]; then
  echo "spool: $JAVA is Java ${java_major:-of an unknown version}; Spool needs Java 17 or later" >&2
  exit 2
fi
