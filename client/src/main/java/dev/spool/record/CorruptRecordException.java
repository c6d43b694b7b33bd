package dev.spool.record;

/**
 * Bytes that do not form a valid record batch or record: a length past the end, a bad magic, a CRC
 * mismatch, a malformed varint. The message says what is wrong; {@link #position()} says where (a
 * byte position in the buffer or file that was being read, or -1 when unknown).
 */
public class CorruptRecordException extends RuntimeException {
  private final long position;

  public CorruptRecordException(String message, long position) {
    super(position >= 0 ? message + " (at position " + position + ")" : message);
    this.position = position;
  }

  /** The byte position of the bad batch or field, or -1 when unknown. */
  public long position() {
    return position;
  }
}
