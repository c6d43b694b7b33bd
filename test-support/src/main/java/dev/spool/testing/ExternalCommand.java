package dev.spool.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Runs a program the tests use as an oracle or a driver (Prometheus' promtool, a headless browser,
 * Debian's apt-get) and collects what it printed.
 *
 * <p>Threads: any; stateless.
 */
public final class ExternalCommand {
  private ExternalCommand() {}

  /** What the program printed (stdout and stderr together) and its exit code (-1: it failed). */
  public record Result(int exitCode, String output) {
    public boolean ok() {
      return exitCode == 0;
    }
  }

  /**
   * Runs {@code cmd} in {@code dir} (null: the current directory) with {@code input} on its
   * standard input; a program still running after {@code timeout} is killed and answers -1.
   */
  public static Result run(Path dir, String input, Duration timeout, String... cmd) {
    Process p;
    try {
      ProcessBuilder b = new ProcessBuilder(cmd).redirectErrorStream(true);
      if (dir != null) {
        b.directory(dir.toFile());
      }
      p = b.start();
    } catch (IOException e) {
      return new Result(-1, String.join(" ", cmd) + ": " + e);
    }
    try {
      try (var in = p.getOutputStream()) {
        in.write(input.getBytes(StandardCharsets.UTF_8));
      }
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        p.destroyForcibly();
        return new Result(-1, out + "\n(killed after " + timeout + ")");
      }
      return new Result(p.exitValue(), out);
    } catch (IOException e) {
      p.destroyForcibly();
      return new Result(-1, String.join(" ", cmd) + ": " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      p.destroyForcibly();
      return new Result(-1, String.join(" ", cmd) + ": interrupted");
    }
  }

  /**
   * Runs an apt-get step, and once more after {@code apt-get update} when it fails (a fresh
   * machine's package lists are empty). Throws, with apt's output, when it still fails.
   */
  static Result aptStep(String what, Supplier<Result> step) {
    Result first = step.get();
    if (first.ok()) {
      return first;
    }
    Result update = run(null, "", Duration.ofMinutes(10), "apt-get", "update");
    if (!update.ok()) {
      throw new IllegalStateException(
          what + " failed and 'apt-get update' failed too: " + update.output());
    }
    Result again = step.get();
    if (!again.ok()) {
      throw new IllegalStateException(what + " failed: " + again.output());
    }
    return again;
  }
}
