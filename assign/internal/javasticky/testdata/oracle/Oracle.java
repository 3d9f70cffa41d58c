package org.apache.kafka.clients.consumer;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;

import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupAssignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.types.Schema;
import org.apache.kafka.common.protocol.types.Field;
import org.apache.kafka.common.protocol.types.Struct;
import org.apache.kafka.common.protocol.types.Type;

/**
 * Reads groups in assigncalc's JSON contract, one per line on stdin, hands
 * each to a fresh Kafka StickyAssignor ("sticky") or CooperativeStickyAssignor
 * ("cooperative-sticky") through ConsumerPartitionAssignor.assign(Cluster,
 * GroupSubscription), as a Java group leader does, and prints one JSON line
 * per group: {"name": ..., "assignment": {member: {topic: [partitions]}}}
 * (partitions sorted, repeats kept) or {"name": ..., "error": "Class: message"}.
 *
 * It lives in Kafka's package only to reach StickyAssignor's package-private
 * user data schemas. The conventions (assign/internal/javasticky's doc):
 * subscriptions are a HashMap filled in the listed order; topics sorted and
 * deduplicated; owned partitions sorted by (topic, partition); eager sticky
 * gets its previous assignment as user data (V1 with the generation when one
 * is given, V0 without, none when it owned nothing) and no ownedPartitions;
 * cooperative gets ownedPartitions and as user data the encoded generation;
 * the Subscription's generationId is the generation or -1 and its
 * groupInstanceId and rackId as given; one PartitionInfo per partition with
 * one replica Node per listed rack (Node.noNode() when none is listed, the
 * list is null or empty).
 */
