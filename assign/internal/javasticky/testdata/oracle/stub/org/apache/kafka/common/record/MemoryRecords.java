package org.apache.kafka.common.record;

import java.nio.ByteBuffer;

/** Stand-in: the RECORDS type of Kafka's protocol, which the sticky user data never holds. */
public class MemoryRecords implements BaseRecords {
    public static final MemoryRecords EMPTY = new MemoryRecords();
    public static MemoryRecords readableRecords(ByteBuffer buffer) { throw new UnsupportedOperationException(); }
    public ByteBuffer buffer() { throw new UnsupportedOperationException(); }
    @Override public int sizeInBytes() { throw new UnsupportedOperationException(); }
}
