package dev.spool.protocol;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufInputStream;
import io.netty.buffer.ByteBufOutputStream;
import java.io.IOException;

/**
 * One protocol frame with its three sections, as a view over a received buffer.
 *
 * <pre>
 * Frame layout (all integers big-endian):
 *   int32  frameLength   bytes after this field; 8 <= frameLength <= max frame size
 *   int32  headerLength  bytes of the protobuf header (RequestHeader or ResponseHeader)
 *   bytes  header
 *   int32  bodyLength    bytes of the protobuf body (the API's request or response message)
 *   bytes  body
 *   bytes  recordData    frameLength - 8 - headerLength - bodyLength bytes of record batches,
 *                        split by the records_size fields the body declares, in body order
 * </pre>
 *
 * The frame decoder hands over {@code frame} without the leading length field; {@link #parse} only
 * slices it, so produce can append record data from the network buffer without a copy.
 */
public final class Frame {
  /** The fixed part of a frame after the length field: two section lengths. */
  public static final int SECTION_LENGTHS_BYTES = 8;

  /** Header size limit: headers are a few small fields; anything bigger is garbage. */
  public static final int MAX_HEADER_BYTES = 16 * 1024;

  private final ByteBuf header;
  private final ByteBuf body;
  private final ByteBuf recordData;

  private Frame(ByteBuf header, ByteBuf body, ByteBuf recordData) {
    this.header = header;
    this.body = body;
    this.recordData = recordData;
  }

  /** Slices {@code frame} (the bytes after frameLength) into its sections; no copy, no retain. */
  public static Frame parse(ByteBuf frame) {
    int total = frame.readableBytes();
    int base = frame.readerIndex();
    if (total < SECTION_LENGTHS_BYTES) {
      throw new InvalidFrameException(
          "frame of " + total + " bytes is shorter than its section lengths");
    }
    int headerLength = frame.getInt(base);
    if (headerLength < 0 || headerLength > MAX_HEADER_BYTES || 4 + headerLength + 4 > total) {
      throw new InvalidFrameException(
          "header length " + headerLength + " does not fit a frame of " + total + " bytes");
    }
    int bodyLength = frame.getInt(base + 4 + headerLength);
    int bodyStart = base + 8 + headerLength;
    if (bodyLength < 0 || (long) 8 + headerLength + bodyLength > total) {
      throw new InvalidFrameException(
          "body length " + bodyLength + " does not fit a frame of " + total + " bytes");
    }
    int recordsStart = bodyStart + bodyLength;
    return new Frame(
        frame.slice(base + 4, headerLength),
        frame.slice(bodyStart, bodyLength),
        frame.slice(recordsStart, base + total - recordsStart));
  }

  public ByteBuf header() {
    return header;
  }

  public ByteBuf body() {
    return body;
  }

  public ByteBuf recordData() {
    return recordData;
  }

  public <T> T parseHeader(Parser<T> parser) {
    return parseSection(header, parser, "header");
  }

  public <T> T parseBody(Parser<T> parser) {
    return parseSection(body, parser, "body");
  }

  private static <T> T parseSection(ByteBuf section, Parser<T> parser, String what) {
    try {
      if (section.hasArray()) {
        return parser.parseFrom(
            section.array(),
            section.arrayOffset() + section.readerIndex(),
            section.readableBytes());
      }
      if (section.nioBufferCount() == 1) {
        return parser.parseFrom(section.nioBuffer());
      }
      return parser.parseFrom(new ByteBufInputStream(section.duplicate()));
    } catch (InvalidProtocolBufferException e) {
      throw new InvalidFrameException("unparsable " + what + ": " + e.getMessage(), e);
    }
  }

  /**
   * Encodes the length field, header and body of a frame whose {@code recordDataBytes} of record
   * data the caller writes next (as buffers or file regions). The returned buffer is all the caller
   * needs to write before the record data.
   */
  public static ByteBuf encodePrefix(
      ByteBufAllocator alloc, MessageLite header, MessageLite body, long recordDataBytes) {
    int headerLength = header.getSerializedSize();
    int bodyLength = body.getSerializedSize();
    long frameLength = SECTION_LENGTHS_BYTES + (long) headerLength + bodyLength + recordDataBytes;
    if (frameLength > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("frame of " + frameLength + " bytes is too large");
    }
    ByteBuf out = alloc.buffer(4 + SECTION_LENGTHS_BYTES + headerLength + bodyLength);
    try {
      out.writeInt((int) frameLength);
      out.writeInt(headerLength);
      writeMessage(out, header, headerLength);
      out.writeInt(bodyLength);
      writeMessage(out, body, bodyLength);
      return out;
    } catch (RuntimeException e) {
      out.release();
      throw e;
    }
  }

  private static void writeMessage(ByteBuf out, MessageLite m, int size) {
    if (size == 0) {
      return;
    }
    try {
      if (out.hasArray()) {
        out.ensureWritable(size);
        CodedOutputStream cos =
            CodedOutputStream.newInstance(out.array(), out.arrayOffset() + out.writerIndex(), size);
        m.writeTo(cos);
        cos.checkNoSpaceLeft();
        out.writerIndex(out.writerIndex() + size);
      } else {
        m.writeTo(new ByteBufOutputStream(out));
      }
    } catch (IOException e) {
      throw new IllegalStateException("protobuf encoding into memory failed", e);
    }
  }
}
