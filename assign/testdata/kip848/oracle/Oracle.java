import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.AbstractSet;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.assignor.MemberSubscription;
import org.apache.kafka.coordinator.group.api.assignor.PartitionAssignor;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.api.assignor.SubscriptionType;
import org.apache.kafka.coordinator.group.assignor.RangeAssignor;
import org.apache.kafka.coordinator.group.assignor.UniformAssignor;

/**
 * Reads groups in assigncalc's JSON contract, one per line on stdin, builds
 * the GroupSpec a coordinator would hand the assignor under the conventions
 * of assign/uniform.go, runs Kafka's assignor named by the first argument
 * ("uniform" or "range") and prints one JSON line per group:
 * {"name": ..., "assignment": {member: {topic: [partitions]}}} or
 * {"name": ..., "error": ...}.
 *
 * Conventions: members are put into a HashMap in the listed order; each
 * subscription is new HashSet<String>(names as listed), seen as topic ids
 * through a view that drops unknown names and whose size() is the number of
 * names, as Kafka's TopicIds; each current target is a HashMap<Uuid,
 * Set<Integer>> with topics put as listed, each new HashSet<Integer>(the
 * listed partitions), wrapped unmodifiable as the assignors require.
 */
public final class Oracle {
    public static void main(String[] args) throws Exception {
        run(args[0].equals("range") ? new RangeAssignor() : new UniformAssignor());
    }

