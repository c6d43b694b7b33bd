package dev.spool.coordinator.group.core;

import com.google.protobuf.Message;

/**
 * One record of a coordinator partition: its type, key message and value message (null = a
 * tombstone). {@link GroupRecords} builds, encodes and decodes them. Immutable.
 */
public record CoordinatorRecord(RecordType type, Message key, Message value) {

  /** The record types; the number is the int16 at the start of every key. Never reuse one. */
  public enum RecordType {
    OFFSET_COMMIT(1),
    GROUP_METADATA(2),
    MEMBER_METADATA(3),
    TARGET_ASSIGNMENT_METADATA(4),
    TARGET_ASSIGNMENT_MEMBER(5),
    CURRENT_ASSIGNMENT(6),
    CLASSIC_GROUP(7);

    private final short id;

    RecordType(int id) {
      this.id = (short) id;
    }

    public short id() {
      return id;
    }

    public static RecordType fromId(short id) {
      for (RecordType t : values()) {
        if (t.id == id) {
          return t;
        }
      }
      return null;
    }
  }

  public boolean isTombstone() {
    return value == null;
  }
}
