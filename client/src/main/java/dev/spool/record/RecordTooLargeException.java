package dev.spool.record;

/** A batch (or a record being added to one) is larger than the configured limit. */
public class RecordTooLargeException extends RuntimeException {
  private final int sizeInBytes;
  private final int limitBytes;

  public RecordTooLargeException(String what, int sizeInBytes, int limitBytes) {
    super(
        what + " is " + sizeInBytes + " bytes, larger than the limit of " + limitBytes + " bytes");
    this.sizeInBytes = sizeInBytes;
    this.limitBytes = limitBytes;
  }

  public int sizeInBytes() {
    return sizeInBytes;
  }

  public int limitBytes() {
    return limitBytes;
  }
}
