// The Kafka side of scripts/bench-compaction.sh: creates TOPIC (1 partition, 16 MiB segments,
// cleanup.policy=delete), produces the keyed data set of Spool's CleanerThroughputCheck (the same
// generator, KeyedEvents from data-plane's test classes), then switches the topic to compact so
// the broker's cleaner cleans it once.
//   java -cp "$KA_LIB/*:data-plane/target/test-classes" scripts/bench-compaction-kafka.java \
//     BOOTSTRAP TOPIC RECORDS KEYS
// Uncompressed, acks=1, ~16-record batches, as Spool's side writes them.
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import dev.spool.broker.log.bench.KeyedEvents;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

public class BenchCompactionKafka {
  public static void main(String[] args) throws Exception {
    String topic = args[1];
    Properties a = new Properties();
    a.put("bootstrap.servers", args[0]);
    try (Admin admin = Admin.create(a)) {
      NewTopic t =
          new NewTopic(topic, 1, (short) 1)
              .configs(Map.of("cleanup.policy", "delete", "segment.bytes", "16777216"));
      admin.createTopics(List.of(t)).all().get();
    }
    Properties p = new Properties();
    p.put("bootstrap.servers", args[0]);
    p.put("acks", "1");
    p.put("linger.ms", "5");
    p.put("batch.size", "17000");
    p.put("key.serializer", StringSerializer.class.getName());
    p.put("value.serializer", StringSerializer.class.getName());
    long records = Long.parseLong(args[2]);
    int keys = Integer.parseInt(args[3]);
    Random rnd = new Random(KeyedEvents.SEED);
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
      for (long i = 0; i < records; i++) {
        int key = rnd.nextInt(keys);
        producer.send(
            new ProducerRecord<>(topic, 0, KeyedEvents.key(key), KeyedEvents.value(rnd, key)));
      }
      producer.flush();
    }
    System.out.println("produced " + records + " records over " + keys + " keys");
    try (Admin admin = Admin.create(a)) {
      ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, topic);
      AlterConfigOp compact =
          new AlterConfigOp(new ConfigEntry("cleanup.policy", "compact"), AlterConfigOp.OpType.SET);
      admin.incrementalAlterConfigs(Map.of(r, List.of(compact))).all().get();
    }
    System.out.println("switched " + topic + " to cleanup.policy=compact");
  }
}
