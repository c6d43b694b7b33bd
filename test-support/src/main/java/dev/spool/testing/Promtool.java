package dev.spool.testing;

import dev.spool.testing.ExternalCommand.Result;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Prometheus' own {@code promtool} (Debian's {@code prometheus} package), the reference parser of
 * the text exposition format, for tests that check what a node serves on {@code /metrics}.
 *
 * <p>Found on the PATH, or else in {@code ~/.cache/spool/promtool/}, where the first use on a fresh
 * machine unpacks it from Debian's package: {@code apt-get download prometheus} (after one {@code
 * apt-get update} when the package lists are empty) and {@code dpkg-deb -x}. Unpacking rather than
 * installing keeps the package's Prometheus server from being set up and started as a service; the
 * promtool binary is self-contained. Later runs reuse the unpacked binary, so the step is
 * idempotent. When it cannot be had the test fails with the command that failed; it is not skipped.
 *
 * <p>Threads: any; {@link #path} is synchronized.
 */
public final class Promtool {
  private static final Path CACHE =
      Path.of(System.getProperty("user.home"), ".cache", "spool", "promtool");
  private static Path found;

  private Promtool() {}

  private static final Duration TIMEOUT = Duration.ofMinutes(5);

  /** The promtool binary, unpacking it on first use. */
  public static synchronized Path path() {
    if (found != null) {
      return found;
    }
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      Path p = Path.of(dir.isEmpty() ? "." : dir, "promtool");
      if (Files.isExecutable(p)) {
        return found = p;
      }
    }
    Path cached = CACHE.resolve("usr/bin/promtool");
    if (!Files.isExecutable(cached)) {
      unpack();
    }
    return found = cached;
  }

  private static void unpack() {
    try {
      Path work = Files.createDirectories(CACHE.resolveSibling("promtool-download"));
      ExternalCommand.aptStep(
          "promtool is not installed and 'apt-get download prometheus'",
          () -> ExternalCommand.run(work, "", TIMEOUT, "apt-get", "download", "prometheus"));
      Path deb;
      try (Stream<Path> files = Files.list(work)) {
        deb =
            files
                .filter(f -> f.getFileName().toString().endsWith(".deb"))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no prometheus .deb in " + work));
      }
      Result x =
          ExternalCommand.run(
              work, "", TIMEOUT, "dpkg-deb", "-x", deb.toString(), CACHE.toString());
      if (!x.ok()) {
        throw new IllegalStateException("dpkg-deb -x " + deb + " failed: " + x.output());
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot unpack promtool into " + CACHE, e);
    }
  }

  /** {@code promtool check metrics} on {@code exposition} (given on its standard input). */
  public static Result checkMetrics(String exposition) {
    return ExternalCommand.run(null, exposition, TIMEOUT, path().toString(), "check", "metrics");
  }

  /** Runs promtool with {@code args}. */
  public static Result run(String... args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(path().toString());
    cmd.addAll(List.of(args));
    return ExternalCommand.run(null, "", TIMEOUT, cmd.toArray(String[]::new));
  }
}
