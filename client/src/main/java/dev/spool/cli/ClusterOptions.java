package dev.spool.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Collectors;
import picocli.CommandLine.Option;

/**
 * The {@code --bootstrap} option every command has. Without it: the {@code SPOOL_BOOTSTRAP}
 * environment variable, else the file {@code .spool-cluster/bootstrap} in the working directory
 * (written by the local-cluster script), else {@code 127.0.0.1:9092}.
 */
public final class ClusterOptions {
  public static final String ENV = "SPOOL_BOOTSTRAP";
  public static final Path FILE = Path.of(".spool-cluster", "bootstrap");
  public static final String DEFAULT = "127.0.0.1:9092";

  @Option(
      names = {"-b", "--bootstrap"},
      paramLabel = "host:port[,host:port]",
      description =
          "Brokers to connect to. Default: $SPOOL_BOOTSTRAP, else .spool-cluster/bootstrap, "
              + "else 127.0.0.1:9092.")
  String bootstrap;

  /** The bootstrap list to use, following the order in the class doc. */
  public String resolve(CliContext ctx) {
    if (bootstrap != null && !bootstrap.isBlank()) {
      return bootstrap.trim();
    }
    String env = ctx.env().get(ENV);
    if (env != null && !env.isBlank()) {
      return env.trim();
    }
    Path file = ctx.workingDirectory().resolve(FILE);
    if (Files.isRegularFile(file)) {
      try {
        String fromFile =
            Arrays.stream(Files.readString(file).split("[,\\s]+"))
                .filter(s -> !s.isBlank())
                .collect(Collectors.joining(","));
        if (!fromFile.isEmpty()) {
          return fromFile;
        }
      } catch (IOException e) {
        ctx.err().println("warning: cannot read " + file + ": " + e.getMessage());
      }
    }
    return DEFAULT;
  }
}
