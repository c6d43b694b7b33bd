package dev.spool.chaos.net;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one external command (iproute2 here) with {@link ProcessBuilder}: logs it, waits at most
 * {@link #TIMEOUT_MS}, captures both streams, and says clearly what failed. No shell is involved,
 * so arguments are never re-parsed.
 */
public class CommandRunner {
  private static final Logger LOG = LoggerFactory.getLogger(CommandRunner.class);

  /** iproute2 answers in milliseconds; 10 s means something is wrong with the machine. */
  static final long TIMEOUT_MS = 10_000;

  /** What a finished command returned. */
  public record Result(List<String> command, int exitCode, String stdout, String stderr) {
    public boolean ok() {
      return exitCode == 0;
    }
  }

  /** Thrown when a command that must succeed did not. */
  public static final class CommandFailedException extends RuntimeException {
    private final Result result;

    CommandFailedException(Result r) {
      super(
          "command failed (exit "
              + r.exitCode()
              + "): "
              + String.join(" ", r.command())
              + (r.stderr().isBlank() ? "" : "\n  stderr: " + r.stderr().strip())
              + (r.stdout().isBlank() ? "" : "\n  stdout: " + r.stdout().strip()));
      this.result = r;
    }

    public Result result() {
      return result;
    }
  }

  /** Runs the command and throws {@link CommandFailedException} unless it exits 0. */
  public Result run(String... command) {
    Result r = tryRun(command);
    if (!r.ok()) {
      throw new CommandFailedException(r);
    }
    return r;
  }

  /** Runs the command and returns whatever happened; a command that cannot start exits 127. */
  public Result tryRun(String... command) {
    List<String> cmd = List.of(command);
    LOG.info("$ {}", String.join(" ", cmd));
    Process p;
    try {
      p = new ProcessBuilder(cmd).start();
    } catch (IOException e) {
      return new Result(cmd, 127, "", "cannot start: " + e.getMessage());
    }
    try {
      CompletableFuture<String> out = drain(p.getInputStream());
      CompletableFuture<String> err = drain(p.getErrorStream());
      if (!p.waitFor(TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
        p.destroyForcibly();
        return new Result(cmd, 124, "", "timed out after " + TIMEOUT_MS + " ms");
      }
      Result r = new Result(cmd, p.exitValue(), out.get(), err.get());
      if (!r.ok()) {
        LOG.info("  exit {}: {}", r.exitCode(), r.stderr().strip());
      }
      return r;
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      return new Result(cmd, 130, "", "interrupted");
    } catch (ExecutionException e) {
      return new Result(cmd, 1, "", "cannot read output: " + e.getCause());
    }
  }

  private static CompletableFuture<String> drain(InputStream in) {
    return CompletableFuture.supplyAsync(
        () -> {
          try (in) {
            ByteArrayOutputStream buf = new ByteArrayOutputStream();
            in.transferTo(buf);
            return buf.toString(StandardCharsets.UTF_8);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });
  }
}
