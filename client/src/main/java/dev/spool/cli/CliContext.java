package dev.spool.cli;

import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Map;

/**
 * What a command may touch outside itself: its streams, the environment and the working directory.
 * Passed in (not read from {@code System}) so commands run in tests as in a shell.
 */
public record CliContext(
    PrintStream out,
    PrintStream err,
    InputStream in,
    Map<String, String> env,
    Path workingDirectory) {

  /** The real process: System streams, environment and current directory. */
  public static CliContext system() {
    return new CliContext(
        System.out, System.err, System.in, System.getenv(), Path.of("").toAbsolutePath());
  }
}
