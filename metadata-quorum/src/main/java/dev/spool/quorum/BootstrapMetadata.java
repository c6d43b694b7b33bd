package dev.spool.quorum;

import dev.spool.quorum.image.MetadataVersion;
import dev.spool.quorum.message.ScramCredentialRecord;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;

/**
 * The metadata.version a fresh cluster bootstraps at, as {@code spool storage format
 * --release-version N} records it in a controller's quorum directory (Kafka writes a {@code
 * bootstrap.checkpoint} there): {@value #FILE_NAME} with one key, {@code metadata.version}. The
 * first active controller of a cluster finalizes that level instead of the highest it supports
 * (docs/operations.md#upgrades). Without the file the bootstrap is the highest level. {@code
 * --add-scram} adds the SCRAM users the cluster starts with ({@link BootstrapCredentials}).
 * Stateless.
 */
public final class BootstrapMetadata {
  public static final String FILE_NAME = "bootstrap.properties";

  private BootstrapMetadata() {}

  /** Null when this build can bootstrap a cluster at {@code level}, else why not. */
  public static String check(int level) {
    if (MetadataVersion.SUPPORTED.contains(level)) {
      return null;
    }
    return "metadata.version "
        + level
        + " is not supported by this build, which supports "
        + MetadataVersion.SUPPORTED
        + " (the newest: "
        + MetadataVersion.LATEST
        + ")";
  }

  /** The file's text for {@code level}. */
  public static String render(int level) {
    return "# Written by spool storage format --release-version; the level a fresh cluster"
        + " bootstraps at\n"
        + (MetadataVersion.FEATURE + "=" + level + "\n");
  }

  /**
   * The file's text for {@code level} ({@link MetadataVersion#UNSET}: none) and the SCRAM
   * credentials of {@code --add-scram} ({@link BootstrapCredentials}: salt, iterations and keys,
   * never a password).
   */
  public static String render(int level, List<ScramCredentialRecord> credentials) {
    if (credentials.isEmpty()) {
      return render(level);
    }
    Properties p = new Properties();
    if (level != MetadataVersion.UNSET) {
      p.setProperty(MetadataVersion.FEATURE, String.valueOf(level));
    }
    BootstrapCredentials.put(p, credentials);
    StringWriter w = new StringWriter();
    try {
      p.store(
          w,
          "Written by spool storage format: the level and the SCRAM users a fresh cluster"
              + " bootstraps with");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return w.toString();
  }

  /**
   * The SCRAM credentials recorded in the quorum directory {@code dir} (empty without the file).
   *
   * @throws IllegalStateException naming the file: unreadable or a credential that is malformed
   */
  public static List<ScramCredentialRecord> readCredentials(Path dir) {
    Properties p = load(dir);
    if (p == null) {
      return List.of();
    }
    try {
      return BootstrapCredentials.get(p);
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException(
          dir.resolve(FILE_NAME) + " is malformed: " + e.getMessage(), e);
    }
  }

  /** The file's properties, or null when there is none. */
  private static Properties load(Path dir) {
    Path file = dir.resolve(FILE_NAME);
    Properties p = new Properties();
    try (Reader r = new StringReader(Files.readString(file, StandardCharsets.ISO_8859_1))) {
      p.load(r);
    } catch (NoSuchFileException e) {
      return null;
    } catch (IOException | IllegalArgumentException e) {
      throw new IllegalStateException(file + " cannot be read: " + e.getMessage(), e);
    }
    return p;
  }

  /**
   * The level recorded in the quorum directory {@code dir}, or {@link MetadataVersion#UNSET} when
   * it has no {@value #FILE_NAME}.
   *
   * @throws IllegalStateException naming the file: unreadable, malformed, or a level this build
   *     does not support (formatted by a newer release)
   */
  public static int read(Path dir) {
    Path file = dir.resolve(FILE_NAME);
    Properties p = load(dir);
    if (p == null
        || (p.getProperty(MetadataVersion.FEATURE) == null
            && p.getProperty("scram.0.user") != null)) {
      return MetadataVersion.UNSET; // no file, or --add-scram without --release-version
    }
    String v = p.getProperty(MetadataVersion.FEATURE, "").trim();
    int level;
    try {
      level = Integer.parseInt(v);
    } catch (NumberFormatException e) {
      throw new IllegalStateException(
          file + " is malformed: " + MetadataVersion.FEATURE + "=" + v + " is not a level", e);
    }
    String why = check(level);
    if (why != null) {
      throw new IllegalStateException(
          file
              + " asks for "
              + why
              + ": start the release it was formatted with, or format an empty directory again");
    }
    return level;
  }
}
