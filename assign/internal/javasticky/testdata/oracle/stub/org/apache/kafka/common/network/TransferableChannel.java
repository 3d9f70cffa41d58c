package org.apache.kafka.common.network;

import java.io.IOException;
import java.nio.ByteBuffer;

/** Stand-in: referenced by Kafka's Utils.tryWriteTo, which the oracle never runs. */
public interface TransferableChannel {
    int write(ByteBuffer src) throws IOException;
}
