package dev.spool.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringWriter;
import java.io.UncheckedIOException;

/**
 * Writes one compact JSON object per line (JSON lines) with Jackson's streaming generator, so
 * escaping is done right. Each {@link #write} builds the whole line first, then prints it at once.
 */
final class JsonLines {
  private static final JsonFactory FACTORY = new JsonFactory();

  /** Fills one JSON value (usually an object). */
  @FunctionalInterface
  interface Body {
    void write(JsonGenerator g) throws IOException;
  }

  private JsonLines() {}

  static String toJson(Body body) {
    StringWriter w = new StringWriter();
    try (JsonGenerator g = FACTORY.createGenerator(w)) {
      body.write(g);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return w.toString();
  }

  static void write(PrintStream out, Body body) {
    out.println(toJson(body));
    out.flush();
  }

  static void intArray(JsonGenerator g, String field, java.util.List<Integer> values)
      throws IOException {
    g.writeArrayFieldStart(field);
    for (int v : values) {
      g.writeNumber(v);
    }
    g.writeEndArray();
  }

  static void nullableString(JsonGenerator g, String field, String value) throws IOException {
    if (value == null) {
      g.writeNullField(field);
    } else {
      g.writeStringField(field, value);
    }
  }
}