    /** Answers every group on stdin with assignor (share/oracle reuses it). */
    public static void run(PartitionAssignor assignor) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) continue;
            @SuppressWarnings("unchecked")
            Map<String, Object> g = (Map<String, Object>) new Json(line).value();
            StringBuilder sb = new StringBuilder("{\"name\":");
            Json.quote(sb, String.valueOf(g.getOrDefault("name", "")));
            try {
                Spec spec = new Spec(g);
                GroupAssignment ga = assignor.assign(spec, spec);
                sb.append(",\"assignment\":{");
                boolean first = true;
                for (String id : spec.listed) {
                    if (!first) sb.append(',');
                    first = false;
                    Json.quote(sb, id);
                    sb.append(":{");
                    MemberAssignment ma = ga.members().get(id);
                    TreeMap<String, TreeSet<Integer>> byName = new TreeMap<>();
                    if (ma != null) {
                        for (Map.Entry<Uuid, Set<Integer>> e : ma.partitions().entrySet()) {
                            String name = spec.names.getOrDefault(e.getKey(), e.getKey().toString());
                            byName.computeIfAbsent(name, k -> new TreeSet<>()).addAll(e.getValue());
                        }
                    }
                    boolean firstTopic = true;
                    for (Map.Entry<String, TreeSet<Integer>> e : byName.entrySet()) {
                        if (e.getValue().isEmpty()) continue;
                        if (!firstTopic) sb.append(',');
                        firstTopic = false;
                        Json.quote(sb, e.getKey());
                        sb.append(":[");
                        boolean firstPart = true;
                        for (int p : e.getValue()) {
                            if (!firstPart) sb.append(',');
                            firstPart = false;
                            sb.append(p);
                        }
                        sb.append(']');
                    }
                    sb.append('}');
                }
                sb.append("}}");
            } catch (RuntimeException e) {
                sb.append(",\"error\":");
                Json.quote(sb, e.getClass().getSimpleName() + ": " + e.getMessage());
                sb.append('}');
            }
            out.println(sb);
        }
        out.flush();
    }

    /** The group as the coordinator hands it to the assignor. */
    static final class Spec implements GroupSpec, SubscribedTopicDescriber {
        final List<String> listed = new ArrayList<>();
        final Map<String, Member> members = new HashMap<>();
        final Map<String, Uuid> ids = new HashMap<>();
        final Map<Uuid, String> names = new HashMap<>();
        final Map<Uuid, Integer> partitionCounts = new HashMap<>();
        final Map<Uuid, Set<Integer>> assigned = new HashMap<>();
        final SubscriptionType type;

        @SuppressWarnings("unchecked")
        Spec(Map<String, Object> g) {
            Map<String, Object> topicIds = (Map<String, Object>) g.getOrDefault("topicIds", Map.of());
            for (Map.Entry<String, Object> e : topicIds.entrySet()) {
                Uuid id = Uuid.fromString((String) e.getValue());
                ids.put(e.getKey(), id);
                names.put(id, e.getKey());
            }
            Map<String, Object> topics = (Map<String, Object>) g.getOrDefault("topics", Map.of());
            for (Map.Entry<String, Object> e : topics.entrySet()) {
                Uuid id = ids.get(e.getKey());
                if (id == null) throw new IllegalArgumentException("no topic id for " + e.getKey());
                partitionCounts.put(id, ((Number) e.getValue()).intValue());
            }
            Map<String, Integer> subscribers = new HashMap<>();
            List<Object> ms = (List<Object>) g.getOrDefault("members", List.of());
            for (Object o : ms) {
                Map<String, Object> m = (Map<String, Object>) o;
                Member member = new Member(this, m);
                listed.add(member.id);
                members.put(member.id, member);
                for (String t : member.topicNames) subscribers.merge(t, 1, Integer::sum);
                for (Map.Entry<Uuid, Set<Integer>> e : member.assignment.entrySet()) {
                    assigned.computeIfAbsent(e.getKey(), k -> new HashSet<>()).addAll(e.getValue());
                }
            }
            SubscriptionType t = SubscriptionType.HOMOGENEOUS;
            for (int n : subscribers.values()) {
                if (n != members.size()) t = SubscriptionType.HETEROGENEOUS;
            }
            type = t;
        }

        @Override public Collection<String> memberIds() { return members.keySet(); }
        @Override public SubscriptionType subscriptionType() { return type; }
        @Override public boolean isPartitionAssigned(Uuid topicId, int partitionId) {
            Set<Integer> s = assigned.get(topicId);
            return s != null && s.contains(partitionId);
        }
        // Kafka 4.1 declares it; 4.0 does not, hence no @Override.
        public boolean isPartitionAssignable(Uuid topicId, int partitionId) { return true; }
        @Override public MemberSubscription memberSubscription(String memberId) {
            Member m = members.get(memberId);
            if (m == null) throw new IllegalArgumentException("Member Id " + memberId + " not found.");
            return m;
        }
        @Override public MemberAssignment memberAssignment(String memberId) {
            Member m = members.get(memberId);
            return m == null ? () -> Map.of() : m;
        }
        @Override public int numPartitions(Uuid topicId) { return partitionCounts.getOrDefault(topicId, -1); }
        @Override public Set<String> racksForPartition(Uuid topicId, int partition) { return Set.of(); }
    }

    static final class Member implements MemberSubscription, MemberAssignment {
        final String id;
        final Optional<String> instanceId;
        final Optional<String> rackId;
        final Set<String> topicNames;
        final Set<Uuid> topicIds;
        final Map<Uuid, Set<Integer>> assignment;

        @SuppressWarnings("unchecked")
        Member(Spec spec, Map<String, Object> m) {
            id = (String) m.get("id");
            instanceId = Optional.ofNullable((String) m.get("instance")).filter(s -> !s.isEmpty());
            rackId = Optional.ofNullable((String) m.get("rack")).filter(s -> !s.isEmpty());
            List<String> names = new ArrayList<>();
            for (Object t : (List<Object>) m.getOrDefault("topics", List.of())) names.add((String) t);
            topicNames = new HashSet<>(names);
            topicIds = new IdView(topicNames, spec);
            Map<Uuid, Set<Integer>> a = new HashMap<>();
            Map<String, Object> owned = (Map<String, Object>) m.getOrDefault("owned", Map.of());
            for (Map.Entry<String, Object> e : owned.entrySet()) {
                Uuid tid = spec.ids.get(e.getKey());
                if (tid == null) throw new IllegalArgumentException("no topic id for owned topic " + e.getKey());
                List<Integer> ps = new ArrayList<>();
                for (Object p : (List<Object>) e.getValue()) ps.add(((Number) p).intValue());
                if (!ps.isEmpty()) a.put(tid, new HashSet<>(ps));
            }
            assignment = Collections.unmodifiableMap(a);
        }

        @Override public Optional<String> rackId() { return rackId; }
        @Override public Optional<String> instanceId() { return instanceId; }
        @Override public Set<Uuid> subscribedTopicIds() { return topicIds; }
        @Override public Map<Uuid, Set<Integer>> partitions() { return assignment; }
    }

    /** Topic names seen as ids, unknown names skipped; size() counts the names. */
    static final class IdView extends AbstractSet<Uuid> {
        final Set<String> names;
        final Spec spec;

        IdView(Set<String> names, Spec spec) { this.names = names; this.spec = spec; }

        Uuid resolve(String name) {
            Uuid id = spec.ids.get(name);
            return id != null && spec.partitionCounts.containsKey(id) ? id : null;
        }

        @Override public int size() { return names.size(); }
        @Override public boolean contains(Object o) {
            String name = spec.names.get(o);
            return name != null && spec.partitionCounts.containsKey(o) && names.contains(name);
        }
        @Override public Iterator<Uuid> iterator() {
            Iterator<String> it = names.iterator();
            return new Iterator<>() {
                Uuid next;
                @Override public boolean hasNext() {
                    while (next == null && it.hasNext()) next = resolve(it.next());
                    return next != null;
                }
                @Override public Uuid next() {
                    if (!hasNext()) throw new NoSuchElementException();
                    Uuid r = next;
                    next = null;
                    return r;
                }
            };
        }
    }

    /** A small JSON reader that keeps the order of object keys. */
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