public final class Oracle {
    public static void main(String[] args) throws Exception {
        boolean cooperative = args[0].equals("cooperative-sticky");
        // An optional limit in seconds per group: Kafka 3.5.0's isBalanced
        // (before KAFKA-15106) can keep the general path busy for minutes.
        long limit = args.length > 1 ? Long.parseLong(args[1]) : 0;
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) continue;
            out.println(limit > 0 ? answerWithin(line, cooperative, limit) : answer(line, cooperative));
        }
        out.flush();
    }

    /**
     * answer, or {"name": ..., "unfinished": true} when Kafka's assignor has
     * not returned within limit seconds (the call is then stopped).
     */
    @SuppressWarnings({"deprecation", "removal"})
    static String answerWithin(String line, boolean cooperative, long limit) throws InterruptedException {
        String[] result = new String[1];
        Thread t = new Thread(() -> result[0] = answer(line, cooperative));
        t.setDaemon(true);
        t.start();
        t.join(limit * 1000);
        if (!t.isAlive()) return result[0];
        t.stop();
        t.join();
        @SuppressWarnings("unchecked")
        Map<String, Object> g = (Map<String, Object>) new Json(line).value();
        StringBuilder sb = new StringBuilder("{\"name\":");
        Json.quote(sb, String.valueOf(g.getOrDefault("name", "")));
        return sb.append(",\"unfinished\":true}").toString();
    }

    static String answer(String line, boolean cooperative) {
        @SuppressWarnings("unchecked")
        Map<String, Object> g = (Map<String, Object>) new Json(line).value();
        StringBuilder sb = new StringBuilder("{\"name\":");
        Json.quote(sb, String.valueOf(g.getOrDefault("name", "")));
        List<String> listed = new ArrayList<>();
        try {
            Group group = new Group(g, cooperative, listed);
            ConsumerPartitionAssignor assignor = cooperative ? new CooperativeStickyAssignor() : new StickyAssignor();
            GroupAssignment ga = assignor.assign(group.cluster, new GroupSubscription(group.subscriptions));
            sb.append(",\"assignment\":{");
            boolean first = true;
            for (String id : listed) {
                if (!first) sb.append(',');
                first = false;
                Json.quote(sb, id);
                sb.append(":{");
                TreeMap<String, List<Integer>> byTopic = new TreeMap<>();
                ConsumerPartitionAssignor.Assignment a = ga.groupAssignment().get(id);
                if (a != null) {
                    for (TopicPartition tp : a.partitions()) {
                        byTopic.computeIfAbsent(tp.topic(), k -> new ArrayList<>()).add(tp.partition());
                    }
                }
                boolean firstTopic = true;
                for (Map.Entry<String, List<Integer>> e : byTopic.entrySet()) {
                    Collections.sort(e.getValue());
                    if (!firstTopic) sb.append(',');
                    firstTopic = false;
                    Json.quote(sb, e.getKey());
                    sb.append(":").append(e.getValue().toString().replace(" ", ""));
                }
                sb.append('}');
            }
            sb.append("}}");
        } catch (RuntimeException e) {
            sb.setLength(0);
            sb.append("{\"name\":");
            Json.quote(sb, String.valueOf(g.getOrDefault("name", "")));
            sb.append(",\"error\":");
            Json.quote(sb, e.getClass().getSimpleName() + ": " + e.getMessage());
            sb.append('}');
        }
        return sb.toString();
    }

    private static final Schema COOPERATIVE_USER_DATA_V0 = new Schema(new Field("generation", Type.INT32));

    /** What the leader holds after the JoinGroup response. */
    static final class Group {
        final Map<String, Subscription> subscriptions = new HashMap<>();
        final Cluster cluster;

        @SuppressWarnings("unchecked")
        Group(Map<String, Object> g, boolean cooperative, List<String> listed) {
            Map<String, Object> topics = (Map<String, Object>) g.getOrDefault("topics", Map.of());
            Map<String, Object> racks = (Map<String, Object>) g.getOrDefault("partitionRacks", Map.of());
            List<PartitionInfo> parts = new ArrayList<>();
            Map<String, Node> nodes = new LinkedHashMap<>();
            Node[] none = new Node[] {Node.noNode()};
            for (Map.Entry<String, Object> e : topics.entrySet()) {
                int n = ((Number) e.getValue()).intValue();
                List<Object> topicRacks = (List<Object>) racks.get(e.getKey());
                for (int p = 0; p < n; p++) {
                    Node[] replicas = none;
                    if (topicRacks != null && topicRacks.get(p) != null && !((List<Object>) topicRacks.get(p)).isEmpty()) {
                        List<Object> rs = (List<Object>) topicRacks.get(p);
                        replicas = new Node[rs.size()];
                        for (int r = 0; r < rs.size(); r++) {
                            String rack = (String) rs.get(r);
                            replicas[r] = nodes.computeIfAbsent(rack, k -> new Node(nodes.size(), "host-" + k, 9092, k));
                        }
                    }
                    parts.add(new PartitionInfo(e.getKey(), p, replicas[0], replicas, replicas));
                }
            }
            cluster = new Cluster("oracle", new ArrayList<>(nodes.values()), parts, Collections.emptySet(), Collections.emptySet());

            for (Object o : (List<Object>) g.getOrDefault("members", List.of())) {
                Map<String, Object> m = (Map<String, Object>) o;
                String id = (String) m.get("id");
                listed.add(id);
                List<String> subscribed = new ArrayList<>(new TreeSet<>((List<String>) (List<?>) m.getOrDefault("topics", List.of())));
                List<TopicPartition> owned = new ArrayList<>();
                for (Map.Entry<String, Object> e : ((Map<String, Object>) m.getOrDefault("owned", Map.of())).entrySet()) {
                    for (Object p : (List<Object>) e.getValue()) owned.add(new TopicPartition(e.getKey(), ((Number) p).intValue()));
                }
                owned.sort((a, b) -> {
                    int c = a.topic().compareTo(b.topic());
                    return c != 0 ? c : Integer.compare(a.partition(), b.partition());
                });
                int generation = m.containsKey("generation") ? ((Number) m.get("generation")).intValue() : -1;
                Optional<String> rack = Optional.ofNullable((String) m.get("rack"));
                Subscription s;
                if (cooperative) {
                    Struct struct = new Struct(COOPERATIVE_USER_DATA_V0);
                    struct.set("generation", generation);
                    ByteBuffer buf = ByteBuffer.allocate(COOPERATIVE_USER_DATA_V0.sizeOf(struct));
                    COOPERATIVE_USER_DATA_V0.write(buf, struct);
                    buf.flip();
                    s = new Subscription(subscribed, buf, owned, generation, rack);
                } else {
                    ByteBuffer userData = null;
                    if (!owned.isEmpty()) {
                        userData = generation >= 0
                            ? StickyAssignor.serializeTopicPartitionAssignment(new AbstractStickyAssignorMemberData(owned, generation).data)
                            : v0(owned);
                    }
                    s = new Subscription(subscribed, userData, Collections.emptyList(), generation, rack);
                }
                String instance = (String) m.get("instance");
                if (instance != null) s.setGroupInstanceId(Optional.of(instance));
                subscriptions.put(id, s);
            }
        }
    }

    /** StickyAssignor's V0 user data: the previous assignment without a generation. */
    static ByteBuffer v0(List<TopicPartition> owned) {
        Map<String, List<Integer>> byTopic = new LinkedHashMap<>();
        for (TopicPartition tp : owned) byTopic.computeIfAbsent(tp.topic(), k -> new ArrayList<>()).add(tp.partition());
        Struct struct = new Struct(StickyAssignor.STICKY_ASSIGNOR_USER_DATA_V0);
        List<Struct> topicAssignments = new ArrayList<>();
        for (Map.Entry<String, List<Integer>> e : byTopic.entrySet()) {
            Struct t = new Struct(StickyAssignor.TOPIC_ASSIGNMENT);
            t.set(StickyAssignor.TOPIC_KEY_NAME, e.getKey());
            t.set(StickyAssignor.PARTITIONS_KEY_NAME, e.getValue().toArray());
            topicAssignments.add(t);
        }
        struct.set(StickyAssignor.TOPIC_PARTITIONS_KEY_NAME, topicAssignments.toArray());
        ByteBuffer buf = ByteBuffer.allocate(StickyAssignor.STICKY_ASSIGNOR_USER_DATA_V0.sizeOf(struct));
        StickyAssignor.STICKY_ASSIGNOR_USER_DATA_V0.write(buf, struct);
        buf.flip();
        return buf;
    }

    /** Builds AbstractStickyAssignor.MemberData for a previous assignment at a generation. */
    static final class AbstractStickyAssignorMemberData {
        final org.apache.kafka.clients.consumer.internals.AbstractStickyAssignor.MemberData data;
        AbstractStickyAssignorMemberData(List<TopicPartition> owned, int generation) {
            data = new org.apache.kafka.clients.consumer.internals.AbstractStickyAssignor.MemberData(owned, Optional.of(generation));
        }
    }
    static final class Json {
        final String s;
        int i;

        Json(String s) { this.s = s; }

        Object value() {
            ws();
            char c = s.charAt(i);
            switch (c) {
                case '{': {
                    i++;
                    Map<String, Object> m = new LinkedHashMap<>();
                    ws();
                    if (s.charAt(i) == '}') { i++; return m; }
                    while (true) {
                        ws();
                        String k = string();
                        ws();
                        expect(':');
                        m.put(k, value());
                        ws();
                        if (s.charAt(i) == ',') { i++; continue; }
                        expect('}');
                        return m;
                    }
                }
                case '[': {
                    i++;
                    List<Object> l = new ArrayList<>();
                    ws();
                    if (s.charAt(i) == ']') { i++; return l; }
                    while (true) {
                        l.add(value());
                        ws();
                        if (s.charAt(i) == ',') { i++; continue; }
                        expect(']');
                        return l;
                    }
                }
                case '"':
                    return string();
                case 't': i += 4; return Boolean.TRUE;
                case 'f': i += 5; return Boolean.FALSE;
                case 'n': i += 4; return null;
                default: {
                    int j = i;
                    while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) i++;
                    return Long.parseLong(s.substring(j, i));
                }
            }
        }

        String string() {
            expect('"');
            StringBuilder b = new StringBuilder();
            while (true) {
                char c = s.charAt(i++);
                if (c == '"') return b.toString();
                if (c != '\\') { b.append(c); continue; }
                char e = s.charAt(i++);
                switch (e) {
                    case 'n': b.append('\n'); break;
                    case 't': b.append('\t'); break;
                    case 'r': b.append('\r'); break;
                    case 'b': b.append('\b'); break;
                    case 'f': b.append('\f'); break;
                    case 'u': b.append((char) Integer.parseInt(s.substring(i, i + 4), 16)); i += 4; break;
                    default: b.append(e);
                }
            }
        }

        void ws() { while (i < s.length() && Character.isWhitespace(s.charAt(i))) i++; }

        void expect(char c) {
            if (s.charAt(i) != c) throw new IllegalArgumentException("expected " + c + " at " + i);
            i++;
        }

        static void quote(StringBuilder b, String v) {
            b.append('"');
            for (int k = 0; k < v.length(); k++) {
                char c = v.charAt(k);
                if (c == '"' || c == '\\') b.append('\\').append(c);
                else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
                else b.append(c);
            }
            b.append('"');
        }
    }
}
