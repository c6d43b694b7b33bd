package dev.spool.record;

/**
 * Records of a compressed batch were asked for, but Spool does not decompress (yet). Compressed
 * batches are stored and served as opaque bytes; only their records cannot be iterated. Thrown
 * instead of returning wrong data.
 */
public class UnsupportedCompressionException extends RuntimeException {
  private final CompressionType compressionType;

  public UnsupportedCompressionException(CompressionType compressionType, long position) {
    super(
        "cannot iterate the records of a "
            + compressionType.displayName()
            + "-compressed batch (codec id "
            + compressionType.id()
            + ") at position "
            + position
            + ": record-level decompression is not supported");
    this.compressionType = compressionType;
  }

  public CompressionType compressionType() {
    return compressionType;
  }
}
