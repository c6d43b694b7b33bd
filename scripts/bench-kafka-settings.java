// Prints the Kafka client settings scripts/bench.sh compares Spool against, read from the Kafka jars
// of the run rather than from documentation (defaults change between versions: linger.ms went from
// 0 to 5 in Kafka 4.0): the producer and consumer defaults, and what ConsumerPerformance sets on top
// of them. Run with the Java source launcher:
//
//   java -cp "KAFKA_LIB/*" scripts/bench-kafka-settings.java
//
// Output: one key=value a line, "producer.default.K", "consumer.default.K", "consumerperf.set.K".

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.tools.ConsumerPerformance;

public final class BenchKafkaSettings {
  private static final String[] PRODUCER = {
    "acks",
    "enable.idempotence",
    "batch.size",
    "linger.ms",
    "buffer.memory",
    "max.in.flight.requests.per.connection",
    "compression.type",
    "max.request.size"
  };
  private static final String[] CONSUMER = {
    "fetch.min.bytes",
    "fetch.max.wait.ms",
    "fetch.max.bytes",
    "max.partition.fetch.bytes",
    "max.poll.records",
    "check.crcs",
    "receive.buffer.bytes"
  };

  public static void main(String[] args) throws Exception {
    Map<String, Object> producer = ProducerConfig.configDef().defaultValues();
    for (String k : PRODUCER) {
      System.out.println("producer.default." + k + "=" + producer.get(k));
    }
    Map<String, Object> consumer = ConsumerConfig.configDef().defaultValues();
    for (String k : CONSUMER) {
      System.out.println("consumer.default." + k + "=" + consumer.get(k));
    }
    // The properties ConsumerPerformance builds from its default options (no consumer is created).
    // Its options class is not public: reached by reflection, as a test of the tool would.
    String[] perfArgs = {"--bootstrap-server", "127.0.0.1:9", "--topic", "t", "--num-records", "1"};
    Class<?> options = Class.forName(ConsumerPerformance.class.getName() + "$ConsumerPerfOptions");
    Constructor<?> create = options.getDeclaredConstructor(String[].class);
    create.setAccessible(true);
    Method props = options.getDeclaredMethod("props");
    props.setAccessible(true);
    Properties perf = (Properties) props.invoke(create.newInstance((Object) perfArgs));
    for (String k : CONSUMER) {
      if (perf.containsKey(k)) {
        System.out.println("consumerperf.set." + k + "=" + perf.get(k));
      }
    }
  }
}
