package dev.spool.cli;

import dev.spool.client.Admin;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

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

  Admin open(CliContext ctx, CommandSpec spec) {
    return open(ctx, spec, cluster, timeoutMs, adminProps);
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
