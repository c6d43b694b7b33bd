package dev.spool.chaos.fuzz;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.EnumDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import java.util.List;
import java.util.Random;

/**
 * Structure-aware mutations of a protobuf request: one field somewhere in the message tree gets a
 * value a decoder accepts and a handler may not expect — an extreme or negative number, an empty,
 * very long or path-like string, an enum number the schema does not have, a repeated field cleared
 * or with one element repeated up to a thousand times. The result still parses, so these mutants
 * reach the handlers, where byte-level ones mostly stop at the decoder.
 */
final class FieldMutations {
  private static final int[] INTS = {-1, -2, 0, 1, Integer.MIN_VALUE, Integer.MAX_VALUE, 1 << 30};
  private static final long[] LONGS = {-1L, -2L, 0L, Long.MIN_VALUE, Long.MAX_VALUE, 1L << 40};
  private static final String[] STRINGS = {
    "", "../../etc/passwd", "a/b", "\u0000", "ünïcödé-☃", ".", "..", "*", " ", "fuzz\n"
  };

  private FieldMutations() {}

  /** {@code m} with one field, chosen at random at any depth, changed. */
  static Message apply(Random random, Message m) {
    Message.Builder b = m.toBuilder();
    mutate(random, b, 0);
    return b.build();
  }

  private static void mutate(Random random, Message.Builder b, int depth) {
    List<FieldDescriptor> fields = b.getDescriptorForType().getFields();
    if (fields.isEmpty()) {
      return;
    }
    FieldDescriptor f = fields.get(random.nextInt(fields.size()));
    if (f.isRepeated()) {
      mutateRepeated(random, b, f, depth);
    } else if (f.getJavaType() == FieldDescriptor.JavaType.MESSAGE && depth < 6) {
      Message.Builder sub = ((Message) b.getField(f)).toBuilder();
      mutate(random, sub, depth + 1);
      b.setField(f, sub.build());
    } else {
      b.setField(f, value(random, f));
    }
  }

  private static void mutateRepeated(
      Random random, Message.Builder b, FieldDescriptor f, int depth) {
    int count = b.getRepeatedFieldCount(f);
    int choice = random.nextInt(4);
    if (choice == 0) {
      b.clearField(f);
    } else if (choice == 1 && count > 0) {
      Object element = b.getRepeatedField(f, random.nextInt(count));
      int copies = 1 + random.nextInt(random.nextBoolean() ? 4 : 1000);
      for (int i = 0; i < copies; i++) {
        b.addRepeatedField(f, element);
      }
    } else if (count > 0) {
      int i = random.nextInt(count);
      if (f.getJavaType() == FieldDescriptor.JavaType.MESSAGE && depth < 6) {
        Message.Builder sub = ((Message) b.getRepeatedField(f, i)).toBuilder();
        mutate(random, sub, depth + 1);
        b.setRepeatedField(f, i, sub.build());
      } else if (f.getJavaType() != FieldDescriptor.JavaType.MESSAGE) {
        b.setRepeatedField(f, i, value(random, f));
      }
    } else if (f.getJavaType() != FieldDescriptor.JavaType.MESSAGE) {
      b.addRepeatedField(f, value(random, f));
    }
  }

  private static Object value(Random random, FieldDescriptor f) {
    return switch (f.getJavaType()) {
      case INT -> INTS[random.nextInt(INTS.length)];
      case LONG -> LONGS[random.nextInt(LONGS.length)];
      case BOOLEAN -> random.nextBoolean();
      case FLOAT -> Float.NaN;
      case DOUBLE -> Double.NaN;
      case STRING ->
          random.nextInt(8) == 0
              ? "x".repeat(1 + random.nextInt(70_000))
              : STRINGS[random.nextInt(STRINGS.length)];
      case BYTE_STRING -> ByteString.copyFrom(new byte[random.nextInt(64)]);
      case ENUM -> {
        EnumDescriptor e = f.getEnumType();
        yield random.nextBoolean()
            ? e.getValues().get(random.nextInt(e.getValues().size()))
            : e.findValueByNumberCreatingIfUnknown(random.nextInt(2000) - 1000);
      }
      case MESSAGE -> throw new IllegalArgumentException("a message has no scalar value");
    };
  }
}
