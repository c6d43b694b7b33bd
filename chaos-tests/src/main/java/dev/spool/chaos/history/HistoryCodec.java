package dev.spool.chaos.history;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.KeyDeserializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import dev.spool.common.TopicPartition;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * JSON for history lines, verdicts and timelines: one configured {@link ObjectMapper}. A {@link
 * TopicPartition} is written as its string form {@code "topic-3"}, also as a map key, so a history
 * is easy to grep.
 */
public final class HistoryCodec {
  private static final ObjectMapper MAPPER = newMapper();

  private HistoryCodec() {}

  /** The shared mapper (thread-safe once configured). Compact output, sorted map keys. */
  public static ObjectMapper mapper() {
    return MAPPER;
  }

  /** One history line, without the trailing newline. */
  public static String encode(HistoryEntry entry) {
    try {
      return MAPPER.writerFor(HistoryEntry.class).writeValueAsString(entry);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Parses one history line; throws {@link IOException} naming the problem if it is not valid. */
  public static HistoryEntry decode(String line) throws IOException {
    return MAPPER.readValue(line, HistoryEntry.class);
  }

  private static ObjectMapper newMapper() {
    SimpleModule module = new SimpleModule("spool-chaos");
    module.addSerializer(TopicPartition.class, new TopicPartitionSerializer());
    module.addDeserializer(TopicPartition.class, new TopicPartitionDeserializer());
    module.addKeyDeserializer(TopicPartition.class, new TopicPartitionKeyDeserializer());
    // Map keys use toString(), which is the "topic-3" form already.
    return JsonMapper.builder()
        .addModule(module)
        .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
        .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
        .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
        .build();
  }

  private static final class TopicPartitionSerializer extends JsonSerializer<TopicPartition> {
    @Override
    public void serialize(TopicPartition tp, JsonGenerator gen, SerializerProvider serializers)
        throws IOException {
      gen.writeString(tp.toString());
    }
  }

  private static final class TopicPartitionDeserializer extends JsonDeserializer<TopicPartition> {
    @Override
    public TopicPartition deserialize(JsonParser p, DeserializationContext ctxt)
        throws IOException {
      return TopicPartition.parse(p.getValueAsString());
    }
  }

  private static final class TopicPartitionKeyDeserializer extends KeyDeserializer {
    @Override
    public Object deserializeKey(String key, DeserializationContext ctxt) {
      return TopicPartition.parse(key);
    }
  }
}
