package dev.spool.cli;

import dev.spool.client.Admin;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** Options of the admin commands (topic, cluster): where, how long, extra admin configs. */
final class AdminOptions {
  @Mixin ClusterOptions cluster = new ClusterOptions();

  @Option(
      names = "--timeout-ms",
      defaultValue = "30000",
      paramLabel = "T",
      description =
          "Give up on the operation after T ms, retries included (default: ${DEFAULT-VALUE}).")
  long timeoutMs;

  @Option(
      names = "--admin-prop",
      paramLabel = "k=v",
      description = "An admin client config (repeatable).")
  List<String> adminProps;

  @Option(
      names = "--command-config",
      paramLabel = "FILE",
      description =
          "A properties file of admin client configs (Kafka's option), read before --admin-prop:"
              + " e.g. security.protocol=SASL_SSL, sasl.jaas.config and ssl.*, so a password need"
              + " not be on the command line.")
  Path commandConfig;

  Admin open(CliContext ctx, CommandSpec spec) {
    List<String> props = new ArrayList<>();
    if (commandConfig != null) {
      Path file = ctx.workingDirectory().resolve(commandConfig);
      Properties p = new Properties();
      try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
        p.load(r);
      } catch (IOException | IllegalArgumentException e) {
        throw new ParameterException(
            spec.commandLine(), "--command-config " + file + " cannot be read: " + e.getMessage());
      }
      p.stringPropertyNames().forEach(k -> props.add(k + "=" + p.getProperty(k)));
    }
    if (adminProps != null) {
      props.addAll(adminProps);
    }
    return open(ctx, spec, cluster, timeoutMs, props);
  }

  /** An admin client whose every call gives up after {@code timeoutMs}, retries included. */
  static Admin open(
      CliContext ctx,
      CommandSpec spec,
      ClusterOptions cluster,
      long timeoutMs,
      List<String> adminProps) {
    Map<String, String> props = new HashMap<>();
    props.put("bootstrap.servers", cluster.resolve(ctx));
    props.put("default.api.timeout.ms", String.valueOf(Math.max(1, timeoutMs)));
    props.put("request.timeout.ms", String.valueOf(Math.max(1, Math.min(timeoutMs, 30_000))));
    props.putAll(KeyValues.parse(adminProps, "--admin-prop", spec));
    return new Admin(props);
  }
}
