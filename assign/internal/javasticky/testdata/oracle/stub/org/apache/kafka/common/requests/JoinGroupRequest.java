package org.apache.kafka.common.requests;

/** Stand-in: ConsumerGroupMetadata's convenience constructor, which the oracle never calls, reads these. */
public final class JoinGroupRequest {
    private JoinGroupRequest() {}
    public static final int UNKNOWN_GENERATION_ID = -1;
    public static final String UNKNOWN_MEMBER_ID = "";
}
