package dev.spool.chaos.nemesis;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.stream.Stream;

/**
 * Damages one file of a stopped node the way a crash or a bad disk would. Choosing what to damage
 * ({@link #plan}) is pure; {@link #apply} and {@link #candidates} do the I/O.
 *
 * <ul>
 *   <li><b>torn</b>: the file is cut short by 1 to {@value #MAX_TORN_BYTES} bytes, as when the last
 *       write reached the page cache only partly before power loss;
 *   <li><b>bit-flip</b>: one bit within the last {@value #FLIP_WINDOW_BYTES} bytes is inverted, as
 *       silent corruption would; the CRC or the checkpoint parser must catch it.
 * </ul>
 *
 * <p>Segments: the newest {@code .log} file (highest base offset) of a partition directory, where
 * the tail of the log lives. Checkpoints: any file whose name contains {@code checkpoint}.
 */
public final class FileCorruption {
  static final int MAX_TORN_BYTES = 512;
  static final int FLIP_WINDOW_BYTES = 4096;

  private FileCorruption() {}

  /** A file and its size. */
  public record FileFacts(Path path, long sizeBytes) {}

  /**
   * Truncate {@code path} to {@code newLength}, or flip bit {@code bit} of the byte at {@code
   * position}.
   */
  public record Plan(Path path, boolean truncate, long newLength, long position, int bit) {
    public String describe() {
      return truncate
          ? "truncated " + shortName() + " to " + newLength + " bytes"
          : "flipped bit " + bit + " of byte " + position + " of " + shortName();
    }

    /** The file with its partition directory, e.g. {@code orders-3/00000000000000000000.log}. */
    private String shortName() {
      Path parent = path.getParent();
      boolean inPartitionDir =
          parent != null && path.getFileName().toString().matches("\\d{20}\\..*");
      return inPartitionDir
          ? parent.getFileName() + "/" + path.getFileName()
          : path.getFileName().toString();
    }
  }

  /** The files a kind of corruption may hit under a node's data directory, in a stable order. */
  public static List<FileFacts> candidates(FaultKind kind, Path dataDir) throws IOException {
    List<FileFacts> out = new ArrayList<>();
    if (!Files.isDirectory(dataDir)) {
      return out;
    }
    boolean segments =
        kind == FaultKind.TORN_SEGMENT_TAIL || kind == FaultKind.BITFLIP_SEGMENT_TAIL;
    try (Stream<Path> walk = Files.walk(dataDir, 3)) {
      List<Path> files = walk.filter(Files::isRegularFile).sorted().toList();
      if (segments) {
        files.stream()
            .filter(p -> p.getFileName().toString().endsWith(".log"))
            .collect(
                java.util.stream.Collectors.groupingBy(
                    Path::getParent, java.util.TreeMap::new, java.util.stream.Collectors.toList()))
            .values()
            .forEach(
                inDir ->
                    inDir.stream()
                        .max(Comparator.comparing(p -> p.getFileName().toString()))
                        .ifPresent(p -> add(out, p)));
      } else {
        files.stream()
            .filter(p -> p.getFileName().toString().contains("checkpoint"))
            .forEach(p -> add(out, p));
      }
    }
    return out;
  }

  private static void add(List<FileFacts> out, Path p) {
    try {
      long size = Files.size(p);
      if (size > 0) {
        out.add(new FileFacts(p, size));
      }
    } catch (IOException e) {
      // The file went away between listing and sizing: not a candidate.
    }
  }

  /** Picks a file and a damage for {@code kind}; empty if there is no non-empty candidate. */
  public static Optional<Plan> plan(FaultKind kind, List<FileFacts> candidates, Random rng) {
    if (candidates.isEmpty()) {
      return Optional.empty();
    }
    FileFacts f = candidates.get(rng.nextInt(candidates.size()));
    boolean torn = kind == FaultKind.TORN_SEGMENT_TAIL || kind == FaultKind.TORN_CHECKPOINT;
    if (torn) {
      long cut = 1 + rng.nextInt((int) Math.min(f.sizeBytes(), MAX_TORN_BYTES));
      return Optional.of(new Plan(f.path(), true, f.sizeBytes() - cut, -1, -1));
    }
    long window = Math.min(f.sizeBytes(), FLIP_WINDOW_BYTES);
    long position = f.sizeBytes() - 1 - rng.nextInt((int) window);
    return Optional.of(new Plan(f.path(), false, f.sizeBytes(), position, rng.nextInt(8)));
  }

  public static void apply(Plan plan) throws IOException {
    try (FileChannel ch =
        FileChannel.open(plan.path(), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      if (plan.truncate()) {
        ch.truncate(plan.newLength());
      } else {
        ByteBuffer b = ByteBuffer.allocate(1);
        ch.read(b, plan.position());
        b.flip();
        byte flipped = (byte) (b.get(0) ^ (1 << plan.bit()));
        ch.write(ByteBuffer.wrap(new byte[] {flipped}), plan.position());
      }
      ch.force(true);
    }
  }
}
