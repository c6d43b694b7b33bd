package dev.spool.cli;

import dev.spool.client.Consumer;
import dev.spool.client.ConsumerConfig;
import dev.spool.client.ConsumerRecord;
import dev.spool.common.ErrorCode;
import dev.spool.common.SpoolException;
import dev.spool.common.TopicPartition;
import dev.spool.record.Header;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code spool consume TOPIC}: prints records as they arrive, from the end (default), the beginning
 * or an offset, until {@code --max-messages} were printed, no record arrived for {@code
 * --timeout-ms}, or Ctrl-C. With {@code --group} it joins that consumer group instead: the group
 * assigns the partitions, reading resumes at the group's committed offsets, and consumed positions
 * are committed (automatically, and on exit).
 */
@Command(
    name = "consume",
    mixinStandardHelpOptions = true,
    description = "Print records of a topic: values (plain) or one JSON object per record.")
final class ConsumeCommand implements Callable<Integer> {
  enum Output {
    plain,
    json
  }

  private final CliContext ctx;

  @Spec CommandSpec spec;

  @Mixin ClusterOptions cluster = new ClusterOptions();

  @Parameters(index = "0", paramLabel = "TOPIC", description = "Topic to read.")
  String topic;

  @Option(
      names = "--group",
      paramLabel = "GROUP",
      description =
          "Join this consumer group: it assigns the partitions and keeps the positions"
              + " (--from-beginning then applies to partitions without a committed offset).")
  String group;

  @Option(names = "--from-beginning", description = "Start at the first offset still in the log.")
  boolean fromBeginning;

  @Option(
      names = "--offset",
      paramLabel = "N",
      description = "Start at offset N (needs --partition).")
  Long offset;

  @Option(
      names = "--partition",
      paramLabel = "N",
      split = ",",
      description = "Read only these partitions (repeatable or comma-separated). Default: all.")
  List<Integer> partitions;

  @Option(
      names = "--max-messages",
      paramLabel = "N",
      description = "Exit after printing N records.")
  Long maxMessages;

  @Option(
      names = "--timeout-ms",
      paramLabel = "T",
      description = "Exit when no record arrived for T ms.")
  Long timeoutMs;

  @Option(
      names = "--output",
      defaultValue = "plain",
      paramLabel = "plain|json",
      description =
          "json: one object per record with partition, offset, timestamp, key, value, headers.")
  Output output;

  @Option(names = "--print-key", description = "Plain output: print KEY<separator>VALUE.")
  boolean printKey;

  @Option(
      names = "--key-separator",
      defaultValue = "\t",
      paramLabel = "SEP",
      description = "Between key and value with --print-key (default: tab).")
  String keySeparator;

  @Option(
      names = "--consumer-prop",
      paramLabel = "k=v",
      description = "A consumer config (repeatable).")
  List<String> consumerProps;

  ConsumeCommand(CliContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public Integer call() {
    if (offset != null && (partitions == null || partitions.isEmpty())) {
      throw new ParameterException(spec.commandLine(), "--offset needs --partition");
    }
    if (offset != null && fromBeginning) {
      throw new ParameterException(
          spec.commandLine(), "--offset and --from-beginning exclude each other");
    }
    if (group != null && (offset != null || (partitions != null && !partitions.isEmpty()))) {
      throw new ParameterException(
          spec.commandLine(), "--group assigns the partitions: no --offset or --partition with it");
    }
    Map<String, String> props = new HashMap<>();
    props.put("bootstrap.servers", cluster.resolve(ctx));
    props.put("auto.offset.reset", fromBeginning ? "earliest" : "latest");
    props.put("default.api.timeout.ms", "15000");
    if (group != null) {
      props.put("group.id", group);
    }
    props.putAll(KeyValues.parse(consumerProps, "--consumer-prop", spec));
    ConsumerConfig config = new ConsumerConfig(props);
    long printed = 0;
    try (Consumer consumer = new Consumer(config)) {
      List<TopicPartition> tps = group == null ? partitionsToRead(consumer) : List.of();
      if (group != null) {
        consumer.subscribe(List.of(topic));
      } else {
        consumer.assign(tps);
      }
      if (group != null) {
        // Positions come from the group's commits, else auto.offset.reset.
      } else if (offset != null) {
        tps.forEach(tp -> consumer.seek(tp, offset));
      } else if (fromBeginning) {
        consumer.seekToBeginning(tps);
      } else {
        consumer.seekToEnd(tps);
      }
      Thread hook =
          new Thread(
              () -> {
                stopRequested = true;
                consumer.wakeup();
              },
              "spool-consume-stop");
      Runtime.getRuntime().addShutdownHook(hook);
      try {
        printed = loop(consumer);
      } finally {
        removeHook(hook);
      }
    }
    ctx.err().println("Processed a total of " + printed + " records");
    return ExitCodes.OK;
  }

  private List<TopicPartition> partitionsToRead(Consumer consumer) {
    List<TopicPartition> all = consumer.partitionsFor(topic);
    if (partitions == null || partitions.isEmpty()) {
      return all;
    }
    List<TopicPartition> chosen = new ArrayList<>();
    for (int p : partitions) {
      if (p < 0 || p >= all.size()) {
        throw new SpoolException(
            ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
            "topic '" + topic + "' has " + all.size() + " partitions, there is no partition " + p);
      }
      chosen.add(new TopicPartition(topic, p));
    }
    return chosen;
  }

  private long loop(Consumer consumer) {
    long printed = 0;
    long lastRecordNs = System.nanoTime();
    while (maxMessages == null || printed < maxMessages) {
      long waitMs = 500;
      if (timeoutMs != null) {
        long idleMs = (System.nanoTime() - lastRecordNs) / 1_000_000;
        if (idleMs >= timeoutMs) {
          break;
        }
        waitMs = Math.min(waitMs, timeoutMs - idleMs);
      }
      var records = consumer.poll(Duration.ofMillis(Math.max(1, waitMs)));
      if (records.isEmpty()) {
        if (stopRequested) {
          break;
        }
        continue;
      }
      lastRecordNs = System.nanoTime();
      for (ConsumerRecord r : records) {
        if (maxMessages != null && printed >= maxMessages) {
          break;
        }
        print(r);
        printed++;
      }
      ctx.out().flush();
    }
    return printed;
  }

  private volatile boolean stopRequested;

  private static void removeHook(Thread hook) {
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // The JVM is already shutting down (Ctrl-C): the hook ran, nothing to remove.
    }
  }

  private void print(ConsumerRecord r) {
    if (output == Output.json) {
      JsonLines.write(
          ctx.out(),
          g -> {
            g.writeStartObject();
            g.writeStringField("topic", r.topic());
            g.writeNumberField("partition", r.partition());
            g.writeNumberField("offset", r.offset());
            g.writeNumberField("timestamp", r.timestamp());
            g.writeStringField("timestampType", r.timestampType().configName());
            JsonLines.nullableString(g, "key", r.keyAsString());
            JsonLines.nullableString(g, "value", r.valueAsString());
            g.writeArrayFieldStart("headers");
            for (Header h : r.headers()) {
              g.writeStartArray();
              g.writeString(h.key());
              if (h.value() == null) {
                g.writeNull();
              } else {
                g.writeString(new String(h.value(), StandardCharsets.UTF_8));
              }
              g.writeEndArray();
            }
            g.writeEndArray();
            g.writeEndObject();
          });
    } else if (printKey) {
      ctx.out().println(r.keyAsString() + keySeparator + r.valueAsString());
    } else {
      ctx.out().println(r.valueAsString());
    }
  }
}
