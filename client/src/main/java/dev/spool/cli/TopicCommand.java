package dev.spool.cli;

import dev.spool.client.Admin;
import dev.spool.client.ConfigEntry;
import dev.spool.client.NewPartitions;
import dev.spool.client.NewTopic;
import dev.spool.client.ReplicaLog;
import dev.spool.client.TopicDescription;
import dev.spool.common.TopicPartition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code spool topic create|list|describe|delete|delete-records|configs|alter}. */
@Command(
    name = "topic",
    mixinStandardHelpOptions = true,
    description = "Create, list, describe, grow, configure and delete topics.",
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
      description = {
        "Grow a topic's partition count, or set or reset topic configs.",
        "A partition count only grows (Kafka's CreatePartitions): producers with the default"
            + " partitioner send keyed records of the same key to another partition afterwards,"
            + " and producers, consumers and groups find the new partitions at their next"
            + " metadata refresh (metadata.max.age.ms). With both --partitions and configs, the"
            + " partitions grow first."
      })
  static final class Alter implements Callable<Integer> {
    private final CliContext ctx;
    @Spec CommandSpec spec;
    @Mixin AdminOptions admin = new AdminOptions();

    @Parameters(index = "0", paramLabel = "NAME")
    String name;

    @Option(
        names = "--partitions",
        paramLabel = "N",
        description = "The new partition count; larger than the current one.")
    Integer partitions;

    @Option(
        names = "--replica-assignment",
        paramLabel = "LIST",
        description =
            "Replicas of each new partition, as kafka-topics takes them: partitions separated by"
                + " ',', a partition's brokers by ':', preferred leader first (e.g. 1:2,2:3 for"
                + " two new partitions; default: placed by the controller).")
    String replicaAssignment;

    @Option(
        names = "--validate-only",
        description = "Check the new partition count (and assignment); change nothing.")
    boolean validateOnly;

    @Option(names = "--set", paramLabel = "k=v", description = "Set a config (repeatable).")
    List<String> set;

    @Option(
        names = "--delete",
        paramLabel = "KEY",
        description = "Return a config to its default (repeatable).")
    List<String> delete;

    @Option(
        names = "--json",
        description =
            "Print {\"topic\", \"partitions\" (the new count, null when not changed),"
                + " \"validateOnly\", \"set\": {k: v}, \"delete\": [k]}.")
    boolean json;

    Alter(CliContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public Integer call() {
      Map<String, String> toSet = KeyValues.parse(set, "--set", spec);
      List<String> toDelete = delete == null ? List.of() : delete;
      boolean configs = !toSet.isEmpty() || !toDelete.isEmpty();
      if (partitions == null && !configs) {
        throw new ParameterException(
            spec.commandLine(), "give --partitions N, or configs with --set / --delete");
      }
      if (partitions == null && (replicaAssignment != null || validateOnly)) {
        throw new ParameterException(
            spec.commandLine(), "--replica-assignment and --validate-only need --partitions");
      }
      if (validateOnly && configs) {
        throw new ParameterException(
            spec.commandLine(), "--validate-only checks --partitions only; drop --set / --delete");
      }
      NewPartitions grow = partitions == null ? null : newPartitions();
      try (Admin a = admin.open(ctx, spec)) {
        if (grow != null) {
          a.createPartitions(Map.of(name, grow), validateOnly).join();
        }
        if (configs) {
          a.alterConfigs(name, toSet, toDelete).join();
        }
      }
      if (json) {
        JsonLines.write(
            ctx.out(),
            g -> {
              g.writeStartObject();
              g.writeStringField("topic", name);
              if (partitions == null) {
                g.writeNullField("partitions");
              } else {
                g.writeNumberField("partitions", partitions);
              }
              g.writeBooleanField("validateOnly", validateOnly);
              g.writeObjectFieldStart("set");
              for (Map.Entry<String, String> e : toSet.entrySet()) {
                g.writeStringField(e.getKey(), e.getValue());
              }
              g.writeEndObject();
              g.writeArrayFieldStart("delete");
              for (String k : toDelete) {
                g.writeString(k);
              }
              g.writeEndArray();
              g.writeEndObject();
            });
        return ExitCodes.OK;
      }
      if (grow != null) {
        ctx.out()
            .println(
                validateOnly
                    ? "Topic "
                        + name
                        + " can grow to "
                        + partitions
                        + " partitions (validated only)."
                    : "Topic " + name + " now has " + partitions + " partitions.");
      }
      if (configs) {
        ctx.out().println("Updated configs of topic " + name + ".");
      }
      return ExitCodes.OK;
    }

    private NewPartitions newPartitions() {
      if (replicaAssignment == null || replicaAssignment.isBlank()) {
        return NewPartitions.increaseTo(partitions);
      }
      List<List<Integer>> assignments = new ArrayList<>();
      for (String partition : replicaAssignment.split(",", -1)) {
        List<Integer> replicas = new ArrayList<>();
        for (String broker : partition.split(":", -1)) {
          try {
            replicas.add(Integer.parseInt(broker.trim()));
          } catch (NumberFormatException e) {
            throw new ParameterException(
                spec.commandLine(),
                "--replica-assignment expects broker ids like 1:2,2:3, got '"
                    + replicaAssignment
                    + "'");
          }
        }
        assignments.add(replicas);
      }
      try {
        return NewPartitions.increaseTo(partitions, assignments);
      } catch (IllegalArgumentException e) {
        throw new ParameterException(spec.commandLine(), "--replica-assignment: " + e.getMessage());
      }
    }
  }

  private static String join(List<Integer> ids) {
    return ids.stream().map(String::valueOf).collect(Collectors.joining(","));
  }
}
