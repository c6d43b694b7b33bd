package dev.spool.protocol;

/**
 * Accounts the bytes a server's {@link FrameDecoder} holds for frames that are arriving or have
 * arrived and are not yet released, so that a length prefix alone reserves nothing: memory is
 * reserved as a frame's bytes arrive (the broker's request memory pool, {@code
 * queued.max.request.bytes}). Whoever consumes a frame releases its readable bytes when done.
 *
 * <p>Thread-safe: every connection's event loop reserves and releases.
 */
public interface FrameMemory {
  /**
   * Fired through the pipeline (a user event) after a reservation left the memory exhausted, so
   * that the handler that controls reading can stop reading until memory is released.
   */
  Object EXHAUSTED = "frame memory exhausted";

  void reserve(long bytes);

  void release(long bytes);

  boolean exhausted();
}
