package dev.spool.node;

/**
 * A node's data directories cannot be used as they are: not formatted, formatted for another
 * cluster or node, unreadable, or a voter's Raft storage lost. The message names the directory and
 * what to do; {@code spool node start} exits with code 3 and {@code spool storage format} with 1.
 */
public final class StorageException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public StorageException(String message) {
    super(message);
  }

  public StorageException(String message, Throwable cause) {
    super(message, cause);
  }
}
