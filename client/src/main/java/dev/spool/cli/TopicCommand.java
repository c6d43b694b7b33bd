package dev.spool.cli;

import dev.spool.client.Admin;
import dev.spool.client.ConfigEntry;
import dev.spool.client.NewTopic;
import dev.spool.client.ReplicaLog;
import dev.spool.client.TopicDescription;
import dev.spool.common.TopicPartition;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code spool topic create|list|describe|delete|delete-records|configs|alter}. */
@Command(
    name = "topic",
    mixinStandardHelpOptions = true,
    description = "Create, list, describe and delete topics.",
    subcommands = {
      TopicCommand.Create.class,
      TopicCommand.ListTopics.class,
      TopicCommand.Describe.class,
      TopicCommand.Delete.class,
      TopicCommand.DeleteRecords.class,
      TopicCommand.Configs.class,
      TopicCommand.Alter.class
    })
final class TopicCommand implements Callable<Integer> {
  private final CliContext ctx;

  @Spec CommandSpec spec;

  TopicCommand(CliContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public Integer call() {
    spec.commandLine().usage(ctx.err());
    return ExitCodes.USAGE;
  }

  @Command(name = "create", mixinStandardHelpOptions = true, description = "Create a topic.")
  static final class Create implements Callable<Integer> {
    private final CliContext ctx;
    @Spec CommandSpec spec;
    @Mixin AdminOptions admin = new AdminOptions();

    @Parameters(index = "0", paramLabel = "NAME")
    String name;

    @Option(
        names = "--partitions",
        defaultValue = "-1",
        paramLabel = "N",
        description = "Number of partitions (default: the broker's).")
    int partitions;

    @Option(
        names = "--replication-factor",
        defaultValue = "-1",
        paramLabel = "R",
        description = "Replicas per partition (default: 3, capped by the number of brokers).")
    int replicationFactor;

    @Option(
        names = "--config",
        paramLabel = "k=v",
        description = "A topic config override (repeatable).")
    List<String> configs;

    Create(CliContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public Integer call() {
      NewTopic topic =
          new NewTopic(
              name, partitions, replicationFactor, KeyValues.parse(configs, "--config", spec));
      try (Admin a = admin.open(ctx, spec)) {
        a.createTopic(topic).join();
      }
      ctx.out().println("Created topic " + name + ".");
      return ExitCodes.OK;
    }
  }

  @Command(name = "list", mixinStandardHelpOptions = true, description = "List topic names.")
  static final class ListTopics implements Callable<Integer> {
    private final CliContext ctx;
    @Spec CommandSpec spec;
    @Mixin AdminOptions admin = new AdminOptions();

    @Option(names = "--json", description = "Print {\"topics\": [...]}.")
    boolean json;

    ListTopics(CliContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public Integer call() {
      List<String> names;
      try (Admin a = admin.open(ctx, spec)) {
        names = a.listTopics().join();
      }
      if (json) {
        JsonLines.write(
            ctx.out(),
            g -> {
              g.writeStartObject();
              g.writeArrayFieldStart("topics");
              for (String n : names) {
                g.writeString(n);
              }
              g.writeEndArray();
              g.writeEndObject();
            });
      } else {
        names.forEach(ctx.out()::println);
      }
      return ExitCodes.OK;
    }
  }

  @Command(
      name = "describe",
      mixinStandardHelpOptions = true,
      description = "Show each partition's leader, leader epoch, replicas and ISR.")
  static final class Describe implements Callable<Integer> {
    private final CliContext ctx;
    @Spec CommandSpec spec;
    @Mixin AdminOptions admin = new AdminOptions();

    @Parameters(index = "0", paramLabel = "NAME")
    String name;

    @Option(
        names = "--json",
        description =
            "Print {\"topic\", \"partitions\": [{\"partition\", \"leader\", "
                + "\"leaderEpoch\", \"replicas\", \"isr\"}], ...}; with --logs also \"logs\": "
                + "[{\"partition\", \"broker\", \"sizeBytes\", ..., \"cleaner\": {...}}].")
    boolean json;

    @Option(
        names = "--logs",
        description =
            "Also ask every broker about its replicas: size, offsets and, for a compacted topic,"
                + " the cleaner's state (dirty ratio, last clean, bytes cleaned).")
    boolean logs;

    Describe(CliContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public Integer call() {
      TopicDescription d;
      List<ReplicaLog> replicaLogs = List.of();
      try (Admin a = admin.open(ctx, spec)) {
        d = a.describeTopic(name).join();
        if (logs) {
          replicaLogs = a.describeLogs(List.of(name)).join();
        }
      }
      List<ReplicaLog> rl = replicaLogs;
      if (json) {
        JsonLines.write(
            ctx.out(),
            g -> {
              g.writeStartObject();
              g.writeStringField("topic", d.name());
              g.writeStringField("topicId", d.topicId());
              g.writeArrayFieldStart("partitions");
              for (TopicDescription.PartitionDescription p : d.partitions()) {
                g.writeStartObject();
                g.writeNumberField("partition", p.partition());
                g.writeNumberField("leader", p.leader());
                g.writeNumberField("leaderEpoch", p.leaderEpoch());
                JsonLines.intArray(g, "replicas", p.replicas());
                JsonLines.intArray(g, "isr", p.isr());
                JsonLines.intArray(g, "offlineReplicas", p.offlineReplicas());
                g.writeEndObject();
              }
              g.writeEndArray();
              g.writeObjectFieldStart("configs");
              for (Map.Entry<String, String> c : d.configs().entrySet()) {
                g.writeStringField(c.getKey(), c.getValue());
              }
              g.writeEndObject();
              if (logs) {
                LogsOutput.writeJson(g, rl);
              }
              g.writeEndObject();
            });
        return ExitCodes.OK;
      }
      ctx.out()
          .println(
              "Topic: "
                  + d.name()
                  + "\tTopicId: "
                  + d.topicId()
                  + "\tPartitionCount: "
                  + d.partitions().size()
                  + "\tConfigs: "
                  + d.configs().entrySet().stream()
                      .map(e -> e.getKey() + "=" + e.getValue())
                      .collect(Collectors.joining(",")));
      for (TopicDescription.PartitionDescription p : d.partitions()) {
        ctx.out()
            .println(
                "\tPartition: "
                    + p.partition()
                    + "\tLeader: "
                    + (p.leader() < 0 ? "none" : p.leader())
                    + "\tLeaderEpoch: "
                    + p.leaderEpoch()
                    + "\tReplicas: "
                    + join(p.replicas())
                    + "\tIsr: "
                    + join(p.isr())
                    + (p.offlineReplicas().isEmpty()
                        ? ""
                        : "\tOffline: " + join(p.offlineReplicas())));
      }
      if (logs) {
        LogsOutput.printText(ctx.out(), rl);
      }
      return ExitCodes.OK;
    }
  }

  @Command(
      name = "delete",
      mixinStandardHelpOptions = true,
      description = "Delete a topic and its data.")
  static final class Delete implements Callable<Integer> {
    private final CliContext ctx;
    @Spec CommandSpec spec;
    @Mixin AdminOptions admin = new AdminOptions();

    @Parameters(index = "0", paramLabel = "NAME")
    String name;

    Delete(CliContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public Integer call() {
      try (Admin a = admin.open(ctx, spec)) {
        a.deleteTopics(List.of(name)).join();
      }
      ctx.out().println("Deleted topic " + name + ".");
      return ExitCodes.OK;
    }
  }

  @Command(
      name = "delete-records",
      mixinStandardHelpOptions = true,
      description =
          "Delete the records below an offset (Kafka's kafka-delete-records): each partition's log"
              + " start offset moves there on its leader.")
  static final class DeleteRecords implements Callable<Integer> {
    private final CliContext ctx;
    @Spec CommandSpec spec;
    @Mixin AdminOptions admin = new AdminOptions();

    @Parameters(index = "0", paramLabel = "NAME")
    String name;

    @Option(
        names = "--before",
        required = true,
        paramLabel = "OFFSET",
        description = "Delete the records below this offset; -1: below the high watermark.")
    long before;

    @Option(
        names = "--partition",
        paramLabel = "P",
        description = "Only this partition (repeatable; default: every partition).")
    List<Integer> partitions;

    DeleteRecords(CliContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public Integer call() {
      Map<TopicPartition, Long> lowWatermarks;
      try (Admin a = admin.open(ctx, spec)) {
        List<Integer> chosen = partitions;
        if (chosen == null || chosen.isEmpty()) {
          chosen =
              a.describeTopic(name).join().partitions().stream()
                  .map(TopicDescription.PartitionDescription::partition)
                  .toList();
        }
        Map<TopicPartition, Long> offsets = new TreeMap<>();
        chosen.forEach(p -> offsets.put(new TopicPartition(name, p), before));
        lowWatermarks = a.deleteRecords(offsets).join();
      }
      lowWatermarks.forEach(
          (tp, low) -> ctx.out().println("Partition: " + tp + "\tLogStartOffset: " + low));
      return ExitCodes.OK;
    }
  }

  @Command(
      name = "configs",
      mixinStandardHelpOptions = true,
      description = "Show a topic's effective configs.")
  static final class Configs implements Callable<Integer> {
    private final CliContext ctx;
    @Spec CommandSpec spec;
    @Mixin AdminOptions admin = new AdminOptions();

    @Parameters(index = "0", paramLabel = "NAME")
    String name;

    Configs(CliContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public Integer call() {
      List<ConfigEntry> entries;
      try (Admin a = admin.open(ctx, spec)) {
        entries = a.describeConfigs(List.of(name)).join().getOrDefault(name, List.of());
      }
      for (ConfigEntry e : entries) {
        ctx.out().println(e.key() + "=" + e.value() + (e.isDefault() ? "" : "\t(set)"));
      }
      return ExitCodes.OK;
    }
  }

  @Command(
      name = "alter",
      mixinStandardHelpOptions = true,
      description = "Set or reset topic configs.")
  static final class Alter implements Callable<Integer> {
    private final CliContext ctx;
    @Spec CommandSpec spec;
    @Mixin AdminOptions admin = new AdminOptions();

    @Parameters(index = "0", paramLabel = "NAME")
    String name;

    @Option(names = "--set", paramLabel = "k=v", description = "Set a config (repeatable).")
    List<String> set;

    @Option(
        names = "--delete",
        paramLabel = "KEY",
        description = "Return a config to its default (repeatable).")
    List<String> delete;

    Alter(CliContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public Integer call() {
      try (Admin a = admin.open(ctx, spec)) {
        a.alterConfigs(
                name, KeyValues.parse(set, "--set", spec), delete == null ? List.of() : delete)
            .join();
      }
      ctx.out().println("Updated configs of topic " + name + ".");
      return ExitCodes.OK;
    }
  }

  private static String join(List<Integer> ids) {
    return ids.stream().map(String::valueOf).collect(Collectors.joining(","));
  }
}
