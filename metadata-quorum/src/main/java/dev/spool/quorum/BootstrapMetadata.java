package dev.spool.quorum;

import dev.spool.quorum.image.MetadataVersion;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Properties;

/**
 * The metadata.version a fresh cluster bootstraps at, as {@code spool storage format
 * --release-version N} records it in a controller's quorum directory (Kafka writes a {@code
 * bootstrap.checkpoint} there): {@value #FILE_NAME} with one key, {@code metadata.version}. The
 * first active controller of a cluster finalizes that level instead of the highest it supports
 * (docs/operations.md#upgrades). Without the file the bootstrap is the highest level. Stateless.
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
   * The level recorded in the quorum directory {@code dir}, or {@link MetadataVersion#UNSET} when
   * it has no {@value #FILE_NAME}.
   *
   * @throws IllegalStateException naming the file: unreadable, malformed, or a level this build
   *     does not support (formatted by a newer release)
   */
  public static int read(Path dir) {
    Path file = dir.resolve(FILE_NAME);
    Properties p = new Properties();
    try (Reader r = new StringReader(Files.readString(file, StandardCharsets.ISO_8859_1))) {
      p.load(r);
    } catch (NoSuchFileException e) {
      return MetadataVersion.UNSET;
    } catch (IOException | IllegalArgumentException e) {
      throw new IllegalStateException(file + " cannot be read: " + e.getMessage(), e);
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
