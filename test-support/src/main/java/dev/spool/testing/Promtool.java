package dev.spool.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
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

  /** What promtool printed and its exit code. */
  public record Result(int exitCode, String output) {}

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
      if (run(work, "apt-get", "download", "prometheus").exitCode() != 0) {
        Result update = run(work, "apt-get", "update");
        if (update.exitCode() != 0) {
          throw new IllegalStateException(
              "promtool is not installed and 'apt-get update' failed: " + update.output());
        }
        Result again = run(work, "apt-get", "download", "prometheus");
        if (again.exitCode() != 0) {
          throw new IllegalStateException(
              "promtool is not installed and 'apt-get download prometheus' failed: "
                  + again.output());
        }
      }
      Path deb;
      try (Stream<Path> files = Files.list(work)) {
        deb =
            files
                .filter(f -> f.getFileName().toString().endsWith(".deb"))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no prometheus .deb in " + work));
      }
      Result x = run(work, "dpkg-deb", "-x", deb.toString(), CACHE.toString());
      if (x.exitCode() != 0) {
        throw new IllegalStateException("dpkg-deb -x " + deb + " failed: " + x.output());
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot unpack promtool into " + CACHE, e);
    }
  }

  /** {@code promtool check metrics} on {@code exposition} (given on its standard input). */
  public static Result checkMetrics(String exposition) {
    return runWithInput(exposition, path().toString(), "check", "metrics");
  }

  /** Runs promtool with {@code args}. */
  public static Result run(String... args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(path().toString());
    cmd.addAll(List.of(args));
    return runWithInput("", cmd.toArray(String[]::new));
  }

  private static Result run(Path dir, String... cmd) {
    try {
      Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
      p.getOutputStream().close();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      return new Result(waitFor(p), out);
    } catch (IOException e) {
      return new Result(-1, String.join(" ", cmd) + ": " + e);
    }
  }

  private static Result runWithInput(String input, String... cmd) {
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      try (var in = p.getOutputStream()) {
        in.write(input.getBytes(StandardCharsets.UTF_8));
      }
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      return new Result(waitFor(p), out);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + String.join(" ", cmd), e);
    }
  }

  private static int waitFor(Process p) {
    try {
      if (!p.waitFor(5, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        return -1;
      }
      return p.exitValue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      p.destroyForcibly();
      return -1;
    }
  }
}
