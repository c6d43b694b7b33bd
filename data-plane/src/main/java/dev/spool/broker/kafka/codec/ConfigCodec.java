package dev.spool.broker.kafka.codec;

import dev.spool.common.ErrorCode;
import dev.spool.config.Config;
import dev.spool.config.ConfigKey;
import dev.spool.config.TopicConfig;
import dev.spool.protocol.message.AlterConfigsRequest;
import dev.spool.protocol.message.AlterConfigsResponse;
import dev.spool.protocol.message.DescribeConfigsRequest;
import dev.spool.protocol.message.DescribeConfigsResponse;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.TopicImage;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * DescribeConfigs, AlterConfigs and IncrementalAlterConfigs between Kafka and Spool. Spool has
 * topic configurations only (its topic keys carry Kafka's names):
 *
 * <ul>
 *   <li>topic resources go to Spool's handlers; a described key is DYNAMIC_TOPIC_CONFIG when the
 *       topic overrides it, else DEFAULT_CONFIG;
 *   <li>broker, broker-logger and group resources are described as having no dynamic settings (an
 *       empty list), and altering them is INVALID_REQUEST: Spool's broker settings are its node
 *       configuration file;
 *   <li>the legacy AlterConfigs replaces a topic's overrides with the given set, as on Kafka:
 *       overrides it does not name are deleted;
 *   <li>IncrementalAlterConfigs' APPEND and SUBTRACT treat the current value as Kafka's comma
 *       separated list;
 *   <li>Kafka's replication throttle ({@code kafka-reassign-partitions.sh --throttle}, KIP-73):
 *       setting {@link #BROKER_THROTTLE_KEYS}' leader or follower rate on brokers sets Spool's
 *       cluster throttle to the highest rate asked (the tool sets the same rate on every broker of
 *       a move), deleting them removes it (the tool does after a move, {@code --verify}, or on
 *       {@code --cancel}); a topic's {@link #TOPIC_THROTTLE_KEYS} are accepted and not stored,
 *       since Spool throttles exactly a move's adding replicas
 *       (docs/architecture.md#replica-reassignment). The log-dir throttle is refused (one data
 *       directory per broker).
 * </ul>
 *
 * <p>Threads: stateless; any thread.
 */
public final class ConfigCodec {
  private ConfigCodec() {}

  static final byte TOPIC = 2;
  static final byte BROKER = 4;
  static final byte BROKER_LOGGER = 8;
  static final byte GROUP = 32;
  private static final byte DYNAMIC_TOPIC_CONFIG = 1;
  private static final byte DEFAULT_CONFIG = 5;
  private static final byte SET = 0;
  private static final byte DELETE = 1;
  private static final byte APPEND = 2;
  private static final byte SUBTRACT = 3;

  /** Kafka's dynamic broker configurations of the replication throttle (KIP-73). */
  static final Set<String> BROKER_THROTTLE_KEYS =
      Set.of(
          "leader.replication.throttled.rate",
          "follower.replication.throttled.rate",
          "replica.alter.log.dirs.io.max.bytes.per.second");

  /** Kafka's topic configurations naming the throttled replicas (KIP-73). */
  static final Set<String> TOPIC_THROTTLE_KEYS =
      Set.of("leader.replication.throttled.replicas", "follower.replication.throttled.replicas");

  /** Kafka's config source of a described Spool entry. */
  static byte source(DescribeConfigsResponse.ConfigEntry e) {
    return e.getIsDefault() ? DEFAULT_CONFIG : DYNAMIC_TOPIC_CONFIG;
  }

  /** Kafka's config type (DescribeConfigs v3+) of a Spool topic key. */
  private static byte type(String name) {
    for (ConfigKey<?> k : TopicConfig.DEF.keys()) {
      if (k.name().equals(name)) {
        return switch (k.typeName()) {
          case "boolean" -> 1;
          case "string" -> 2;
          case "int" -> 3;
          case "long" -> 5;
          case "list" -> 7;
          default -> 0;
        };
      }
    }
    return 0;
  }

  // ---------------------------------------------------------------- DescribeConfigs

  /** The topic names to describe, in request order. */
  public static DescribeConfigsRequest describeToSpool(KafkaRequest r) {
    DescribeConfigsRequestData req = r.body();
    DescribeConfigsRequest.Builder b = DescribeConfigsRequest.newBuilder();
    for (DescribeConfigsRequestData.DescribeConfigsResource res : req.resources()) {
      if (res.resourceType() == TOPIC) {
        b.addTopics(res.resourceName());
      }
    }
    return b.build();
  }

  public static KafkaResponse describeToKafka(KafkaRequest r, DescribeConfigsResponse resp) {
    DescribeConfigsRequestData req = r.body();
    Iterator<DescribeConfigsResponse.Result> topics = resp.getTopicsList().iterator();
    List<DescribeConfigsResponseData.DescribeConfigsResult> out = new ArrayList<>();
    for (DescribeConfigsRequestData.DescribeConfigsResource res : req.resources()) {
      DescribeConfigsResponseData.DescribeConfigsResult kr =
          new DescribeConfigsResponseData.DescribeConfigsResult()
              .setResourceType(res.resourceType())
              .setResourceName(res.resourceName());
      byte type = res.resourceType();
      if (type == TOPIC) {
        DescribeConfigsResponse.Result t = topics.next();
        kr.setErrorCode(KafkaErrors.code(t.getErrorCode()))
            .setErrorMessage(KafkaErrors.message(t.getErrorMessage()));
        Set<String> keys =
            res.configurationKeys() == null ? null : new LinkedHashSet<>(res.configurationKeys());
        for (DescribeConfigsResponse.ConfigEntry e : t.getEntriesList()) {
          if (keys == null || keys.contains(e.getKey())) {
            kr.configs().add(entry(e, req, r.version()));
          }
        }
      } else if (type != BROKER && type != BROKER_LOGGER && type != GROUP) {
        kr.setErrorCode(Errors.INVALID_REQUEST.code())
            .setErrorMessage("Spool describes topic, broker and group configurations only");
      }
      out.add(kr);
    }
    return r.respond(new DescribeConfigsResponseData().setThrottleTimeMs(0).setResults(out));
  }

  private static DescribeConfigsResponseData.DescribeConfigsResourceResult entry(
      DescribeConfigsResponse.ConfigEntry e, DescribeConfigsRequestData req, short version) {
    DescribeConfigsResponseData.DescribeConfigsResourceResult c =
        new DescribeConfigsResponseData.DescribeConfigsResourceResult()
            .setName(e.getKey())
            .setValue(e.getValue())
            .setReadOnly(false)
            .setConfigSource(source(e))
            .setIsSensitive(false)
            .setConfigType(type(e.getKey()));
    if (req.includeSynonyms()) {
      c.synonyms()
          .add(
              new DescribeConfigsResponseData.DescribeConfigsSynonym()
                  .setName(e.getKey())
                  .setValue(e.getValue())
                  .setSource(source(e)));
    }
    if (version >= 3 && req.includeDocumentation()) {
      c.setDocumentation(e.getDoc());
    }
    return c;
  }

  // ---------------------------------------------------------------- AlterConfigs

  /**
   * A translated (Incremental)AlterConfigs: the topic changes for Spool, and the answer of every
   * resource Spool is not asked about (refused here), in request order.
   */
  /**
   * One resource of an alter request; {@code refusal} set when Spool is not asked about it, {@code
   * throttle} when it sets or removes Kafka's replication throttle (answered by the cluster
   * throttle's change).
   */
  private record Resource(byte type, String name, String refusal, boolean throttle) {
    Resource(byte type, String name, String refusal) {
      this(type, name, refusal, false);
    }
  }

  public static final class AlterCall {
    private final AlterConfigsRequest request;
    private final List<Resource> resources;
    private final long throttle;

    private AlterCall(AlterConfigsRequest request, List<Resource> resources) {
      this(request, resources, -1);
    }

    private AlterCall(AlterConfigsRequest request, List<Resource> resources, long throttle) {
      this.request = request;
      this.resources = resources;
      this.throttle = throttle;
    }

    public AlterConfigsRequest request() {
      return request;
    }

    /**
     * The cluster replication throttle the request's broker resources set (0: they remove it), to
     * be sent as an AlterPartitionReassignments without partitions; empty when none does or the
     * request only validates.
     */
    public java.util.OptionalLong throttle() {
      return throttle < 0 || request.getValidateOnly()
          ? java.util.OptionalLong.empty()
          : java.util.OptionalLong.of(throttle);
    }
  }

  public static AlterCall alterToSpool(KafkaRequest r, MetadataImage image) {
    AlterConfigsRequestData req = r.body();
    AlterConfigsRequest.Builder b =
        AlterConfigsRequest.newBuilder().setValidateOnly(req.validateOnly());
    List<Resource> resources = new ArrayList<>();
    for (AlterConfigsRequestData.AlterConfigsResource res : req.resources()) {
      String refusal = refusal(res.resourceType());
      if (refusal == null) {
        AlterConfigsRequest.Topic.Builder t =
            AlterConfigsRequest.Topic.newBuilder().setName(res.resourceName());
        Set<String> named = new LinkedHashSet<>();
        for (AlterConfigsRequestData.AlterableConfig c : res.configs()) {
          named.add(c.name());
          if (c.value() == null) {
            t.addDelete(c.name());
          } else {
            t.putSet(c.name(), c.value());
          }
        }
        TopicImage ti = image.topic(res.resourceName());
        if (ti != null) {
          ti.configs().keySet().stream().filter(k -> !named.contains(k)).forEach(t::addDelete);
        }
        b.addTopics(t);
      }
      resources.add(new Resource(res.resourceType(), res.resourceName(), refusal));
    }
    return new AlterCall(b.build(), resources);
  }

  public static AlterCall incrementalAlterToSpool(KafkaRequest r, MetadataImage image) {
    IncrementalAlterConfigsRequestData req = r.body();
    AlterConfigsRequest.Builder b =
        AlterConfigsRequest.newBuilder().setValidateOnly(req.validateOnly());
    List<Resource> resources = new ArrayList<>();
    long throttle = -1;
    for (IncrementalAlterConfigsRequestData.AlterConfigsResource res : req.resources()) {
      if (res.resourceType() == BROKER && onlyKeys(res, BROKER_THROTTLE_KEYS)) {
        String bad = null;
        for (IncrementalAlterConfigsRequestData.AlterableConfig c : res.configs()) {
          long v = throttleValue(c);
          if (v < 0) {
            bad = throttleRefusal(c);
            break;
          }
          throttle = Math.max(throttle, v);
        }
        resources.add(new Resource(res.resourceType(), res.resourceName(), bad, bad == null));
        continue;
      }
      String refusal = refusal(res.resourceType());
      if (refusal == null) {
        AlterConfigsRequest.Topic.Builder t =
            AlterConfigsRequest.Topic.newBuilder().setName(res.resourceName());
        TopicImage ti = image.topic(res.resourceName());
        for (IncrementalAlterConfigsRequestData.AlterableConfig c : res.configs()) {
          if (TOPIC_THROTTLE_KEYS.contains(c.name())) {
            continue; // Spool throttles exactly a move's adding replicas; the topic still goes to
            // Spool, which checks it exists
          }
          refusal = apply(t, c, ti);
          if (refusal != null) {
            break;
          }
        }
        if (refusal == null) {
          b.addTopics(t);
        }
      }
      resources.add(new Resource(res.resourceType(), res.resourceName(), refusal));
    }
    return new AlterCall(b.build(), resources, throttle);
  }

  /**
   * The throttle one operation asks for: the rate a SET of leader or follower
   * .replication.throttled.rate names, 0 for a DELETE (the throttle goes), -1 when Spool refuses it
   * ({@link #throttleRefusal}).
   */
  private static long throttleValue(IncrementalAlterConfigsRequestData.AlterableConfig c) {
    if (c.configOperation() == DELETE) {
      return 0;
    }
    if (c.configOperation() != SET
        || c.name().equals("replica.alter.log.dirs.io.max.bytes.per.second")) {
      return -1;
    }
    try {
      return c.value() == null ? -1 : Math.max(-1, Long.parseLong(c.value().trim()));
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  private static String throttleRefusal(IncrementalAlterConfigsRequestData.AlterableConfig c) {
    if (c.name().equals("replica.alter.log.dirs.io.max.bytes.per.second")) {
      return "Spool has one data directory per broker: no replica moves between directories to"
          + " throttle";
    }
    if (c.configOperation() != SET) {
      return c.name() + " takes SET or DELETE, not operation " + c.configOperation();
    }
    return c.name() + " must be a number of bytes/s, 0 or more; got '" + c.value() + "'";
  }

  /** Whether {@code res} has operations and each is on one of {@code keys}. */
  private static boolean onlyKeys(
      IncrementalAlterConfigsRequestData.AlterConfigsResource res, Set<String> keys) {
    return !res.configs().isEmpty()
        && res.configs().stream().allMatch(c -> keys.contains(c.name()));
  }

  /** Adds one incremental operation to {@code t}; the reason it is refused, or null. */
  private static String apply(
      AlterConfigsRequest.Topic.Builder t,
      IncrementalAlterConfigsRequestData.AlterableConfig c,
      TopicImage ti) {
    switch (c.configOperation()) {
      case SET -> {
        if (c.value() == null) {
          return "SET of " + c.name() + " needs a value";
        }
        t.putSet(c.name(), c.value());
      }
      case DELETE -> t.addDelete(c.name());
      case APPEND, SUBTRACT -> {
        List<String> items = new ArrayList<>(list(current(t, c.name(), ti)));
        List<String> given = list(c.value() == null ? "" : c.value());
        if (c.configOperation() == APPEND) {
          given.stream().filter(v -> !items.contains(v)).forEach(items::add);
        } else {
          items.removeAll(given);
        }
        t.putSet(c.name(), String.join(",", items));
      }
      default -> {
        return "unknown config operation " + c.configOperation();
      }
    }
    return null;
  }

  /** The value a key has for {@code t}: what this request set, the override, else the default. */
  private static String current(AlterConfigsRequest.Topic.Builder t, String key, TopicImage ti) {
    if (t.getSetMap().containsKey(key)) {
      return t.getSetMap().get(key);
    }
    if (ti != null && ti.configs().containsKey(key)) {
      return ti.configs().get(key);
    }
    Config effective = ti == null ? TopicConfig.DEF.defaults() : ti.config();
    for (ConfigKey<?> k : TopicConfig.DEF.keys()) {
      if (k.name().equals(key)) {
        return k.render(effective.get(k));
      }
    }
    return "";
  }

  private static List<String> list(String value) {
    List<String> out = new ArrayList<>();
    Arrays.stream(value.split(",")).map(String::trim).filter(s -> !s.isEmpty()).forEach(out::add);
    return out;
  }

  private static String refusal(byte type) {
    if (type == TOPIC) {
      return null;
    }
    if (type == BROKER || type == BROKER_LOGGER || type == GROUP) {
      return "Spool has no dynamic broker, logger or group configurations: its broker settings"
          + " are the node's configuration file";
    }
    return "unknown resource type " + type;
  }

  public static KafkaResponse alterToKafka(
      KafkaRequest r, AlterCall call, AlterConfigsResponse resp) {
    List<AlterConfigsResponseData.AlterConfigsResourceResponse> out = new ArrayList<>();
    for (Result x : results(call, resp, null)) {
      out.add(
          new AlterConfigsResponseData.AlterConfigsResourceResponse()
              .setResourceType(x.type)
              .setResourceName(x.name)
              .setErrorCode(x.error)
              .setErrorMessage(x.message));
    }
    return r.respond(new AlterConfigsResponseData().setThrottleTimeMs(0).setResponses(out));
  }

  /**
   * @param throttled the answer to the throttle change {@link AlterCall#throttle} asked for; null
   *     when none was sent
   */
  public static KafkaResponse incrementalAlterToKafka(
      KafkaRequest r,
      AlterCall call,
      AlterConfigsResponse resp,
      dev.spool.protocol.message.AlterPartitionReassignmentsResponse throttled) {
    List<IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse> out = new ArrayList<>();
    for (Result x : results(call, resp, throttled)) {
      out.add(
          new IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse()
              .setResourceType(x.type)
              .setResourceName(x.name)
              .setErrorCode(x.error)
              .setErrorMessage(x.message));
    }
    return r.respond(
        new IncrementalAlterConfigsResponseData().setThrottleTimeMs(0).setResponses(out));
  }

  private record Result(byte type, String name, short error, String message) {}

  private static List<Result> results(
      AlterCall call,
      AlterConfigsResponse resp,
      dev.spool.protocol.message.AlterPartitionReassignmentsResponse throttled) {
    Map<String, AlterConfigsResponse.Result> byTopic = new LinkedHashMap<>();
    resp.getTopicsList().forEach(t -> byTopic.put(t.getName(), t));
    List<Result> out = new ArrayList<>();
    for (Resource res : call.resources) {
      if (res.refusal() != null) {
        out.add(new Result(res.type(), res.name(), Errors.INVALID_REQUEST.code(), res.refusal()));
        continue;
      }
      if (res.throttle()) {
        ErrorCode code = throttled == null ? ErrorCode.NONE : throttled.getErrorCode();
        out.add(
            new Result(
                res.type(),
                res.name(),
                KafkaErrors.code(code),
                code == ErrorCode.NONE ? null : KafkaErrors.message(throttled.getErrorMessage())));
        continue;
      }
      AlterConfigsResponse.Result t = byTopic.get(res.name());
      ErrorCode code = t == null ? ErrorCode.UNKNOWN_SERVER_ERROR : t.getErrorCode();
      out.add(
          new Result(
              res.type(),
              res.name(),
              KafkaErrors.code(code),
              t == null
                  ? "no answer for topic " + res.name()
                  : KafkaErrors.message(t.getErrorMessage())));
    }
    return out;
  }
}
