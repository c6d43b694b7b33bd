package dev.spool.common;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The Spool software version, as the build stamped it: Maven filters {@code version.properties}
 * next to this class with the project version, so the client's ApiVersions request, the broker's
 * ApiVersions answer and {@code spool --version} all name the version that was built, and nobody
 * edits a constant on release.
 *
 * <p>Threads: immutable after class initialization; any thread.
 */
public final class SpoolVersion {
  /** What {@link #version()} says when the classes run without the build's resources. */
  static final String UNKNOWN = "unknown";

  private static final String VERSION = load();

  private SpoolVersion() {}

  /** The project version, e.g. {@code 0.1.0-SNAPSHOT}. */
  public static String version() {
    return VERSION;
  }

  /** The software's name and version as brokers and the command line print it. */
  public static String describe() {
    return "spool " + VERSION;
  }

  private static String load() {
    try (InputStream in = SpoolVersion.class.getResourceAsStream("version.properties")) {
      if (in == null) {
        return UNKNOWN;
      }
      Properties p = new Properties();
      p.load(in);
      String v = p.getProperty("version", "").trim();
      // Unfiltered (classes compiled outside Maven see the placeholder itself): no version known.
      return v.isEmpty() || v.startsWith("${") ? UNKNOWN : v;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the Spool version resource", e);
    }
  }
}
