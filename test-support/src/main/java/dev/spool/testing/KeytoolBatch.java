package dev.spool.testing;

import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Runs several {@code keytool} commands in one JVM: {@link TestCertificates} makes its key material
 * with eleven of them, and a JVM start for each took about a second apiece before a TLS test class
 * could start its cluster. Reads the commands from standard input, one per line, arguments
 * separated by tabs, and runs them in order with the JDK's own keytool class, printing each before
 * it runs; keytool prints why and exits with 1 at the first that fails.
 *
 * <p>Started by {@link TestCertificates} as {@code java
 * --add-exports=java.base/sun.security.tools.keytool=ALL-UNNAMED}: the keytool class is the JDK's
 * internal one (there is no keytool {@link java.util.spi.ToolProvider} in Java 17), so it is opened
 * to this JVM only, never to the test's.
 */
public final class KeytoolBatch {
  /** The package {@code java} must export to this class for it to run. */
  static final String KEYTOOL_PACKAGE = "sun.security.tools.keytool";

  private KeytoolBatch() {}

  public static void main(String[] args) throws Exception {
    Method keytool = Class.forName(KEYTOOL_PACKAGE + ".Main").getMethod("main", String[].class);
    // All of them before the first runs: a keytool that prompted would read the rest otherwise.
    List<String> lines =
        new String(System.in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
    for (String line : lines) {
      if (line.isBlank()) {
        continue;
      }
      String[] command = line.split("\t");
      System.out.println("$ keytool " + String.join(" ", command));
      keytool.invoke(null, (Object) command);
    }
  }
}
