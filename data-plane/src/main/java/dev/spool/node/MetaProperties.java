package dev.spool.node;

import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import java.util.Properties;

/**
 * The identity of one formatted data directory: the file {@code meta.properties} that {@code spool
 * storage format} writes into each of a node's directories
 * (docs/operations.md#storage-format-and-node-identity), Kafka's version 1 layout so Kafka's
 * readers and operators recognise it.
 *
 * <p>Layout, a Java properties file (ISO 8859-1, {@code key=value} lines, {@code #} comments):
 *
 * <ul>
 *   <li>{@code version}: {@code 1}, the only version; another value is refused;
 *   <li>{@code cluster.id}: the cluster the directory belongs to (1-64 of {@code [A-Za-z0-9._-]},
 *       as the {@code cluster.id} key; {@code spool storage random-uuid} makes one);
 *   <li>{@code node.id}: the node the directory belongs to (a positive integer);
 *   <li>{@code directory.id}: this directory's own id, a {@link Base64Uuid} drawn at format time;
 *       two directories of one node never share it.
 * </ul>
 *
 * Other keys are kept as read but not interpreted. Written atomically: a temporary file in the same
 * directory, forced to disk, renamed over {@code meta.properties}, then the directory forced.
 * Immutable.
 */
public record MetaProperties(int version, String clusterId, int nodeId, Base64Uuid directoryId) {
  public static final String FILE_NAME = "meta.properties";
  public static final int VERSION = 1;
  private static final String CLUSTER_ID_PATTERN = "[A-Za-z0-9._-]{1,64}";

  public MetaProperties {
    if (version != VERSION) {
      throw new IllegalArgumentException("version " + version + " (only " + VERSION + " is known)");
    }
    checkClusterId(clusterId);
    if (nodeId < 1) {
      throw new IllegalArgumentException("node.id " + nodeId + " is not a positive integer");
    }
    if (directoryId == null || directoryId.isReserved()) {
      throw new IllegalArgumentException("directory.id " + directoryId + " is missing or reserved");
    }
  }

  /** A new identity for a directory of {@code nodeId} in {@code clusterId}, with a fresh id. */
  public static MetaProperties fresh(String clusterId, int nodeId) {
    return new MetaProperties(VERSION, clusterId, nodeId, Base64Uuid.random());
  }

  /** Throws {@link IllegalArgumentException} unless {@code id} is a well-formed cluster id. */
  public static void checkClusterId(String id) {
    if (id == null || !id.matches(CLUSTER_ID_PATTERN)) {
      throw new IllegalArgumentException(
          "cluster id '"
              + id
              + "' is malformed: it must be 1-64 characters of [A-Za-z0-9._-]"
              + " (spool storage random-uuid makes one)");
    }
  }

  /**
   * The identity stored in {@code dir}, or empty when the directory has no {@code meta.properties}
   * (or does not exist). A file that cannot be read or parsed throws {@link StorageException}
   * naming it.
   */
  public static Optional<MetaProperties> read(Path dir) {
    Path file = dir.resolve(FILE_NAME);
    String text;
    try {
      text = Files.readString(file, StandardCharsets.ISO_8859_1);
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw new StorageException(file + " cannot be read: " + e.getMessage(), e);
    }
    try {
      return Optional.of(parse(text));
    } catch (IllegalArgumentException e) {
      throw new StorageException(file + " is malformed: " + e.getMessage(), e);
    }
  }

  /** Parses the file's text; throws {@link IllegalArgumentException} naming the bad key. */
  static MetaProperties parse(String text) {
    Properties p = new Properties();
    try (Reader r = new StringReader(text)) {
      p.load(r);
    } catch (IOException | IllegalArgumentException e) {
      throw new IllegalArgumentException("not a properties file: " + e.getMessage(), e);
    }
    int version = intKey(p, "version");
    if (version != VERSION) {
      throw new IllegalArgumentException(
          "version=" + version + " is not supported (only " + VERSION + ")");
    }
    String clusterId = required(p, "cluster.id");
    int nodeId = intKey(p, "node.id");
    Base64Uuid dirId;
    try {
      dirId = Base64Uuid.parse(required(p, "directory.id"));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("directory.id: " + e.getMessage(), e);
    }
    return new MetaProperties(version, clusterId, nodeId, dirId);
  }

  private static String required(Properties p, String key) {
    String v = p.getProperty(key);
    if (v == null || v.isBlank()) {
      throw new IllegalArgumentException(key + " is missing");
    }
    return v.trim();
  }

  private static int intKey(Properties p, String key) {
    String v = required(p, key);
    try {
      return Integer.parseInt(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key + "=" + v + " is not an integer", e);
    }
  }

  /** The file's text: the four keys in a fixed order under one comment line. */
  String render() {
    // Every value is of [A-Za-z0-9._-], so nothing needs the properties format's escaping.
    return "# Written by spool storage format; do not edit (docs/operations.md)\n"
        + ("version=" + version + "\n")
        + ("cluster.id=" + clusterId + "\n")
        + ("node.id=" + nodeId + "\n")
        + ("directory.id=" + directoryId + "\n");
  }

  /** Writes {@code dir/meta.properties} atomically and durably (the directory must exist). */
  public void write(Path dir) throws IOException {
    writeDurably(dir, FILE_NAME, render());
  }

  /**
   * Writes {@code dir/name} atomically and durably: a temporary file, forced, renamed over the old
   * one, then the directory forced (the directory must exist).
   */
  static void writeDurably(Path dir, String name, String text) throws IOException {
    Path tmp = dir.resolve(name + ".tmp");
    Files.writeString(tmp, text, StandardCharsets.ISO_8859_1);
    try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
      ch.force(true);
    }
    Files.move(
        tmp,
        dir.resolve(name),
        StandardCopyOption.ATOMIC_MOVE,
        StandardCopyOption.REPLACE_EXISTING);
    forceDirectory(dir);
  }

  static void forceDirectory(Path dir) throws IOException {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    }
  }
}
