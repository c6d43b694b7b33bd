package dev.spool.record;

/**
 * A batch that is intact (its CRC matches) but breaks a rule of the format or of the partition:
 * e.g. a record count that disagrees with the last offset delta, or inner offsets that are not
 * consecutive. The message says which rule.
 */
public class InvalidRecordException extends RuntimeException {
  public InvalidRecordException(String message) {
    super(message);
  }
}
