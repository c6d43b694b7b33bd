package dev.spool.broker.log;

/**
 * An I/O failure on a partition's files (disk full, permission, vanished file). The message names
 * the file and partition; the cause is the IOException.
 */
public class LogStorageException extends RuntimeException {
  public LogStorageException(String message) {
    super(message);
  }

  public LogStorageException(String message, Throwable cause) {
    super(message, cause);
  }
}
